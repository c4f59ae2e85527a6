/* s8_internal.h - the fixed-point steps shared by the int8 kernels (not public API).
 *
 * These reproduce CMSIS-NN's default ("double rounding") requantization, which TensorFlow Lite
 * Micro's reference kernels compute too, in portable C99: no arithmetic right shift of a
 * negative value and no signed overflow is relied on. */
#ifndef RT_S8_INTERNAL_H
#define RT_S8_INTERNAL_H

#include "../core/rt_internal.h"

/* round(a * b / 2^31), ties toward +inf; saturates the one overflowing case
 * (INT32_MIN * INT32_MIN). It is floor((a * b + 2^30) / 2^31), taken as an unsigned shift of
 * the sum moved up by 2^62 (|a * b| <= 2^62), so no negative value is shifted. */
static inline int32_t rt_s8_high_mul(int32_t a, int32_t b)
{
    const uint64_t up = (uint64_t)((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) +
                        ((uint64_t)1 << 62);
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    return (int32_t)((int64_t)(up >> 31) - ((int64_t)1 << 31));
}

/* x / 2^e (0 <= e <= 31), rounded to nearest, ties away from zero. The floor comes from an
 * unsigned shift of x moved up by 2^31. */
static inline int32_t rt_s8_div_pow2(int32_t x, int32_t e)
{
    const uint32_t bias = 0x80000000u;
    const int32_t mask = (int32_t)((((uint32_t)1) << e) - 1u);
    const int32_t rem = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    const int32_t q = (int32_t)((int64_t)(((uint32_t)x + bias) >> e) - (int64_t)(bias >> e));
    return q + (rem > threshold ? 1 : 0);
}

/* x * mult * 2^(shift - 31): arm_nn_requantize (double rounding). */
static inline int32_t rt_s8_requant(int32_t x, int32_t mult, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    const int32_t y = (int32_t)(uint32_t)((uint64_t)(uint32_t)x << left); /* wraps as int32 */
    return rt_s8_div_pow2(rt_s8_high_mul(y, mult), right);
}

static inline int8_t rt_s8_clamp(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}

/* gemmlowp's fixed point, as softmax and log softmax use it (Qm.n: m integer bits, n = 31 - m
 * fractional ones). */

/* x * 2^e: a saturating left shift (e > 0) or a rounding right shift (-31 <= e <= 0). */
static inline int32_t rt_s8_mul_pow2(int32_t x, int32_t e)
{
    if (e <= 0) {
        return rt_s8_div_pow2(x, -e);
    }
    if (x > (INT32_MAX >> e)) {
        return INT32_MAX;
    }
    if (x < -(INT32_MAX >> e) - 1) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << e);
}

/* (a + b) / 2, rounded half away from zero. */
static inline int32_t rt_s8_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* exp(a), a in [-1/4, 0), Q0.31 in and out. */
static inline int32_t rt_s8_exp_quarter(int32_t a)
{
    const int32_t x = a + (1 << 28);               /* a + 1/8: expand around -1/8 */
    const int32_t x2 = rt_s8_high_mul(x, x);
    const int32_t x3 = rt_s8_high_mul(x2, x);
    const int32_t x4 = rt_s8_high_mul(x2, x2);
    const int32_t x4_4 = rt_s8_mul_pow2(x4, -2);
    const int32_t poly = rt_s8_mul_pow2(rt_s8_high_mul(x4_4 + x3, 715827883) + x2, -1);
    return 1895147668 + rt_s8_high_mul(1895147668, x + poly);
}

/* exp(a) for a <= 0 in Q5.26, as Q0.31. */
static inline int32_t rt_s8_exp_negative(int32_t a)
{
    static const int32_t steps[7] = {1672461947, 1302514674, 790015084, 290630308,
                                     39332535, 720401, 242};
    const int32_t quarter = 1 << 24;
    const int32_t mod = (a & (quarter - 1)) - quarter;
    const int32_t remainder = mod - a;
    int32_t result = rt_s8_exp_quarter(rt_s8_mul_pow2(mod, 5));
    int32_t k;
    for (k = 0; k < 7; ++k) {                       /* exp(-2^(k-2)) for each set bit */
        if ((remainder >> (24 + k)) & 1) {
            result = rt_s8_high_mul(result, steps[k]);
        }
    }
    return a == 0 ? INT32_MAX : result;
}

/* 1 / (1 + a), a in [0, 1) as Q0.31, result Q0.31 (three Newton-Raphson steps). */
static inline int32_t rt_s8_one_over_one_plus(int32_t a)
{
    const int32_t half = rt_s8_half_sum(a, INT32_MAX);
    int32_t x = 1515870810 + rt_s8_high_mul(half, -1010580540);   /* 48/17 - 32/17 d */
    int32_t i;
    for (i = 0; i < 3; ++i) {
        const int32_t one_minus = (1 << 29) - rt_s8_high_mul(half, x);
        x = x + rt_s8_mul_pow2(rt_s8_high_mul(x, one_minus), 2);
    }
    return rt_s8_mul_pow2(x, 1);
}

/* The leading zero bits of v (32 for 0). */
static inline int32_t rt_s8_leading_zeros(uint32_t v)
{
    int32_t n = 0;
    if (v == 0u) {
        return 32;
    }
    while ((v & 0x80000000u) == 0u) {
        v <<= 1;
        ++n;
    }
    return n;
}

/* The dot products under every int8 conv and fully connected layer (dot_s8.c; an arch
 * folder may replace that file, e.g. with SMLAD on cores with the DSP extension):
 *   rt_s8_dot:  sum over i < n of (x[i] + x_off) * w[i];
 *   rt_s8_dot4: a[j] += sum over i < n of (x[i] + x_off) * w[j * stride + i], j < 4. */
int32_t rt_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off);
void rt_s8_dot4(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t x_off,
                int32_t *a);

/* rt_s8_dot4 for a run of up to four filters: a[j] += the dot product with w[j * stride],
 * j < run (a run of four in one pass over x). */
static inline void rt_s8_dot_run(const int8_t *x, const int8_t *w, int32_t stride, int32_t n,
                                 int32_t x_off, int32_t run, int32_t *a)
{
    int32_t j;
    if (run == 4) {
        rt_s8_dot4(x, w, stride, n, x_off, a);
        return;
    }
    for (j = 0; j < run; ++j) {
        a[j] += rt_s8_dot(x, w + j * stride, n, x_off);
    }
}

/* One input row of rt_fully_connected_s8 (fc_row_s8.c, which an arch folder may replace):
 * out[oc] for every oc < cout, from x[k] and the filters w[cout][k]; p is checked. */
void rt_s8_fc_row(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w, int32_t k,
                  int32_t cout, const int32_t *bias, int8_t *out);

/* The row of rt_lut_s8 (lut_row_s8.c, which an arch folder may replace): out[i] =
 * table[in[i] + 128], i < n; out may be in. */
void rt_s8_lut_row(const int8_t *table, const int8_t *in, int8_t *out, int32_t n);

/* One row of rt_add_s8 (add_row_s8.c, which an arch folder may replace): out[i] = a[i * a_step]
 * + b[i * b_step] (or minus, for a negative in2_mult), i < n, in the output's qparams. */
void rt_s8_add_row(const rt_add_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n);

/* The rows of rt_add_s8 / rt_mul_s8 through ``row`` (rt_s8_add_row, rt_s8_mul_row): one flat
 * row where both operands hold out's elements (rt_bcast_flat), else one per broadcast row.
 * Returns the shape error of operands that do not broadcast to out from the calling kernel. */
#define RT_S8_BINARY_ROWS(row, p, a_s, a, b_s, b, out_s, out)                                 \
    do {                                                                                      \
        const rt_shape *in_s_[2];                                                             \
        rt_bcast it_;                                                                         \
        int32_t r_;                                                                           \
        const int32_t n_ = rt_shape_numel(out_s);                                             \
        int8_t *o_ = (out);                                                                   \
        if (n_ >= 0 && rt_bcast_flat(a_s, out_s) && rt_bcast_flat(b_s, out_s)) {              \
            row(p, a, 1, b, 1, o_, n_);                                                       \
            break;                                                                            \
        }                                                                                     \
        in_s_[0] = (a_s);                                                                     \
        in_s_[1] = (b_s);                                                                     \
        RT_TRY(rt_bcast_init(&it_, 2, in_s_, out_s));                                         \
        for (r_ = 0; r_ < it_.rows; ++r_, o_ += it_.inner) {                                  \
            row(p, (a) + it_.off[0], it_.inner_st[0], (b) + it_.off[1], it_.inner_st[1], o_,  \
                it_.inner);                                                                   \
            rt_bcast_next(&it_);                                                              \
        }                                                                                     \
    } while (0)

/* One row of rt_mul_s8 (mul_row_s8.c, which an arch folder may replace): out[i] =
 * (a[i * a_step] + in1_offset) * (b[i * b_step] + in2_offset) requantized, plus out_offset,
 * clamped, i < n (steps may be 0: a broadcast operand); out may be an input of step 1. */
void rt_s8_mul_row(const rt_mul_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n);

/* The rows of cell_s16.c's kernels (cell_row_s16.c; an arch folder may replace them): n
 * elements, the checks made by the caller. */
void rt_s16_mul_row(const rt_mul_s16_params *p, const int8_t *a, const void *b, int32_t b_elem,
                    int16_t *out, int32_t n);
void rt_s16_add_row(const int16_t *a, const int16_t *b, int16_t *out, int32_t n);
void rt_s16_step_row(const int16_t *steps, int32_t count, int32_t first, const int16_t *in,
                     int8_t *out, int32_t n);

/* The rows of rt_layer_norm_s8 (layer_norm_row_s8.c, which an arch folder may replace): rows
 * rows of d int8 (1 <= d <= 65536) from in to out (out may be in), weight and bias [d] or
 * NULL; p is checked. */
void rt_s8_layer_norm_rows(const rt_layer_norm_s8_params *p, const float *weight,
                           const float *bias, const int8_t *in, int8_t *out, int32_t rows,
                           int32_t d);

/* One output pixel of rt_avg_pool2d_s8 / rt_max_pool2d_s8 (pool_px_s8.c, which an arch folder
 * may replace): out[c] for every c < ch over a window of rows x cols valid taps, the first at
 * x (channel 0), the next column col_step bytes on, the next row row_step; the average (rows,
 * cols >= 1) as rt_s8_avg_out gives it, or the maximum (-128 for no taps); clamped to [lo, hi].
 * Two functions, so that a model links only the pooling it calls. */
typedef void (*rt_s8_pool_px_fn)(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                                 int32_t col_step, int32_t ch, int32_t lo, int32_t hi,
                                 int8_t *out);
void rt_s8_avg_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out);
void rt_s8_max_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out);

/* One channel of an output pixel at x, unclamped: the sum of its taps, or their maximum. */
static inline int32_t rt_s8_pool_channel(const int8_t *x, int32_t rows, int32_t cols,
                                         int32_t row_step, int32_t col_step, int32_t is_max)
{
    int32_t acc = is_max ? -128 : 0, r, k;
    for (r = 0; r < rows; ++r, x += row_step) {
        const int8_t *t = x;
        for (k = 0; k < cols; ++k, t += col_step) {
            if (is_max) {
                acc = *t > acc ? *t : acc;
            } else {
                acc += *t;
            }
        }
    }
    return acc;
}

/* An average's output from a channel's sum of count taps: divided by count, rounded half away
 * from zero (arm_avgpool_s8), clamped to [lo, hi]. */
static inline int8_t rt_s8_avg_out(int32_t sum, int32_t count, int32_t lo, int32_t hi)
{
    return rt_s8_clamp(sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count, lo, hi);
}

/* The shared checks of an activation range. */
/* v rounded half to even, without the floating-point environment or libm. */
static inline float rt_s8_round_even(float v)
{
    int32_t t;
    float diff;
    if (!(v < 8388608.0f && v > -8388608.0f)) {
        return v;                           /* |v| >= 2^23 is an integer already (or NaN) */
    }
    t = (int32_t)v;                         /* truncates toward zero, exactly */
    diff = v - (float)t;
    if (diff > 0.5f || (diff == 0.5f && (t & 1) != 0)) {
        ++t;
    } else if (diff < -0.5f || (diff == -0.5f && (t & 1) != 0)) {
        --t;
    }
    return (float)t;
}

/* float32 v as int8 at zero point zp (v already divided by the scale): PT2E's rounding, then
 * the clamp (NaN to -128, as torch's cast of a NaN clamp). */
static inline int8_t rt_s8_from_float(float v, int32_t zp)
{
    const float q = rt_s8_round_even(v) + (float)zp;
    return (int8_t)(q >= 127.0f ? 127 : (q > -128.0f ? (int32_t)q : -128));
}

#define RT_S8_RANGE_OK(lo, hi) ((lo) >= -128 && (lo) <= (hi) && (hi) <= 127)

#endif /* RT_S8_INTERNAL_H */
