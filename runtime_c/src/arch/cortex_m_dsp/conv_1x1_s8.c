/* conv_1x1_s8.c (Cortex-M DSP) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product of
 * the pixels by the filters on 2x2 tiles (conv_dsp.h): filters two at a time outside, their
 * output stage set up once; pixels two at a time inside, across rows. Bit-exact with
 * int8/conv_1x1_s8.c. */
#include "conv_dsp.h"

#if defined(__OPTIMIZE__)
/* The inner loop of dot_2x2 for one run of whole words (n % 4 == 0, n > 0), inlined into
 * the pointwise loop so that the sums stay in registers across the call. */
static inline __attribute__((always_inline)) void run_2x2(
    const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1, int32_t n,
    int16x2_t off2, int32_t *acc)
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    const int8_t *const end = x0 + n;
    int32_t t0, t1, t2, t3, t4, t5;
    __asm__ volatile(
        "1:\n\t"
        RT_DSP_2X2_TURN
        "ldr %[t5], %[end]\n\t"
        "cmp %[x0], %[t5]\n\t"
        "bne 1b"
        : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11),
          [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
          [t4] "=&r"(t4), [t5] "=&r"(t5)
        : [off] "m"(off2), [end] "m"(end)
        : "cc", "memory");
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}
#endif

/* Two filters' output stage, set up once for a run of tiles. */
typedef struct out_pair {
    rt_dsp_rq q0, q1;
    int32_t off, lo, hi;
    int32_t cout;      /* from one pixel's outputs to the next's */
    int32_t both;      /* 0: the second filter is the first again (an odd last filter) */
    int32_t direct;    /* every sum is in both rescalings' fast range and the activation
                          range is all of int8: no checks, SSAT clamps */
} out_pair;

/* The tile's outputs: acc[0], acc[1] to o[0], o[1], and when two, acc[2], acc[3] to the next
 * pixel's. Out of line: its registers are its own, not those the dot product left over. */
static RT_DSP_NOINLINE void store_pair(const out_pair *t, const int32_t *acc, int8_t *o,
                                       int32_t two)
{
    if (t->direct && t->both && two) {
        o[0] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q0, acc[0]) + t->off);
        o[1] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q1, acc[1]) + t->off);
        o[t->cout] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q0, acc[2]) + t->off);
        o[t->cout + 1] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q1, acc[3]) + t->off);
        return;
    }
    {
        /* lane j: pixel j / 2, filter j % 2 */
        int32_t j;
        for (j = 0; j < 4; ++j) {
            if ((j & 1) <= t->both && (j >> 1) <= two) {
                const rt_dsp_rq *q = (j & 1) ? &t->q1 : &t->q0;
                o[(j >> 1) * t->cout + (j & 1)] =
                    rt_s8_clamp(rt_dsp_rq_apply(q, acc[j]) + t->off, t->lo, t->hi);
            }
        }
    }
}

/* A pointwise layer (1x1 taps, stride 1, no padding, one group): a matrix product of the
 * pixels by the filters. Filters two at a time outside, so that their requantization is set
 * up once; pixels two at a time inside, across rows. */
static void pointwise(const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w,
                      const int32_t *bias, const int8_t *in, int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout, x_off = p->input_offset;
    int32_t i, oc;
    out_pair t;
    t.off = p->output_offset;
    t.lo = p->act_min;
    t.hi = p->act_max;
    t.cout = cout;
    for (oc = 0; oc < cout; oc += 2) {
        const int32_t o1 = cout - oc >= 2 ? oc + 1 : oc;   /* the last filter twice if odd */
        const int8_t *w0 = w + oc * cin, *w1 = w + o1 * cin, *x = in;
        const int32_t b0 = bias != NULL ? bias[oc] : 0;
        const int32_t b1 = bias != NULL ? bias[o1] : 0;
        int8_t *o = out + oc;
        t.q0 = rt_dsp_rq_make(p->mult[oc], p->shift[oc]);
        t.q1 = rt_dsp_rq_make(p->mult[o1], p->shift[o1]);
        t.both = o1 != oc;
        {
            const int32_t s0 = rt_dsp_sum_bound(b0, cin), s1 = rt_dsp_sum_bound(b1, cin);
            t.direct = t.lo == -128 && t.hi == 127 && s0 < t.q0.hi && -s0 > t.q0.lo &&
                       s1 < t.q1.hi && -s1 > t.q1.lo;
        }
        for (i = 0; i < pixels; i += 2) {
            int32_t acc[4];
            acc[0] = acc[2] = b0;
            acc[1] = acc[3] = b1;
            if (i + 1 == pixels) {
                dot_1x2(x, w0, w1, cin, x_off, acc);
            }
#if defined(__OPTIMIZE__)
            else if (cin % 4 == 0 && cin > 0) {
                run_2x2(x, x + cin, w0, w1, cin, rt_dsp_pair(x_off), acc);
            }
#endif
            else {   /* runs that are not whole words: the pixels one at a time */
                dot_1x2(x, w0, w1, cin, x_off, acc);
                dot_1x2(x + cin, w0, w1, cin, x_off, acc + 2);
            }
            store_pair(&t, acc, o, i + 1 < pixels);
            x += 2 * cin;
            o += 2 * cout;
        }
    }
}

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           const rt_shape *in_s, const int8_t *in,
                           const rt_shape *w_s, const int8_t *w,
                           const rt_shape *b_s, const int32_t *bias,
                           const rt_shape *out_s, int8_t *out)
{
    rt_conv_s8_geom g;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pointwise(p, &g, w, bias, in, out, g.n * g.oh * g.ow);
    return RT_OK;
}
