"""The op table's data movement: its calls into runtime_c, declared once (aot/opspec.py).

clone, view_copy, squeeze/unsqueeze, copy (a buffer's write-back), _to_copy, ExecuTorch's dim
order copies and expand: a memmove of the dtype's width, or rt_to_copy where the dtype changes
(or has no rt_copy_*: int16). slice_copy, select_copy and permute_copy: the _f32 kernel for
float32, the element-size generic one for any other dtype (int8 maps). index_select, gather,
flip and slice_scatter: element-size generic kernels, with int64 or int32 indices. The
reflection and replication pads: element-size generic kernels over the last 1, 2 or 3 dims.
"""
from __future__ import annotations

import torch

from .opspec import (INT32_MAX, INT32_MIN, INVALID, UNSUPPORTED, Array, Bool, Call, CallSpec,
                     Dim, DimList, DimMask, Fail, Fn, If, Int, Ints, IsNone, IsRange, Lit, Out,
                     Read, Require, Select, Tensor)

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
_at = Select(_index < 0, _index + _size, _index)
_SELECT = CallSpec(Require(_x.rank > 0, INVALID, "select from a rank-0 tensor"),
                   Require(_size > 0, INVALID, "select from an empty dim"),
                   *_slice(_sel_dim, _at, _at + 1, Lit(1)))

# permute_copy: rt_permute_f32 for float32, the element-size generic rt_permute otherwise.
_perm, _perm_out = DimList("dims", of=_x, perm=True), Out("out", like=_x)
_PERMUTE = CallSpec(Read(_perm_out, _perm),
                    If(_x.is_dtype("float32"), Call("rt_permute_f32", _perm, _x, _perm_out),
                       Call("rt_permute", _x.elem_size, _perm, _x, _perm_out)))


def _index_dtype(idx: Tensor) -> If:
    return Require(idx.is_dtype("int64") | idx.is_dtype("int32"), UNSUPPORTED,
                   "an index tensor of a dtype other than int64 or int32")


_any_out = Out("out", dtype=None)
_idx = Tensor("index", dtype=None)       # int64 or int32: the kernels take either
_INDEX_SELECT = CallSpec(Read(_x, _any_out), _index_dtype(_idx),
                         Require(_idx.rank <= 1, INVALID, "index_select by an index of rank > 1"),
                         Call("rt_index_select", _x.elem_size, Dim("dim", of=_x),
                              _idx.dtype_code, _x, _idx, _any_out))

_GATHER = CallSpec(Read(_x, _any_out), _index_dtype(_idx),
                   If(Bool("sparse_grad"), Fail(UNSUPPORTED, "gather with sparse_grad")),
                   Require(_any_out.dtype_code.eq(_x.dtype_code), INVALID,
                           "gather into another dtype"),
                   Call("rt_gather", _x.elem_size, Dim("dim", of=_x), _idx.dtype_code, _x, _idx,
                        _any_out))

# flip: the dims as a mask (a rank-0 tensor has none to flip).
_flips = DimMask("dims", of=_x, empty_is_all=False)
_FLIP = CallSpec(Read(_x, _any_out, _flips),
                 Call("rt_flip", _x.elem_size, Select(_x.rank > 0, _flips, Lit(0, c="0u")), _x,
                      _any_out))


def _clamped(v, size):
    """A slice bound as torch reads it: negative from the end, then clamped to [0, size]."""
    v = Select(v < 0, v + size, v)
    return Select(v < 0, Lit(0), Select(v > size, size, v))


# slice_scatter: src fills x[start:end:step] along dim.
_src = Tensor("src", dtype=None)
_sc_dim = Dim("dim", of=_x)
_sc_size = _x.size(_sc_dim)
_sc_step = Int("step", 1, INT32_MAX)
_sc_start = Select(IsNone("start"), Lit(0), _clamped(Int("start"), _sc_size))
_sc_end = Select(IsNone("end"), _sc_size, _clamped(Int("end"), _sc_size))
_sc_count = Select(_sc_end > _sc_start, (_sc_end - _sc_start + _sc_step - 1) // _sc_step, Lit(0))
_SLICE_SCATTER = CallSpec(
    Read(_x, _src, _any_out),
    Require(_src.dtype_code.eq(_x.dtype_code), INVALID, "slice_scatter of another dtype"),
    Require(_x.rank > 0, INVALID, "slice_scatter into a 0-d tensor"),
    Read(_sc_dim, _sc_step, _sc_start, _sc_end),
    Require(_src.rank.eq(_x.rank) & _src.size(_sc_dim).eq(_sc_count), INVALID,
            "slice_scatter src does not fill the slice"),
    Call("rt_slice_scatter", _x.elem_size, _sc_dim, _sc_start, _sc_step, _x, _src, _any_out))


def mode_pads_to(shape: tuple, out: tuple, pad: list, k: int, reflect: int) -> bool:
    """rt_pte_mode_pads_to: whether ``out`` is ``shape`` (rank k+1 or k+2) padded over its last k
    dims by pad = [last_lo, last_hi, prev_lo, ...], its leading dims unchanged: each padded dim
    non-empty unless its output is empty, and (``reflect``) each pad smaller than its dim."""
    r = len(shape)
    if r not in (k + 1, k + 2) or len(out) != r:
        return False
    for i in range(k):
        d = r - 1 - i
        n, lo, hi = shape[d], pad[2 * i], pad[2 * i + 1]
        size = n + lo + hi
        if out[d] != size or (n == 0 and size > 0) or \
                (reflect and not (lo < n and hi < n) and size > 0):
            return False
    return out[0] == shape[0] and (r == k + 1 or out[1] == shape[1])


def _pad_mode(k: int, reflect: bool) -> CallSpec:
    """reflection_pad{k}d / replication_pad{k}d of a rank k+1 or k+2 tensor: padding [last_lo,
    last_hi, prev_lo, ...] over its last k dims, given to the kernel as each dim's lo."""
    out, r = Out("out", dtype=None), _x.rank
    pad = Ints("padding", n=2 * k)
    fits = Fn("rt_pte_mode_pads_to", mode_pads_to, _x, out, pad, k, int(reflect),
              ctype="int32_t")
    los = [pad.at(2 * i) for i in reversed(range(k))]         # dims r - k .. r - 1
    one, two = Array(0, *los), Array(0, 0, *los)                # before, at rank k+1 or k+2
    kernel = "rt_reflection_pad" if reflect else "rt_replication_pad"
    return CallSpec(
        Read(_x, out),
        Require(out.dtype_code.eq(_x.dtype_code), INVALID, "padding into another dtype"),
        Require((r.eq(k + 1) | r.eq(k + 2)) & out.rank.eq(r), INVALID,
                f"padding {k} dims of a tensor of another rank"),
        Read(pad),
        Require(fits, INVALID, "an output of another shape than the padding gives (or a "
                               "reflection as large as its dim, or an empty dim padded)"),
        Read(one, two),
        Call(kernel, _x.elem_size, Select(r.eq(k + 1), one, two), _x, out))


MOVES = {
    aten.clone.default: _copy(),
    aten._to_copy.default: _copy(),           # the dtype comes from out
    aten.view_copy.default: _copy(),
    aten.squeeze_copy.dims: _copy(),
    aten.unsqueeze_copy.default: _copy(),
    aten.copy.default: _copy("src"),
    aten.expand_copy.default: CallSpec(Call("rt_expand_f32", Tensor("self"), Out("out"))),
    aten.slice_copy.Tensor: _SLICE,
    aten.select_copy.int: _SELECT,
    aten.permute_copy.default: _PERMUTE,
    aten.index_select.default: _INDEX_SELECT,
    aten.gather.default: _GATHER,
    aten.flip.default: _FLIP,
    aten.slice_scatter.default: _SLICE_SCATTER,
    **{getattr(aten, f"{mode}_pad{k}d").default: _pad_mode(k, mode == "reflection")
       for k in (1, 2, 3) for mode in ("reflection", "replication")},
    "dim_order_ops::_clone_dim_order.out": _DIM_ORDER_COPY,
    "dim_order_ops::_to_dim_order_copy.out": _DIM_ORDER_COPY,
}
