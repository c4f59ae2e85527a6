/* conv_1x1_s8.c (Cortex-M DSP) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product of
 * the pixels by the filters on 2x2 tiles (two pixels x two filters). With Cin a multiple of 8
 * (up to PW_XW), Cout even, sums proved in range and the activation all of int8, as in every
 * real layer, filters go 64 at a time outside (their requantization constants in a table on
 * the stack) and pixels two at a time inside, widened to doubled halfwords with the input
 * offset once per table; one written-out loop then runs every filter pair over them, 66
 * instructions per 64 multiply-accumulates, and requantizes (SMMLAR) and stores its four
 * outputs. Other layers take one output at a time (rt_s8_dot). Bit-exact with
 * int8/conv_1x1_s8.c. */
#include "conv_dsp.h"

#define PW_XW 320      /* the widened pixel pair of the table path: Cin <= 320 */
#define PW_PAIRS 32    /* filter pairs a table holds */

/* A filter pair's constants, in the order the written-out loop reads them: the biases
 * (doubled, as the inputs are), then per filter neg, c, mult, e of the requantization the
 * SMMLAR makes (c = half of 2^e plus the output offset times 2^e; neg = -1 when e > 0: the
 * sum's sign rounds it). */
typedef struct pw_pair {
    int32_t bias[2];
    int32_t rq[2][4];
} pw_pair;

/* Can the table path take the layer: Cin a multiple of 8 (the loop runs four turns of four
 * channels and starts at its first or third), Cout even, shifts in [-22, 0] (the offset then
 * rides in c), multipliers >= 0 (the sum's sign is the product's), sums under 2^30, the
 * activation all of int8 (SSAT clamps)? */
static int pw_fits(const rt_conv_s8_params *p, const int32_t *bias, int32_t cin, int32_t cout)
{
    int32_t oc;
    if (cin % 8 != 0 || cin > PW_XW || cout % 2 != 0 || p->act_min != -128 ||
        p->act_max != 127 || p->output_offset < -128 || p->output_offset > 127) {
        return 0;
    }
    for (oc = 0; oc < cout; ++oc) {
        if (p->shift[oc] < -22 || p->shift[oc] > 0 || p->mult[oc] < 0 ||
            rt_dsp_sum_bound(bias != NULL ? bias[oc] : 0, cin) >= 1 << 30) {
            return 0;
        }
    }
    return 1;
}

/* Two pixels' inputs plus the offset, doubled (the sums then come out as 2x, SMMLAR's input),
 * laid out as rt_dsp_widen_pair lays them. */
static void pw_widen2(const int8_t *x0, const int8_t *x1, int32_t cin, int16x2_t off2,
                      int32_t *dst)
{
    int32_t i;
    for (i = 0; i < cin; i += 4, dst += 4) {
        const int32_t a = rt_dsp_load4(x0 + i), b = rt_dsp_load4(x1 + i);
        int16x2_t v = rt_dsp_even(off2, a);
        dst[0] = (int32_t)__sadd16(v, v);
        v = rt_dsp_odd(off2, a);
        dst[1] = (int32_t)__sadd16(v, v);
        v = rt_dsp_even(off2, b);
        dst[2] = (int32_t)__sadd16(v, v);
        v = rt_dsp_odd(off2, b);
        dst[3] = (int32_t)__sadd16(v, v);
    }
}

/* One turn: four channels of both pixels (two LDRDs), a word of filter oc + 1 (Cin on) and
 * one of filter oc split by SXTB16, eight SMLADs. */
#define PW_TURN \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t" \
    "ldrd %[t2], %[t3], [%[x]], #8\n\t" \
    "ldr.w %[t4], [%[w0], %[cin]]\n\t" \
    RT_DSP_SPLIT_MAC(a01, a11) \
    "ldr %[t4], [%[w0]], #4\n\t" \
    RT_DSP_SPLIT_MAC(a00, a10)

/* n filter pairs (table t, filters from w) over the doubled pixel pair xw; pixel 0's outputs
 * at o, pixel 1's at o + ostep (0: a lone pixel, stored twice). */
static RT_DSP_NOINLINE void pw_pairs(const int32_t *xw, const pw_pair *t, const int8_t *w,
                                     int32_t cin, int32_t n, int8_t *o, int32_t ostep)
{
#if defined(__OPTIMIZE__)
    int32_t a00, a01, a10, a11, t0, t1, t2, t3, t4, t5;
    const int32_t *x, *end;
    const int8_t *w0 = w, *const w_end = w + 2 * n * cin;
    int32_t entry;
#define PW_RQ(a, b, at) \
    "ldrd %[t1], %[t2], [%[t0], #" #at "]\n\t"    /* neg, c */ \
    "and %[t3], %[t1], %[" a "], asr #31\n\t" \
    "and %[t1], %[t1], %[" b "], asr #31\n\t" \
    "add %[t3], %[t3], %[t2]\n\t" \
    "add %[t1], %[t1], %[t2]\n\t" \
    "ldrd %[t2], %[t4], [%[t0], #" #at " + 8]\n\t"   /* mult, e */ \
    "smmlar %[" a "], %[" a "], %[t2], %[t3]\n\t" \
    "smmlar %[" b "], %[" b "], %[t2], %[t1]\n\t" \
    "asr %[" a "], %[" a "], %[t4]\n\t" \
    "asr %[" b "], %[" b "], %[t4]\n\t" \
    "ssat %[" a "], #8, %[" a "]\n\t" \
    "ssat %[" b "], #8, %[" b "]\n\t"
    __asm__ volatile(
        "ldr %[t0], %[xw]\n\t"
        "add %[end], %[t0], %[cin], lsl #2\n\t"
        /* where the loop starts: at its third turn when Cin % 16 is 8 */
        "adr.w %[t0], 2f\n\t"
        "tst %[cin], #8\n\t"
        "beq 5f\n\t"
        "adr.w %[t0], 3f\n\t"
        "5:\n\t"
        "orr %[t0], %[t0], #1\n\t"
        "str %[t0], %[entry]\n\t"
        "1:\n\t"
        "ldr %[t0], %[t]\n\t"
        "ldrd %[a00], %[a01], [%[t0]]\n\t"
        "mov %[a10], %[a00]\n\t"
        "mov %[a11], %[a01]\n\t"
        "ldr %[x], %[xw]\n\t"
        "ldr pc, %[entry]\n\t"
        "2:\n\t"
        PW_TURN PW_TURN
        "3:\n\t"
        PW_TURN PW_TURN
        "cmp %[x], %[end]\n\t"
        "bne 2b\n\t"
        "ldr %[t0], %[t]\n\t"
        PW_RQ("a00", "a10", 8) PW_RQ("a01", "a11", 24)
        "add %[t0], %[t0], #40\n\t"
        "str %[t0], %[t]\n\t"
        "ldr %[t0], %[o]\n\t"
        "ldr %[t1], %[ostep]\n\t"
        "strb %[a00], [%[t0]]\n\t"
        "strb %[a01], [%[t0], #1]\n\t"
        "strb %[a10], [%[t0], %[t1]]\n\t"
        "add %[t1], %[t1], #1\n\t"
        "strb %[a11], [%[t0], %[t1]]\n\t"
        "add %[t0], %[t0], #2\n\t"
        "str %[t0], %[o]\n\t"
        "add %[w0], %[w0], %[cin]\n\t"
        "ldr %[t1], %[w_end]\n\t"
        "cmp %[w0], %[t1]\n\t"
        "bne 1b"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11),
          [x] "=&r"(x), [w0] "+r"(w0), [t0] "=&r"(t0), [t1] "=&r"(t1),
          [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [end] "=&r"(end),
          [t] "+m"(t), [o] "+m"(o), [entry] "=m"(entry)
        : [xw] "m"(xw), [cin] "r"(cin), [ostep] "m"(ostep), [w_end] "m"(w_end)
        : "cc", "memory");
#undef PW_RQ
#else
    int32_t i, j;
    for (i = 0; i < n; ++i, ++t, o += 2, w += 2 * cin) {
        int32_t acc[4];
        acc[0] = acc[2] = t->bias[0];
        acc[1] = acc[3] = t->bias[1];
        rt_dsp_widened_2x2(xw, w, w + cin, cin, acc);
        for (j = 0; j < 4; ++j) {
            const int32_t *q = t->rq[j & 1];
            const int32_t v = rt_dsp_smmulr(acc[j], q[2]) + q[1] + (q[0] & (acc[j] >> 31));
            o[(j & 1) + (j >> 1) * ostep] = rt_dsp_sat8(v >> q[3]);
        }
    }
#endif
}

/* A layer pw_fits takes: filters PW_PAIRS pairs at a time outside (their constants in a
 * table), pixels two at a time inside, widened once per table (xw). */
static void pointwise_table(const rt_conv_s8_params *p, const rt_conv_s8_geom *g,
                            const int8_t *w, const int32_t *bias, const int8_t *in,
                            int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xw[PW_XW];
    pw_pair t[PW_PAIRS];
    int32_t oc, i, j;
    for (oc = 0; oc < cout; oc += 2 * PW_PAIRS) {
        const int32_t n = (cout - oc) / 2 < PW_PAIRS ? (cout - oc) / 2 : PW_PAIRS;
        for (j = 0; j < 2 * n; ++j) {
            const int32_t f = oc + j, e = -p->shift[f];
            int32_t *q = t[j / 2].rq[j % 2];
            t[j / 2].bias[j % 2] = 2 * (bias != NULL ? bias[f] : 0);
            q[0] = -(e > 0);
            q[1] = ((1 << e) >> 1) + p->output_offset * (1 << e);
            q[2] = p->mult[f];
            q[3] = e;
        }
        for (i = 0; i < pixels; i += 2) {
            const int two = i + 1 < pixels;
            const int8_t *x = in + i * cin;
            pw_widen2(x, two ? x + cin : x, cin, off2, xw);
            pw_pairs(xw, t, w + oc * cin, cin, n, out + i * cout + oc, two ? cout : 0);
        }
    }
}

/* Any other pointwise layer: one output at a time, every step out of line (rare, and kept
 * small). */
static void pointwise(const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w,
                      const int32_t *bias, const int8_t *in, int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout;
    int32_t i, oc;
    for (i = 0; i < pixels; ++i, in += cin, out += cout) {
        for (oc = 0; oc < cout; ++oc) {
            const int32_t acc = (bias != NULL ? bias[oc] : 0) +
                                rt_s8_dot(in, w + oc * cin, cin, p->input_offset);
            out[oc] = rt_s8_clamp(rt_requantize(acc, p->mult[oc], p->shift[oc]) +
                                  p->output_offset, p->act_min, p->act_max);
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
    int32_t pixels;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pixels = g.n * g.oh * g.ow;
    if (pw_fits(p, bias, g.cin, g.cout)) {
        pointwise_table(p, &g, w, bias, in, out, pixels);
    } else {
        pointwise(p, &g, w, bias, in, out, pixels);
    }
    return RT_OK;
}
