/* conv_dsp.h - what the DSP convolutions (conv_s8.c and conv_1x1_s8.c of this folder)
 * share: the 2x2 tile's loop turn, written out; the widened path: pixel pairs widened once
 * to halfwords, the tile's loop over them, and its output stage for a layer whose sums are
 * proved in range; the pairs' loop of the convolutions' patches; and the pointwise layers'
 * blocks of six pixels by one filter. */
#ifndef RT_CONV_DSP_H
#define RT_CONV_DSP_H

#include "s8_dsp.h"
#include "../../int8/conv_s8.h"

/* One turn of the 2x2 tile's loop: four bytes of two pixels and two filters, sixteen
 * multiply-accumulates in 22 instructions (operands named as in dot_2x2 and run_2x2). */
#define RT_DSP_2X2_TURN \
    "ldr %[t4], %[off]\n\t" \
    "ldr %[t0], [%[x0]], #4\n\t" \
    "ldr %[t1], [%[x1]], #4\n\t" \
    "sxtab16 %[t2], %[t4], %[t0]\n\t"            /* pixel 0, bytes 0 and 2 */ \
    "sxtab16 %[t0], %[t4], %[t0], ror #8\n\t"    /* pixel 0, bytes 1 and 3 */ \
    "sxtab16 %[t3], %[t4], %[t1]\n\t" \
    "sxtab16 %[t1], %[t4], %[t1], ror #8\n\t" \
    "ldr %[t4], [%[w0]], #4\n\t" \
    "sxtb16 %[t5], %[t4]\n\t" \
    "sxtb16 %[t4], %[t4], ror #8\n\t" \
    "smlad %[a00], %[t2], %[t5], %[a00]\n\t" \
    "smlad %[a00], %[t0], %[t4], %[a00]\n\t" \
    "smlad %[a10], %[t3], %[t5], %[a10]\n\t" \
    "smlad %[a10], %[t1], %[t4], %[a10]\n\t" \
    "ldr %[t4], [%[w1]], #4\n\t" \
    "sxtb16 %[t5], %[t4]\n\t" \
    "sxtb16 %[t4], %[t4], ror #8\n\t" \
    "smlad %[a01], %[t2], %[t5], %[a01]\n\t" \
    "smlad %[a01], %[t0], %[t4], %[a01]\n\t" \
    "smlad %[a11], %[t3], %[t5], %[a11]\n\t" \
    "smlad %[a11], %[t1], %[t4], %[a11]\n\t"

/* The widened path's pixel pair lives on the stack (not in the planned arena, so a layer's
 * arena stays at its activations): up to this many words, 4 per patch byte, 2.25 KB (a 3x3
 * filter over 64 channels). Larger patches take the unwidened path. */
#define RT_DSP_WIDE_WORDS 576

/* Two pixels' inputs plus the input offset, widened once to halfword pairs in the order a
 * filter word's SXTB16 halves pair with them: per four channels, pixel 0's bytes 0 and 2, its
 * bytes 1 and 3, then pixel 1's. Every filter pair of the layer then reads them as they are. */
static inline void rt_dsp_widen_pair(const int8_t *x0, const int8_t *x1, int32_t cin,
                                     int16x2_t off2, int32_t *dst)
{
    int32_t i;
    for (i = 0; i < cin; i += 4, dst += 4) {
        const int32_t a = rt_dsp_load4(x0 + i), b = rt_dsp_load4(x1 + i);
        dst[0] = (int32_t)rt_dsp_even(off2, a);
        dst[1] = (int32_t)rt_dsp_odd(off2, a);
        dst[2] = (int32_t)rt_dsp_even(off2, b);
        dst[3] = (int32_t)rt_dsp_odd(off2, b);
    }
}

/* The filter word in t4 (four int8 taps) split by SXTB16 into t5 (taps 0, 2) and t4 (1, 3),
 * then four SMLADs: pixel 0's widened channels (t0, t1) into sum a0, pixel 1's (t2, t3)
 * into a1. The turns of the widened loops (here and conv_1x1_s8.c) are made of it. */
#define RT_DSP_SPLIT_MAC(a0, a1) \
    "sxtb16 %[t5], %[t4]\n\t" \
    "sxtb16 %[t4], %[t4], ror #8\n\t" \
    "smlad %[" #a0 "], %[t0], %[t5], %[" #a0 "]\n\t" \
    "smlad %[" #a0 "], %[t1], %[t4], %[" #a0 "]\n\t" \
    "smlad %[" #a1 "], %[t2], %[t5], %[" #a1 "]\n\t" \
    "smlad %[" #a1 "], %[t3], %[t4], %[" #a1 "]\n\t"

/* One turn of the widened 2x2 loop: four channels of both pixels (two LDRDs), a word of
 * each filter split by SXTB16, eight SMLADs (operands as in rt_dsp_widened_2x2). */
#define RT_DSP_WIDE_TURN \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t" \
    "ldrd %[t2], %[t3], [%[x]], #8\n\t" \
    "ldr %[t4], [%[w0]], #4\n\t" \
    RT_DSP_SPLIT_MAC(a00, a10) \
    "ldr %[t4], [%[w1]], #4\n\t" \
    RT_DSP_SPLIT_MAC(a01, a11)

/* The loop's operands: the four sums, the pointers it steps, six temporaries and the end.
 * The end is in-out, so that it gets a register of its own: as a plain input gcc may share
 * one with w1 when both hold the same address (the next filter starts where w0 ends). */
#define RT_DSP_WIDE_OPERANDS \
    : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), \
      [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), \
      [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), \
      [t4] "=&r"(t4), [t5] "=&r"(t5), [end] "+r"(end) \
    : \
    : "cc", "memory"

/* acc += the 2x2 tile's sums over n / 4 widened words (x from widen_pair, n % 4 == 0, n > 0):
 * per four channels two LDRDs of inputs, a word of each filter split by SXTB16, eight SMLADs:
 * 16 instructions for 16 multiply-accumulates, and a compare and branch per two turns (one
 * when n is not a multiple of 8). */
static inline __attribute__((always_inline)) void rt_dsp_widened_2x2(
    const int32_t *x, const int8_t *w0, const int8_t *w1, int32_t n, int32_t *acc)
{
#if defined(__OPTIMIZE__)
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    const int8_t *end = w0 + n;
    int32_t t0, t1, t2, t3, t4, t5;
    if (n % 8 == 0) {   /* two turns a loop: one compare and branch per 32 MACs */
        __asm__ volatile("1:\n\t" RT_DSP_WIDE_TURN RT_DSP_WIDE_TURN
                         "cmp %[w0], %[end]\n\t"
                         "bne 1b" RT_DSP_WIDE_OPERANDS);
    } else {
        __asm__ volatile("1:\n\t" RT_DSP_WIDE_TURN
                         "cmp %[w0], %[end]\n\t"
                         "bne 1b" RT_DSP_WIDE_OPERANDS);
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
#else
    int32_t i;
    for (i = 0; i < n; i += 4, x += 4) {
        const int32_t v0 = rt_dsp_load4(w0 + i), v1 = rt_dsp_load4(w1 + i);
        const int16x2_t e0 = rt_dsp_w_even(v0), d0 = rt_dsp_w_odd(v0);
        const int16x2_t e1 = rt_dsp_w_even(v1), d1 = rt_dsp_w_odd(v1);
        acc[0] = __smlad((int16x2_t)x[0], e0, __smlad((int16x2_t)x[1], d0, acc[0]));
        acc[2] = __smlad((int16x2_t)x[2], e0, __smlad((int16x2_t)x[3], d0, acc[2]));
        acc[1] = __smlad((int16x2_t)x[0], e1, __smlad((int16x2_t)x[1], d1, acc[1]));
        acc[3] = __smlad((int16x2_t)x[2], e1, __smlad((int16x2_t)x[3], d1, acc[3]));
    }
#endif
}

/* The requantization of a layer proved in range (rt_dsp_layer_in_range: every shift to the
 * right or none, every sum under 2^30): round(2x * mult / 2^32) by SMMULR, then the rounding
 * shift right by e = -shift as floor((r + 2^(e-1) - [r < 0]) / 2^e) (see rt_dsp_requant).
 * half = 2^e (halved where it is added), neg = -1 when e > 0, else 0. */
static inline int32_t rt_dsp_rshift_rq(int32_t x, int32_t mult, int32_t e, uint32_t half,
                                       int32_t neg)
{
    const int32_t r = rt_dsp_smmulr(x * 2, mult);
    return (r + ((r >> 31) & neg) + (int32_t)(half >> 1)) >> e;
}

/* Does every filter's shift go right (or nowhere) and every sum (bias + n products) stay
 * under 2^30, where rt_dsp_rshift_rq is exact? */
static inline int rt_dsp_layer_in_range(const rt_conv_s8_params *p, const int32_t *bias,
                                        int32_t n, int32_t cout)
{
    int32_t oc;
    for (oc = 0; oc < cout; ++oc) {
        if (p->shift[oc] > 0 || p->shift[oc] < -31 ||
            rt_dsp_sum_bound(bias != NULL ? bias[oc] : 0, n) >= 1 << 30) {
            return 0;
        }
    }
    return 1;
}

/* A 2x2 tile's outputs with the layer proved in range: filters oc and o1 (o1 == oc: one
 * filter) of pixel a (acc[0], acc[1]) and, when b is not NULL, pixel b (acc[2], acc[3]).
 * full: the activation range is all of int8, so SSAT alone clamps. */
static inline void rt_dsp_store_2x2(const rt_conv_s8_params *p, int32_t oc, int32_t o1,
                                    const int32_t *acc, int8_t *a, int8_t *b, int full)
{
    const int32_t m0 = p->mult[oc], e0 = -p->shift[oc], m1 = p->mult[o1], e1 = -p->shift[o1];
    const uint32_t h0 = 1u << e0, h1 = 1u << e1;
    const int32_t n0 = -(e0 != 0), n1 = -(e1 != 0), off = p->output_offset;
    int32_t v0 = rt_dsp_rshift_rq(acc[0], m0, e0, h0, n0) + off;
    int32_t v1 = rt_dsp_rshift_rq(acc[1], m1, e1, h1, n1) + off;
    int32_t v2 = rt_dsp_rshift_rq(acc[2], m0, e0, h0, n0) + off;
    int32_t v3 = rt_dsp_rshift_rq(acc[3], m1, e1, h1, n1) + off;
    if (!full) {
        const int32_t lo = p->act_min, hi = p->act_max;
        v0 = rt_s8_clamp(v0, lo, hi);
        v1 = rt_s8_clamp(v1, lo, hi);
        v2 = rt_s8_clamp(v2, lo, hi);
        v3 = rt_s8_clamp(v3, lo, hi);
    }
    a[oc] = rt_dsp_sat8(v0);
    if (o1 != oc) {
        a[o1] = rt_dsp_sat8(v1);
    }
    if (b != NULL) {
        b[oc] = rt_dsp_sat8(v2);
        if (o1 != oc) {
            b[o1] = rt_dsp_sat8(v3);
        }
    }
}

/* The pairs' loop of the convolutions whose patches it takes (conv_s8.c): filters
 * RT_DSP_PW_PAIRS pairs a table, each pair's requantization in it, a pixel pair widened to
 * doubled halfwords once per table. */
#define RT_DSP_PW_PAIRS 32    /* filter pairs a table holds */

/* A filter pair's constants, in the order the written-out loop reads them: the biases
 * (doubled, as the inputs are) of both filters, twice (the four sums' starts: two LDRDs),
 * then per filter neg, c, mult, e of the requantization the SMMLAR makes (c = half of 2^e
 * plus the output offset times 2^e; neg = -1 when e > 0: the sum's sign rounds it). */
typedef struct rt_dsp_pw_pair {
    int32_t bias[4];
    int32_t rq[2][4];
} rt_dsp_pw_pair;

/* Can the pairs' loop (or the pointwise blocks' one) take the layer's k-tap sums (a
 * pointwise layer's Cin, a convolution's padded patch; the caller checks its room for them
 * and, for pairs, an even Cout): k a multiple of 4 (the loops run four turns of four taps and
 * start at the one that leaves k % 16 to their first lap), shifts in [-22, 0] (the offset
 * then rides in c), multipliers >= 0 (the sum's sign is the product's), sums under 2^30, the
 * activation all of int8 (SSAT clamps)? */
static inline int rt_dsp_pw_fits(const rt_conv_s8_params *p, const int32_t *bias, int32_t cin,
                                 int32_t cout)
{
    int32_t oc;
    if (cin % 4 != 0 || p->act_min != -128 ||
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
 * laid out as rt_dsp_widen_pair lays them: per four channels a word of each pixel, four
 * SXTAB16s, four SADD16s and two post-indexed STRDs (an STM would need fixed registers,
 * which some firmware ABIs reserve). cin > 0, a multiple of 4. */
static inline void rt_dsp_pw_widen2(const int8_t *x0, const int8_t *x1, int32_t cin,
                                    int16x2_t off2, int32_t *dst)
{
#if defined(__OPTIMIZE__)
    const int32_t *const end = dst + cin;
    int32_t a, b, c, d, u, v;
    __asm__ volatile(
        "1:\n\t"
        "ldr %[u], [%[x0]], #4\n\t"
        "ldr %[v], [%[x1]], #4\n\t"
        "sxtab16 %[a], %[off], %[u]\n\t"
        "sxtab16 %[b], %[off], %[u], ror #8\n\t"
        "sxtab16 %[c], %[off], %[v]\n\t"
        "sxtab16 %[d], %[off], %[v], ror #8\n\t"
        "sadd16 %[a], %[a], %[a]\n\t"
        "sadd16 %[b], %[b], %[b]\n\t"
        "sadd16 %[c], %[c], %[c]\n\t"
        "sadd16 %[d], %[d], %[d]\n\t"
        "strd %[a], %[b], [%[dst]], #8\n\t"
        "strd %[c], %[d], [%[dst]], #8\n\t"
        "cmp %[dst], %[end]\n\t"
        "bne 1b"
        : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d), [u] "=&r"(u), [v] "=&r"(v),
          [x0] "+r"(x0), [x1] "+r"(x1), [dst] "+r"(dst)
        : [off] "r"(off2), [end] "r"(end)
        : "cc", "memory");
#else
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
#endif
}

/* One turn: four channels of both pixels (two LDRDs), a word of filter oc + 1 (Cin on) and
 * one of filter oc split by SXTB16, eight SMLADs. */
#define RT_DSP_PW_TURN \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t" \
    "ldrd %[t2], %[t3], [%[x]], #8\n\t" \
    "ldr.w %[t4], [%[w0], %[cin]]\n\t" \
    RT_DSP_SPLIT_MAC(a01, a11) \
    "ldr %[t4], [%[w0]], #4\n\t" \
    RT_DSP_SPLIT_MAC(a00, a10)

/* n filter pairs (table t, filters from w) over the doubled pixel pair xw; pixel 0's outputs
 * at o, pixel 1's at o + ostep (0: a lone pixel, stored twice). */
static __attribute__((noinline, unused)) RT_DSP_ADR_ALIGNED void rt_dsp_pw_pairs(
    const int32_t *xw, const rt_dsp_pw_pair *t, const int8_t *w, int32_t cin, int32_t n, int8_t *o,
    int32_t ostep)
{
#if defined(__OPTIMIZE__)
    int32_t a00, a01, a10, a11, t0, t1, t2, t3, t4, t5;
    const int32_t *x, *end;
    const int8_t *w0 = w, *const w_end = w + 2 * n * cin;
    int8_t *o1 = o + ostep;   /* pixel 1's outputs */
    int32_t entry;
#define RT_DSP_PW_RQ(a, b, at) \
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
        /* where the loop starts: at the turn that leaves Cin % 16 taps to the first lap */
        "adr.w %[t0], 2f\n\t"
        "ands %[t1], %[cin], #12\n\t"
        "beq 5f\n\t"
        "adr.w %[t0], 6f\n\t"
        "cmp %[t1], #12\n\t"
        "beq 5f\n\t"
        "adr.w %[t0], 3f\n\t"
        "cmp %[t1], #8\n\t"
        "beq 5f\n\t"
        "adr.w %[t0], 7f\n\t"
        "5:\n\t"
        "orr %[t0], %[t0], #1\n\t"
        "str %[t0], %[entry]\n\t"
        "1:\n\t"
        "ldr %[t0], %[t]\n\t"
        "ldrd %[a00], %[a01], [%[t0]]\n\t"
        "ldrd %[a10], %[a11], [%[t0], #8]\n\t"
        "ldr %[x], %[xw]\n\t"
        "ldr pc, %[entry]\n\t"
        "2:\n\t"
        RT_DSP_PW_TURN
        "6:\n\t"
        RT_DSP_PW_TURN
        "3:\n\t"
        RT_DSP_PW_TURN
        "7:\n\t"
        RT_DSP_PW_TURN
        "cmp %[x], %[end]\n\t"
        "bne 2b\n\t"
        "ldr %[t0], %[t]\n\t"
        RT_DSP_PW_RQ("a00", "a10", 16) RT_DSP_PW_RQ("a01", "a11", 32)
        "add %[t0], %[t0], #48\n\t"
        "str %[t0], %[t]\n\t"
        "ldr %[t0], %[o]\n\t"
        "ldr %[t1], %[o1]\n\t"
        "strb %[a01], [%[t0], #1]\n\t"
        "strb %[a00], [%[t0]], #2\n\t"
        "strb %[a11], [%[t1], #1]\n\t"
        "strb %[a10], [%[t1]], #2\n\t"
        "str %[t0], %[o]\n\t"
        "str %[t1], %[o1]\n\t"
        "add %[w0], %[w0], %[cin]\n\t"
        "ldr %[t1], %[w_end]\n\t"
        "cmp %[w0], %[t1]\n\t"
        "bne 1b"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11),
          [x] "=&r"(x), [w0] "+r"(w0), [t0] "=&r"(t0), [t1] "=&r"(t1),
          [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [end] "=&r"(end),
          [t] "+m"(t), [o] "+m"(o), [o1] "+m"(o1), [entry] "=m"(entry)
        : [xw] "m"(xw), [cin] "r"(cin), [w_end] "m"(w_end)
        : "cc", "memory");
#undef RT_DSP_PW_RQ
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

/* The constants of n filter pairs from filter oc on (see rt_dsp_pw_pair). */
static inline void rt_dsp_pw_table(const rt_conv_s8_params *p, const int32_t *bias, int32_t oc,
                                   int32_t n, rt_dsp_pw_pair *t)
{
    int32_t j;
    for (j = 0; j < 2 * n; ++j) {
        const int32_t f = oc + j, e = -p->shift[f];
        int32_t *q = t[j / 2].rq[j % 2];
        t[j / 2].bias[j % 2] = t[j / 2].bias[2 + j % 2] = 2 * (bias != NULL ? bias[f] : 0);
        q[0] = -(e > 0);
        q[1] = ((1 << e) >> 1) + p->output_offset * (1 << e);
        q[2] = p->mult[f];
        q[3] = e;
    }
}

/* The pointwise blocks: six pixels by one filter. A block's inputs are widened once per
 * table of filters; each filter word is then split once (SXTB16) and multiplied into all six
 * pixels' sums, two pixels' widened channels a load (LDM of four words): 18 instructions per
 * 24 multiply-accumulates, against the pairs' 16 per 16, with the six sums in registers. */
#define RT_DSP_PX 6          /* pixels a block */
#define RT_DSP_PX_CIN 256    /* the widened block on the stack: Cin <= 256, 3 KB */
#define RT_DSP_PX_TABLE 64   /* filters a table holds */

/* One filter's constants, in the order the block's loop reads them: the bias, doubled as the
 * inputs are, then neg, c, mult, e of its requantization (see rt_dsp_pw_pair). */
typedef struct rt_dsp_px_filter {
    int32_t bias, neg, c, mult, e;
} rt_dsp_px_filter;

/* The constants of n filters from filter oc on. */
static inline void rt_dsp_px_table(const rt_conv_s8_params *p, const int32_t *bias, int32_t oc,
                                   int32_t n, rt_dsp_px_filter *t)
{
    int32_t j;
    for (j = 0; j < n; ++j, ++t) {
        const int32_t f = oc + j, e = -p->shift[f];
        t->bias = 2 * (bias != NULL ? bias[f] : 0);
        t->neg = -(e > 0);
        t->c = ((1 << e) >> 1) + p->output_offset * (1 << e);
        t->mult = p->mult[f];
        t->e = e;
    }
}

/* A block's pixels' inputs (x, x + cin, ...) plus the offset, doubled, widened into xw: per
 * four channels a group of 2 * RT_DSP_PX words, pixel p's bytes 0 and 2 at word 2p and its
 * bytes 1 and 3 at word 2p + 1, the order in which the block's loop reads them. cin > 0, a
 * multiple of 4. */
static __attribute__((noinline, unused)) void rt_dsp_px_widen(const int8_t *x, int32_t cin,
                                                              int16x2_t off2, int32_t *xw)
{
    int32_t px;
    for (px = 0; px < RT_DSP_PX; ++px, x += cin) {
        const int8_t *src = x;
        int32_t *dst = xw + 2 * px;
#if defined(__OPTIMIZE__)
        const int8_t *const end = x + cin;
        int32_t a, b, u;
        __asm__ volatile(   /* eight instructions per four channels */
            "1:\n\t"
            "ldr %[u], [%[src]], #4\n\t"
            "sxtab16 %[a], %[off], %[u]\n\t"
            "sxtab16 %[b], %[off], %[u], ror #8\n\t"
            "sadd16 %[a], %[a], %[a]\n\t"
            "sadd16 %[b], %[b], %[b]\n\t"
            "strd %[a], %[b], [%[dst]], %[group]\n\t"
            "cmp %[src], %[end]\n\t"
            "bne 1b"
            : [a] "=&r"(a), [b] "=&r"(b), [u] "=&r"(u), [src] "+r"(src), [dst] "+r"(dst)
            : [off] "r"(off2), [end] "r"(end), [group] "i"(8 * RT_DSP_PX)
            : "cc", "memory");
#else
        for (; src < x + cin; src += 4, dst += 2 * RT_DSP_PX) {
            const int32_t v = rt_dsp_load4(src);
            const int16x2_t e = rt_dsp_even(off2, v), d = rt_dsp_odd(off2, v);
            dst[0] = (int32_t)__sadd16(e, e);
            dst[1] = (int32_t)__sadd16(d, d);
        }
#endif
    }
}

/* Two pixels' step of a turn: their widened four channels (one LDM into p0..p3, registers
 * in ascending order), two SMLADs into each sum. */
#define RT_DSP_PX_MAC2(a, b) \
    "ldmia %[x]!, {%[p0], %[p1], %[p2], %[p3]}\n\t" \
    "smlad %[" #a "], %[p0], %[we], %[" #a "]\n\t" \
    "smlad %[" #a "], %[p1], %[wo], %[" #a "]\n\t" \
    "smlad %[" #b "], %[p2], %[we], %[" #b "]\n\t" \
    "smlad %[" #b "], %[p3], %[wo], %[" #b "]\n\t"

/* One turn: a word of the filter split by SXTB16, then four channels of each pixel. */
#define RT_DSP_PX_TURN \
    "ldr %[wo], [%[w]], #4\n\t" \
    "sxtb16 %[we], %[wo]\n\t" \
    "sxtb16 %[wo], %[wo], ror #8\n\t" \
    RT_DSP_PX_MAC2(a0, a1) RT_DSP_PX_MAC2(a2, a3) RT_DSP_PX_MAC2(a4, a5)

/* A sum's requantization (s8_dsp.h): neg in p1, c in p2, mult in p3, e in x, p0 scratch. */
#define RT_DSP_PX_RQ(a) RT_DSP_RQ_ASM(#a, "p0", "p1", "p2", "p3", "x")
#define RT_DSP_PX_RQ_RIGHT(a) RT_DSP_RQ_RIGHT_ASM(#a, "p0", "p2", "p3", "x")

/* n filters (table t, filters from w, cin taps each) over the block xw (rt_dsp_px_widen);
 * filter j's outputs at o + j, o + j + ostep, ... (ostep the layer's Cout). */
static __attribute__((noinline, unused)) RT_DSP_ADR_ALIGNED void rt_dsp_px_filters(
    const int32_t *xw, const rt_dsp_px_filter *t, const int8_t *w, int32_t cin, int32_t n,
    int8_t *o, int32_t ostep)
{
#if defined(__OPTIMIZE__)
    /* the LDM's four registers, in ascending order */
    register int32_t p0 __asm__("r0"), p1 __asm__("r1"), p2 __asm__("r2"), p3 __asm__("r3");
    int32_t a0, a1, a2, a3, a4, a5, we, wo;
    const int32_t *x;
    const int32_t *const end = xw + cin / 4 * 2 * RT_DSP_PX;
    const int8_t *const w_end = w + n * cin;
    int32_t entry;
    __asm__ volatile(
        /* where a filter's loop starts: at the turn that leaves Cin % 16 taps to its first
           lap */
        "ldr %[p0], %[cin]\n\t"
        "adr.w %[p1], 2f\n\t"
        "ands %[p0], %[p0], #12\n\t"
        "beq 5f\n\t"
        "adr.w %[p1], 6f\n\t"
        "cmp %[p0], #12\n\t"
        "beq 5f\n\t"
        "adr.w %[p1], 3f\n\t"
        "cmp %[p0], #8\n\t"
        "beq 5f\n\t"
        "adr.w %[p1], 7f\n\t"
        "5:\n\t"
        "orr %[p1], %[p1], #1\n\t"
        "str %[p1], %[entry]\n\t"
        "1:\n\t"
        "ldr %[p0], %[t]\n\t"
        "ldr %[a0], [%[p0]]\n\t"
        "mov %[a1], %[a0]\n\t"
        "mov %[a2], %[a0]\n\t"
        "mov %[a3], %[a0]\n\t"
        "mov %[a4], %[a0]\n\t"
        "mov %[a5], %[a0]\n\t"
        "ldr %[x], %[xw]\n\t"
        "ldr pc, %[entry]\n\t"
        "2:\n\t"
        RT_DSP_PX_TURN
        "6:\n\t"
        RT_DSP_PX_TURN
        "3:\n\t"
        RT_DSP_PX_TURN
        "7:\n\t"
        RT_DSP_PX_TURN
        "ldr %[p0], %[end]\n\t"
        "cmp %[x], %[p0]\n\t"
        "bne 2b\n\t"
        /* the filter's constants: neg, c in p1, p2; mult, e in p3, x */
        "ldr %[p0], %[t]\n\t"
        "ldrd %[p1], %[p2], [%[p0], #4]\n\t"
        "ldrd %[p3], %[x], [%[p0], #12]\n\t"
        "add %[p0], %[p0], #20\n\t"
        "str %[p0], %[t]\n\t"
        "cmp %[p1], #0\n\t"
        "beq 8f\n\t"
        RT_DSP_PX_RQ_RIGHT(a0) RT_DSP_PX_RQ_RIGHT(a1) RT_DSP_PX_RQ_RIGHT(a2)
        RT_DSP_PX_RQ_RIGHT(a3) RT_DSP_PX_RQ_RIGHT(a4) RT_DSP_PX_RQ_RIGHT(a5)
        "b 9f\n\t"
        "8:\n\t"
        RT_DSP_PX_RQ(a0) RT_DSP_PX_RQ(a1) RT_DSP_PX_RQ(a2) RT_DSP_PX_RQ(a3)
        RT_DSP_PX_RQ(a4) RT_DSP_PX_RQ(a5)
        "9:\n\t"
        "ldr %[p0], %[o]\n\t"
        "ldr %[p1], %[ostep]\n\t"
        "add %[p2], %[p0], #1\n\t"
        "str %[p2], %[o]\n\t"
        "strb %[a0], [%[p0]]\n\t"
        "strb %[a1], [%[p0], %[p1]]\n\t"
        "add %[p0], %[p0], %[p1], lsl #1\n\t"
        "strb %[a2], [%[p0]]\n\t"
        "strb %[a3], [%[p0], %[p1]]\n\t"
        "add %[p0], %[p0], %[p1], lsl #1\n\t"
        "strb %[a4], [%[p0]]\n\t"
        "strb %[a5], [%[p0], %[p1]]\n\t"
        "ldr %[p0], %[w_end]\n\t"
        "cmp %[w], %[p0]\n\t"
        "bne 1b"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [a4] "=&r"(a4),
          [a5] "=&r"(a5), [p0] "=&r"(p0), [p1] "=&r"(p1), [p2] "=&r"(p2), [p3] "=&r"(p3),
          [we] "=&r"(we), [wo] "=&r"(wo), [x] "=&r"(x), [w] "+r"(w),
          [t] "+m"(t), [o] "+m"(o), [entry] "=m"(entry)
        : [xw] "m"(xw), [end] "m"(end), [w_end] "m"(w_end), [cin] "m"(cin),
          [ostep] "m"(ostep)
        : "cc", "memory");
#else
    int32_t j, i, px;
    for (j = 0; j < n; ++j, ++t, ++o, w += cin) {
        int32_t acc[RT_DSP_PX];
        for (px = 0; px < RT_DSP_PX; ++px) {
            acc[px] = t->bias;
        }
        for (i = 0; i < cin; i += 4) {
            const int32_t v = rt_dsp_load4(w + i);
            const int16x2_t e = rt_dsp_w_even(v), d = rt_dsp_w_odd(v);
            const int32_t *x = xw + i / 4 * 2 * RT_DSP_PX;   /* group i / 4 */
            for (px = 0; px < RT_DSP_PX; ++px) {
                acc[px] = __smlad((int16x2_t)x[2 * px], e,
                                  __smlad((int16x2_t)x[2 * px + 1], d, acc[px]));
            }
        }
        for (px = 0; px < RT_DSP_PX; ++px) {
            const int32_t v = rt_dsp_smmulr(acc[px], t->mult) + t->c +
                              (t->neg & (acc[px] >> 31));
            o[px * ostep] = rt_dsp_sat8(v >> t->e);
        }
    }
#endif
}

/* The quads: four pixels by a filter pair, both operands widened to halfword pairs once, so
 * that the loop is only loads and SMLADs. Per two taps a word of each filter and of each
 * pixel: six words in two runs of single loads with immediate offsets (which pipeline: 5 and
 * 3 cycles on the M4) and eight SMLADs, 16 cycles for 16 multiply-accumulates. The filters of
 * a table are widened (and doubled: the sums come out as 2x, SMMLAR's input) once a layer,
 * each pair's block with its biases before and its requantization after; a quad's pixels are
 * widened once per table. A path's quad and table share one buffer on the stack of
 * RT_DSP_Q_BYTES: the table gets what the quad leaves. */
#define RT_DSP_Q_BYTES 8256    /* a quads' path's buffer on the stack, its deepest frame */
#define RT_DSP_Q_K 256         /* the longest pointwise sum a quad takes: 2 KB widened */
/* An in-place pointwise layer's buffer (conv_1x1_in_place_s8.c): a quad and the whole
 * layer's table, so that its bands share one table (KWS's 64 filters of 64 taps: 9,984 B). */
#define RT_DSP_Q_BAND_BYTES 10240
/* Layers of fewer pixels (a 3x3 map's) use each widened filter too few times to pay for it. */
#define RT_DSP_Q_PIXELS 16

/* Words of a filter pair's block of k taps: its two biases, the filters interleaved per four
 * taps (filter 0's taps 0, 2, filter 1's taps 0, 2, filter 0's taps 1, 3, filter 1's), then
 * c, mult, e, neg of filter 0 and of filter 1 (as in rt_dsp_pw_pair). */
#define RT_DSP_Q_BLOCK(k) ((k) + 10)

/* Filter pairs a table of room bytes holds, for k taps (at least one). */
static inline int32_t rt_dsp_q_pairs_max(int32_t k, int32_t room)
{
    const int32_t n = room / (4 * RT_DSP_Q_BLOCK(k));
    return n > 0 ? n : 1;
}

/* The pairs a table of a layer of `pairs` filter pairs: as many as room takes, balanced
 * (tables of 6, 5 and 5 pairs rather than 6, 6 and 4). */
static inline int32_t rt_dsp_q_pairs_a_table(int32_t pairs, int32_t k, int32_t room)
{
    const int32_t fit = rt_dsp_q_pairs_max(k, room), tables = (pairs + fit - 1) / fit;
    return (pairs + tables - 1) / tables;
}

/* The blocks of n filter pairs from filter oc on, the filters k taps long at w (k taps apart,
 * a multiple of 4). */
static __attribute__((noinline, unused)) void rt_dsp_q_table(
    const rt_conv_s8_params *p, const int32_t *bias, const int8_t *w, int32_t k, int32_t oc,
    int32_t n, int32_t *dst)
{
    int32_t j, f, i;
    for (j = 0; j < n; ++j) {
        const int8_t *w0 = w + (oc + 2 * j) * k, *w1 = w0 + k;
        for (f = 0; f < 2; ++f) {
            dst[f] = 2 * (bias != NULL ? bias[oc + 2 * j + f] : 0);
        }
        dst += 2;
        for (i = 0; i < k; i += 4, dst += 4) {
            const int32_t u = rt_dsp_load4(w0 + i), v = rt_dsp_load4(w1 + i);
            int16x2_t h = rt_dsp_w_even(u);
            dst[0] = (int32_t)__sadd16(h, h);
            h = rt_dsp_w_even(v);
            dst[1] = (int32_t)__sadd16(h, h);
            h = rt_dsp_w_odd(u);
            dst[2] = (int32_t)__sadd16(h, h);
            h = rt_dsp_w_odd(v);
            dst[3] = (int32_t)__sadd16(h, h);
        }
        for (f = 0; f < 2; ++f, dst += 4) {
            const int32_t c = oc + 2 * j + f, e = -p->shift[c];
            dst[0] = ((1 << e) >> 1) + p->output_offset * (1 << e);
            dst[1] = p->mult[c];
            dst[2] = e;
            dst[3] = -(e > 0);
        }
    }
}

/* Four pixels' k inputs (x0..x3, k a multiple of 4) plus the offset, widened into xq: per
 * four taps the four pixels' taps 0, 2, then their taps 1, 3. One asm loop: a run of four
 * word loads (which pipeline), eight SXTAB16 and eight single stores, 26 cycles per 16 taps
 * on the M4. */
static __attribute__((noinline, unused)) void rt_dsp_q_widen(
    const int8_t *x0, const int8_t *x1, const int8_t *x2, const int8_t *x3, int32_t k,
    int16x2_t off2, int32_t *xq)
{
#if defined(__OPTIMIZE__)
    if (k > 0) {
        const int32_t *const end = xq + 2 * k;
        int32_t a, b, c, d, e;
        __asm__ volatile(
            ".p2align 2\n"   /* the loop's head, a 32-bit load, on a word */
            "1:\n\t"
            "ldr %[a], [%[x0]], #4\n\t"
            "ldr %[b], [%[x1]], #4\n\t"
            "ldr %[c], [%[x2]], #4\n\t"
            "ldr %[d], [%[x3]], #4\n\t"
            "sxtab16 %[e], %[off], %[a]\n\t"
            "str %[e], [%[xq]]\n\t"
            "sxtab16 %[e], %[off], %[b]\n\t"
            "str %[e], [%[xq], #4]\n\t"
            "sxtab16 %[e], %[off], %[c]\n\t"
            "str %[e], [%[xq], #8]\n\t"
            "sxtab16 %[e], %[off], %[d]\n\t"
            "str %[e], [%[xq], #12]\n\t"
            "sxtab16 %[a], %[off], %[a], ror #8\n\t"
            "sxtab16 %[b], %[off], %[b], ror #8\n\t"
            "sxtab16 %[c], %[off], %[c], ror #8\n\t"
            "sxtab16 %[d], %[off], %[d], ror #8\n\t"
            "str %[a], [%[xq], #16]\n\t"
            "str %[b], [%[xq], #20]\n\t"
            "str %[c], [%[xq], #24]\n\t"
            "str %[d], [%[xq], #28]\n\t"
            "add %[xq], %[xq], #32\n\t"
            "cmp %[xq], %[end]\n\t"
            "bne 1b"
            : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d), [e] "=&r"(e),
              [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [xq] "+r"(xq)
            : [off] "r"(off2), [end] "r"(end)
            : "cc", "memory");
    }
#else
    int32_t i;
    for (i = 0; i < k; i += 4, xq += 8) {
        const int32_t a = rt_dsp_load4(x0 + i), b = rt_dsp_load4(x1 + i);
        const int32_t c = rt_dsp_load4(x2 + i), d = rt_dsp_load4(x3 + i);
        xq[0] = (int32_t)rt_dsp_even(off2, a);
        xq[1] = (int32_t)rt_dsp_even(off2, b);
        xq[2] = (int32_t)rt_dsp_even(off2, c);
        xq[3] = (int32_t)rt_dsp_even(off2, d);
        xq[4] = (int32_t)rt_dsp_odd(off2, a);
        xq[5] = (int32_t)rt_dsp_odd(off2, b);
        xq[6] = (int32_t)rt_dsp_odd(off2, c);
        xq[7] = (int32_t)rt_dsp_odd(off2, d);
    }
#endif
}

/* Two taps of the quad: a word of each filter and the first two pixels' words in one run of
 * loads, four SMLADs, the last two pixels' words, four more. xo, wo: the words' offsets. */
#define RT_DSP_Q_HALF(xo, wo) \
    "ldr.w %[w0], [%[pw], #" #wo "]\n\t" \
    "ldr.w %[w1], [%[pw], #" #wo " + 4]\n\t" \
    "ldr.w %[x0], [%[px], #" #xo "]\n\t" \
    "ldr.w %[x1], [%[px], #" #xo " + 4]\n\t" \
    "smlad %[a00], %[x0], %[w0], %[a00]\n\t" \
    "smlad %[a01], %[x0], %[w1], %[a01]\n\t" \
    "smlad %[a10], %[x1], %[w0], %[a10]\n\t" \
    "smlad %[a11], %[x1], %[w1], %[a11]\n\t" \
    "ldr.w %[x0], [%[px], #" #xo " + 8]\n\t" \
    "ldr.w %[x1], [%[px], #" #xo " + 12]\n\t" \
    "smlad %[a20], %[x0], %[w0], %[a20]\n\t" \
    "smlad %[a21], %[x0], %[w1], %[a21]\n\t" \
    "smlad %[a30], %[x1], %[w0], %[a30]\n\t" \
    "smlad %[a31], %[x1], %[w1], %[a31]\n\t"

/* Four taps (group g of a lap of eight): 28 instructions, every one 32-bit (112 bytes), so
 * that a lap can be entered at any group by its address. */
#define RT_DSP_Q_GROUP(g) RT_DSP_Q_HALF(32 * g, 16 * g) RT_DSP_Q_HALF(32 * g + 16, 16 * g + 8)
#define RT_DSP_Q_GROUP_BYTES 112

/* A sum's requantization: c in w0, mult in w1, e in x1, neg in px; x0 scratch. */
#define RT_DSP_Q_RQ(a) RT_DSP_RQ_ASM(#a, "x0", "px", "w0", "w1", "x1")

/* n filter pairs (blocks at wt) over the quad xq of k taps; pixel p's outputs from o +
 * p * ostep on, two a pair. */
static __attribute__((noinline, unused)) RT_DSP_ADR_ALIGNED void rt_dsp_q_pairs(
    const int32_t *xq, const int32_t *wt, int32_t k, int32_t n, int8_t *o, int32_t ostep)
{
#if defined(__OPTIMIZE__)
    int32_t a00, a01, a10, a11, a20, a21, a30, a31, w0, w1, x0, x1;
    const int32_t *px;
    /* a lap is eight groups; the first lap starts at the one that leaves k % 32 taps to it,
       the pointers set back by the groups it skips */
    const int32_t skip = (8 - (k / 4) % 8) % 8;
    const int32_t *const xs = xq - 8 * skip, *const x_end = xq + 2 * k;
    const int32_t back = 16 * skip;   /* bytes of a filter block's groups skipped */
    const int32_t *const w_end = wt + n * RT_DSP_Q_BLOCK(k);
    int32_t entry = 0;   /* in-out: an output alone may share an input's slot */
    __asm__ volatile(
        "adr.w %[x0], 2f\n\t"
        "ldr %[x1], %[skip]\n\t"
        "mov %[w0], %[gbytes]\n\t"
        "mla %[x0], %[x1], %[w0], %[x0]\n\t"
        "orr %[x0], %[x0], #1\n\t"
        "str %[x0], %[entry]\n\t"
        "1:\n\t"
        "ldrd %[a00], %[a01], [%[pw]], #8\n\t"
        "mov %[a10], %[a00]\n\t"
        "mov %[a20], %[a00]\n\t"
        "mov %[a30], %[a00]\n\t"
        "mov %[a11], %[a01]\n\t"
        "mov %[a21], %[a01]\n\t"
        "mov %[a31], %[a01]\n\t"
        "ldr %[x0], %[back]\n\t"
        "ldr %[px], %[xs]\n\t"
        "sub %[pw], %[pw], %[x0]\n\t"
        "ldr pc, %[entry]\n\t"
        "2:\n\t"
        RT_DSP_Q_GROUP(0) RT_DSP_Q_GROUP(1) RT_DSP_Q_GROUP(2) RT_DSP_Q_GROUP(3)
        RT_DSP_Q_GROUP(4) RT_DSP_Q_GROUP(5) RT_DSP_Q_GROUP(6) RT_DSP_Q_GROUP(7)
        "add %[px], %[px], #256\n\t"
        "add %[pw], %[pw], #128\n\t"
        "ldr %[x0], %[x_end]\n\t"
        "cmp %[px], %[x0]\n\t"
        "bne 2b\n\t"
        /* filter 0's constants, its four sums; filter 1's */
        "ldrd %[w0], %[w1], [%[pw]], #8\n\t"
        "ldrd %[x1], %[px], [%[pw]], #8\n\t"
        RT_DSP_Q_RQ(a00) RT_DSP_Q_RQ(a10) RT_DSP_Q_RQ(a20) RT_DSP_Q_RQ(a30)
        "ldrd %[w0], %[w1], [%[pw]], #8\n\t"
        "ldrd %[x1], %[px], [%[pw]], #8\n\t"
        RT_DSP_Q_RQ(a01) RT_DSP_Q_RQ(a11) RT_DSP_Q_RQ(a21) RT_DSP_Q_RQ(a31)
        "ldr %[px], %[o]\n\t"
        "ldr %[x0], %[ostep]\n\t"
        "add %[w0], %[px], %[x0]\n\t"
        "add %[w1], %[w0], %[x0]\n\t"
        "add %[x1], %[w1], %[x0]\n\t"
        "strb %[a00], [%[px]]\n\t"
        "strb %[a01], [%[px], #1]\n\t"
        "strb %[a10], [%[w0]]\n\t"
        "strb %[a11], [%[w0], #1]\n\t"
        "strb %[a20], [%[w1]]\n\t"
        "strb %[a21], [%[w1], #1]\n\t"
        "strb %[a30], [%[x1]]\n\t"
        "strb %[a31], [%[x1], #1]\n\t"
        "add %[px], %[px], #2\n\t"
        "str %[px], %[o]\n\t"
        "ldr %[x0], %[w_end]\n\t"
        "cmp %[pw], %[x0]\n\t"
        "bne 1b"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11),
          [a20] "=&r"(a20), [a21] "=&r"(a21), [a30] "=&r"(a30), [a31] "=&r"(a31),
          [w0] "=&r"(w0), [w1] "=&r"(w1), [x0] "=&r"(x0), [x1] "=&r"(x1), [px] "=&r"(px),
          [pw] "+r"(wt), [o] "+m"(o), [entry] "+m"(entry)
        : [xs] "m"(xs), [x_end] "m"(x_end), [back] "m"(back), [skip] "m"(skip),
          [w_end] "m"(w_end), [ostep] "m"(ostep), [gbytes] "i"(RT_DSP_Q_GROUP_BYTES)
        : "cc", "memory");
#else
    int32_t j, i, q, f;
    for (j = 0; j < n; ++j, o += 2) {
        int32_t acc[4][2];
        for (q = 0; q < 4; ++q) {
            acc[q][0] = wt[0];
            acc[q][1] = wt[1];
        }
        wt += 2;
        for (i = 0; i < k; i += 4, wt += 4) {
            const int32_t *x = xq + 2 * i;   /* group i / 4 */
            for (q = 0; q < 4; ++q) {
                for (f = 0; f < 2; ++f) {
                    acc[q][f] = __smlad((int16x2_t)x[q], (int16x2_t)wt[f],
                                        __smlad((int16x2_t)x[4 + q], (int16x2_t)wt[2 + f],
                                                acc[q][f]));
                }
            }
        }
        for (f = 0; f < 2; ++f, wt += 4) {
            for (q = 0; q < 4; ++q) {
                const int32_t a = acc[q][f];
                const int32_t v = rt_dsp_smmulr(a, wt[1]) + wt[0] + (wt[3] & (a >> 31));
                o[q * ostep + f] = rt_dsp_sat8(v >> wt[2]);
            }
        }
    }
#endif
}

/* The quads of ``pixels`` pixels (four or more) of cin inputs from in, each widened into xq,
 * by the n filter pairs of the table wt; pixel i's outputs from out + i * cout on. The last
 * quad redoes some of the one before it (the same bits stored again). */
static inline void rt_dsp_q_quads(const int8_t *in, int32_t pixels, int32_t cin,
                                  int16x2_t off2, int32_t *xq, const int32_t *wt, int32_t n,
                                  int8_t *out, int32_t cout)
{
    int32_t i;
    for (i = 0; i < pixels; i += 4) {
        const int32_t i0 = i + 4 <= pixels ? i : pixels - 4;
        const int8_t *x = in + i0 * cin;
        rt_dsp_q_widen(x, x + cin, x + 2 * cin, x + 3 * cin, cin, off2, xq);
        rt_dsp_q_pairs(xq, wt, cin, n, out + i0 * cout, cout);
    }
}

/* A pointwise layer the quads take (rt_dsp_pw_fits, an even Cout, Cin up to RT_DSP_Q_K, four
 * pixels or more): filter pairs a table at a time outside, widened once (above), quads of
 * pixels inside, widened once per table; the last quad redoes some of the one before it.
 * conv_1x1_s8.c runs a layer of RT_DSP_Q_PIXELS or more so; conv_1x1_in_place_s8.c a band. */
static __attribute__((noinline, unused)) void rt_dsp_pw_quads(
    const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w, const int32_t *bias,
    const int8_t *in, int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout, pairs = cout / 2;
    const int32_t most = rt_dsp_q_pairs_a_table(pairs, cin, RT_DSP_Q_BYTES - 8 * cin);
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t buf[RT_DSP_Q_BYTES / 4];   /* the quad's 8 * cin bytes widened, then the table */
    int32_t *const xq = buf, *const wt = buf + 2 * cin;
    int32_t oc, n;
    for (oc = 0; oc < cout; oc += 2 * n) {
        n = (cout - oc) / 2 < most ? (cout - oc) / 2 : most;
        rt_dsp_q_table(p, bias, w, cin, oc, n, wt);
        rt_dsp_q_quads(in, pixels, cin, off2, xq, wt, n, out + oc, cout);
    }
}

#endif /* RT_CONV_DSP_H */
