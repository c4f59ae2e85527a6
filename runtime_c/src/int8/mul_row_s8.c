/* mul_row_s8.c - rt_s8_mul_row (s8_internal.h): one broadcast row of rt_mul_s8, each product
 * of the offset inputs requantized, offset and clamped. An arch folder may replace this file. */
#include "s8_internal.h"

void rt_s8_mul_row(const rt_mul_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    /* copied out of p: a store to the int8 output may alias it, so gcc would reload each */
    const int32_t off1 = p->in1_offset, off2 = p->in2_offset, off = p->out_offset;
    const int32_t mult = p->out_mult, shift = p->out_shift, lo = p->act_min, hi = p->act_max;
    int32_t i;
    for (i = 0; i < n; ++i) {
        const int32_t prod = ((int32_t)a[i * a_step] + off1) * ((int32_t)b[i * b_step] + off2);
        out[i] = rt_s8_clamp(rt_s8_requant(prod, mult, shift) + off, lo, hi);
    }
}
