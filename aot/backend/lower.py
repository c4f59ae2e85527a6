"""``to_backend``: one name, two flows, chosen by the type of the first argument.

    to_backend(backend_id: str, edge_program, compile_specs) -> LoweredBackendModule
        Lower a whole edge program to one backend (flows 1 and 2).
    to_backend(edge_program, partitioner) -> ExportedProgram
        Lower the nodes the partitioner tags; the rest stays (flow 3).
"""
from __future__ import annotations

import copy
import functools
from typing import Sequence

from torch.export import ExportedProgram

from ..errors import BackendError
from ..program import CompileSpec
from .details import PreprocessResult, get_backend
from .lowered import LoweredBackendModule
from .partition import lower_partitions
from .partitioner import DelegationSpec, PartitionResult, Partitioner

DEBUG_HANDLE = "debug_handle"   # node.meta key, as ExecuTorch names it


def stamp_debug_handles(ep: ExportedProgram) -> None:
    """Give every node without one a debug handle: its position in the graph. Handles survive
    partitioning, so a delegate's debug_handle_map names nodes of the program the user lowered."""
    for i, node in enumerate(ep.graph.nodes):
        node.meta.setdefault(DEBUG_HANDLE, i)


def _compile_specs(backend_id: str, specs) -> tuple[CompileSpec, ...]:
    out = []
    for s in specs or ():
        key, value = getattr(s, "key", None), getattr(s, "value", None)
        if not isinstance(key, str) or not isinstance(value, (bytes, bytearray)):
            raise BackendError(f"backend {backend_id}: compile specs are CompileSpec(key: str, "
                               f"value: bytes), not {s!r}")
        out.append(CompileSpec(key, bytes(value)))
    return tuple(out)


@functools.singledispatch
def to_backend(*args, **kwargs):
    raise BackendError("to_backend takes (backend_id: str, edge_program: ExportedProgram, "
                       "compile_specs: list[CompileSpec]) or (edge_program: ExportedProgram, "
                       f"partitioner: Partitioner), not ({', '.join(type(a).__name__ for a in args)})")


@to_backend.register
def _(backend_id: str, edge_program: ExportedProgram,
      compile_specs: Sequence[CompileSpec] = ()) -> LoweredBackendModule:
    backend = get_backend(backend_id)
    if not isinstance(edge_program, ExportedProgram):
        raise BackendError(f"backend {backend_id}: to_backend lowers an ExportedProgram (e.g. "
                           f"to_edge(...).exported_program()), not {type(edge_program).__name__}")
    specs = _compile_specs(backend_id, compile_specs)
    stamp_debug_handles(edge_program)
    nodes = [n.name for n in edge_program.graph.nodes if n.op == "call_function"]
    what = f"nodes {', '.join(nodes)}" if len(nodes) <= 12 else \
        f"{len(nodes)} nodes ({', '.join(nodes[:6])}, ...)"
    try:
        result = backend.preprocess(copy.deepcopy(edge_program), list(specs))
    except BackendError:
        raise
    except Exception as e:
        raise BackendError(f"backend {backend_id}: preprocess failed on {what}: "
                           f"{type(e).__name__}: {e}") from e
    if not isinstance(result, PreprocessResult):
        raise BackendError(f"backend {backend_id}: preprocess returned "
                           f"{type(result).__name__}, not a PreprocessResult")
    return LoweredBackendModule(edge_program, backend_id, result.processed_bytes, list(specs),
                                result.debug_handle_map)


@to_backend.register
def _(edge_program: ExportedProgram, partitioner: Partitioner) -> ExportedProgram:
    if not isinstance(partitioner, Partitioner):
        raise BackendError(f"to_backend takes a Partitioner, not {type(partitioner).__name__}")
    ep = copy.deepcopy(edge_program)
    stamp_debug_handles(ep)
    result = partitioner.partition(ep)
    name = type(partitioner).__name__
    if not isinstance(result, PartitionResult):
        raise BackendError(f"{name}.partition returned {type(result).__name__}, "
                           "not a PartitionResult")
    tags = dict(result.partition_tags)
    for tag, spec in tags.items():
        if not isinstance(spec, DelegationSpec):
            raise BackendError(f"{name}: tag {tag!r} maps to {type(spec).__name__}, "
                               "not a DelegationSpec")
        get_backend(spec.backend_id)
    return lower_partitions(result.tagged_exported_program, tags,
                            lambda backend_id, program, specs: to_backend(backend_id, program,
                                                                          list(specs)))
