"""The elementwise math kernels against eager PyTorch: rounding, reciprocal and powers,
division with rounding modes, remainders, logs and exponentials, sign, erf and ELU.

Rounding, division modes, remainders, sign and the arithmetic powers are exact (bit for bit,
the sign of zero included); the libm-based ones are compared at rtol 2e-6, NaN == NaN.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import kernel_harness
from kernel_harness import KernelError

aten = torch.ops.aten

SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, np.inf, -np.inf, np.nan,
                     1e-30, -1e30, 3e38, 7.0, -7.0], np.float32)


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


def values(n=64, seed=0, scale=8.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.asarray(rng.standard_normal(n) * scale, np.float32)
    x[:SPECIALS.size] = SPECIALS
    return x


def exact(got: np.ndarray, ref: torch.Tensor) -> None:
    ref = ref.numpy()
    assert got.shape == ref.shape
    same = (got.view(np.uint32) == ref.view(np.uint32)) | (np.isnan(got) & np.isnan(ref))
    assert same.all(), f"differ at {np.flatnonzero(~same)[:8]}: {got[~same][:8]} vs {ref[~same][:8]}"


def close(got: np.ndarray, ref: torch.Tensor, rtol=2e-6, atol=1e-7) -> None:
    np.testing.assert_allclose(got, ref.numpy(), rtol=rtol, atol=atol, equal_nan=True)


EXACT_UNARY = {"ceil": torch.ceil, "floor": torch.floor, "trunc": torch.trunc,
               "round": torch.round, "sign": torch.sign, "reciprocal": torch.reciprocal}
LIBM_UNARY = {"log2": torch.log2, "log10": torch.log10, "log1p": torch.log1p,
              "expm1": torch.expm1, "erf": torch.erf}


@pytest.mark.parametrize("op", list(EXACT_UNARY) + list(LIBM_UNARY))
@pytest.mark.parametrize("shape", [(64,), (4, 4, 4), ()], ids=str)
def test_unary(rt, op, shape):
    x = values(int(np.prod(shape))).reshape(shape) if shape else np.float32(2.5).reshape(())
    x = np.ascontiguousarray(x)
    out = rt.empty(x.shape)
    rt.call(f"rt_{op}_f32", x, out)
    ref = (EXACT_UNARY.get(op) or LIBM_UNARY[op])(torch.from_numpy(x))
    (exact if op in EXACT_UNARY else close)(out, ref)


def test_round_halves_to_even(rt):
    x = np.arange(-6, 6, dtype=np.float32) + np.float32(0.5)
    out = rt.empty(x.shape)
    rt.call("rt_round_f32", x, out)
    exact(out, torch.round(torch.from_numpy(x)))


def test_unary_in_place(rt):
    x = values()
    ref = torch.floor(torch.from_numpy(x.copy()))
    rt.call("rt_floor_f32", x, x)
    exact(x, ref)


@pytest.mark.parametrize("alpha,scale,input_scale", [(1.0, 1.0, 1.0), (0.3, 1.0, 1.0),
                                                     (1.6732632, 1.0507010, 1.0),
                                                     (1.7, 1.0, 1 / 1.7)])
def test_elu(rt, alpha, scale, input_scale):
    x = values()
    out = rt.empty(x.shape)
    rt.call("rt_elu_f32", alpha, scale, input_scale, x, out)
    close(out, aten.elu(torch.from_numpy(x), alpha, scale, input_scale))


# -- binary ------------------------------------------------------------------------------------
def _div_floor(a, b):
    return torch.div(a, b, rounding_mode="floor")


def _div_trunc(a, b):
    return torch.div(a, b, rounding_mode="trunc")


BINARY = {"div_floor": _div_floor, "div_trunc": _div_trunc, "remainder": torch.remainder,
          "fmod": torch.fmod, "pow": torch.pow}
BCAST = [((16,), (16,)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)), ((4, 1), (1, 5))]


def _pairs(n):
    """Every special against every special, then random values."""
    a, b = np.meshgrid(SPECIALS, SPECIALS)
    return (np.concatenate([a.ravel(), values(n, seed=1, scale=20.0)]),
            np.concatenate([b.ravel(), values(n, seed=2, scale=3.0)]))


def one_by_one(fn, a: np.ndarray, b: np.ndarray) -> torch.Tensor:
    """fn over single elements. torch's vectorized fmod (under remainder and floor division
    too) is inexact once |a / b| passes 2**24 (3e38 fmod 0.5 gives NaN there, 0 one element
    at a time); its scalar path is exact like C's fmodf, so that is the reference."""
    return torch.stack([fn(torch.tensor([x]), torch.tensor([y]))[0] for x, y in zip(a, b)])


@pytest.mark.parametrize("op", BINARY)
def test_binary_edges(rt, op):
    a, b = _pairs(200)
    out = rt.empty(a.shape)
    rt.call(f"rt_{op}_f32", a, b, out)
    ref = one_by_one(BINARY[op], a, b)
    (close if op == "pow" else exact)(out, ref)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("shapes", BCAST, ids=str)
def test_binary_broadcast(rt, op, shapes):
    rng = np.random.default_rng(3)
    a = np.asarray(rng.uniform(0.1, 9.0, shapes[0]), np.float32)
    b = np.asarray(rng.uniform(-3.0, 3.0, shapes[1]), np.float32)
    ref = BINARY[op](torch.from_numpy(a), torch.from_numpy(b))
    out = rt.empty(tuple(ref.shape))
    rt.call(f"rt_{op}_f32", a, b, out)
    (close if op == "pow" else exact)(out, ref)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("other", [3.0, -1.5, 0.1, 0.0, -0.0, np.inf, 2.0, -2.0, 0.5, -0.5,
                                   -1.0])
def test_binary_scalar(rt, op, other):
    x = values(64, scale=20.0)
    out = rt.empty(x.shape)
    rt.call(f"rt_{op}_scalar_f32", other, x, out)
    if op == "pow":
        ref = aten.pow.Tensor_Scalar(torch.from_numpy(x), other)
        # torch computes x**2, x**3, x**-1, x**-2 by multiplication: so must we, bit for bit
        (exact if other in (2.0, 3.0, -1.0, -2.0) else close)(out, ref)
    else:
        exact(out, one_by_one(BINARY[op], x, np.full_like(x, other)))


@pytest.mark.parametrize("base", [2.0, 0.5, -2.0, 10.0, 0.0, 1.0])
def test_pow_base_scalar(rt, base):
    x = values(64, scale=4.0)
    out = rt.empty(x.shape)
    rt.call("rt_pow_base_scalar_f32", base, x, out)
    close(out, torch.pow(base, torch.from_numpy(x)))


def test_floor_div_is_not_floor_of_quotient(rt):
    """0.3 // 0.1 is 2 (the quotient 2.9999999 rounds to 3.0 in float)."""
    a = np.array([0.3, 0.7, -0.3, 1.0, 5.9], np.float32)
    out = rt.empty(a.shape)
    rt.call("rt_div_floor_scalar_f32", 0.1, a, out)
    exact(out, _div_floor(torch.from_numpy(a), 0.1))


@pytest.mark.parametrize("op", BINARY)
def test_binary_bad_shapes(rt, op):
    a, b = np.zeros((2, 3), np.float32), np.zeros((4,), np.float32)
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call(f"rt_{op}_f32", a, b, rt.empty((2, 3)))
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call(f"rt_{op}_scalar_f32", 2.0, a, rt.empty((5,)))


# -- int64 arithmetic ---------------------------------------------------------------------------
INT_OPS = {"add": (0, lambda a, b: a + 3 * b), "sub": (1, lambda a, b: a - 3 * b),
           "mul": (2, torch.mul), "div_floor": (3, _div_floor), "div_trunc": (4, _div_trunc),
           "remainder": (5, torch.remainder), "fmod": (6, torch.fmod),
           "maximum": (7, torch.maximum), "minimum": (8, torch.minimum)}
INT_EDGES = np.array([0, 1, -1, 7, -7, 2**62, -2**63, 2**63 - 1, 13, -13], np.int64)


@pytest.mark.parametrize("op", INT_OPS)
def test_int64_binary(rt, op):
    code, fn = INT_OPS[op]
    a, b = (m.ravel().copy() for m in np.meshgrid(INT_EDGES, INT_EDGES))
    if op not in ("add", "sub", "mul", "maximum", "minimum"):
        # torch traps on INT64_MIN / -1 (SIGFPE); ours wraps (test_int64_min_by_minus_one)
        keep = (b != 0) & ~((a == -2**63) & (b == -1))
        a, b = a[keep], b[keep]
    out = rt.empty(a.shape, np.int64)
    rt.call("rt_int_binary_i64", code, 3, a, b, out)
    np.testing.assert_array_equal(out, fn(torch.from_numpy(a), torch.from_numpy(b)).numpy())
    s = rt.empty(a.shape, np.int64)
    rt.call("rt_int_binary_scalar_i64", code, -7, 3, a, s)
    np.testing.assert_array_equal(s, fn(torch.from_numpy(a), torch.full_like(
        torch.from_numpy(a), -7)).numpy())


@pytest.mark.parametrize("op", ["div_floor", "div_trunc", "remainder", "fmod"])
def test_int64_zero_divisor_is_refused(rt, op):
    a, b = np.array([4, 5], np.int64), np.array([1, 0], np.int64)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_int_binary_i64", INT_OPS[op][0], 1, a, b, rt.empty((2,), np.int64))


def test_int64_unary(rt):
    x = INT_EDGES
    for name, ref in (("rt_abs_i64", torch.abs), ("rt_neg_i64", torch.neg)):
        out = rt.empty(x.shape, np.int64)
        rt.call(name, x, out)
        np.testing.assert_array_equal(out, ref(torch.from_numpy(x)).numpy())
    out = rt.empty(x.shape, np.int64)
    rt.call("rt_clamp_i64", -5, 2**40, x, out)
    np.testing.assert_array_equal(out, torch.clamp(torch.from_numpy(x), -5, 2**40).numpy())


def test_int64_min_by_minus_one_wraps(rt):
    """The one quotient int64 cannot hold: it wraps to INT64_MIN with remainder 0."""
    a, b = np.array([-2**63], np.int64), np.array([-1], np.int64)
    for op, want in (("div_floor", -2**63), ("div_trunc", -2**63), ("remainder", 0),
                     ("fmod", 0)):
        out = rt.empty((1,), np.int64)
        rt.call("rt_int_binary_i64", INT_OPS[op][0], 1, a, b, out)
        assert out[0] == want, op


@pytest.mark.parametrize("cmp,code", [("eq", 0), ("ne", 1), ("lt", 2), ("le", 3), ("gt", 4),
                                      ("ge", 5)])
def test_int64_compare(rt, cmp, code):
    a = INT_EDGES.reshape(2, 5)
    b = INT_EDGES[::-1].copy().reshape(2, 5)[:1]             # broadcasts over a's rows
    ref = getattr(torch, cmp)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    out = rt.empty(a.shape, np.uint8)
    rt.call("rt_int_compare_i64", code, a, b, out)
    np.testing.assert_array_equal(out.astype(bool), ref)
    out = rt.empty(a.shape, np.uint8)
    rt.call("rt_int_compare_scalar_i64", code, 7, a, out)
    np.testing.assert_array_equal(out.astype(bool), getattr(torch, cmp)(torch.from_numpy(a), 7))
