/* conv_kxk.h - the long patches' quads of conv_s8.c: four output pixels by a filter pair, the
 * pixels' patches widened to halfword pairs once for every filter of the layer and each
 * filter word split by SXTB16 in the loop, so that no table of widened filters (which the
 * quads of conv_dsp.h keep, a few pairs at a time for long patches, widening every quad again
 * per table) is needed. Per two taps a word of each filter (filter 1's at a register offset,
 * the patch length, reloaded from the stack: the loop has no register left for it) and one
 * of each pixel, in two runs of single loads, two SXTB16s and eight SMLADs: 19 cycles for
 * 16 multiply-accumulates on the M4. Private to conv_s8.c. */
#ifndef RT_CONV_KXK_H
#define RT_CONV_KXK_H

#include "conv_dsp.h"

/* The longest patch the path takes (a 3x3 filter over 64 channels): 4.5 KB widened. */
#define RT_KXK_TAPS 576
/* Filter pairs a table of constants holds. */
#define RT_KXK_PAIRS 32

/* A filter pair's constants, in the order the loop reads them: the two biases (the sums'
 * starts), then per filter neg, c, mult, e of the requantization (as in rt_dsp_pw_pair; the
 * sums are doubled before it). */
typedef struct rt_kxk_pair {
    int32_t bias[2];
    int32_t rq[2][4];
} rt_kxk_pair;

/* The constants of n filter pairs from filter oc on. */
static inline void rt_kxk_table(const rt_conv_s8_params *p, const int32_t *bias, int32_t oc,
                                int32_t n, rt_kxk_pair *t)
{
    int32_t j;
    for (j = 0; j < 2 * n; ++j) {
        const int32_t f = oc + j, e = -p->shift[f];
        int32_t *q = t[j / 2].rq[j % 2];
        t[j / 2].bias[j % 2] = bias != NULL ? bias[f] : 0;
        q[0] = -(e > 0);
        q[1] = ((1 << e) >> 1) + p->output_offset * (1 << e);
        q[2] = p->mult[f];
        q[3] = e;
    }
}

/* One pixel's n taps at x (n a multiple of 4) plus the offset widened into its lane of a
 * quad, dst: per four taps its taps 0, 2 at dst[0] and its taps 1, 3 at dst[4], the next four
 * at dst + 8 (the four pixels' words side by side, pixel p's lane dst + p). Sixteen taps a
 * turn: four loads, eight SXTAB16s and eight stores, 26 cycles on the M4. */
static __attribute__((noinline, unused)) void rt_kxk_widen(const int8_t *x, int32_t n,
                                                           int16x2_t off2, int32_t *dst)
{
    const int8_t *const end = x + n;
#if defined(__OPTIMIZE__)
    if (n >= 16) {
        const int8_t *const end16 = x + (n & ~15);
        int32_t a, b, c, d, e;
        __asm__ volatile(
            "1:\n\t"
            "ldr %[a], [%[x]], #16\n\t"
            "ldr %[b], [%[x], #-12]\n\t"
            "ldr %[c], [%[x], #-8]\n\t"
            "ldr %[d], [%[x], #-4]\n\t"
            "sxtab16 %[e], %[off], %[a]\n\t"
            "sxtab16 %[a], %[off], %[a], ror #8\n\t"
            "str %[e], [%[dst]]\n\t"
            "str %[a], [%[dst], #16]\n\t"
            "sxtab16 %[e], %[off], %[b]\n\t"
            "sxtab16 %[b], %[off], %[b], ror #8\n\t"
            "str %[e], [%[dst], #32]\n\t"
            "str %[b], [%[dst], #48]\n\t"
            "sxtab16 %[e], %[off], %[c]\n\t"
            "sxtab16 %[c], %[off], %[c], ror #8\n\t"
            "str %[e], [%[dst], #64]\n\t"
            "str %[c], [%[dst], #80]\n\t"
            "sxtab16 %[e], %[off], %[d]\n\t"
            "sxtab16 %[d], %[off], %[d], ror #8\n\t"
            "str %[e], [%[dst], #96]\n\t"
            "str %[d], [%[dst], #112]\n\t"
            "add %[dst], %[dst], #128\n\t"
            "cmp %[x], %[end]\n\t"
            "bne 1b"
            : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d), [e] "=&r"(e),
              [x] "+r"(x), [dst] "+r"(dst)
            : [off] "r"(off2), [end] "r"(end16)
            : "cc", "memory");
    }
#endif
    for (; x < end; x += 4, dst += 8) {
        const int32_t u = rt_dsp_load4(x);
        dst[0] = (int32_t)rt_dsp_even(off2, u);
        dst[4] = (int32_t)rt_dsp_odd(off2, u);
    }
}

/* n taps of a pixel's lane (rt_kxk_widen) set to widened zeros: taps outside the input, whose
 * x is the input zero point. */
static inline void rt_kxk_zero(int32_t n, int32_t *dst)
{
    for (; n > 0; n -= 4, dst += 8) {
        dst[0] = 0;
        dst[4] = 0;
    }
}

/* Two taps of the quad (h = 0: taps 0, 2 of group g; h = 1: taps 1, 3, whose load steps the
 * filter pointer on): filter 0's word at pw, filter 1's at pw + k (k reloaded into t3 first),
 * the first two pixels' words, in one run of loads; the two filter words split; four SMLADs;
 * the last two pixels' words; four more. Every instruction 32-bit: a group is 136 bytes, so
 * that a lap can be entered at any group by its address. */
#define RT_KXK_EVEN(g) \
    "ldr.w %[t3], %[k]\n\t" \
    "ldr.w %[t0], [%[pw]]\n\t" \
    "ldr.w %[t1], [%[pw], %[t3]]\n\t" \
    "ldr.w %[t2], [%[px], #32 * " #g "]\n\t" \
    "ldr.w %[t3], [%[px], #32 * " #g " + 4]\n\t" \
    "sxtb16 %[t0], %[t0]\n\t" \
    "sxtb16 %[t1], %[t1]\n\t" \
    RT_KXK_MAC8(#g " + 8")
#define RT_KXK_ODD(g) \
    "ldr.w %[t3], %[k]\n\t" \
    "ldr.w %[t2], [%[px], #32 * " #g " + 16]\n\t" \
    "ldr.w %[t1], [%[pw], %[t3]]\n\t" \
    "ldr.w %[t0], [%[pw]], #4\n\t" \
    "ldr.w %[t3], [%[px], #32 * " #g " + 20]\n\t" \
    "sxtb16 %[t0], %[t0], ror #8\n\t" \
    "sxtb16 %[t1], %[t1], ror #8\n\t" \
    RT_KXK_MAC8(#g " + 24")
/* pixels 0, 1 (t2, t3) by filters 0, 1 (t0, t1); pixels 2, 3 (words at byte 32 * g + at) */
#define RT_KXK_MAC8(at) \
    "smlad %[a00], %[t2], %[t0], %[a00]\n\t" \
    "smlad %[a01], %[t2], %[t1], %[a01]\n\t" \
    "smlad %[a10], %[t3], %[t0], %[a10]\n\t" \
    "smlad %[a11], %[t3], %[t1], %[a11]\n\t" \
    "ldr.w %[t2], [%[px], #32 * " at "]\n\t" \
    "ldr.w %[t3], [%[px], #32 * " at " + 4]\n\t" \
    "smlad %[a20], %[t2], %[t0], %[a20]\n\t" \
    "smlad %[a21], %[t2], %[t1], %[a21]\n\t" \
    "smlad %[a30], %[t3], %[t0], %[a30]\n\t" \
    "smlad %[a31], %[t3], %[t1], %[a31]\n\t"
#define RT_KXK_GROUP(g) RT_KXK_EVEN(g) RT_KXK_ODD(g)
#define RT_KXK_GROUP_BYTES 136

/* A sum doubled (the requantization's input, as in conv_dsp.h) and requantized: neg in t1,
 * c in t2, mult in t3, e in px; t0 scratch. */
#define RT_KXK_RQ(a) \
    "lsl %[" #a "], %[" #a "], #1\n\t" \
    RT_DSP_RQ_ASM(#a, "t0", "t1", "t2", "t3", "px")

/* n filter pairs (constants t, filters from w, k taps each, k a multiple of 4) over the quad
 * xq of k taps (rt_kxk_widen); pixel p's outputs from o + p * ostep on, two a pair. */
static __attribute__((noinline, unused)) RT_DSP_ADR_ALIGNED void rt_kxk_pairs(
    const int32_t *xq, const rt_kxk_pair *t, const int8_t *w, int32_t k, int32_t n, int8_t *o,
    int32_t ostep)
{
#if defined(__OPTIMIZE__)
    int32_t a00, a01, a10, a11, a20, a21, a30, a31, t0, t1, t2, t3;
    const int32_t *px;
    /* a lap is eight groups; the first lap starts at the one that leaves k % 32 taps to it,
       the pixels' pointer set back by the groups it skips (the filters' steps group by
       group) */
    const int32_t skip = (8 - (k / 4) % 8) % 8;
    const int32_t *const xs = xq - 8 * skip, *const x_end = xq + 2 * k;
    const int8_t *const w_end = w + 2 * n * k;
    int32_t entry = 0;   /* in-out: an output alone may share an input's slot */
    __asm__ volatile(
        "adr.w %[t0], 2f\n\t"
        "ldr %[t1], %[skip]\n\t"
        "mov %[t2], %[gbytes]\n\t"
        "mla %[t0], %[t1], %[t2], %[t0]\n\t"
        "orr %[t0], %[t0], #1\n\t"
        "str %[t0], %[entry]\n\t"
        "1:\n\t"
        "ldr %[t0], %[t]\n\t"
        "ldrd %[a00], %[a01], [%[t0]]\n\t"
        "mov %[a10], %[a00]\n\t"
        "mov %[a20], %[a00]\n\t"
        "mov %[a30], %[a00]\n\t"
        "mov %[a11], %[a01]\n\t"
        "mov %[a21], %[a01]\n\t"
        "mov %[a31], %[a01]\n\t"
        "ldr %[px], %[xs]\n\t"
        "ldr pc, %[entry]\n\t"
        ".p2align 2\n"   /* the lap's branch back lands on a word */
        "2:\n\t"
        RT_KXK_GROUP(0) RT_KXK_GROUP(1) RT_KXK_GROUP(2) RT_KXK_GROUP(3)
        RT_KXK_GROUP(4) RT_KXK_GROUP(5) RT_KXK_GROUP(6) RT_KXK_GROUP(7)
        "add %[px], %[px], #256\n\t"
        "ldr %[t0], %[x_end]\n\t"
        "cmp %[px], %[t0]\n\t"
        "bne 2b\n\t"
        /* filter 0's constants, its four sums; filter 1's */
        "ldr %[t0], %[t]\n\t"
        "ldrd %[t1], %[t2], [%[t0], #8]\n\t"
        "ldrd %[t3], %[px], [%[t0], #16]\n\t"
        RT_KXK_RQ(a00) RT_KXK_RQ(a10) RT_KXK_RQ(a20) RT_KXK_RQ(a30)
        "ldr %[t0], %[t]\n\t"
        "ldrd %[t1], %[t2], [%[t0], #24]\n\t"
        "ldrd %[t3], %[px], [%[t0], #32]\n\t"
        "add %[t0], %[t0], #40\n\t"
        "str %[t0], %[t]\n\t"
        RT_KXK_RQ(a01) RT_KXK_RQ(a11) RT_KXK_RQ(a21) RT_KXK_RQ(a31)
        "ldr %[px], %[o]\n\t"
        "ldr %[t0], %[ostep]\n\t"
        "add %[t1], %[px], %[t0]\n\t"
        "add %[t2], %[t1], %[t0]\n\t"
        "add %[t3], %[t2], %[t0]\n\t"
        "strb %[a00], [%[px]]\n\t"
        "strb %[a01], [%[px], #1]\n\t"
        "strb %[a10], [%[t1]]\n\t"
        "strb %[a11], [%[t1], #1]\n\t"
        "strb %[a20], [%[t2]]\n\t"
        "strb %[a21], [%[t2], #1]\n\t"
        "strb %[a30], [%[t3]]\n\t"
        "strb %[a31], [%[t3], #1]\n\t"
        "add %[px], %[px], #2\n\t"
        "str %[px], %[o]\n\t"
        /* the loop stepped over filter 0; filter 1 too */
        "ldr %[t0], %[k]\n\t"
        "ldr %[t1], %[w_end]\n\t"
        "add %[pw], %[pw], %[t0]\n\t"
        "cmp %[pw], %[t1]\n\t"
        "bne 1b"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11),
          [a20] "=&r"(a20), [a21] "=&r"(a21), [a30] "=&r"(a30), [a31] "=&r"(a31),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [px] "=&r"(px),
          [pw] "+r"(w), [t] "+m"(t), [o] "+m"(o), [entry] "+m"(entry)
        : [xs] "m"(xs), [x_end] "m"(x_end), [k] "m"(k), [skip] "m"(skip),
          [w_end] "m"(w_end), [ostep] "m"(ostep), [gbytes] "i"(RT_KXK_GROUP_BYTES)
        : "cc", "memory");
#else
    int32_t j, i, q, f;
    for (j = 0; j < n; ++j, ++t, o += 2, w += 2 * k) {
        int32_t acc[4][2];
        for (q = 0; q < 4; ++q) {
            acc[q][0] = t->bias[0];
            acc[q][1] = t->bias[1];
        }
        for (i = 0; i < k; i += 4) {
            const int32_t *x = xq + 2 * i;   /* group i / 4 */
            for (f = 0; f < 2; ++f) {
                const int32_t v = rt_dsp_load4(w + f * k + i);
                const int16x2_t e = rt_dsp_w_even(v), d = rt_dsp_w_odd(v);
                for (q = 0; q < 4; ++q) {
                    acc[q][f] = __smlad((int16x2_t)x[q], e,
                                        __smlad((int16x2_t)x[4 + q], d, acc[q][f]));
                }
            }
        }
        for (f = 0; f < 2; ++f) {
            const int32_t *r = t->rq[f];
            for (q = 0; q < 4; ++q) {
                const int32_t a = 2 * acc[q][f];
                const int32_t v = rt_dsp_smmulr(a, r[2]) + r[1] + (r[0] & (a >> 31));
                o[q * ostep + f] = rt_dsp_sat8(v >> r[3]);
            }
        }
    }
#endif
}

#endif /* RT_CONV_KXK_H */
