"""The op verifier: every op must be in the op table. One error lists every offender."""
from __future__ import annotations

import operator

from torch.export import ExportedProgram

from ..errors import UnsupportedOpError
from ..ops import OPS
from ..source import source_of

_STRUCTURAL = {operator.getitem}


def unsupported_ops(ep: ExportedProgram) -> list[tuple[str, str]]:
    """(op, source line) for each node whose op mcu-aot cannot lower, in graph order."""
    missing = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target in _STRUCTURAL or node.target in OPS:
            continue
        if getattr(node.target, "__name__", "") == "executorch_call_delegate":
            continue
        missing.append((str(node.target), str(source_of(node))))
    return missing


def verify_ops(ep: ExportedProgram) -> ExportedProgram:
    missing = unsupported_ops(ep)
    if missing:
        raise UnsupportedOpError(missing)
    return ep
