/* conv_dsp.h - what the DSP convolutions (conv_s8.c and conv_1x1_s8.c of this folder)
 * share: the 2x2 tile's loop turn, written out, and the widened
 * path: pixel pairs widened once to halfwords, the tile's loop over them, and its output
 * stage for a layer whose sums are proved in range. */
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
static inline void rt_dsp_widen_pair(const int8_t *x0, const int8_t *x1, int32_t cin, int16x2_t off2,
                       int32_t *dst)
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

#endif /* RT_CONV_DSP_H */
