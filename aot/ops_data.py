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
                     Dim, DimList, DimMask, Fail, Float, Fn, If, Int, IntArray, Ints, IsNone,
                     IsRange, Lit, Number, Out, Params, Read, Require, Select, Tensor, Tensors,
                     Value)
from .program import ScalarType

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


def ints_sum(v: list, n: int) -> int:
    """rt_pte_ints_sum: the sum of the first n items."""
    return sum(v[:n])


def ints_min(v: list, n: int) -> int:
    """rt_pte_ints_min: the least of the first n items (INT32_MAX of none)."""
    return min(v[:n], default=INT32_MAX)


def pad_before(pad: list, n: int, rank: int) -> list:
    """rt_pte_pad_before: PyTorch's pad list [last_lo, last_hi, prev_lo, ...] (n items) as the
    elements added before each of rank dims, in dim order."""
    before = [0] * rank
    for k in range(min(n // 2, rank)):
        before[rank - 1 - k] = pad[2 * k]
    return before


def index_dtypes_ok(dtypes: list, n: int) -> bool:
    """rt_pte_index_dtypes_ok: every entry None (-1), an int64 or an int32 tensor."""
    return all(d in (-1, ScalarType.LONG, ScalarType.INT) for d in dtypes[:n])


def index_bcast_pos(dtypes: list, n: int) -> int:
    """rt_pte_index_bcast_pos: the first tensor's position when the tensors are adjacent, else 0
    (numpy's rule); -1 with no tensor."""
    given = [k for k in range(n) if dtypes[k] != -1]
    if not given:
        return -1
    return given[0] if given == list(range(given[0], given[-1] + 1)) else 0


# split_with_sizes: out[k] is the next split_sizes[k] items along dim (one rt_split).
_split_dim = Dim("dim", of=_x)
_sizes = IntArray("split_sizes", lo=0)
_pieces = Tensors("out", like=_x, out=True)
_SPLIT = CallSpec(
    Read(_x, _split_dim, _sizes, _pieces),
    Require(_sizes.count.eq(_pieces.count) &
            Fn("rt_pte_ints_sum", ints_sum, _sizes, _sizes.count).eq(
                Select(_x.rank.eq(0), Lit(1), _x.size(_split_dim))),
            INVALID, "split sizes that do not number the outputs or add up to the dim's size"),
    Call("rt_split", _x.elem_size, _split_dim, _pieces.count, _sizes, _x, _pieces.shapes,
         _pieces.ptrs))

# cat: the kernel takes the inputs as arrays of shapes and pointers (and passes over torch's
# legacy empty 1-D inputs itself).
_cat_out = Out("out", dtype=None)
_cat_in = Tensors("tensors", like=_cat_out)
_cat_dim = Dim("dim", of=_cat_out)
_CAT = CallSpec(
    Read(_cat_out, _cat_in, _cat_dim),
    If(_cat_out.is_dtype("float32"),
       Call("rt_cat_f32", _cat_dim, _cat_in.count, _cat_in.shapes, _cat_in.ptrs, _cat_out),
       Call("rt_cat", _cat_out.elem_size, _cat_dim, _cat_in.count, _cat_in.shapes,
            _cat_in.ptrs, _cat_out)))

# constant_pad_nd: the pad list [last_lo, last_hi, prev_lo, ...] as each dim's before; the fill
# value in x's dtype (float32 may crop with negative padding, other dtypes not).
_pad = IntArray("pad")
_pad_out = Out("out", like=_x)
_before = Fn("rt_pte_pad_before", pad_before, _pad, _pad.count, _x.rank, items="RT_MAX_DIMS")
_CONSTANT_PAD = CallSpec(
    Read(_x, _pad_out, _pad),
    Require((_pad.count % 2).eq(0) & (_pad.count // 2 <= _x.rank) & (_x.rank <= 6), INVALID,
            "a pad list of odd length, or of more pairs than the tensor has dims"),
    If(_x.is_dtype("float32"),
       Call("rt_constant_pad_f32", _before, Float("value"), _x, _pad_out)),
    Require(Fn("rt_pte_ints_min", ints_min, _pad, _pad.count, ctype="int32_t") >= 0,
            UNSUPPORTED, "negative padding (cropping) of a tensor other than float32"),
    Call("rt_constant_pad", _x.elem_size, _before, Value(Number("value"), like=_x), _x,
         _pad_out))


def _index(put: bool) -> CallSpec:
    """index.Tensor (put: index_put): the index list, None entries taking a dim whole, as
    rt_index_params, shapes and pointers."""
    out = Out("out", dtype=None)
    idx = Tensors("indices", optional=True, max="RT_MAX_DIMS")
    pos = Fn("rt_pte_index_bcast_pos", index_bcast_pos, idx.dtypes, idx.count,
             ctype="int32_t")
    params = Params("rt_index_params", elem_size=_x.elem_size, n_idx=idx.count,
                    index_dtype=idx.dtypes, bcast_pos=pos)
    values = Tensor("values", like=_x)
    checks = (
        Read(_x, out, *([values] if put else []), idx),
        Require((idx.count >= 1) & (idx.count <= _x.rank), INVALID,
                "more index tensors than the tensor has dims, or none"),
        Require(Fn("rt_pte_index_dtypes_ok", index_dtypes_ok, idx.dtypes, idx.count,
                   ctype="int32_t"), UNSUPPORTED,
                "an index tensor of a dtype other than int64 or int32"),
        Require(pos >= 0, INVALID, "an index list with no tensor"))
    if not put:
        return CallSpec(*checks, Call("rt_index", params, _x, idx.shapes, idx.ptrs, out))
    accumulate = Bool("accumulate")
    return CallSpec(
        *checks,
        Require(~accumulate | _x.is_dtype("float32"), UNSUPPORTED,
                "index_put accumulating into a tensor other than float32"),
        Call("rt_index_put", params, accumulate, _x, idx.shapes, idx.ptrs, values, out))


MOVES = {
    aten.clone.default: _copy(),
    aten._to_copy.default: _copy(),           # the dtype comes from out
    aten.view_copy.default: _copy(),
    aten.squeeze_copy.dims: _copy(),
    aten.unsqueeze_copy.default: _copy(),
    aten.copy.default: _copy("src"),
    aten.expand_copy.default: CallSpec(Call("rt_expand", _x.elem_size, _x, Out("out", like=_x))),
    aten.slice_copy.Tensor: _SLICE,
    aten.select_copy.int: _SELECT,
    aten.permute_copy.default: _PERMUTE,
    aten.index_select.default: _INDEX_SELECT,
    aten.gather.default: _GATHER,
    aten.flip.default: _FLIP,
    aten.slice_scatter.default: _SLICE_SCATTER,
    **{getattr(aten, f"{mode}_pad{k}d").default: _pad_mode(k, mode == "reflection")
       for k in (1, 2, 3) for mode in ("reflection", "replication")},
    aten.split_with_sizes_copy.default: _SPLIT,
    aten.cat.default: _CAT,
    aten.constant_pad_nd.default: _CONSTANT_PAD,
    aten.index.Tensor: _index(put=False),
    aten.index_put.default: _index(put=True),
    "dim_order_ops::_clone_dim_order.out": _DIM_ORDER_COPY,
    "dim_order_ops::_to_dim_order_copy.out": _DIM_ORDER_COPY,
}
