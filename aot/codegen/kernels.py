"""C renderers: how each op-table entry becomes one call into runtime_c.

A renderer gets a CallContext for one KernelCall and returns (C function, argument list). It
reads the call's arguments by their schema names, checks what the kernel supports (raising
``ctx.unsupported``) and builds parameter structs through ``ctx.params``. Argument order is the
runtime's: params, then (shape, data) per input, outputs last.
"""
from __future__ import annotations

import math

F32 = "float32"


def _f(x: float) -> float:
    return float(x)


def _bin_name(op: str) -> str:
    return op.split("::")[-1]


# -- conv / matmul ---------------------------------------------------------------------------

def convolution(ctx):
    x, w, out = ctx.t("input"), ctx.t("weight"), ctx.out("out")
    if ctx.bool("transposed"):
        ctx.unsupported("transposed convolution")
    if any(p != 0 for p in ctx.ints("output_padding")):
        ctx.unsupported("output_padding")
    stride, pad, dil = ctx.ints("stride"), ctx.ints("padding"), ctx.ints("dilation")
    if len(stride) == 1:   # 1-D: the kernel treats [N,C,L] as [N,C,1,L]
        stride, pad, dil = [1] + stride, [0] + pad, [1] + dil
    if len(stride) != 2:
        ctx.unsupported(f"{len(stride)}-D convolution")
    groups = ctx.int("groups")
    p = ctx.params("rt_conv2d_params", stride_h=stride[0], stride_w=stride[1], pad_h=pad[0],
                   pad_w=pad[1], dilation_h=dil[0], dilation_w=dil[1], groups=groups)
    fn = _conv_variant(w.shape[2:], stride, pad, groups, x.shape[1])
    return fn, [p, *x.pair, *w.pair, *ctx.opt("bias").pair, *out.pair]


def _conv_variant(kernel, stride, pad, groups, cin) -> str:
    """The conv kernel for these parameters; every variant has rt_conv2d_f32's contract."""
    if groups == 1 and all(k == 1 for k in kernel) and list(stride) == [1, 1] \
            and list(pad) == [0, 0]:
        return "rt_conv2d_1x1_f32"      # pointwise: a GEMM
    if groups > 1 and groups == cin:
        return "rt_conv2d_depthwise_f32"
    return "rt_conv2d_f32"


def addmm(ctx):
    return "rt_addmm_f32", [ctx.float("beta"), ctx.float("alpha"), *ctx.t("self").pair,
                            *ctx.t("mat1").pair, *ctx.t("mat2").pair, *ctx.out("out").pair]


def mm(ctx):
    return "rt_mm_f32", [*ctx.t("self").pair, *ctx.t("mat2").pair, *ctx.out("out").pair]


def bmm(ctx):
    return "rt_bmm_f32", [*ctx.t("self").pair, *ctx.t("mat2").pair, *ctx.out("out").pair]


# -- elementwise -----------------------------------------------------------------------------

def binary(ctx):
    """add/sub (alpha), mul/div: tensor-tensor with broadcasting."""
    op = _bin_name(ctx.op_name)
    if op == "div" and ctx.has("rounding_mode") and ctx.str_or_none("rounding_mode"):
        ctx.unsupported("div with rounding_mode")
    alpha = [ctx.float("alpha")] if op in ("add", "sub") else []
    return f"rt_{op}_f32", [*alpha, *ctx.t("self").pair, *ctx.t("other").pair,
                            *ctx.out("out").pair]


def binary_scalar(ctx):
    op = _bin_name(ctx.op_name)
    if op == "div" and ctx.has("rounding_mode") and ctx.str_or_none("rounding_mode"):
        ctx.unsupported("div with rounding_mode")
    alpha = [ctx.float("alpha")] if op in ("add", "sub") else []
    return f"rt_{op}_scalar_f32", [ctx.float("other"), *alpha, *ctx.t("self").pair,
                                   *ctx.out("out").pair]


def compare(ctx):
    op = _bin_name(ctx.op_name)
    return f"rt_{op}_f32", [*ctx.t("self").pair, *ctx.t("other").pair,
                            *ctx.out("out", "bool").pair]


def compare_scalar(ctx):
    op = _bin_name(ctx.op_name)
    return f"rt_{op}_scalar_f32", [ctx.float("other"), *ctx.t("self").pair,
                                   *ctx.out("out", "bool").pair]


def where(ctx):
    return "rt_where_f32", [*ctx.t("condition", "bool").pair, *ctx.t("self").pair,
                            *ctx.t("other").pair, *ctx.out("out").pair]


def unary(ctx):
    """relu, sigmoid, tanh, abs, ... : rt_<op>_f32(in, out)."""
    op = _bin_name(ctx.op_name)
    return f"rt_{op}_f32", [*ctx.t("self").pair, *ctx.out("out").pair]


def gelu(ctx):
    approx = ctx.str_or_none("approximate") or "none"
    fn = {"none": "rt_gelu_f32", "tanh": "rt_gelu_tanh_f32"}.get(approx)
    if fn is None:
        ctx.unsupported(f"gelu approximate={approx!r}")
    return fn, [*ctx.t("self").pair, *ctx.out("out").pair]


def leaky_relu(ctx):
    return "rt_leaky_relu_f32", [ctx.float("negative_slope"), *ctx.t("self").pair,
                                 *ctx.out("out").pair]


def hardtanh(ctx):
    return "rt_clamp_f32", [ctx.float("min_val"), ctx.float("max_val"), *ctx.t("self").pair,
                            *ctx.out("out").pair]


def clamp(ctx):
    lo = ctx.float("min") if not ctx.is_none("min") else "-INFINITY"
    hi = ctx.float("max") if not ctx.is_none("max") else "INFINITY"
    return "rt_clamp_f32", [lo, hi, *ctx.t("self").pair, *ctx.out("out").pair]


def maximum_minimum(ctx):
    op = _bin_name(ctx.op_name)
    return f"rt_{op}_f32", [*ctx.t("self").pair, *ctx.t("other").pair, *ctx.out("out").pair]


_COPY = {"float32": "rt_copy_f32", "int32": "rt_copy_i32", "int64": "rt_copy_i64",
         "bool": "rt_copy_u8", "uint8": "rt_copy_u8", "int8": "rt_copy_u8"}


def _copy_fn(ctx, src, out):
    if src.dtype != out.dtype:
        ctx.unsupported(f"dtype conversion {src.dtype} -> {out.dtype}")
    if src.dtype not in _COPY:
        ctx.unsupported(f"copy of dtype {src.dtype}")
    return _COPY[src.dtype], [*src.pair, *out.pair]


def copy(ctx):
    """clone, copy (buffer write-back), view_copy, squeeze/unsqueeze: a memmove."""
    src = ctx.t("src" if ctx.has("src") else "self", None)
    return _copy_fn(ctx, src, ctx.out("out", None))


def to_copy(ctx):
    return _copy_fn(ctx, ctx.t("self", None), ctx.out("out", None))


# -- pooling / reductions --------------------------------------------------------------------

def _pair(v, default):
    v = list(v) if v else list(default)
    return v * 2 if len(v) == 1 else v


def max_pool2d(ctx):
    k = _pair(ctx.ints("kernel_size"), [])
    s = _pair(ctx.ints("stride"), k)
    p = _pair(ctx.ints("padding"), [0])
    d = _pair(ctx.ints("dilation"), [1])
    params = ctx.params("rt_pool2d_params", kernel_h=k[0], kernel_w=k[1], stride_h=s[0],
                        stride_w=s[1], pad_h=p[0], pad_w=p[1], dilation_h=d[0], dilation_w=d[1],
                        ceil_mode=int(ctx.bool("ceil_mode")), count_include_pad=0,
                        divisor_override=0)
    return "rt_max_pool2d_f32", [params, *ctx.t("self").pair, *ctx.out("out").pair,
                                 *ctx.out("indices", "int64").pair]


def avg_pool2d(ctx):
    k = _pair(ctx.ints("kernel_size"), [])
    s = _pair(ctx.ints("stride"), k)
    p = _pair(ctx.ints("padding"), [0])
    div = 0 if ctx.is_none("divisor_override") else ctx.int("divisor_override")
    params = ctx.params("rt_pool2d_params", kernel_h=k[0], kernel_w=k[1], stride_h=s[0],
                        stride_w=s[1], pad_h=p[0], pad_w=p[1], dilation_h=1, dilation_w=1,
                        ceil_mode=int(ctx.bool("ceil_mode")),
                        count_include_pad=int(ctx.bool("count_include_pad")),
                        divisor_override=div)
    return "rt_avg_pool2d_f32", [params, *ctx.t("self").pair, *ctx.out("out").pair]


def reduce(ctx):
    x = ctx.t("self")
    dims = [] if ctx.is_none("dim") else ctx.ints("dim")
    rank = len(x.shape)
    mask = 0
    for d in (dims or range(rank)):
        mask |= 1 << (d % rank if rank else 0)
    if not ctx.is_none("dtype") if ctx.has("dtype") else False:
        ctx.unsupported("reduction with dtype=")
    fn = {"mean": "rt_mean_f32", "sum": "rt_sum_f32", "amax": "rt_amax_f32"}[
        _bin_name(ctx.op_name)]
    return fn, [f"{mask}u", *x.pair, *ctx.out("out").pair]


# -- normalization ---------------------------------------------------------------------------

def softmax(ctx):
    if ctx.bool("half_to_float"):
        ctx.unsupported("half_to_float")
    fn = "rt_log_softmax_f32" if "log" in ctx.op_name else "rt_softmax_f32"
    return fn, [ctx.int("dim"), *ctx.t("self").pair, *ctx.out("out").pair]


def layer_norm(ctx):
    return "rt_layer_norm_f32", [len(ctx.ints("normalized_shape")), ctx.float("eps"),
                                 *ctx.t("input").pair, *ctx.opt("weight").pair,
                                 *ctx.opt("bias").pair, *ctx.out("out0").pair,
                                 *ctx.out("out1").pair, *ctx.out("out2").pair]


def batch_norm(ctx):
    return "rt_batch_norm_f32", [ctx.float("eps"), *ctx.t("input").pair,
                                 *ctx.opt("weight").pair, *ctx.opt("bias").pair,
                                 *ctx.t("running_mean").pair, *ctx.t("running_var").pair,
                                 *ctx.out("out0").pair]


# -- data movement ---------------------------------------------------------------------------

def permute(ctx):
    perm = ctx.int_array(ctx.ints("dims"))
    return "rt_permute_f32", [perm, *ctx.t("self").pair, *ctx.out("out").pair]


def expand(ctx):
    return "rt_expand_f32", [*ctx.t("self").pair, *ctx.out("out").pair]


def _clamp_index(v, size):
    return size if v is None or v > size else v


def slice_copy(ctx):
    x = ctx.t("self")
    dim = ctx.int("dim") % len(x.shape)
    start = 0 if ctx.is_none("start") else ctx.int("start")
    end = x.shape[dim] if ctx.is_none("end") else ctx.int("end")
    end = min(end, 2**31 - 1)
    start = max(start, -(2**31))
    return "rt_slice_f32", [dim, start, end, ctx.int("step"), *x.pair, *ctx.out("out").pair]


def select_copy(ctx):
    x = ctx.t("self")
    dim = ctx.int("dim") % len(x.shape)
    index = ctx.int("index") % x.shape[dim]
    return "rt_slice_f32", [dim, index, index + 1, 1, *x.pair, *ctx.out("out").pair]


def split_with_sizes(ctx):
    """One slice per output: a list of calls."""
    x = ctx.t("self")
    dim = ctx.int("dim") % len(x.shape)
    calls, start = [], 0
    for size, out in zip(ctx.ints("split_sizes"), ctx.out_list("out")):
        calls.append(("rt_slice_f32", [dim, start, start + size, 1, *x.pair, *out.pair]))
        start += size
    return calls


def cat(ctx):
    ins = ctx.t_list("tensors")
    out = ctx.out("out")
    dim = ctx.int("dim") % len(out.shape)
    ins = [t for t in ins if math.prod(t.shape) > 0 or len(t.shape) == len(out.shape)]
    shapes = ctx.shape_array([t.shape for t in ins])
    ptrs = ctx.ptr_array([t.ptr for t in ins])
    return "rt_cat_f32", [dim, len(ins), shapes, ptrs, *out.pair]


def constant_pad(ctx):
    x, out = ctx.t("self"), ctx.out("out")
    pad = ctx.ints("pad")
    before = [0] * 6
    rank = len(x.shape)
    for i in range(len(pad) // 2):
        before[rank - 1 - i] = pad[2 * i]
    return "rt_constant_pad_f32", [ctx.params("rt_pad_params", before=before,
                                              value=ctx.float("value")),
                                   *x.pair, *out.pair]


def upsample_nearest2d(ctx):
    x, out = ctx.t("input"), ctx.out("out")
    scales = None if ctx.is_none("scale_factors") else ctx.floats("scale_factors")
    sh, sw = (0.0, 0.0) if not scales else (1.0 / scales[0], 1.0 / scales[1])
    return "rt_upsample_nearest2d_f32", [ctx.f32_literal(sh), ctx.f32_literal(sw),
                                         *x.pair, *out.pair]


def embedding(ctx):
    idx = ctx.t("indices", None)
    fn = {"int64": "rt_embedding_i64_f32", "int32": "rt_embedding_i32_f32"}.get(idx.dtype)
    if fn is None:
        ctx.unsupported(f"embedding indices of dtype {idx.dtype}")
    return fn, [*ctx.t("weight").pair, *idx.pair, *ctx.out("out").pair]
