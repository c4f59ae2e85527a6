/* conv_dsp.h - the 2x2 tiles' dot products of the DSP convolutions (conv_s8.c and
 * conv_1x1_s8.c of this folder). */
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

/* The 2x2 tile's sums over rows runs of n taps: a[0] += x0.w0, a[1] += x0.w1,
 * a[2] += x1.w0, a[3] += x1.w1 (x + x_off); after each run the inputs step on by x_skip and
 * the filters by w_skip.
 *
 * The loop needs fifteen values live (four sums, four pointers, six halfword pairs and the
 * offset pair), one more than Thumb-2 has registers, and gcc spills the pointers it then
 * post-increments (three loads and stores a turn). Written out, the offset pair and the end are
 * reloaded from the stack once a turn instead: 24 instructions for 16 multiply-accumulates,
 * every run of a window in one call. It takes whole words (n a multiple of 4); other runs and
 * an unoptimized build (-O0 keeps r7 for the frame) take the C loop. */
static inline void dot_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                    int32_t rows, int32_t n, int32_t x_skip, int32_t w_skip, int32_t x_off,
                    int32_t *a)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t a00 = a[0], a01 = a[1], a10 = a[2], a11 = a[3], r, i;
#if defined(__OPTIMIZE__)
    /* whole words; one run may end in a tail of 1 to 3 taps, finished by the C loop */
    const int32_t words = n & ~3;
    if (words > 0 && rows > 0 && (words == n || (rows == 1 && x_skip == 0 && w_skip == 0))) {
        const int8_t *end = x0;
        int32_t t0, t1, t2, t3, t4, t5;
        __asm__ volatile(
            "2:\n\t"
            "ldr %[t5], %[n]\n\t"
            "add %[t5], %[x0], %[t5]\n\t"
            "str %[t5], %[end]\n\t"
            "1:\n\t"
            RT_DSP_2X2_TURN
            "ldr %[t5], %[end]\n\t"
            "cmp %[x0], %[t5]\n\t"
            "bne 1b\n\t"
            "ldr %[t5], %[xs]\n\t"
            "add %[x0], %[x0], %[t5]\n\t"
            "add %[x1], %[x1], %[t5]\n\t"
            "ldr %[t5], %[ws]\n\t"
            "add %[w0], %[w0], %[t5]\n\t"
            "add %[w1], %[w1], %[t5]\n\t"
            "ldr %[t5], %[rows]\n\t"
            "subs %[t5], %[t5], #1\n\t"
            "str %[t5], %[rows]\n\t"
            "bne 2b"
            : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11),
              [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1),
              [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
              [t4] "=&r"(t4), [t5] "=&r"(t5), [end] "+m"(end), [rows] "+m"(rows)
            : [off] "m"(off2), [n] "m"(words), [xs] "m"(x_skip), [ws] "m"(w_skip)
            : "cc", "memory");
        /* what is left: nothing, or the tail of the one run (from where the loop stopped) */
        n -= words;
        rows = n > 0 ? 1 : 0;
    }
#endif
    for (r = 0; r < rows; ++r) {
        for (i = 0; i + 4 <= n; i += 4) {
            const int32_t xa = rt_dsp_load4(x0 + i), xb = rt_dsp_load4(x1 + i);
            const int16x2_t ae = rt_dsp_even(off2, xa), ao = rt_dsp_odd(off2, xa);
            const int16x2_t be = rt_dsp_even(off2, xb), bo = rt_dsp_odd(off2, xb);
            int32_t wv = rt_dsp_load4(w0 + i);
            int16x2_t we = rt_dsp_w_even(wv), wo = rt_dsp_w_odd(wv);
            a00 = __smlad(ae, we, __smlad(ao, wo, a00));
            a10 = __smlad(be, we, __smlad(bo, wo, a10));
            wv = rt_dsp_load4(w1 + i);
            we = rt_dsp_w_even(wv);
            wo = rt_dsp_w_odd(wv);
            a01 = __smlad(ae, we, __smlad(ao, wo, a01));
            a11 = __smlad(be, we, __smlad(bo, wo, a11));
        }
        for (; i < n; ++i) {
            const int32_t u = (int32_t)x0[i] + x_off, v = (int32_t)x1[i] + x_off;
            a00 += u * w0[i];
            a01 += u * w1[i];
            a10 += v * w0[i];
            a11 += v * w1[i];
        }
        x0 += n + x_skip;
        x1 += n + x_skip;
        w0 += n + w_skip;
        w1 += n + w_skip;
    }
    a[0] = a00;
    a[1] = a01;
    a[2] = a10;
    a[3] = a11;
}

/* One pixel, two filters: a[0] += x.w0, a[1] += x.w1. */
static inline void dot_1x2(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
                    int32_t x_off, int32_t *a)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t a0 = a[0], a1 = a[1], i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32_t xv = rt_dsp_load4(x + i);
        const int16x2_t xe = rt_dsp_even(off2, xv), xo = rt_dsp_odd(off2, xv);
        const int32_t v0 = rt_dsp_load4(w0 + i), v1 = rt_dsp_load4(w1 + i);
        a0 = __smlad(xe, rt_dsp_w_even(v0), __smlad(xo, rt_dsp_w_odd(v0), a0));
        a1 = __smlad(xe, rt_dsp_w_even(v1), __smlad(xo, rt_dsp_w_odd(v1), a1));
    }
    for (; i < n; ++i) {
        const int32_t u = (int32_t)x[i] + x_off;
        a0 += u * w0[i];
        a1 += u * w1[i];
    }
    a[0] = a0;
    a[1] = a1;
}

#endif /* RT_CONV_DSP_H */
