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
from . import preconditions as PRE
from .preconditions import Window

F32 = "float32"


# -- conv / matmul ---------------------------------------------------------------------------

def convolution(ctx):
    x, w, out = ctx.t("input"), ctx.t("weight"), ctx.out("out")
    if ctx.bool("transposed"):
        return conv_transpose(ctx, x, w, out)
    spatial = x.rank - 2
    if spatial not in (1, 2) or w.rank != x.rank or out.rank != x.rank:
        ctx.unsupported(f"{spatial}-D convolution (input {list(x.shape)}, weight "
                        f"{list(w.shape)})")
    stride = ctx.ints("stride", lengths=(1, spatial), lo=1)
    pad = ctx.ints("padding", lengths=(1, spatial), lo=0)
    dil = ctx.ints("dilation", lengths=(1, spatial), lo=1)
    if any(p != 0 for p in ctx.ints("output_padding")):
        ctx.invalid("output_padding of a convolution that is not transposed")
    stride, pad, dil = (v * spatial if len(v) == 1 else v for v in (stride, pad, dil))
    if spatial == 1:   # 1-D: the kernel treats [N,C,L] as [N,C,1,L]
        stride, pad, dil = [1] + stride, [0] + pad, [1] + dil
    groups = ctx.int("groups", lo=1)
    act = {} if ctx.act is None else {"act": (1, float(ctx.act[0]), float(ctx.act[1]))}
    p = ctx.params("rt_conv2d_params", stride_h=stride[0], stride_w=stride[1], pad_h=pad[0],
                   pad_w=pad[1], dilation_h=dil[0], dilation_w=dil[1], groups=groups, **act)
    fn = _conv_variant(w.shape[2:], stride, pad, groups, x.shape[1])
    bias = ctx.opt("bias")
    _conv_geometry(ctx, x, w, out, stride, pad, dil, groups)
    return fn, [p, *x.pair, *w.pair, *bias.pair, *out.pair]


def _conv_geometry(ctx, x, w, out, stride, pad, dil, groups, out_pad=None):
    """The conv_geometry_fits precondition of an NCHW convolution (1-D as H = 1)."""
    def axis(i, d):     # i: the spatial axis (0: H, 1: W); d: its dim in the tensors
        if d < 2:
            return Window(1, 1, 1, 0, 1, 1)
        return Window(x.shape[d], w.shape[d], stride[i], pad[i], dil[i], out.shape[d])
    hw = [axis(0, x.rank - 2 if x.rank == 4 else 0), axis(1, x.rank - 1)]
    ctx.require("conv_geometry_fits", h=hw[0], w=hw[1], batch=x.shape[0], cin=x.shape[1],
                cout=out.shape[1], groups=groups, transposed=out_pad is not None,
                out_pad=out_pad or (0, 0))


def _conv_variant(kernel, stride, pad, groups, cin) -> str:
    """The conv kernel for these parameters; every variant has rt_conv2d_f32's contract."""
    if groups == 1 and all(k == 1 for k in kernel) and list(stride) == [1, 1] \
            and list(pad) == [0, 0]:
        return "rt_conv2d_1x1_f32"      # pointwise: a GEMM
    if groups > 1 and groups == cin:
        return "rt_conv2d_depthwise_f32"
    return "rt_conv2d_f32"


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


# -- spatial: transposed convolution ------------------------------------------------------------

def conv_transpose(ctx, x, w, out):
    """convolution with transposed=True: conv_transpose1d / conv_transpose2d."""
    spatial = x.rank - 2
    if spatial not in (1, 2) or w.rank != x.rank or out.rank != x.rank:
        ctx.unsupported(f"{spatial}-D transposed convolution (input {list(x.shape)}, weight "
                        f"{list(w.shape)})")
    def pair(name, lo, unit):   # per spatial dim; 1-D runs as H = 1 with the unit value
        v = ctx.ints(name, lengths=(1, spatial), lo=lo)
        v = v * spatial if len(v) == 1 else v
        return [unit] + v if spatial == 1 else v
    s, p, op, d = (pair("stride", 1, 1), pair("padding", 0, 0), pair("output_padding", 0, 0),
                   pair("dilation", 1, 1))
    groups = ctx.int("groups", lo=1)
    if any(o >= max(si, di) for o, si, di in zip(op, s, d)):
        ctx.invalid(f"output_padding {op[-spatial:]} must be smaller than stride or dilation")
    params = ctx.params("rt_conv_transpose2d_params", stride_h=s[0], stride_w=s[1],
                        pad_h=p[0], pad_w=p[1], out_pad_h=op[0], out_pad_w=op[1],
                        dilation_h=d[0], dilation_w=d[1], groups=groups)
    bias = ctx.opt("bias")
    _conv_geometry(ctx, x, w, out, s, p, d, groups, out_pad=op)
    return "rt_conv_transpose2d_f32", [params, *x.pair, *w.pair, *bias.pair, *out.pair]


# -- end spatial --


# -- int8 (aot.quantization.ops; runtime_c/include/rt_kernels_s8.h) --------------------------
# Feature maps are NHWC, so every tensor's shape is already its physical layout.

I8, I32 = "int8", "int32"


def _act_range(ctx, lo: str, hi: str) -> tuple[int, int]:
    a, b = ctx.int(lo, -128, 127), ctx.int(hi, -128, 127)
    if a > b:
        ctx.invalid(f"activation range [{a}, {b}] is empty")
    return a, b


def _requant_arrays(ctx, n: int, mults: str, shifts: str) -> tuple[str, str]:
    """Per-channel (multiplier, shift) arrays: from int32 tensors or int lists."""
    if isinstance(ctx.values.get(mults), tuple) and ctx.values[mults] and \
            isinstance(ctx.values[mults][0], int):
        m, s = ctx.ints(mults, lo=0), ctx.ints(shifts, lo=-31, hi=31)
        if len(m) != len(s) or len(m) not in (1, n):
            ctx.invalid(f"{len(m)} multipliers and {len(s)} shifts for {n} channels")
        return ctx.int_array(m), ctx.int_array(s)
    m, s = ctx.t(mults, I32), ctx.t(shifts, I32)
    if m.numel != n or s.numel != n:
        ctx.invalid(f"{m.numel} multipliers and {s.numel} shifts for {n} output channels")
    return m.ptr, s.ptr


def _nhwc(ctx, name: str, write: bool = False):
    t = ctx.out(name, I8) if write else ctx.t(name, I8)
    ctx.rank(t, 4)
    return t


# The largest magnitude of one term of an int8 kernel's sum, (x + input_offset) * w, and of the
# folds the vector kernels make of it (input_offset * sum(w) apart): the accumulator_fits
# precondition's term_max where the weights are symmetric (2^15 >= 255 * 128), and where they
# are not (a linear layer's filter_offset: 255 * 255).
TERM_MAX, TERM_MAX_ASYM = 1 << 15, 255 * 255


def _conv_common(ctx, x, w, out, cout: int) -> dict:
    stride = ctx.ints("stride", lengths=(2,), lo=1)
    pad = ctx.ints("padding", lengths=(2,), lo=0)
    dil = ctx.ints("dilation", lengths=(2,), lo=1)
    bias = ctx.opt("bias", I32)
    if bias.ptr != "NULL" and bias.numel != cout:
        ctx.invalid(f"a bias of {bias.numel} for {cout} output channels")
    if out.shape[3] != cout or out.shape[0] != x.shape[0]:
        ctx.invalid(f"output {list(out.shape)} for {cout} output channels")
    lo, hi = _act_range(ctx, "activation_min", "activation_max")
    mult, shift = _requant_arrays(ctx, cout, "requantize_multipliers", "requantize_shifts")
    params = dict(stride_h=stride[0], stride_w=stride[1], pad_h=pad[0], pad_w=pad[1],
                  dilation_h=dil[0], dilation_w=dil[1],
                  input_offset=ctx.int("input_offset", -127, 128),
                  output_offset=ctx.int("output_offset", -128, 127), act_min=lo, act_max=hi,
                  mult=mult, shift=shift)
    return dict(params=params, bias=bias)


def _conv_preconditions(ctx, x, w, out, q: dict, groups: int, taps: int) -> None:
    """An int8 convolution's preconditions: its requantization, its sums of ``taps`` products
    plus the bias, its geometry."""
    ctx.require("accumulator_fits", terms=taps, term_max=TERM_MAX, bias="bias")
    ctx.require("requant_shift", pairs=[("requantize_multipliers", "requantize_shifts", 0)],
                in_max=PRE.accumulator_max(ctx, taps, TERM_MAX, "bias"))
    h, wd = (Window(x.shape[1 + i], w.shape[1 + i], q[f"stride_{a}"], q[f"pad_{a}"],
                    q[f"dilation_{a}"], out.shape[1 + i]) for i, a in enumerate("hw"))
    ctx.require("conv_geometry_fits", h=h, w=wd, batch=x.shape[0], cin=x.shape[3],
                cout=out.shape[3], groups=groups)


def q8_conv2d(ctx):
    x, w, out = _nhwc(ctx, "input"), _nhwc(ctx, "weight"), _nhwc(ctx, "out", True)
    if w.shape[3] == 0 or x.shape[3] % w.shape[3] or x.shape[3] // w.shape[3] == 0 or \
            w.shape[0] % (x.shape[3] // w.shape[3]):
        ctx.invalid(f"filter {list(w.shape)} for {x.shape[3]} input channels")
    c = _conv_common(ctx, x, w, out, w.shape[0])
    p = ctx.params("rt_conv_s8_params", **c["params"])
    q = c["params"]
    # A pointwise layer has its own entry point (same contract and result), so that a model
    # whose convolutions are all pointwise links no general convolution.
    pointwise = (tuple(w.shape[1:3]) == (1, 1) and w.shape[3] == x.shape[3]
                 and (q["stride_h"], q["stride_w"], q["pad_h"], q["pad_w"]) == (1, 1, 0, 0)
                 and tuple(out.shape[1:3]) == tuple(x.shape[1:3]))
    scratch = ctx.scratch("scratch")
    _conv_preconditions(ctx, x, w, out, q, x.shape[3] // w.shape[3],
                        w.shape[1] * w.shape[2] * w.shape[3])
    return ("rt_conv2d_1x1_s8" if pointwise else "rt_conv2d_s8"), [
        scratch, p, *x.pair, *w.pair, *c["bias"].pair, *out.pair]


def q8_depthwise_conv2d(ctx):
    x, w, out = _nhwc(ctx, "input"), _nhwc(ctx, "weight"), _nhwc(ctx, "out", True)
    cout = w.shape[3]
    mult = ctx.int("depth_multiplier", lo=1)
    if w.shape[0] != 1 or cout != x.shape[3] * mult:
        ctx.invalid(f"depthwise filter {list(w.shape)} for {x.shape[3]} channels x {mult}")
    c = _conv_common(ctx, x, w, out, cout)
    p = ctx.params("rt_conv_s8_params", **c["params"])
    q = c["params"]
    # A 3x3 layer of a multiplier of 1 on rows of 6 outputs or more has its own entry point
    # (same contract and result): the DSP boards run it a channel at a time along the rows,
    # which pays where the rows are long (on 3x3 maps it is slower than the general kernel),
    # and a model without such layers links none of it. KWS's 25x5 maps stay on the general
    # kernel: the per-channel one would run them 11% faster, but its code would take KWS's
    # firmware over its 8 KB budget (issue 11).
    rows = (tuple(w.shape[1:3]) == (3, 3) and mult == 1 and out.shape[2] >= 6
            and (q["dilation_h"], q["dilation_w"]) == (1, 1))
    _conv_preconditions(ctx, x, w, out, q, max(x.shape[3], 1), w.shape[1] * w.shape[2])
    return ("rt_depthwise_conv2d_3x3_s8" if rows else "rt_depthwise_conv2d_s8"), [
        p, *x.pair, *w.pair, *c["bias"].pair, *out.pair]


def q8_linear(ctx):
    x, w, out = ctx.t("input", I8), ctx.t("weights", I8), ctx.out("out", I8)
    ctx.rank(w, 2)
    cout = w.shape[0]
    # A kernel_sum (ExecuTorch's MVE form: input_offset * sum(w) + bias, precomputed) stands in
    # for the bias, and the input offset is then already in it; the bias is not read.
    ksum = not ctx.is_none("kernel_sum")
    bias = ctx.opt("kernel_sum" if ksum else "bias", I32)
    if x.rank < 1 or x.shape[-1] != w.shape[1] or out.shape != (*x.shape[:-1], cout):
        ctx.invalid(f"input {list(x.shape)}, weights {list(w.shape)}, output "
                    f"{list(out.shape)}")
    if bias.ptr != "NULL" and bias.numel != cout:
        ctx.invalid(f"a {'kernel_sum' if ksum else 'bias'} of {bias.numel} for {cout} outputs")
    mult, shift = _requant_arrays(ctx, cout, "requantize_multipliers", "requantize_shifts")
    lo, hi = _act_range(ctx, "activation_min", "activation_max")
    x_off = ctx.int("input_offset", -127, 128)
    w_off = ctx.int("filter_offset", -127, 128)
    p = ctx.params("rt_fc_s8_params", input_offset=0 if ksum else x_off,
                   filter_offset=w_off,
                   output_offset=ctx.int("output_offset", -128, 127), act_min=lo, act_max=hi,
                   per_channel=int(len(ctx.values["requantize_multipliers"]) > 1),
                   mult=mult, shift=shift)
    term, sum0 = TERM_MAX if w_off == 0 else TERM_MAX_ASYM, "kernel_sum" if ksum else "bias"
    ctx.require("accumulator_fits", terms=w.shape[1], term_max=term, bias=sum0, what="weights")
    ctx.require("requant_shift", pairs=[("requantize_multipliers", "requantize_shifts", 0)],
                in_max=PRE.accumulator_max(ctx, w.shape[1], term, sum0))
    return "rt_fully_connected_s8", [p, *x.pair, *w.pair, *bias.pair, *out.pair]


def q8_pad(ctx):
    x, out = ctx.t("input", I8), ctx.out("out", I8)
    pre, post = ctx.ints("pre_pad", (4,), lo=0), ctx.ints("post_pad", (4,), lo=0)
    if x.rank > 4:
        ctx.unsupported(f"padding a rank-{x.rank} tensor")
    off = 4 - x.rank
    if any(pre[:off]) or any(post[:off]) or out.shape != tuple(
            s + pre[off + i] + post[off + i] for i, s in enumerate(x.shape)):
        ctx.invalid(f"padding {pre}/{post} of {list(x.shape)} into {list(out.shape)}")
    value = ctx.data_array(I8, [ctx.int("pad_value", -128, 127)])
    return "rt_constant_pad", [1, ctx.int_array(pre[off:] or [0]), value, *x.pair, *out.pair]
