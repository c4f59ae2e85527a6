"""The op table's elementwise entries: their calls into runtime_c, declared once (aot/opspec.py).

float32 tensors take the rt_<op>_f32 kernels; int64 tensors, where the op has an integer form,
take one kernel per shape of call with the op as an rt_int_op / rt_int_cmp code
(rt_kernels.h), so a program's index arithmetic runs too.
"""
from __future__ import annotations

import torch

from .opspec import (UNSUPPORTED, Act, CallSpec, Call, Choice, Fail, Float, If, IsNone,
                     Lit, Out, Select, Tensor, WholeInt)

aten = torch.ops.aten

# rt_int_op and rt_int_cmp (rt_kernels.h)
INT_OPS = {"add": 0, "sub": 1, "mul": 2, "div_floor": 3, "div_trunc": 4, "remainder": 5,
           "fmod": 6, "maximum": 7, "minimum": 8}
INT_CMP = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

I64 = "int64"
_INT64_MIN = Lit(-(1 << 63), c="INT64_MIN")
_INT64_MAX = Lit((1 << 63) - 1, c="INT64_MAX")
_ONE = Lit(1, c="1LL")


def _int_or(op: str, then: Call):
    """An int64 ``self`` takes the integer kernel ``then`` where ``op`` has one."""
    if op not in INT_OPS:
        return Fail(UNSUPPORTED, f"{op} of int64 tensors")
    return then


def _tensor_tensor(op: str, other: str = "other", alpha: bool = False,
                   act: bool = False) -> CallSpec:
    """self with a tensor operand, broadcasting (add, sub, mul, div, maximum, pow, ...)."""
    x = Tensor("self", None)
    int_alpha = [WholeInt("alpha")] if alpha else [_ONE]
    return CallSpec(If(x.is_dtype(I64),
                       _int_or(op, Call("rt_int_binary_i64", INT_OPS.get(op, 0), *int_alpha, x,
                                        Tensor(other, I64), Out("out", I64))),
                       Call(f"rt_{op}_f32", *([Act()] if act else []),
                            *([Float("alpha")] if alpha else []), Tensor("self"), Tensor(other),
                            Out("out"))))


def _tensor_number(op: str, other: str = "other", alpha: bool = False) -> CallSpec:
    """self with a number operand (add.Scalar, pow.Tensor_Scalar, ...)."""
    x = Tensor("self", None)
    int_alpha = [WholeInt("alpha")] if alpha else [_ONE]
    return CallSpec(If(x.is_dtype(I64),
                       _int_or(op, Call("rt_int_binary_scalar_i64", INT_OPS.get(op, 0),
                                        WholeInt(other), *int_alpha, x, Out("out", I64))),
                       Call(f"rt_{op}_scalar_f32", Float(other),
                            *([Float("alpha")] if alpha else []), Tensor("self"), Out("out"))))


def _rounding(make) -> CallSpec:
    """div with a rounding_mode: None divides, "floor" and "trunc" round (another is invalid);
    ``make`` gives the call of each (_tensor_tensor or _tensor_number)."""
    mode = Choice("rounding_mode", {"floor": 1, "trunc": 2}, none_code=0)
    return CallSpec(If(mode.eq(0), make("div").body,
                       If(mode.eq(1), make("div_floor").body, make("div_trunc").body)))


def _compare(op: str) -> CallSpec:
    x = Tensor("self", None)
    return CallSpec(If(x.is_dtype(I64),
                       Call("rt_int_compare_i64", INT_CMP[op], x, Tensor("other", I64),
                            Out("out", "bool")),
                       Call(f"rt_{op}_f32", Tensor("self"), Tensor("other"), Out("out", "bool"))))


def _compare_number(op: str) -> CallSpec:
    x = Tensor("self", None)
    return CallSpec(If(x.is_dtype(I64),
                       Call("rt_int_compare_scalar_i64", INT_CMP[op], WholeInt("other"), x,
                            Out("out", "bool")),
                       Call(f"rt_{op}_scalar_f32", Float("other"), Tensor("self"),
                            Out("out", "bool"))))


def _unary(op: str, has_int: bool = False) -> CallSpec:
    """rt_<op>_f32(in, out); abs and neg of int64 too."""
    f32 = Call(f"rt_{op}_f32", Tensor("self"), Out("out"))
    if not has_int:
        return CallSpec(f32)
    x = Tensor("self", None)
    return CallSpec(If(x.is_dtype(I64), Call(f"rt_{op}_i64", x, Out("out", I64)), f32))


def _unary_with(kernel: str, *params: str) -> CallSpec:
    """An activation with float parameters: kernel(params..., in, out)."""
    return CallSpec(Call(kernel, *(Float(p) for p in params), Tensor("self"), Out("out")))


def _clamp() -> CallSpec:
    """An absent bound is int64's extreme (int64 tensors) or an infinity (float32)."""
    x = Tensor("self", None)
    return CallSpec(If(
        x.is_dtype(I64),
        Call("rt_clamp_i64", Select(IsNone("min"), _INT64_MIN, WholeInt("min")),
             Select(IsNone("max"), _INT64_MAX, WholeInt("max")), x, Out("out", I64)),
        Call("rt_clamp_f32", Select(IsNone("min"), Lit(float("-inf")), Float("min")),
             Select(IsNone("max"), Lit(float("inf")), Float("max")), Tensor("self"),
             Out("out"))))


def _gelu() -> CallSpec:
    approx = Choice("approximate", {"": 0, "none": 0, "tanh": 1}, none_code=0)
    return CallSpec(If(approx.eq(0), Call("rt_gelu_f32", Tensor("self"), Out("out")),
                       Call("rt_gelu_tanh_f32", Tensor("self"), Out("out"))))


def _table() -> dict:
    t = {}
    for name in ("add", "sub"):
        t[getattr(aten, name).Tensor] = _tensor_tensor(name, alpha=True, act=name == "add")
        t[getattr(aten, name).Scalar] = _tensor_number(name, alpha=True)
    for name in ("mul", "div"):
        t[getattr(aten, name).Tensor] = _tensor_tensor(name)
        t[getattr(aten, name).Scalar] = _tensor_number(name)
    t[aten.rsub.Scalar] = _tensor_number("rsub", alpha=True)
    for name in INT_CMP:
        t[getattr(aten, name).Tensor] = _compare(name)
        t[getattr(aten, name).Scalar] = _compare_number(name)
    t[aten.where.self] = CallSpec(Call("rt_where_f32", Tensor("condition", "bool"),
                                       Tensor("self"), Tensor("other"), Out("out")))
    t[aten.maximum.default] = _tensor_tensor("maximum")
    t[aten.minimum.default] = _tensor_tensor("minimum")
    for name in ("relu", "sigmoid", "tanh", "hardswish", "hardsigmoid", "abs", "neg", "exp",
                 "log", "sqrt", "rsqrt", "sin", "cos"):
        t[getattr(aten, name).default] = _unary(name, has_int=name in ("abs", "neg"))
    t[aten.gelu.default] = _gelu()
    t[aten.leaky_relu.default] = _unary_with("rt_leaky_relu_f32", "negative_slope")
    t[aten.hardtanh.default] = _unary_with("rt_clamp_f32", "min_val", "max_val")
    t[aten.clamp.default] = _clamp()
    for name in ("reciprocal", "ceil", "floor", "trunc", "round", "log2", "log10", "log1p",
                 "expm1", "erf", "sign"):
        t[getattr(aten, name).default] = _unary(name)
    t[aten.elu.default] = _unary_with("rt_elu_f32", "alpha", "scale", "input_scale")
    # eps=None clamps nothing: the kernel takes it as a NaN eps
    t[aten.logit.default] = CallSpec(Call("rt_logit_f32", Select(IsNone("eps"), Lit(float("nan")),
                                                                 Float("eps")),
                                          Tensor("self"), Out("out")))
    t[aten.pow.Tensor_Tensor] = _tensor_tensor("pow", "exponent")
    t[aten.pow.Tensor_Scalar] = _tensor_number("pow", "exponent")
    t[aten.pow.Scalar] = CallSpec(Call("rt_pow_base_scalar_f32", Float("self"),
                                       Tensor("exponent"), Out("out")))
    t[aten.div.Tensor_mode] = _rounding(_tensor_tensor)
    t[aten.div.Scalar_mode] = _rounding(_tensor_number)
    for name in ("remainder", "fmod"):
        t[getattr(aten, name).Tensor] = _tensor_tensor(name)
        t[getattr(aten, name).Scalar] = _tensor_number(name)
    return t


# ExecuTorch's portable library decomposes these two; our C runs them.
_NOT_IN_EXECUTORCH = {aten.hardswish.default, aten.hardsigmoid.default}

# Ops torch decomposes by default (logit into where, rsub, div and log) that run whole here.
_KEEP = {aten.logit.default}

# functional op -> (its call, whether ExecuTorch 1.5.1 has a kernel of its out-variant, whether
# torch's default decomposition of it is skipped)
ELEMENTWISE = {op: (spec, op not in _NOT_IN_EXECUTORCH, op in _KEEP)
               for op, spec in _table().items()}
