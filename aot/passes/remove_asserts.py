"""Remove run-time assertions and other side-effect-only nodes torch.export leaves behind."""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor

aten = torch.ops.aten

_ASSERTS = {aten._assert_async.msg, aten._assert_scalar.default,
            aten._assert_tensor_metadata.default, aten.sym_constrain_range.default,
            aten.sym_constrain_range_for_size.default, aten._assert_async.default}


def remove_asserts(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        if node.op == "call_function" and node.target in _ASSERTS:
            ed.graph.erase_node(node)
    return ed.finish()
