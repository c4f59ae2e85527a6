"""Refuse graphs exported in training mode: batch norm that updates its statistics, dropout."""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ..errors import TrainingModeError
from ..source import source_of

aten = torch.ops.aten

_TRAINING_OPS = {
    aten._native_batch_norm_legit_functional.default: "batch norm in training mode",
    aten._native_batch_norm_legit.default: "batch norm in training mode",
    aten._native_batch_norm_legit.no_stats: "batch norm without running statistics",
    aten.native_batch_norm.default: "batch norm in training mode",
    aten.native_dropout.default: "dropout in training mode",
}


def check_training_mode(ep: ExportedProgram) -> ExportedProgram:
    found = [(_TRAINING_OPS[n.target], source_of(n)) for n in ep.graph.nodes
             if n.op == "call_function" and n.target in _TRAINING_OPS]
    if found:
        lines = "\n".join(f"  {what} at {src}" for what, src in found)
        raise TrainingModeError(
            f"the model was exported in training mode; call model.eval() before "
            f"torch.export.export:\n{lines}")
    return ep
