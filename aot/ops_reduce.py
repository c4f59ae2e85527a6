"""The op table's reductions, softmax, batch norm and layer norm: their calls into runtime_c,
declared once (aot/opspec.py).

A reduction's dims reach its kernel as a bit mask over the input's dims (rt_kernels.h); the
kernel takes the output's shape as keepdim made it, so keepdim itself is only checked.
"""
from __future__ import annotations

import torch

from .opspec import (INVALID, UNSUPPORTED, AllDims, Bool, Call, CallSpec, Dim, DimMask, Fail,
                     Float, If, IsNone, Lit, Opt, Out, Require, ShapeTail, Tensor)

aten = torch.ops.aten

_NULL = Lit(0, c="NULL")


def _reduce(op, kernel: str, dims: bool = True) -> CallSpec:
    """mean / sum / amax / amin over a dim list (None or []: all dims); where the schema has a
    dtype=, it is refused."""
    x = Tensor("self")
    call = Call(kernel, DimMask("dim", of=x) if dims else AllDims(x), x, Out("out"))
    if all(a.name != "dtype" for a in op._schema.arguments):
        return CallSpec(call)
    return CallSpec(If(IsNone("dtype"), call, Fail(UNSUPPORTED, "reduction with dtype=")))


def _arg_reduce(kernel: str) -> CallSpec:
    """argmax / argmin over one dim, or over all (dim None: the index into the flattened input)."""
    x = Tensor("self")
    return CallSpec(Require(x.numel.ne(0), INVALID, "argmax/argmin of an empty tensor"),
                    Call(kernel, DimMask("dim", of=x, one=True), x, Out("out", "int64")))


def _median(dim: bool) -> CallSpec:
    """median over all elements (median.out), or over one dim with its indices (dim_values)."""
    x = Tensor("self")
    empty = Require(x.numel.ne(0), INVALID, "median of an empty tensor")
    if not dim:
        return CallSpec(empty, Call("rt_median_f32", AllDims(x), x, Out("out"), _NULL, _NULL))
    return CallSpec(empty, Call("rt_median_f32", DimMask("dim", of=x, one=True), x,
                                Out("values"), Out("indices", "int64")))


def _softmax(kernel: str) -> CallSpec:
    x = Tensor("self")
    return CallSpec(If(Bool("half_to_float"), Fail(UNSUPPORTED, "half_to_float"),
                       Call(kernel, Dim("dim", of=x), x, Out("out"))))


# Inference batch norm: momentum is checked, not read; out1 and out2 (the saved statistics of
# training) are not written.
_BATCH_NORM = CallSpec(Call("rt_batch_norm_f32", Float("eps"), Tensor("input"), Opt("weight"),
                            Opt("bias"), Tensor("running_mean"), Tensor("running_var"),
                            Out("out0")))

_DIM_REDUCTIONS = (  # op, kernel, over a dim list (else all dims), out variant or None
    (aten.mean.dim, "rt_mean_f32", True, None),
    (aten.mean.default, "rt_mean_f32", False, aten.mean.dtype_out),
    (aten.sum.dim_IntList, "rt_sum_f32", True, None),
    (aten.amax.default, "rt_amax_f32", True, None),
    (aten.amin.default, "rt_amin_f32", True, None),
)

# Layer norm over the input's last dims (as many as normalized_shape names); out1 and out2 (the
# mean and 1/std per row) are written too.
_x = Tensor("input")
_LAYER_NORM = CallSpec(Call("rt_layer_norm_f32", ShapeTail("normalized_shape", of=_x),
                            Float("eps"), _x, Opt("weight"), Opt("bias"), Out("out0"),
                            Out("out1"), Out("out2")))

# op -> (spec, in_executorch, out variant or None)
REDUCE = {
    **{op: (_reduce(op, kernel, dims), True, out) for op, kernel, dims, out in _DIM_REDUCTIONS},
    aten.argmax.default: (_arg_reduce("rt_argmax_f32"), True, None),
    aten.argmin.default: (_arg_reduce("rt_argmin_f32"), True, None),
    aten.cumsum.default: (CallSpec(Call("rt_cumsum_f32", Dim("dim", of=Tensor("self")),
                                        Tensor("self"), Out("out"))), True, None),
    aten.median.default: (_median(dim=False), False, aten.median.out),
    aten.median.dim: (_median(dim=True), False, None),
    aten._softmax.default: (_softmax("rt_softmax_f32"), True, None),
    aten._log_softmax.default: (_softmax("rt_log_softmax_f32"), True, None),
    aten._native_batch_norm_legit_no_training.default: (_BATCH_NORM, True, None),
    aten.native_layer_norm.default: (_LAYER_NORM, True, None),
}
