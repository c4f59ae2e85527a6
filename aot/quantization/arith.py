"""The fixed-point arithmetic of int8 inference, as CMSIS-NN's default build and TFLite Micro's
reference kernels compute it. The lowering uses it to precompute (multiplier, shift) pairs and
lookup tables; the Python reference of each quantized op (and so the .pte interpreter) runs on it.

Every function works on numpy int64 arrays and reproduces the C integer steps exactly:
- ``quantize_multiplier``: a real multiplier M as (mult, shift) with M ~= mult * 2^(shift-31),
  mult in [2^30, 2^31), rounded half away from zero (TFLite; ExecuTorch rounds half to even);
- ``requantize``: x * M in the "double rounding" of CMSIS-NN's arm_nn_requantize: a rounding
  doubling high multiply (ties toward +inf), then a rounding right shift (ties away from zero).
"""
from __future__ import annotations

import math

import numpy as np

INT8_MIN, INT8_MAX = -128, 127
ADD_LEFT_SHIFT = 20          # TFLite's int8 ADD/SUB input headroom


def round_half_away(x: float) -> int:
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def quantize_multiplier(m: float) -> tuple[int, int]:
    """(mult, shift) for a real multiplier m >= 0, as TFLite's QuantizeMultiplier."""
    if m < 0:
        raise ValueError(f"negative multiplier {m}")
    if m == 0:
        return 0, 0
    f, e = math.frexp(m)                  # m = f * 2^e, f in [0.5, 1)
    q = round_half_away(f * (1 << 31))
    if q == 1 << 31:
        q //= 2
        e += 1
    if e < -31:
        return 0, 0
    return int(q), int(e)


def quantize_multipliers(ms) -> tuple[list[int], list[int]]:
    pairs = [quantize_multiplier(float(m)) for m in ms]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def doubling_high_mult(a, b) -> np.ndarray:
    """floor((a * b + 2^30) / 2^31) for int32 a, b (b > 0): the rounding doubling high multiply.

    The product of two int32 values fits in 63 bits, so int64 numpy arithmetic is exact."""
    return (_i64(a) * _i64(b) + (1 << 30)) >> 31


def divide_by_pow2(x, exponent) -> np.ndarray:
    """x / 2^exponent rounded to nearest, ties away from zero (arm_nn_divide_by_power_of_two)."""
    x, exponent = _i64(x), _i64(exponent)
    mask = (np.int64(1) << exponent) - 1
    rem = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (rem > threshold)


def requantize(x, mult, shift) -> np.ndarray:
    """arm_nn_requantize: x * mult * 2^(shift - 31), double rounding. ``mult`` and ``shift`` may
    be arrays that broadcast against x (per-channel)."""
    x, mult, shift = _i64(x), _i64(mult), _i64(shift)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    y = (x << left).astype(np.int32).astype(np.int64)      # wraps as the C int32 does
    return divide_by_pow2(doubling_high_mult(y, mult), right)


def clamp8(x, lo: int = INT8_MIN, hi: int = INT8_MAX) -> np.ndarray:
    return np.clip(_i64(x), lo, hi)


def activation_bounds(lo: float, hi: float, scale: float, zero_point: int) -> tuple[int, int]:
    """A real-valued clamp [lo, hi] as int8 bounds: round_half_away(v / s) + z, clipped (as
    TFLite's CalculateActivationRangeQuantized)."""
    qlo = INT8_MIN if lo == -math.inf else max(INT8_MIN, zero_point + round_half_away(lo / scale))
    qhi = INT8_MAX if hi == math.inf else min(INT8_MAX, zero_point + round_half_away(hi / scale))
    return int(qlo), int(qhi)


def quantize_f32(x, scale: float, zero_point: int, qmin: int = INT8_MIN,
                 qmax: int = INT8_MAX) -> np.ndarray:
    """PT2E's quantize_per_tensor: round_half_even(x * float32(1/scale)) + zp, clamped."""
    inv = np.float32(1.0 / scale)
    v = np.rint(np.asarray(x, np.float32) * inv).astype(np.int64) + zero_point
    return np.clip(v, qmin, qmax)


def dequantize_f32(q, scale: float, zero_point: int) -> np.ndarray:
    """PT2E's dequantize_per_tensor: (q - zp) * scale in float32."""
    return (np.asarray(q, np.int64) - zero_point).astype(np.float32) * np.float32(scale)


# -- softmax: TFLite's integer softmax (gemmlowp fixed point), which CMSIS-NN reproduces --------

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _srdhm(a, b) -> np.ndarray:
    """Saturating rounding doubling high multiply of int32 values."""
    a, b = _i64(a), _i64(b)
    both_min = (a == INT32_MIN) & (b == INT32_MIN)
    return np.where(both_min, INT32_MAX, doubling_high_mult(a, b))


def _mul_pot(x, exponent: int) -> np.ndarray:
    """x * 2^exponent: a saturating left shift, or a rounding right shift."""
    x = _i64(x)
    if exponent <= 0:
        return divide_by_pow2(x, -exponent)
    return np.clip(x << exponent, INT32_MIN, INT32_MAX)


def _exp_quarter_interval(a) -> np.ndarray:
    """exp(a) for a in [-1/4, 0), Q0.31 in and out (a Taylor series around -1/8)."""
    x = _i64(a) + (1 << 28)
    x2 = _srdhm(x, x)
    x3 = _srdhm(x2, x)
    x4 = _srdhm(x2, x2)
    x4_over_4 = _mul_pot(x4, -2)
    poly = _mul_pot(_srdhm(x4_over_4 + x3, 715827883) + x2, -1)
    c = 1895147668
    return c + _srdhm(c, x + poly)


# exp(-2^k) in Q0.31 for the barrel shifter over the integer part of the input, k = -2 .. 4.
_EXP_STEPS = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
              (2, 39332535), (3, 720401), (4, 242))


def exp_on_negative_values(a) -> np.ndarray:
    """exp(a) for a <= 0 in Q5.26, as Q0.31."""
    a = _i64(a)
    quarter = 1 << 24
    mod = (a & (quarter - 1)) - quarter
    result = _exp_quarter_interval(_mul_pot(mod, 5))
    remainder = mod - a
    for exponent, mult in _EXP_STEPS:
        bit = (remainder >> (26 + exponent)) & 1
        result = np.where(bit == 1, _srdhm(result, mult), result)
    return np.where(a == 0, INT32_MAX, result)


def _one_over_one_plus_x(a) -> np.ndarray:
    """1 / (1 + a) for a in [0, 1) in Q0.31, as Q0.31 (Newton-Raphson, three steps)."""
    total = _i64(a) + INT32_MAX
    half = np.where(total >= 0, (total + 1) // 2, -((-total + 1) // 2))  # C: (sum + sign) / 2
    x = 1515870810 + _srdhm(half, -1010580540)
    for _ in range(3):
        one_minus = (1 << 29) - _srdhm(half, x)
        x = x + _mul_pot(_srdhm(x, one_minus), 2)
    return _mul_pot(x, 1)


def softmax_s8(x, mult: int, shift: int, diff_min: int) -> np.ndarray:
    """int8 softmax over the last axis (scale 1/256, zero point -128 out), as TFLite Micro's
    reference kernel and CMSIS-NN's arm_softmax_s8 compute it."""
    x = _i64(x)
    diff = x - x.max(axis=-1, keepdims=True)
    live = diff >= diff_min
    scaled = _srdhm(np.where(live, diff, 0) * (1 << shift), mult)
    e = exp_on_negative_values(scaled)
    total = np.where(live, _mul_pot(e, -12), 0).sum(axis=-1, keepdims=True)
    total = total.astype(np.uint32).astype(np.int64)                   # the sum as uint32
    headroom = np.array([32 - int(v).bit_length() for v in total.reshape(-1)],
                        np.int64).reshape(total.shape)
    bits_over_unit = 12 - headroom
    shifted = ((total << headroom) & 0xFFFFFFFF) - (1 << 31)
    recip = _one_over_one_plus_x(shifted)
    out = np.empty(x.shape, np.int64)
    prod = _srdhm(recip, e)
    flat_prod, flat_exp = prod.reshape(-1, x.shape[-1]), np.broadcast_to(
        bits_over_unit + 31 - 8, x.shape).reshape(-1, x.shape[-1])
    q = np.stack([divide_by_pow2(p, s) for p, s in zip(flat_prod, flat_exp)]).reshape(x.shape)
    out = np.where(live, np.clip(q - 128, -128, 127), -128)
    return out


# What the int8 kernels add to a requantized value is an output offset in [-128, 127].
REQUANT_OUT_MAX = INT32_MAX - 128
# quantized_add: each input's (x + offset) << 20; each rescaled input at most 2^30 - 1.
ADD_IN_MAX, ADD_HALF = 255 << ADD_LEFT_SHIFT, (1 << 30) - 1
MUL_IN_MAX = 255 * 255      # quantized_mul: the product of two offset inputs


def requant_max(in_max: int, mult: int, shift: int) -> int:
    """The largest magnitude ``requantize`` gives for inputs of up to in_max (its left shift
    wraps past 2^31: the input is then any int32) (rt_pte_requant_max)."""
    top = 1 << 31
    y = min(in_max, top)
    if shift > 0:
        y = top if y > top >> shift else y << shift
    h = ((y * abs(mult)) >> 31) + 1
    return (h >> -shift) + 1 if shift < 0 else h
