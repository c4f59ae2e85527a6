"""Decompose to core ATen, the op set the op table is written against.

torch's default table gives core ATen. On top of it, ops with no kernel in ExecuTorch's portable
library become ops that have one, computed the way torch computes them so results agree to the
bit:
- ``round.decimals``: ``round(x * 10**d) / 10**d`` (``round(x / 10**-d) * 10**-d`` for d < 0).
- ``_embedding_bag`` (sum, mean, max): the looked-up rows, and a [bags, indices] membership
  mask built from the offsets; sum is mask @ rows, mean divides by the bag's size, max takes
  the largest member. Empty bags give 0, and padding_idx rows are left out, as torch.
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


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    n = indices.shape[0]
    starts = offsets.to(torch.float32)
    if include_last_offset:
        starts, ends = starts[:-1], starts[1:]
    else:
        ends = torch.cat([starts[1:], torch.full((1,), float(n))])
    pos = torch.arange(n, dtype=torch.float32)
    member = (pos >= starts[:, None]).to(torch.float32) * (pos < ends[:, None]).to(torch.float32)
    if padding_idx >= 0:
        member = member * (indices.to(torch.float32) != float(padding_idx)).to(torch.float32)
    rows = aten.embedding.default(weight, indices)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    count = member.sum(1, keepdim=True)
    if mode == 2:
        masked = torch.where(member[:, :, None] > 0, rows[None], float("-inf"))
        out = torch.where(count > 0, masked.amax(1), 0.0)
    else:
        out = member @ rows
        if mode == 1:
            out = out / torch.clamp(count, min=1.0)
    bags = starts.shape[0]
    unused = torch.zeros(bags, dtype=torch.int64)   # offset2bag, bag_size, max_indices
    return out, unused, unused, unused


def decomposition_table() -> dict:
    table = default_decompositions()
    table[aten.round.decimals] = _round_decimals
    table[aten._embedding_bag.default] = _embedding_bag
    table[aten._embedding_bag_forward_only.default] = _embedding_bag
    return table


def decompose_to_core(ep: ExportedProgram) -> ExportedProgram:
    return ep.run_decompositions(decomposition_table())
