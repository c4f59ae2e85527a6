/* softmax_s8.c - rt_softmax_s8: int8 softmax over the last dim in gemmlowp-style fixed point,
 * as TFLite Micro's reference kernel and arm_softmax_s8 compute it (output scale 1/256, zero
 * point -128). Per row: d = x - max, scaled to Q5.26; exp(d) in Q0.31 from a Taylor series on
 * [-1/4, 0) and a barrel shifter over the integer part; the sum in Q12.19; its reciprocal by
 * Newton-Raphson; each output = exp * reciprocal, rounded to 8 bits. */
#include "s8_internal.h"

/* exp(d) in Q0.31 for an input difference d = x - max <= 0 (0 below diff_min). */
static int32_t exp_of(const rt_softmax_s8_params *p, int32_t d)
{
    return d >= p->diff_min ? rt_s8_exp_negative(rt_s8_high_mul(d * (1 << p->shift), p->mult))
                            : 0;
}

/* One row of n: e(d) is exp_of(p, d), from the table where one is given. */
static void softmax_row(const rt_softmax_s8_params *p, const int32_t *table, const int8_t *x,
                        int8_t *y, int32_t n)
{
    int32_t max = -128, sum = 0, headroom, recip, bits_over_unit, i;
    for (i = 0; i < n; ++i) {
        max = x[i] > max ? x[i] : max;
    }
    for (i = 0; i < n; ++i) {
        const int32_t d = (int32_t)x[i] - max;
        sum += rt_s8_mul_pow2(table != NULL ? table[-d] : exp_of(p, d), -12);
    }
    headroom = rt_s8_leading_zeros((uint32_t)sum);
    bits_over_unit = 12 - headroom;
    recip = rt_s8_one_over_one_plus((int32_t)(((uint32_t)sum << headroom) - 0x80000000u));
    for (i = 0; i < n; ++i) {
        const int32_t d = (int32_t)x[i] - max;
        if (d >= p->diff_min) {
            const int32_t e = table != NULL ? table[-d] : exp_of(p, d);
            const int32_t v = rt_s8_div_pow2(rt_s8_high_mul(recip, e), bits_over_unit + 23);
            y[i] = rt_s8_clamp(v - 128, -128, 127);
        } else {
            y[i] = -128;
        }
    }
}

rt_status rt_softmax_s8(const rt_softmax_s8_params *p, const rt_shape *in_s, const int8_t *in,
                        const rt_shape *out_s, int8_t *out)
{
    /* exp(d) depends on d alone, one of 256 values: where the tensor has more elements than
     * that (attention's rows), each is computed once into a table on the stack (1 KB) instead
     * of twice per element. */
    int32_t table[256];
    int32_t rows, n, r, d;
    const int32_t total = rt_shape_numel(in_s);
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(total >= 0 && total == rt_shape_numel(out_s), RT_ERR_SHAPE);
    RT_CHECK(p->shift >= 0 && p->shift <= 31 && p->mult >= 0 && p->diff_min <= 0,
             RT_ERR_PARAM);
    n = in_s->rank > 0 ? in_s->d[in_s->rank - 1] : 1;
    rows = n > 0 ? total / n : 0;
    if (total > 256) {
        for (d = 0; d < 256; ++d) {
            table[d] = exp_of(p, -d);
        }
    }
    for (r = 0; r < rows; ++r) {
        softmax_row(p, total > 256 ? table : NULL, in + r * n, out + r * n, n);
    }
    return RT_OK;
}
