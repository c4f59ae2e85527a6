/* mul_row_s8.c (Cortex-M DSP) - rt_s8_mul_row with the DSP requantization (s8_dsp.h), its
 * per-(mult, shift) choices made once per row: where the offsets bound every product inside
 * its fast range (always, for real layers: |product| <= 255 * 255), an element is a multiply,
 * SMMULR, the rounding shift and the clamp, about a dozen instructions instead of forty.
 * Bit-exact with int8/mul_row_s8.c. */
#include "s8_dsp.h"

/* The fast loop: every product known to lie in q's range; SSAT clamps to int8, then the
 * activation where it is narrower (narrow: a constant where this is inlined). Its constants
 * are held in locals: a store to the int8 output may alias anything, so gcc would reload a
 * struct's fields every element. */
static inline __attribute__((always_inline)) void
mul_in_range(const rt_dsp_rq *q, int32_t off1, int32_t off2, int32_t off, int32_t lo,
             int32_t hi, const int8_t *a, int32_t a_step, const int8_t *b, int32_t b_step,
             int8_t *out, int32_t n, const int narrow)
{
    const int32_t pre = q->pre, mult = q->mult, half = q->half, neg = q->neg, e = q->e;
    int8_t *const end = out + n;
    for (; out != end; ++out, a += a_step, b += b_step) {
        const int32_t prod = ((int32_t)*a + off1) * ((int32_t)*b + off2);
        const int32_t r = rt_dsp_smmulr((int32_t)((uint32_t)prod << pre), mult);
        int32_t v = rt_dsp_sat8(((r + half + ((r >> 31) & neg)) >> e) + off);
        if (narrow) {
            v = v < lo ? lo : v > hi ? hi : v;
        }
        *out = (int8_t)v;
    }
}

static RT_DSP_NOINLINE void mul_byte(const rt_dsp_rq *q, int32_t off1, int32_t off2,
                                     int32_t off, const int8_t *a, int32_t a_step,
                                     const int8_t *b, int32_t b_step, int8_t *out, int32_t n)
{
    mul_in_range(q, off1, off2, off, -128, 127, a, a_step, b, b_step, out, n, 0);
}

static RT_DSP_NOINLINE void mul_narrow(const rt_dsp_rq *q, int32_t off1, int32_t off2,
                                       int32_t off, int32_t lo, int32_t hi, const int8_t *a,
                                       int32_t a_step, const int8_t *b, int32_t b_step,
                                       int8_t *out, int32_t n)
{
    mul_in_range(q, off1, off2, off, lo, hi, a, a_step, b, b_step, out, n, 1);
}

void rt_s8_mul_row(const rt_mul_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    const rt_dsp_rq q = rt_dsp_rq_make(p->out_mult, p->out_shift);
    const int32_t off1 = p->in1_offset, off2 = p->in2_offset, off = p->out_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    const int64_t bound = (128 + (off1 < 0 ? -(int64_t)off1 : (int64_t)off1)) *
                          (128 + (off2 < 0 ? -(int64_t)off2 : (int64_t)off2));
    int32_t i;
    if (bound < q.hi && -bound > q.lo) {
        if (lo == -128 && hi == 127) {
            mul_byte(&q, off1, off2, off, a, a_step, b, b_step, out, n);
        } else {
            mul_narrow(&q, off1, off2, off, lo, hi, a, a_step, b, b_step, out, n);
        }
        return;
    }
    for (i = 0; i < n; ++i, a += a_step, b += b_step) {
        const int32_t prod = ((int32_t)*a + off1) * ((int32_t)*b + off2);
        out[i] = rt_s8_clamp(rt_dsp_rq_apply(&q, prod) + off, lo, hi);
    }
}
