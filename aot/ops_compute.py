"""The op table's matrix products, embedding and adaptive pooling: their calls into runtime_c,
declared once (aot/opspec.py).
"""
from __future__ import annotations

import torch

from .opspec import (INVALID, UNSUPPORTED, Act, Call, CallSpec, Float, If, Ints, Out, Read,
                     Require, Tensor)

aten = torch.ops.aten


def _matmul(kernel: str) -> CallSpec:
    """mm / bmm: self @ mat2 (the kernel checks the shapes)."""
    return CallSpec(Call(kernel, Tensor("self"), Tensor("mat2"), Out("out")))


# addmm: act(beta * self + alpha * (mat1 @ mat2)), with the activation fused into it if any.
_ADDMM = CallSpec(Call("rt_addmm_f32", Act(), Float("beta"), Float("alpha"), Tensor("self"),
                       Tensor("mat1"), Tensor("mat2"), Out("out")))

# embedding: rows of weight picked by int64 or int32 indices (padding_idx, scale_grad_by_freq
# and sparse only matter to training: kind-checked, not read).
_indices = Tensor("indices", dtype=None)
_EMBEDDING = CallSpec(If(_indices.is_dtype("int64"),
                         Call("rt_embedding_i64_f32", Tensor("weight"),
                              Tensor("indices", "int64"), Out("out")),
                         Call("rt_embedding_i32_f32", Tensor("weight"),
                              Tensor("indices", "int32"), Out("out"))))



def _adaptive(kernel: str, *more) -> CallSpec:
    """Adaptive pooling of a rank-3 or rank-4 input to out [..., *output_size] (``more``: the
    kernel's arguments after out)."""
    x, out, size = Tensor("self"), Out("out"), Ints("output_size", n=2, lo=0)
    r = x.rank
    return CallSpec(
        Require(r.eq(3) | r.eq(4), UNSUPPORTED, "adaptive pooling of a rank other than 3 or 4"),
        Read(size, out),
        Require(out.rank.eq(r) & out.size(r - 2).eq(size.at(0)) &
                out.size(r - 1).eq(size.at(1)) & out.size(0).eq(x.size(0)) &
                (r.eq(3) | out.size(1).eq(x.size(1))), INVALID,
                "an output whose shape is not the input's with output_size"),
        Require((x.size(r - 2).ne(0) & x.size(r - 1).ne(0)) | out.numel.eq(0), INVALID,
                "adaptive pooling of an empty input"),
        Call(kernel, x, out, *more))


COMPUTE = {
    aten.addmm.default: _ADDMM,
    aten.mm.default: _matmul("rt_mm_f32"),
    aten.bmm.default: _matmul("rt_bmm_f32"),
    aten.embedding.default: _EMBEDDING,
    aten._adaptive_avg_pool2d.default: _adaptive("rt_adaptive_avg_pool2d_f32"),
    aten.adaptive_max_pool2d.default: _adaptive("rt_adaptive_max_pool2d_f32",
                                                Out("indices", "int64")),
}
