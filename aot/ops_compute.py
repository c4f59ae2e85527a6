"""The op table's matrix products and embedding: their calls into runtime_c, declared once
(aot/opspec.py).
"""
from __future__ import annotations

import torch

from .opspec import Act, Call, CallSpec, Float, If, Out, Tensor

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

COMPUTE = {
    aten.addmm.default: _ADDMM,
    aten.mm.default: _matmul("rt_mm_f32"),
    aten.bmm.default: _matmul("rt_bmm_f32"),
    aten.embedding.default: _EMBEDDING,
}
