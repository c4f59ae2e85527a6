"""The last link of the chain: ExportedPrograms in, one planned Program out.

``to_executorch`` runs, per method, the executorch-stage passes (lowering to out-variant calls,
then memory planning) and emits one Program from all methods. The .pte (``buffer``) and the C
translation unit (``aot.generate_c``) are both renderings of that Program.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Dict, Optional

from torch.export import ExportedProgram

from . import program as P
from .config import ExecutorchBackendConfig
from .emit import emit_program
from .errors import AotError
from .ir import MethodGraph
from .memory import Buffer, MemoryPlan
from .passes.plan_memory import lifetimes, plan_memory
from .passes.to_out_variant import to_out_variant


@dataclass(frozen=True)
class LoweredMethod:
    """One method after the executorch stage: its calls and its arena plan."""
    graph: MethodGraph
    plan: MemoryPlan
    buffers: tuple[Buffer, ...]   # what was planned, for verify_plan, reports and drawings


def lower_method(name: str, ep: ExportedProgram, config: ExecutorchBackendConfig) -> LoweredMethod:
    planning = config.memory_planning_pass
    graph = to_out_variant(ep, name, planning)       # out-variant calls; views become aliases;
    #                                                  mutated buffers get a write-back copy
    plan = plan_memory(graph, planning, config.planning_alignment)   # fixed arena offsets
    return LoweredMethod(graph, plan, tuple(lifetimes(graph, planning)))


class ExecutorchProgramManager:
    """One or more methods lowered, planned and emitted as a Program."""

    def __init__(self, execution_programs: Dict[str, ExportedProgram],
                 config_methods: Optional[Dict[str, Any]] = None,
                 backend_config: Optional[ExecutorchBackendConfig] = None):
        self._execution_programs = dict(execution_programs)
        self._config_methods = dict(config_methods) if config_methods else None
        self._config = backend_config or ExecutorchBackendConfig()
        self._lowered = {name: lower_method(name, ep, self._config)
                         for name, ep in self._execution_programs.items()}
        self._program = emit_program([(m.graph, m.plan) for m in self._lowered.values()],
                                     self._config_methods)
        self._pte = None
        self._buffer: Optional[bytes] = None

    @property
    def methods(self) -> set:
        return set(self._execution_programs)

    @property
    def config_methods(self) -> set:
        return set(self._config_methods) if self._config_methods else set()

    @property
    def config(self) -> ExecutorchBackendConfig:
        return self._config

    def exported_program(self, method_name: str = "forward") -> ExportedProgram:
        if method_name not in self._execution_programs:
            raise AotError(f"no method {method_name!r}; methods: {sorted(self.methods)}")
        return self._execution_programs[method_name]

    def lowered(self, method_name: str = "forward") -> LoweredMethod:
        """The method's out-variant calls and memory plan (what reports and drawings read)."""
        self.exported_program(method_name)
        return self._lowered[method_name]

    @property
    def executorch_program(self) -> P.Program:
        """The Program before serialization: what both emitters render."""
        return self._program
