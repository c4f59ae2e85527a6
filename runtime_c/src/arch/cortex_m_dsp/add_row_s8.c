/* add_row_s8.c (Cortex-M DSP) - rt_s8_add_row with the DSP requantization (s8_dsp.h), its
 * per-(mult, shift) choices made once per row: the three rescalings of an element take about
 * ten instructions each instead of thirty, and none of their range checks when the row's
 * bounds prove every value in range (the usual case: inputs are bytes); a long row rescales
 * each input byte value once, into a table, and then takes about sixteen instructions an
 * element. Bit-exact with int8/add_row_s8.c. */
#include "s8_dsp.h"

/* Rows at least this long rescale their inputs through two tables of the 256 byte values. */
#define ADD_TABLE_MIN 2048

/* A bound on |rescaled v| for |v| <= bound: v * 2^shift, plus one for the rounding. */
static int64_t rescaled(int64_t bound, int32_t shift)
{
    return (shift >= 0 ? bound << (shift > 30 ? 30 : shift) : bound >> -shift) + 1;
}

/* Does every |v| <= bound lie in q's fast range? */
static int in_range(const rt_dsp_rq *q, int64_t bound)
{
    return bound < q->hi && -bound > q->lo;
}

/* The table path's elements: x = tx[a], y = ty[b] (tables indexed by the byte's int8 value,
 * the subtraction already in ty), their sum requantized by qo's in-range steps, offset and
 * clamped (SSAT, then the activation where it is narrower than int8). The steps' constants
 * are held in locals: a store to the int8 output may alias anything, so gcc would reload a
 * struct's fields every element. Inlined into the three loops below, with unit steps and
 * `narrow` made constants; they are out of line, so that their registers are their own. */
static inline __attribute__((always_inline)) void
add_tables(const int32_t *tx, const int32_t *ty, const rt_dsp_rq *qo, int32_t off, int32_t lo,
           int32_t hi, const int8_t *a, int32_t a_step, const int8_t *b, int32_t b_step,
           int8_t *out, int32_t n, const int narrow)
{
    const int32_t pre = qo->pre, mult = qo->mult, half = qo->half, neg = qo->neg, e = qo->e;
    int32_t i;
    for (i = 0; i < n; ++i, a += a_step, b += b_step) {
        const int32_t r = rt_dsp_smmulr((int32_t)((uint32_t)(tx[*a] + ty[*b]) << pre), mult);
        int32_t v = rt_dsp_sat8(((r + half + ((r >> 31) & neg)) >> e) + off);
        if (narrow) {
            v = v < lo ? lo : v > hi ? hi : v;
        }
        out[i] = (int8_t)v;
    }
}

static RT_DSP_NOINLINE void add_tables_byte(const int32_t *tx, const int32_t *ty,
                                            const rt_dsp_rq *qo, int32_t off, const int8_t *a,
                                            const int8_t *b, int8_t *out, int32_t n)
{
    add_tables(tx, ty, qo, off, -128, 127, a, 1, b, 1, out, n, 0);
}

static RT_DSP_NOINLINE void add_tables_unit(const int32_t *tx, const int32_t *ty,
                                            const rt_dsp_rq *qo, int32_t off, int32_t lo,
                                            int32_t hi, const int8_t *a, const int8_t *b,
                                            int8_t *out, int32_t n)
{
    add_tables(tx, ty, qo, off, lo, hi, a, 1, b, 1, out, n, 1);
}

static RT_DSP_NOINLINE void add_tables_any(const int32_t *tx, const int32_t *ty,
                                           const rt_dsp_rq *qo, int32_t off, int32_t lo,
                                           int32_t hi, const int8_t *a, int32_t a_step,
                                           const int8_t *b, int32_t b_step, int8_t *out,
                                           int32_t n)
{
    add_tables(tx, ty, qo, off, lo, hi, a, a_step, b, b_step, out, n, 1);
}

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
    const int64_t in = (int64_t)255 << (p->left_shift > 24 ? 24 : p->left_shift);
    int32_t i;
    if (p->left_shift >= 0 && p->left_shift <= 24 && in_range(&q1, in) && in_range(&q2, in) &&
        in_range(&qo, rescaled(in, p->in1_shift) + rescaled(in, p->in2_shift))) {
        if (n >= ADD_TABLE_MIN) {
            /* each input rescaled once per byte value: 2 KB of stack, built in ~5k
               instructions, then an element is two loads from the tables */
            int32_t tx[256], ty[256];
            for (i = 0; i < 256; ++i) {
                const int32_t y = rt_dsp_rq_apply_in_range(&q2, (i - 128 + off2) * up);
                tx[i] = rt_dsp_rq_apply_in_range(&q1, (i - 128 + off1) * up);
                ty[i] = sub ? -y : y;
            }
            if (a_step == 1 && b_step == 1 && lo == -128 && hi == 127) {
                add_tables_byte(tx + 128, ty + 128, &qo, off, a, b, out, n);
            } else if (a_step == 1 && b_step == 1) {
                add_tables_unit(tx + 128, ty + 128, &qo, off, lo, hi, a, b, out, n);
            } else {
                add_tables_any(tx + 128, ty + 128, &qo, off, lo, hi, a, a_step, b, b_step, out,
                               n);
            }
            return;
        }
        for (i = 0; i < n; ++i, a += a_step, b += b_step) {
            const int32_t x = rt_dsp_rq_apply_in_range(&q1, ((int32_t)*a + off1) * up);
            const int32_t y = rt_dsp_rq_apply_in_range(&q2, ((int32_t)*b + off2) * up);
            const int32_t v = rt_dsp_rq_apply_in_range(&qo, sub ? x - y : x + y) + off;
            out[i] = (int8_t)(v < lo ? lo : v > hi ? hi : v);
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        const int32_t x = rt_dsp_rq_apply(&q1, ((int32_t)*a + off1) * up);
        const int32_t y = rt_dsp_rq_apply(&q2, ((int32_t)*b + off2) * up);
        out[i] = rt_s8_clamp(rt_dsp_rq_apply(&qo, sub ? x - y : x + y) + off, lo, hi);
        a += a_step;
        b += b_step;
    }
}
