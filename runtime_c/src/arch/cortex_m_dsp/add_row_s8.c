/* add_row_s8.c (Cortex-M DSP) - rt_s8_add_row with the DSP requantization (s8_dsp.h), its
 * per-(mult, shift) choices made once per row: the three rescalings of an element take about
 * ten instructions each instead of thirty. Bit-exact with int8/add_row_s8.c. */
#include "s8_dsp.h"

void rt_s8_add_row(const rt_add_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    const int32_t sub = p->in2_mult < 0, m2 = sub ? -p->in2_mult : p->in2_mult;
    const int32_t up = 1 << p->left_shift;
    const rt_dsp_rq q1 = rt_dsp_rq_make(p->in1_mult, p->in1_shift);
    const rt_dsp_rq q2 = rt_dsp_rq_make(m2, p->in2_shift);
    const rt_dsp_rq qo = rt_dsp_rq_make(p->out_mult, p->out_shift);
    const int32_t off1 = p->in1_offset, off2 = p->in2_offset, off = p->out_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t i;
    for (i = 0; i < n; ++i) {
        const int32_t x = rt_dsp_rq_apply(&q1, ((int32_t)*a + off1) * up);
        const int32_t y = rt_dsp_rq_apply(&q2, ((int32_t)*b + off2) * up);
        out[i] = rt_s8_clamp(rt_dsp_rq_apply(&qo, sub ? x - y : x + y) + off, lo, hi);
        a += a_step;
        b += b_step;
    }
}
