"""Decompose to core ATen, the op set the op table is written against.

torch's default table gives core ATen. On top of it, ops with no kernel in ExecuTorch's portable
library become ops that have one, computed the way torch computes them so results agree to the
bit:
- ``round.decimals``: ``round(x * 10**d) / 10**d`` (``round(x / 10**-d) * 10**-d`` for d < 0).
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram, default_decompositions

aten = torch.ops.aten


def _round_decimals(self: torch.Tensor, *, decimals: int = 0) -> torch.Tensor:
    if decimals == 0:
        return aten.round.default(self)
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        return aten.div.Scalar(aten.round.default(aten.mul.Scalar(self, scale)), scale)
    return aten.mul.Scalar(aten.round.default(aten.div.Scalar(self, scale)), scale)


def decomposition_table() -> dict:
    table = default_decompositions()
    table[aten.round.decimals] = _round_decimals
    return table


def decompose_to_core(ep: ExportedProgram) -> ExportedProgram:
    return ep.run_decompositions(decomposition_table())
