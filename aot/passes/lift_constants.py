"""Lift tensor constants held as module attributes (get_attr) into constant placeholders."""
from __future__ import annotations

import torch
from torch.export import ExportedProgram
from torch.fx.traceback import NodeSource

from ._editor import ProgramEditor


def lift_constants(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        if node.op != "get_attr":
            continue
        value = getattr(ed.gm, node.target)
        if not isinstance(value, torch.Tensor):
            continue  # submodules (e.g. lowered delegates) stay as they are
        const = ed.add_const(value, node.target.replace(".", "_"))
        const.meta["from_node"] = [NodeSource(node, "lift_constants")]   # provenance.carry
        node.replace_all_uses_with(const)
        ed.graph.erase_node(node)
    return ed.finish()
