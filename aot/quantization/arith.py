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


def _rounding_half_sum(a, b) -> np.ndarray:
    """(a + b) / 2 rounded half away from zero: C's (sum + sign) / 2."""
    total = _i64(a) + _i64(b)
    return np.where(total >= 0, (total + 1) // 2, -((-total + 1) // 2))


def _one_over_one_plus_x(a) -> np.ndarray:
    """1 / (1 + a) for a in [0, 1) in Q0.31, as Q0.31 (Newton-Raphson, three steps)."""
    half = _rounding_half_sum(a, INT32_MAX)
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


# -- log softmax: TFLite's integer LOG_SOFTMAX (output scale 16/256, zero point 127) ----------

LOG_SOFTMAX_SCALE, LOG_SOFTMAX_ZERO_POINT = 16 / 256, 127
# The longest row: its exps, each at most 1 in Q12.19, sum without overflow.
LOG_SOFTMAX_ROW_MAX = (1 << 12) - 1


def log_softmax_params(input_scale: float) -> tuple[int, int, int, int, int]:
    """(mult, shift, rev_mult, rev_shift, diff_min) for an int8 input of this scale, as TFLite
    Micro's LOG_SOFTMAX Prepare computes them (PreprocessLogSoftmaxScalingExp and
    CalculateInputRadius, in double from the float32 scale):
    - (mult, shift): M = min(s * 2^26, 2^31 - 1), a difference of input steps into Q5.26;
      shift in [1, 31];
    - (rev_mult, rev_shift): 2^(31 - shift) / mult, about 1 / M, back from Q5.26 to input
      steps; rev_shift in [-31, 0];
    - diff_min = -floor(31 * 2^26 / 2^shift): differences below it are too far under the
      row's maximum to count.
    Refuses (ValueError) the scales TFLM refuses: s * 2^26 must exceed 1 (s > 2^-26)."""
    scale = float(np.float32(input_scale))
    real = min(scale * float(1 << 26), float((1 << 31) - 1))
    if not real > 1.0:
        raise ValueError(f"log_softmax input scale {scale} is not above 2^-26")
    mult, shift = quantize_multiplier(real)
    reverse = float(1 << (31 - shift)) / float(mult)
    if not 0.0 < reverse < 1.0:
        raise ValueError(f"log_softmax input scale {scale}: reverse multiplier {reverse}")
    rev_mult, rev_shift = quantize_multiplier(reverse)
    diff_min = -math.floor(31.0 * float(1 << 26) / float(1 << shift))
    return mult, shift, rev_mult, rev_shift, diff_min


def _wrap32(x) -> np.ndarray:
    """x as the C int32 holds it (two's complement, wrapping)."""
    return (_i64(x) + (1 << 31)) % (1 << 32) - (1 << 31)


def _shift_left_sat(x, exponent) -> np.ndarray:
    """x * 2^exponent, exponent >= 0 (an array too), saturated to int32."""
    return np.clip(_i64(x) << _i64(exponent), INT32_MIN, INT32_MAX)


def _leading_zeros(x) -> np.ndarray:
    """Leading zero bits of x as a uint32 (32 for 0)."""
    x = _i64(x) & 0xFFFFFFFF
    return 32 - sum(((x >> k) > 0).astype(np.int64) for k in range(32))


# Q0.31 constants of gemmlowp's log: log(2), 2^-1/4, 2^-1/2 and its polynomial's alphas.
_LOG_2, _SQRT_SQRT_HALF, _SQRT_HALF = 1488522236, 1805811301, 1518500250
_ALPHA_N, _ALPHA_D, _ALPHA_I, _ALPHA_F = 117049297, 127690142, 1057819769, 638450708


def _log_q5_of_q12(z) -> np.ndarray:
    """log(z) for z >= 1 in Q12.19, as Q5.26 (gemmlowp's log_x_for_x_greater_than_or_equal_to_1,
    accumulating in Q6.25). z = r 2^(k + 1/4), r in [1/sqrt(2), 1), the power of two from the
    headroom of z or of z / sqrt(2) (the other choice saturates r); log(z) = k log(2) +
    log(r 2^1/4), a rational polynomial in q = 2 (r - 2^-1/4). For z in [1, 4096) no step
    saturates and no sum leaves int32, as the C relies on."""
    z = _i64(z)
    quarter = 1 << 23                                       # 1/4 in Q6.25
    head_a = _leading_zeros(z)
    r_a = _mul_pot(_srdhm(_shift_left_sat(z, head_a - 1), _SQRT_HALF), 1)
    k_a = _shift_left_sat(12 - head_a, 25) + quarter
    head_b = _leading_zeros(_srdhm(z, _SQRT_HALF)) - 1
    r_b = _shift_left_sat(z, head_b)
    k_b = _shift_left_sat(12 - head_b, 25) - quarter
    r, k = np.minimum(r_a, r_b), np.maximum(k_a, k_b)
    p = _rounding_half_sum(r, _SQRT_SQRT_HALF)
    q = 2 * (r - _SQRT_SQRT_HALF)
    q2 = _srdhm(q, q)
    num = _srdhm(q, r) + _srdhm(_srdhm(q, q2), _ALPHA_N)
    den = _srdhm(p, _ALPHA_I + q + _srdhm(_ALPHA_D, q2)) + _srdhm(_ALPHA_F, q)
    acc = _srdhm(k, _LOG_2) + _srdhm(_mul_pot(num, -6), _one_over_one_plus_x(den))
    return _mul_pot(acc, 1)


def log_softmax_s8(x, mult: int, shift: int, rev_mult: int, rev_shift: int,
                   diff_min: int) -> np.ndarray:
    """int8 log softmax over the last axis (scale 16/256, zero point 127 out), as TFLite
    Micro's reference kernel computes it; the parameters are log_softmax_params'. Per row: each
    difference d = x - max in Q5.26; the sum of their exps in Q12.19; its log L in Q5.26; then
    each output is (d - L) rounded to 4 fractional bits, + 127, or -128 where d - L would not
    fit in Q5.26 (d at most the reverse-scaled L - 32, or below diff_min)."""
    x = _i64(x)
    if x.ndim == 0:                                     # one row of one
        return log_softmax_s8(x.reshape(1), mult, shift, rev_mult, rev_shift,
                              diff_min).reshape(())
    if x.size == 0:
        return x.copy()
    if x.shape[-1] > LOG_SOFTMAX_ROW_MAX:
        raise ValueError(f"log_softmax rows of {x.shape[-1]} > {LOG_SOFTMAX_ROW_MAX}")
    diff = x - x.max(axis=-1, keepdims=True)
    live = diff >= diff_min
    scaled = requantize(np.where(live, diff, 0), mult, shift)
    e = exp_on_negative_values(scaled)
    total = np.where(live, _mul_pot(e, -12), 0).sum(axis=-1, keepdims=True)
    log_sum = _log_q5_of_q12(total)
    low = np.maximum(diff_min - 1, requantize(_wrap32(log_sum + INT32_MIN), rev_mult, rev_shift))
    q = divide_by_pow2(_wrap32(scaled - log_sum), 31 - 5 - 4) + LOG_SOFTMAX_ZERO_POINT
    return np.where(diff > low, np.clip(q, INT8_MIN, INT8_MAX), INT8_MIN)


# What the int8 kernels add to a requantized value is an output offset in [-128, 127].
REQUANT_OUT_MAX = INT32_MAX - 128
# quantized_add: each input's (x + offset) << 20; each rescaled input at most 2^30 - 1.
ADD_IN_MAX, ADD_HALF = 255 << ADD_LEFT_SHIFT, (1 << 30) - 1
MUL_IN_MAX = 255 * 255      # quantized_mul: the product of two offset inputs
MUL_S16_IN_MAX = 255 * 32768   # quantized_mul_s16: an offset int8 times an int16


def requant_max(in_max: int, mult: int, shift: int) -> int:
    """The largest magnitude ``requantize`` gives for inputs of up to in_max (its left shift
    wraps past 2^31: the input is then any int32) (rt_pte_requant_max)."""
    top = 1 << 31
    y = min(in_max, top)
    if shift > 0:
        y = top if y > top >> shift else y << shift
    h = ((y * abs(mult)) >> 31) + 1
    return (h >> -shift) + 1 if shift < 0 else h
