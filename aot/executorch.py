"""The last link of the chain: ExportedPrograms in, one planned Program out.

``to_executorch`` runs, per method, the executorch-stage passes (lowering to out-variant calls,
then memory planning) and emits one Program from all methods. The .pte (``buffer``) and the C
translation unit (``aot.generate_c``) are both renderings of that Program.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

from torch.export import ExportedProgram

from . import program as P
from .config import ExecutorchBackendConfig
from .emit import emit_program
from .errors import AotError
from .ir import DelegateCallSpec, MethodGraph
from .memory import Buffer, MemoryPlan, lower_bound, overlap_live
from .passes.lower_quantized import Fallback, Int8Facts
from .passes.patch_stage import PatchStage
from .passes.plan_memory import (lifetimes, plan_memory, trim_bands, widen_bands,
                                 without_bands)
from .passes.provenance import positions
from .passes.to_out_variant import to_out_variant
from .passes.verify_program import verify_program
from .pte import format_program, serialize_pte


@dataclass(frozen=True)
class LoweredMethod:
    """One method after the executorch stage: its calls and its arena plan."""
    graph: MethodGraph
    plan: MemoryPlan
    buffers: tuple[Buffer, ...]   # what was planned, for verify_plan, reports and drawings
    # call index -> the float op the int8 lowering left there (a float kernel between int8 ones)
    fallbacks: Mapping[int, Fallback] = field(default_factory=dict)
    patches: Optional[PatchStage] = None     # the stage computed patch by patch
    # the whole-tensor bound with every scratch at its kernel's own size (no bands): the plain
    # plan's bound, which the bands' scratch in an overlapped plan's lower_bound exceeds
    whole_bound: Optional[int] = None
    # the bound with overlaps where every band is as short as its kernel allows: the plan's
    # own counts the bands widen_bands gave the bytes free at their calls
    least_bound: Optional[int] = None


def _calls(name: str, ep: ExportedProgram, config: ExecutorchBackendConfig,
           int8: Optional[Int8Facts]) -> MethodGraph:
    """The method as out-variant calls (views become aliases; mutated buffers get a
    write-back copy), with no band scratch where an output cannot overlap its input."""
    planning = config.memory_planning_pass
    return trim_bands(to_out_variant(ep, name, planning, (int8 or Int8Facts()).qparams),
                      planning)


def lower_method(name: str, ep: ExportedProgram, config: ExecutorchBackendConfig,
                 int8: Optional[Int8Facts] = None) -> LoweredMethod:
    planning = config.memory_planning_pass
    int8 = int8 or Int8Facts()
    graph = _calls(name, ep, config, int8)
    plan = plan_memory(graph, planning, config.planning_alignment)   # fixed arena offsets
    for needed in (True, False):   # nor where the plan put it apart, or it is not needed
        trimmed = trim_bands(graph, planning, plan, needed)
        if trimmed is not graph:
            again = plan_memory(trimmed, planning, config.planning_alignment)
            if again.arena_size <= plan.arena_size:
                graph, plan = trimmed, again
                break
    least = plan.overlap_bound
    graph, plan = widen_bands(graph, planning, plan)   # bands as tall as the free bytes allow
    fallbacks = int8.fallbacks
    at = {pos: fallbacks[name] for name, pos in positions(ep, fallbacks).items()}
    by_call = {i: at[h] for i, call in enumerate(graph.calls) for h in call.debug_handles
               if h in at}
    plain = without_bands(graph)
    whole = plan.lower_bound if plain is graph else \
        lower_bound(lifetimes(plain, planning), config.planning_alignment)
    return LoweredMethod(graph, plan, tuple(lifetimes(graph, planning)), by_call, int8.patches,
                         whole, least)


def planned_arena(name: str, ep: ExportedProgram, config: ExecutorchBackendConfig,
                  int8: Optional[Int8Facts] = None) -> int:
    """The arena lower_method's first plan of the method takes (the bands it then trims or
    widens never make it larger): what the patch stage compares its options by."""
    return plan_memory(_calls(name, ep, config, int8), config.memory_planning_pass,
                       config.planning_alignment).arena_size


def live_by_node(name: str, ep: ExportedProgram, config: ExecutorchBackendConfig,
                 int8: Optional[Int8Facts] = None) -> dict[int, int]:
    """The bytes the method's plan must hold at each edge node's call, with the overlaps its
    kernels declare where the config plans them (a node's position in ``ep``'s graph ->
    bytes; aot.memory.overlap_live): what the patch stage weighs its stages against."""
    graph = _calls(name, ep, config, int8)
    live = overlap_live(lifetimes(graph, config.memory_planning_pass), config.planning_alignment)
    at: dict[int, int] = {}
    for i, call in enumerate(graph.calls):
        for h in call.debug_handles:
            at[h] = max(at.get(h, 0), live.get(i, 0))
    return at


class ExecutorchProgramManager:
    """One or more methods lowered, planned and emitted as a Program."""

    def __init__(self, execution_programs: Dict[str, ExportedProgram],
                 config_methods: Optional[Dict[str, Any]] = None,
                 backend_config: Optional[ExecutorchBackendConfig] = None, *,
                 int8: Optional[Dict[str, Int8Facts]] = None):
        self._execution_programs = dict(execution_programs)
        self._config_methods = dict(config_methods) if config_methods else None
        self._config = backend_config or ExecutorchBackendConfig()
        self._lowered = {name: lower_method(name, ep, self._config, (int8 or {}).get(name))
                         for name, ep in self._execution_programs.items()}
        self._program = verify_program(emit_program(     # checked before anything is written
            [(m.graph, m.plan) for m in self._lowered.values()], self._config_methods))
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

    def _pte_data(self):
        if self._pte is None:
            c = self._config
            self._pte = serialize_pte(
                self._program, extract_constant_segment=c.extract_constant_segment,
                extract_delegate_segments=c.extract_delegate_segments,
                segment_alignment=c.segment_alignment,
                constant_tensor_alignment=c.constant_tensor_alignment or 16,
                delegate_alignment=c.delegate_alignment, emit_stacktrace=c.emit_stacktrace)
        return self._pte

    @property
    def buffer(self) -> bytes:
        """The .pte file as bytes. To write a file, ``write_to_file`` avoids this copy."""
        if self._buffer is None:
            self._buffer = bytes(self._pte_data())
        return self._buffer

    def write_to_file(self, open_file: io.BufferedIOBase) -> None:
        """Write the .pte to an open binary file, chunk by chunk (no whole-file copy)."""
        self._pte_data().write_to(open_file)

    def dump_executorch_program(self, verbose: bool = False) -> None:
        """Print the Program: condensed, or every field as the schema has it."""
        print(format_program(self._program, verbose=verbose))

    @property
    def debug_handle_map(self) -> Dict[int, list]:
        """Instruction index in "forward" -> debug handles (edge graph node positions)."""
        return self.method_debug_handle_map().get("forward", {})

    def method_debug_handle_map(self) -> Dict[str, Dict[int, list]]:
        return {name: {i: list(call.debug_handles) for i, call in enumerate(m.graph.calls)}
                for name, m in self._lowered.items()}

    @property
    def delegate_map(self) -> Dict[str, Dict[int, dict]]:
        """Method -> delegate index -> {"name": backend id, "delegate_map": the debug handle map
        its backend's preprocess returned (backend-internal id -> edge-node debug handles)}."""
        out = {}
        for name, m in self._lowered.items():
            calls = [c for c in m.graph.calls if isinstance(c, DelegateCallSpec)]
            out[name] = {i: {"name": c.backend_id, "delegate_map": dict(c.debug_handle_map)}
                         for i, c in enumerate(calls)}
        return out
