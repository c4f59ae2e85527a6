"""The exir-style lowering chain: to_edge -> EdgeProgramManager -> to_executorch.

Names and behaviour follow ExecuTorch's exir API (docs/api.md). Each manager holds one
ExportedProgram per method; ``to_executorch`` lowers each to out-variant calls, plans the arena
and builds the one Program that both the .pte and the C generator render.
"""
from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Callable, Dict, Optional, Sequence, Union

import torch
from torch.export import ExportedProgram

from .config import EdgeCompileConfig, ExecutorchBackendConfig
from .errors import AotError, ExportFailure
from .backend import to_backend
from .executorch import ExecutorchProgramManager, live_by_node, planned_arena
from .passes import edge_passes, verify_ops
from .passes._editor import ProgramEditor
from .passes.lower_quantized import Int8Facts, Int8Lowering
from .passes.patch_stage import patch_stage

Programs = Union[ExportedProgram, Dict[str, ExportedProgram]]
PassType = Callable[[torch.fx.GraphModule], Any]


def export(module: torch.nn.Module, args: tuple, kwargs: Optional[dict] = None,
           strict: bool = False) -> ExportedProgram:
    """``torch.export.export`` with a clear error when the model will not trace."""
    try:
        return torch.export.export(module, args, kwargs, strict=strict)
    except Exception as e:  # torch raises many types; the user needs the first line
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ExportFailure(f"torch.export could not trace {type(module).__name__}: "
                            f"{type(e).__name__}: {reason}") from None


def _as_dict(programs: Programs) -> Dict[str, ExportedProgram]:
    if isinstance(programs, ExportedProgram):
        return {"forward": programs}
    if isinstance(programs, dict) and all(isinstance(p, ExportedProgram)
                                          for p in programs.values()):
        return dict(programs)
    raise AotError("to_edge takes an ExportedProgram (from torch.export.export) or a dict of "
                   f"method name -> ExportedProgram, not {type(programs).__name__}")


def _lower_to_edge(ep: ExportedProgram, config: EdgeCompileConfig
                   ) -> tuple[ExportedProgram, Int8Facts]:
    """The edge passes in order. The int8 lowering's result is typed: what it knows of its
    nodes (qparams, fallbacks) is carried through every pass after it."""
    facts = Int8Facts()
    for p in edge_passes(config):
        got = p(ep)
        if isinstance(got, Int8Lowering):
            ep, facts = got.program, got.facts
        else:
            ep, facts = got, facts.carried(ep, got)
    return ep, facts


def to_edge(programs: Programs, constant_methods: Optional[Dict[str, Any]] = None,
            compile_config: Optional[EdgeCompileConfig] = None) -> "EdgeProgramManager":
    """Lower ATen ExportedPrograms to the edge dialect (core ATen, folded, verified).

    A single ExportedProgram becomes the method "forward"."""
    config = compile_config or EdgeCompileConfig()
    if isinstance(constant_methods, EdgeCompileConfig):
        raise AotError("pass the EdgeCompileConfig as compile_config=, not constant_methods")
    lowered = {name: _lower_to_edge(ep, config) for name, ep in _as_dict(programs).items()}
    return EdgeProgramManager({name: ep for name, (ep, _) in lowered.items()}, constant_methods,
                              config, int8={name: f for name, (_, f) in lowered.items()})


def _apply_user_passes(ep: ExportedProgram, passes: Sequence[PassType]) -> ExportedProgram:
    """Run graph-module passes (``gm -> PassResult | GraphModule | None``) on a copy of ep."""
    ep = copy.deepcopy(ep)
    gm = ep.graph_module
    for p in passes:
        result = p(gm)
        if result is None:
            continue
        gm = getattr(result, "graph_module", result)
        if not isinstance(gm, torch.fx.GraphModule):
            raise AotError(f"pass {getattr(p, '__name__', p)!r} returned "
                           f"{type(result).__name__}, not a PassResult or GraphModule")
    if gm is not ep.graph_module:
        ep.graph_module.graph = gm.graph
    return ProgramEditor(ep).finish()


class EdgeProgramManager:
    """One or more ExportedPrograms in the edge dialect, ready for delegation and emission."""

    def __init__(self, edge_programs: Dict[str, ExportedProgram],
                 constant_methods: Optional[Dict[str, Any]] = None,
                 compile_config: Optional[EdgeCompileConfig] = None, *,
                 int8: Optional[Dict[str, Int8Facts]] = None):
        self._edge_programs = dict(edge_programs)
        self._int8 = {name: (int8 or {}).get(name, Int8Facts()) for name in edge_programs}
        self._config_methods = dict(constant_methods) if constant_methods else None
        self._config = compile_config or EdgeCompileConfig()
        clash = set(self._edge_programs) & set(self._config_methods or {})
        if clash:
            raise AotError(f"constant_methods reuse method names: {sorted(clash)}")

    @property
    def methods(self) -> set:
        return set(self._edge_programs)

    @property
    def config_methods(self) -> set:
        return set(self._config_methods) if self._config_methods else set()

    def exported_program(self, method_name: str = "forward") -> ExportedProgram:
        if method_name not in self._edge_programs:
            raise AotError(f"no method {method_name!r}; methods: {sorted(self.methods)}")
        return self._edge_programs[method_name]

    def transform(self, passes: Union[Sequence[PassType], Dict[str, Sequence[PassType]]],
                  check_ir_validity: bool = True) -> "EdgeProgramManager":
        """A copy with ``passes`` applied to every method, or per method from a dict."""
        new = {}
        for name, ep in self._edge_programs.items():
            todo = passes.get(name) if isinstance(passes, dict) else passes
            new[name] = _apply_user_passes(ep, todo) if todo is not None else copy.deepcopy(ep)
            if check_ir_validity:
                verify_ops(new[name])
        return EdgeProgramManager(new, copy.deepcopy(self._config_methods), self._config,
                                  int8=self._carried(new))

    def _carried(self, new: Dict[str, ExportedProgram]) -> Dict[str, Int8Facts]:
        return {name: self._int8[name].carried(self._edge_programs[name], ep)
                for name, ep in new.items()}

    def to_backend(self, partitioner) -> "EdgeProgramManager":
        """A copy with the partitioner's tagged subgraphs lowered to their backends."""
        new = {}
        for name, ep in self._edge_programs.items():
            part = partitioner.get(name) if isinstance(partitioner, dict) else partitioner
            new[name] = to_backend(ep, part) if part is not None else copy.deepcopy(ep)
        config = replace(self._config, _check_ir_validity=False)
        return EdgeProgramManager(new, copy.deepcopy(self._config_methods), config,
                                  int8=self._carried(new))

    def to_executorch(self, config: Optional[ExecutorchBackendConfig] = None
                      ) -> "ExecutorchProgramManager":
        """Lower to out-variant calls, plan memory and build the Program. A stage computed
        patch by patch (EdgeCompileConfig.patches) is chosen here, for the plan the config
        asks for: with overlaps, the stage need only bring its peak down to the rest's."""
        config = config or ExecutorchBackendConfig()
        programs, int8 = self._edge_programs, self._int8
        if self._config.patches:
            programs, int8 = self._patched(config)
        return ExecutorchProgramManager(programs, self._config_methods, config, int8=int8)

    def _patched(self, config: ExecutorchBackendConfig
                 ) -> tuple[Dict[str, ExportedProgram], Dict[str, Int8Facts]]:
        at = self._config.patches if isinstance(self._config.patches, tuple) else None
        programs, int8 = {}, {}
        for name, ep in self._edge_programs.items():
            facts = self._int8[name]
            live = live_by_node(name, ep, config, facts) \
                if at is None and config.memory_planning_pass.overlap else None

            def arena(p: ExportedProgram, name=name, ep=ep, facts=facts) -> int:
                return planned_arena(name, p, config, facts.carried(ep, p))
            got = patch_stage(ep, at, live, arena)
            programs[name] = got.program
            int8[name] = replace(facts.carried(ep, got.program), patches=got.stage)
        return programs, int8


def to_edge_transform_and_lower(programs: Programs, transform_passes=None, partitioner=None,
                                constant_methods: Optional[Dict[str, Any]] = None,
                                compile_config: Optional[EdgeCompileConfig] = None
                                ) -> EdgeProgramManager:
    """to_edge, then the transform passes, then delegation to each partitioner in turn.

    Ops are verified after delegation, as ExecuTorch does: an op that only a backend supports
    is fine once the partitioner has handed it to that backend."""
    config = compile_config or EdgeCompileConfig()
    edge = to_edge(programs, constant_methods, replace(config, _check_ir_validity=False))
    if transform_passes is not None:
        edge = edge.transform(transform_passes, check_ir_validity=False)
    parts = partitioner if isinstance(partitioner, (list, tuple)) else \
        ([partitioner] if partitioner is not None else [])
    for part in parts:
        edge = edge.to_backend(part)
    if config._check_ir_validity:
        for name in sorted(edge.methods):
            verify_ops(edge.exported_program(name))
    return edge
