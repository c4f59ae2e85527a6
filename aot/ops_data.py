"""The op table's copies and slices: their calls into runtime_c, declared once (aot/opspec.py).

clone, view_copy, squeeze/unsqueeze, copy (a buffer's write-back), _to_copy, ExecuTorch's dim
order copies and expand: a memmove of the dtype's width, or rt_to_copy where the dtype changes
(or has no rt_copy_*: int16). slice_copy and select_copy: rt_slice_f32 for float32, the
element-size generic rt_slice for any other dtype (int8 maps).
"""
from __future__ import annotations

import torch

from .opspec import (INT32_MAX, INT32_MIN, INVALID, UNSUPPORTED, Call, CallSpec, Dim, Fail,
                     If, Int, IsNone, IsRange, Lit, Out, Read, Require, Select, Tensor)

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

_x = Tensor("self", dtype=None)
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _slice(dim, start, end, step) -> tuple:
    """x[start:end:step] along dim into out (out of x's dtype)."""
    out = Out("out", like=_x)
    return (Read(dim, start, end, step, out),
            If(_x.is_dtype("float32"), Call("rt_slice_f32", dim, start, end, step, _x, out),
               Call("rt_slice", _x.elem_size, dim, start, end, step, _x, out)))


def _int32(e):
    """An int64 clamped to int32's range (a slice bound past the end is the end)."""
    return Select(e < INT32_MIN, Lit(INT32_MIN), Select(e > INT32_MAX, Lit(INT32_MAX), e))


def _bound(name: str, none):
    """slice_copy's start or end: ``none`` when None, else any int64, clamped."""
    return Select(IsNone(name), none, _int32(Int(name, _INT64_MIN, _INT64_MAX)))


_dim = Dim("dim", of=_x)
_SLICE = CallSpec(*_slice(_dim, _bound("start", Lit(0)),
                         _bound("end", Select(_x.rank.eq(0), Lit(1), _x.size(_dim))),
                         Int("step", 1, INT32_MAX)))

# select_copy: a slice of one, at an index in [-size, size) of a non-empty dim.
_sel_dim = Dim("dim", of=_x)
_size = _x.size(_sel_dim)
_index = Int("index", -_size, _size - 1)
_SELECT = CallSpec(Require(_x.rank > 0, INVALID, "select from a rank-0 tensor"),
                   Require(_size > 0, INVALID, "select from an empty dim"),
                   *_slice(_sel_dim, Select(_index < 0, _index + _size, _index),
                          Select(_index < 0, _index + _size, _index) + 1, Lit(1)))

COPIES = {
    aten.clone.default: _copy(),
    aten._to_copy.default: _copy(),           # the dtype comes from out
    aten.view_copy.default: _copy(),
    aten.squeeze_copy.dims: _copy(),
    aten.unsqueeze_copy.default: _copy(),
    aten.copy.default: _copy("src"),
    aten.expand_copy.default: CallSpec(Call("rt_expand_f32", Tensor("self"), Out("out"))),
    aten.slice_copy.Tensor: _SLICE,
    aten.select_copy.int: _SELECT,
    "dim_order_ops::_clone_dim_order.out": _DIM_ORDER_COPY,
    "dim_order_ops::_to_dim_order_copy.out": _DIM_ORDER_COPY,
}
