"""The op table's matrix products, embedding, pooling and upsampling: their calls into
runtime_c, declared once (aot/opspec.py).
"""
from __future__ import annotations

import torch

from .opspec import (INT32_MAX, INVALID, UNSUPPORTED, Act, Array, Bool, Call, CallSpec,
                     Checked, F32, Float, Floats, If, Int, Ints, IsNone, Lit, Opt, Out, Pair,
                     Params, Pre, Read, Require, Scratch, Select, Spatial, Tensor, Window)

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
_EMBEDDING = CallSpec(Require(_indices.is_dtype("int64") | _indices.is_dtype("int32"),
                              UNSUPPORTED, "indices of a dtype other than int64 or int32"),
                      Call("rt_embedding_f32", _indices.dtype_code, Tensor("weight"), _indices,
                           Out("out")))



def _convolution(in_place: bool = False) -> CallSpec:
    """convolution of an NCHW (2-D) or NCL (1-D, run as H = 1) input: transposed, or the
    pointwise, depthwise or general kernel (every one with rt_conv2d_f32's contract), with the
    activation fused into it if any (not into a transposed one); precondition
    conv_geometry_fits. ``in_place``: mcu_aot::convolution_in_place, whose scratch, where the
    plan gives it bands (aot/overlap.py's conv_f32_scratch), picks the pointwise, depthwise or
    general kernel's entry that runs with its output exactly over its input."""
    x, w, out, bias = Tensor("input"), Tensor("weight"), Out("out"), Opt("bias")
    r, transposed = x.rank, Bool("transposed")
    spatial = r - 2
    s, p, d = (Spatial(name, lo=lo, unit=unit, spatial=spatial)
               for name, lo, unit in (("stride", 1, 1), ("padding", 0, 0), ("dilation", 1, 1)))
    groups = Int("groups", 1, INT32_MAX)
    four = r.eq(4)

    def geometry(op=None) -> Pre:
        h = Window(Select(four, x.size(2), 1), Select(four, w.size(2), 1), s.at(0), p.at(0),
                   d.at(0), Select(four, out.size(2), 1))
        wd = Window(x.size(r - 1), w.size(r - 1), s.at(1), p.at(1), d.at(1), out.size(r - 1))
        return Pre("conv_geometry_fits", struct="rt_pte_conv_geometry", h=h, w=wd,
                   batch=x.size(0), cin=x.size(1), cout=out.size(1), groups=groups,
                   transposed=Lit(int(op is not None)),
                   out_pad_h=0 if op is None else op.at(0), out_pad_w=0 if op is None else op.at(1))

    op = Spatial("output_padding", lo=0, unit=0, spatial=spatial)
    up = Params("rt_conv_transpose2d_params", stride_h=s.at(0), stride_w=s.at(1), pad_h=p.at(0),
                pad_w=p.at(1), out_pad_h=op.at(0), out_pad_w=op.at(1), dilation_h=d.at(0),
                dilation_w=d.at(1), groups=groups)
    under = [op.at(k) < Select(s.at(k) > d.at(k), s.at(k), d.at(k)) for k in (0, 1)]
    conv_transpose = (
        Read(s, p, op, d, groups),
        Require(under[0] & under[1], INVALID, "output_padding not smaller than stride or "
                                              "dilation"),
        Require(~Act("on"), UNSUPPORTED, "an activation fused into a transposed convolution"),
        Read(up, bias), geometry(op),
        Call("rt_conv_transpose2d_f32", up, x, w, bias, out))
    params = Params("rt_conv2d_params", stride_h=s.at(0), stride_w=s.at(1), pad_h=p.at(0),
                    pad_w=p.at(1), dilation_h=d.at(0), dilation_w=d.at(1), groups=groups,
                    act=Act("struct"))
    pointwise = groups.eq(1) & w.size(2).eq(1) & (r.eq(3) | w.size(3).eq(1)) & \
        s.at(0).eq(1) & s.at(1).eq(1) & p.at(0).eq(0) & p.at(1).eq(0)
    layer, banded, bands = (params, x, w, bias, out), None, ()
    if in_place:
        scratch = Tensor("scratch", "int8")
        banded, bands = scratch.numel > 0, (Read(scratch),)

    def kernel(name: str) -> Call | If:   # the in-place entry where the scratch holds bands
        plain = Call(f"rt_{name}_f32", *layer)
        return If(banded, Call(f"rt_{name}_in_place_f32", Scratch("scratch"), *layer),
                  plain) if in_place else plain
    conv = (
        Read(s, p, d, Checked("output_padding", lo=0, hi=0), groups, params, bias), *bands,
        geometry(),
        If(pointwise, kernel("conv2d_1x1"),
           If((groups > 1) & groups.eq(x.size(1)), kernel("conv2d_depthwise"),
              kernel("conv2d"))))
    return CallSpec(
        Read(x, w, out, transposed),
        Require((spatial.eq(1) | spatial.eq(2)) & w.rank.eq(r) & out.rank.eq(r), UNSUPPORTED,
                "a convolution of other than one or two spatial dims"),
        If(transposed, conv_transpose, conv))


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


def _pool(average: bool) -> CallSpec:
    """max_pool2d_with_indices / avg_pool2d of an NCHW (or CHW) input, with the precondition
    pool_geometry_fits over its two spatial axes."""
    x, out = Tensor("self"), Out("out")
    r = x.rank
    k = Pair("kernel_size", lo=1)
    s, p = Pair("stride", default=k, lo=1), Pair("padding", default=Array(0, 0), lo=0)
    d = Array(1, 1) if average else Pair("dilation", default=Array(1, 1), lo=1)
    ceil = Bool("ceil_mode")
    if average:
        div = Select(IsNone("divisor_override"), Lit(0), Int("divisor_override", 1, INT32_MAX))
        include = Bool("count_include_pad")
        read = Read(k, s, p, div, ceil, include)
        dil_h, dil_w, tail = Lit(1), Lit(1), ()
    else:
        div, include = Lit(0), Lit(0)
        read = Read(k, s, p, d, ceil)
        dil_h, dil_w, tail = d.at(0), d.at(1), (Out("indices", "int64"),)
    params = Params("rt_pool2d_params", kernel_h=k.at(0), kernel_w=k.at(1), stride_h=s.at(0),
                    stride_w=s.at(1), pad_h=p.at(0), pad_w=p.at(1), dilation_h=dil_h,
                    dilation_w=dil_w, ceil_mode=ceil, count_include_pad=include,
                    divisor_override=div)
    axes = [Window(x.size(r - (2 - i)), k.at(i), s.at(i), p.at(i),
                   Lit(1) if average else d.at(i), out.size(r - (2 - i))) for i in (0, 1)]
    return CallSpec(
        Require(r.eq(3) | r.eq(4), UNSUPPORTED, "pooling a tensor of rank other than 3 or 4"),
        read, Read(params, out, *tail),
        Require(out.rank.eq(r), INVALID, "pooling into a tensor of another rank"),
        Pre("pool_geometry_fits", struct="rt_pte_pool_geometry", h=axes[0], w=axes[1],
            batch=Select(r.eq(4), x.size(0), Lit(1)), channels=x.size(r - 3), ceil_mode=ceil,
            average=Lit(int(average))),
        Call("rt_avg_pool2d_f32" if average else "rt_max_pool2d_f32", params, x, out, *tail))


def _upsample(kernel: str, bilinear: bool) -> CallSpec:
    """Upsampling of an NCHW input by scale_factors (None: the kernel takes in / out), each
    given to the kernel as the float32 of 1 / factor. Bilinear: align_corners first, and the
    source index of the last output pixel must fit int32 (precondition resample_scale_fits)."""
    x, out = Tensor("input"), Out("out")
    factors = Floats("scale_factors", n=2, optional=True)
    none = IsNone("scale_factors")
    sh, sw = (Select(none, Lit(0.0), F32(1.0 / factors.at(k))) for k in (0, 1))
    first = (Require(x.rank.eq(4), UNSUPPORTED, "upsampling a tensor of rank other than 4"),
             Read(out, factors),
             Require(none | ((factors.at(0) > 0.0) & (factors.at(1) > 0.0)), INVALID,
                     "scale factors that are not positive"))
    if not bilinear:
        return CallSpec(*first, Call(kernel, sh, sw, x, out))
    align = Bool("align_corners")
    return CallSpec(*first, Read(align),
                    Require(out.rank.eq(4), INVALID, "upsampling into a tensor of rank other "
                                                     "than 4"),
                    Pre("resample_scale_fits", size_h=out.size(2), size_w=out.size(3),
                        scale_h=sh, scale_w=sw, align_corners=align),
                    Call(kernel, align, sh, sw, x, out))


# mcu_aot::convolution_in_place (aot/ops.py's CONVOLUTION_IN_PLACE): the convolution under
# --overlap, with a scratch for the kernels that run it in place.
CONVOLUTION_IN_PLACE = _convolution(in_place=True)
COMPUTE = {
    aten.convolution.default: _convolution(),
    aten.addmm.default: _ADDMM,
    aten.mm.default: _matmul("rt_mm_f32"),
    aten.bmm.default: _matmul("rt_bmm_f32"),
    aten.embedding.default: _EMBEDDING,
    aten._adaptive_avg_pool2d.default: _adaptive("rt_adaptive_avg_pool2d_f32"),
    aten.adaptive_max_pool2d.default: _adaptive("rt_adaptive_max_pool2d_f32",
                                                Out("indices", "int64")),
    aten.max_pool2d_with_indices.default: _pool(average=False),
    aten.avg_pool2d.default: _pool(average=True),
    aten.upsample_nearest2d.vec: _upsample("rt_upsample_nearest2d_f32", bilinear=False),
    aten.upsample_bilinear2d.vec: _upsample("rt_upsample_bilinear2d_f32", bilinear=True),
}
