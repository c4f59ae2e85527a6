/* log_softmax_s8.c - rt_log_softmax_s8: int8 log softmax over the last dim in gemmlowp-style
 * fixed point, as TensorFlow Lite Micro's reference kernel computes it (output scale 16/256,
 * zero point 127). Per row: d = x - max, scaled to Q5.26; the sum of exp(d) in Q12.19 (the
 * exps as softmax_s8.c takes them); its log L in Q5.26; each output = d - L rounded to 4
 * fractional bits, + 127, or -128 where d - L would not fit Q5.26 (d at or below L - 32 scaled
 * back to input steps, or below diff_min). */
#include "s8_internal.h"

/* A row's exps, each at most 1.0 (2^19 in Q12.19), sum without overflow. */
#define ROW_MAX 4095

/* log(z) for z >= 1 in Q12.19, as Q5.26: gemmlowp's log_x_for_x_greater_than_or_equal_to_1,
 * accumulating in Q6.25. z = r 2^(k + 1/4), r in [1/sqrt(2), 1), the power of two from the
 * headroom of z or of z / sqrt(2) (the other choice saturates r); log(z) = k log(2) +
 * log(r 2^1/4), a rational polynomial in q = 2 (r - 2^-1/4). For z in [1, 4096) no step
 * saturates and no sum overflows. */
static int32_t log_q5_of_q12(int32_t z)
{
    const int32_t sqrt_half = 1518500250, sqrt_sqrt_half = 1805811301, quarter = 1 << 23;
    const int32_t head_a = rt_s8_leading_zeros((uint32_t)z);
    const int32_t head_b = rt_s8_leading_zeros((uint32_t)rt_s8_high_mul(z, sqrt_half)) - 1;
    const int32_t r_a =
        rt_s8_mul_pow2(rt_s8_high_mul(rt_s8_mul_pow2(z, head_a - 1), sqrt_half), 1);
    const int32_t r_b = rt_s8_mul_pow2(z, head_b);
    const int32_t k_a = rt_s8_mul_pow2(12 - head_a, 25) + quarter;
    const int32_t k_b = rt_s8_mul_pow2(12 - head_b, 25) - quarter;
    const int32_t r = r_a < r_b ? r_a : r_b;
    const int32_t k = k_a > k_b ? k_a : k_b;
    const int32_t p = rt_s8_half_sum(r, sqrt_sqrt_half);
    const int32_t q = 2 * (r - sqrt_sqrt_half);
    const int32_t q2 = rt_s8_high_mul(q, q);
    /* log(r 2^1/4) = num / (1 + den) (constants alpha_n, alpha_i, alpha_d, alpha_f) */
    const int32_t num = rt_s8_high_mul(q, r) + rt_s8_high_mul(rt_s8_high_mul(q, q2), 117049297);
    const int32_t den = rt_s8_high_mul(p, 1057819769 + q + rt_s8_high_mul(127690142, q2)) +
                        rt_s8_high_mul(638450708, q);
    const int32_t acc = rt_s8_high_mul(k, 1488522236) +              /* k log(2) */
                        rt_s8_high_mul(rt_s8_mul_pow2(num, -6), rt_s8_one_over_one_plus(den));
    return rt_s8_mul_pow2(acc, 1);
}

/* One row of n. */
static void log_softmax_row(const rt_log_softmax_s8_params *p, const int8_t *x, int8_t *y,
                            int32_t n)
{
    int32_t max = -128, sum = 0, log_sum, low, i;
    for (i = 0; i < n; ++i) {
        max = x[i] > max ? x[i] : max;
    }
    for (i = 0; i < n; ++i) {
        const int32_t d = (int32_t)x[i] - max;
        if (d >= p->diff_min) {
            const int32_t e = rt_s8_exp_negative(rt_s8_requant(d, p->mult, p->shift));
            sum += rt_s8_mul_pow2(e, -12);
        }
    }
    log_sum = log_q5_of_q12(sum);
    /* The largest d whose d - L underflows Q5.26: L - 32 (L + INT32_MIN) in input steps. */
    low = rt_s8_requant((int32_t)((uint32_t)log_sum + 0x80000000u), p->rev_mult, p->rev_shift);
    low = low > p->diff_min - 1 ? low : p->diff_min - 1;
    for (i = 0; i < n; ++i) {
        const int32_t d = (int32_t)x[i] - max;
        if (d > low) {
            const int32_t v = (int32_t)((uint32_t)rt_s8_requant(d, p->mult, p->shift) -
                                        (uint32_t)log_sum);
            y[i] = rt_s8_clamp(rt_s8_div_pow2(v, 31 - 5 - 4) + 127, -128, 127);
        } else {
            y[i] = -128;
        }
    }
}

rt_status rt_log_softmax_s8(const rt_log_softmax_s8_params *p, const rt_shape *in_s,
                            const int8_t *in, const rt_shape *out_s, int8_t *out)
{
    int32_t rows, n, r;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(rt_same_shape(in_s, out_s), RT_ERR_SHAPE);
    n = in_s->rank > 0 ? in_s->d[in_s->rank - 1] : 1;
    RT_CHECK(n <= ROW_MAX, RT_ERR_SHAPE);
    RT_CHECK(p->shift >= 0 && p->shift <= 31 && p->mult >= 0 && p->rev_shift >= -31 &&
             p->rev_shift <= 0 && p->rev_mult >= 0 && p->diff_min <= 0 &&
             p->diff_min > INT32_MIN, RT_ERR_PARAM);
    rows = n > 0 ? rt_shape_numel(in_s) / n : 0;
    for (r = 0; r < rows; ++r) {
        log_softmax_row(p, in + r * n, out + r * n, n);
    }
    return RT_OK;
}
