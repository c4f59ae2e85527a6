"""Decompose to core ATen, the op set the op table is written against.

torch's default table gives core ATen. On top of it, ops with no kernel in ExecuTorch's portable
library become ops that have one, computed the way torch computes them so results agree to the
bit:
- ``round.decimals``: ``round(x * 10**d) / 10**d`` (``round(x / 10**-d) * 10**-d`` for d < 0).
- ``mean(x, dtype=d)`` of an x of another dtype: the mean of x cast to d.
- ``_embedding_bag`` (sum, mean, max): the looked-up rows, and a [bags, indices] membership
  mask built from the offsets; sum is mask @ rows, mean divides by the bag's size, max takes
  the largest member. Empty bags give 0, and padding_idx rows are left out, as torch.
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram, default_decompositions

from ..ops import all_ops

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
    bounds = torch.cat([offsets.to(torch.float32), torch.full((1,), float(n))])
    if include_last_offset:
        # The bags end at the last offset. torch's CPU kernel sums them so, but it counts the
        # last bag's size (mean) and takes its max up to the end of the indices: so do we.
        starts, ends, ends_to_n = bounds[:-2], bounds[1:-1], torch.cat([bounds[1:-2],
                                                                        bounds[-1:]])
    else:
        starts, ends = bounds[:-1], bounds[1:]
        ends_to_n = ends
    pos = torch.arange(n, dtype=torch.float32)

    def members(last):
        m = (pos >= starts[:, None]).to(torch.float32) * (pos < last[:, None]).to(torch.float32)
        if padding_idx >= 0:
            m = m * (indices.to(torch.float32) != float(padding_idx)).to(torch.float32)
        return m

    rows = aten.embedding.default(weight, indices)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    if mode == 2:
        member = members(ends_to_n)
        count = member.sum(1, keepdim=True)
        masked = torch.where(member[:, :, None] > 0, rows[None], float("-inf"))
        out = torch.where(count > 0, masked.amax(1), 0.0)
    else:
        out = members(ends) @ rows
        if mode == 1:
            out = out / torch.clamp(members(ends_to_n).sum(1, keepdim=True), min=1.0)
    unused = torch.zeros(starts.shape[0], dtype=torch.int64)   # offset2bag, bag_size, max_indices
    return out, unused, unused, unused


def _mean_in_dtype(self, dim=None, keepdim=False, *, dtype=None):
    """mean(x, dtype=d) of a tensor of another dtype: the mean of x cast to d."""
    if dtype is None or dtype == self.dtype:
        return NotImplemented                   # torch's own op, as it is
    return aten.mean.dim(aten._to_copy.default(self, dtype=dtype), dim, keepdim)


def _mean_all_in_dtype(self, *, dtype=None):
    if dtype is None or dtype == self.dtype:
        return NotImplemented
    return aten.mean.default(aten._to_copy.default(self, dtype=dtype))


# Ops whose default decomposition is skipped because the runtime has a kernel for them (the op
# table's ``keep``).
KEEP = tuple(op.aten for op in all_ops() if op.keep)


def decomposition_table() -> dict:
    table = default_decompositions()
    for op in KEEP:
        table.pop(op, None)
    table[aten.mean.dim] = _mean_in_dtype
    table[aten.mean.default] = _mean_all_in_dtype
    table[aten.round.decimals] = _round_decimals
    table[aten._embedding_bag.default] = _embedding_bag
    table[aten._embedding_bag_forward_only.default] = _embedding_bag
    return table


def decompose_to_core(ep: ExportedProgram) -> ExportedProgram:
    return ep.run_decompositions(decomposition_table())
