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
