/* add_row_s8.c - rt_s8_add_row (s8_internal.h): one broadcast row of rt_add_s8, each
 * element rescaled to the common scale (left shift, then its multiplier), added or
 * subtracted, and requantized. An arch folder may replace this file. */
#include "s8_internal.h"

void rt_s8_add_row(const rt_add_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    /* A negative in2_mult subtracts: b is scaled by |in2_mult|, then taken away (TFLite's
     * SUB), rather than scaled by a negative multiplier, which rounds ties the other way. */
    const int32_t sub = p->in2_mult < 0, m2 = sub ? -p->in2_mult : p->in2_mult;
    const int32_t up = 1 << p->left_shift;
    int32_t i;
    for (i = 0; i < n; ++i) {
        const int32_t x = rt_s8_requant(((int32_t)a[i * a_step] + p->in1_offset) * up,
                                        p->in1_mult, p->in1_shift);
        const int32_t y = rt_s8_requant(((int32_t)b[i * b_step] + p->in2_offset) * up, m2,
                                        p->in2_shift);
        out[i] = rt_s8_clamp(rt_s8_requant(sub ? x - y : x + y, p->out_mult, p->out_shift) +
                             p->out_offset, p->act_min, p->act_max);
    }
}
