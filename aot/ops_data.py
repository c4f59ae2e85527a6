"""The op table's copies: their calls into runtime_c, declared once (aot/opspec.py).

clone, view_copy, squeeze/unsqueeze, copy (a buffer's write-back), _to_copy, ExecuTorch's dim
order copies and expand. A copy is a memmove of its dtype's width, or rt_to_copy where the
dtype changes (or has no rt_copy_*: int16).
"""
from __future__ import annotations

import torch

from .opspec import (INVALID, UNSUPPORTED, Call, CallSpec, Fail, If, IsNone, IsRange, Out,
                     Require, Tensor)

aten = torch.ops.aten

_out = Out("out", dtype=None)


def _copy(source: str = "self", *first) -> CallSpec:
    """A copy of ``source`` into out, after the statements ``first``."""
    src = Tensor(source, dtype=None)
    same = src.dtype_code.eq(_out.dtype_code)
    return CallSpec(
        *first,
        Require(src.numel.eq(_out.numel), INVALID, "a copy into another number of elements"),
        If(same & src.is_dtype("float32"), Call("rt_copy_f32", src, _out)),
        If(same & src.is_dtype("int32"), Call("rt_copy_i32", src, _out)),
        If(same & src.is_dtype("int64"), Call("rt_copy_i64", src, _out)),
        If(same & (src.is_dtype("bool") | src.is_dtype("uint8") | src.is_dtype("int8")),
           Call("rt_copy_u8", src, _out)),
        Call("rt_to_copy", src.dtype_code, _out.dtype_code, src, _out))


# ExecuTorch's clone / _to_copy with a dim order: contiguous in, contiguous out.
_DIM_ORDER_COPY = _copy("self", If(~IsNone("dim_order") &
                                   ~IsRange("dim_order", n=_out.rank),
                                   Fail(UNSUPPORTED, "a copy into another dim order")))

COPIES = {
    aten.clone.default: _copy(),
    aten._to_copy.default: _copy(),           # the dtype comes from out
    aten.view_copy.default: _copy(),
    aten.squeeze_copy.dims: _copy(),
    aten.unsqueeze_copy.default: _copy(),
    aten.copy.default: _copy("src"),
    aten.expand_copy.default: CallSpec(Call("rt_expand_f32", Tensor("self"), Out("out"))),
    "dim_order_ops::_clone_dim_order.out": _DIM_ORDER_COPY,
    "dim_order_ops::_to_dim_order_copy.out": _DIM_ORDER_COPY,
}
