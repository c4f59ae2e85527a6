"""C renderers: how each op-table entry becomes one call into runtime_c.

A renderer gets a CallContext (aot.codegen.context) for one call and returns (C function,
argument list), or a list of them. It reads the call's arguments by their schema names through
checked accessors, refuses what the kernel does not support (``ctx.unsupported``) or what
contradicts the op (``ctx.invalid``) and builds parameter structs through ``ctx.params``.
Argument order is the runtime's: params, then (shape, data) per input, outputs last.

Renderers also run without a C generator behind them, to check that a call is supported before
anything is written; so they decide everything from shapes, dtypes and arguments.
"""
from __future__ import annotations

from .context import DTYPE_CODES, ELEM_SIZES

F32 = "float32"


# -- data movement ---------------------------------------------------------------------------

def _moved(ctx, name: str = "self"):
    """A data-movement input: float32 takes the f32 kernel, any other dtype (int8 maps) the
    element-size generic one. Returns (tensor, kernel suffix args)."""
    x = ctx.t(name, None)
    if x.dtype == F32:
        return x, None
    return x, _elem_size(ctx, x)


def _slice_call(ctx, elem, args):
    return ("rt_slice", [elem, *args]) if elem is not None else ("rt_slice_f32", args)


def split_with_sizes(ctx):
    """One slice per output: a list of calls."""
    x, elem = _moved(ctx)
    dim = ctx.dim("dim", x.rank)
    sizes = ctx.ints("split_sizes", lo=0)
    outs = ctx.out_list("out", x.dtype)
    if len(sizes) != len(outs) or sum(sizes) != (x.shape[dim] if x.rank else 1):
        ctx.invalid(f"split sizes {sizes} for {len(outs)} outputs of a dim of "
                    f"{x.shape[dim] if x.rank else 1}")
    calls, start = [], 0
    for size, out in zip(sizes, outs):
        calls.append(_slice_call(ctx, elem, [dim, start, start + size, 1, *x.pair, *out.pair]))
        start += size
    return calls


def cat(ctx):
    out = ctx.out("out", None)
    ins = ctx.t_list("tensors", out.dtype)
    dim = ctx.dim("dim", out.rank)
    ins = [t for t in ins if t.numel > 0 or t.rank == out.rank]
    shapes = ctx.shape_array([t.shape for t in ins])
    if out.dtype != F32:
        ptrs = ctx.ptr_array([t.ptr for t in ins], "const void *")
        return "rt_cat", [_elem_size(ctx, out), dim, len(ins), shapes, ptrs, *out.pair]
    ptrs = ctx.ptr_array([t.ptr for t in ins])
    return "rt_cat_f32", [dim, len(ins), shapes, ptrs, *out.pair]


def constant_pad(ctx):
    x, elem = _moved(ctx)
    out = ctx.out("out", x.dtype)
    pad = ctx.ints("pad")
    if len(pad) % 2 or len(pad) // 2 > x.rank or x.rank > 6:
        ctx.invalid(f"pad list {pad} for a rank-{x.rank} tensor")
    before = [0] * 6
    for i in range(len(pad) // 2):
        before[x.rank - 1 - i] = pad[2 * i]
    if elem is not None:
        if any(p < 0 for p in pad):
            ctx.unsupported(f"negative padding {pad} of a {x.dtype} tensor")
        value = ctx.data_array(x.dtype, [ctx.scalar("value")])
        return "rt_constant_pad", [elem, ctx.int_array(before[:max(x.rank, 1)]), value,
                                   *x.pair, *out.pair]
    return "rt_constant_pad_f32", [ctx.params("rt_pad_params", before=before,
                                              value=ctx.scalar("value")),
                                   *x.pair, *out.pair]


# -- elementwise math (rounding, powers, remainders, logs) --------------------------------------


# -- end elementwise math --


# -- reductions, indexing and scatter -------------------------------------------------------------

_INDEX_DTYPES = ("int64", "int32")


# Bytes per element, from the dtype table the generator already has.


def _elem_size(ctx, t) -> int:
    size = ELEM_SIZES.get(t.dtype)
    if size is None:
        ctx.unsupported(f"dtype {t.dtype}")
    return size


def _index_tensor(ctx, t, what: str):
    if t.dtype not in _INDEX_DTYPES:
        ctx.unsupported(f"{what} of dtype {t.dtype} (kernel takes int64 or int32 indices)")
    return t


def _index_params(ctx, x, indices):
    """rt_index_params, shapes and pointers for an index list (None entries: whole dims)."""
    if not indices or len(indices) > x.rank:
        ctx.invalid(f"{len(indices)} index tensors for a tensor of rank {x.rank}")
    for t in indices:
        if t is not None:
            _index_tensor(ctx, t, "index tensor")
    given = [i for i, t in enumerate(indices) if t is not None]
    if not given:
        ctx.invalid("an index list with no tensor")
    adjacent = given == list(range(given[0], given[-1] + 1))
    bcast_pos = given[0] if adjacent else 0
    codes = [DTYPE_CODES[t.dtype] if t is not None else -1 for t in indices]
    params = ctx.params("rt_index_params", elem_size=_elem_size(ctx, x), n_idx=len(indices),
                        index_dtype=codes + [-1] * (6 - len(codes)), bcast_pos=bcast_pos)
    shapes = ctx.shape_array([t.shape if t is not None else () for t in indices])
    ptrs = ctx.ptr_array([t.ptr if t is not None else "NULL" for t in indices],
                         "const void *")
    return params, shapes, ptrs


def index(ctx):
    x, out = ctx.t("self", None), ctx.out("out", None)
    params, shapes, ptrs = _index_params(ctx, x, ctx.opt_list("indices"))
    return "rt_index", [params, *x.pair, shapes, ptrs, *out.pair]


def index_put(ctx):
    x, out = ctx.t("self", None), ctx.out("out", None)
    values = ctx.t("values", x.dtype)
    params, shapes, ptrs = _index_params(ctx, x, ctx.opt_list("indices"))
    if ctx.bool("accumulate"):
        if x.dtype != F32:
            ctx.unsupported(f"index_put accumulate into {x.dtype}")
        return "rt_index_put_acc_f32", [params, *x.pair, shapes, ptrs, *values.pair,
                                        *out.pair]
    return "rt_index_put", [params, *x.pair, shapes, ptrs, *values.pair, *out.pair]


# -- end reductions, indexing and scatter --
