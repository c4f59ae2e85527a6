/* conv_dsp.h - what the DSP convolutions (conv_s8.c and conv_1x1_s8.c of this folder)
 * share: the 2x2 tile's loop turn, written out, and the one-pixel dot product. */
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

/* One pixel, two filters: a[0] += x.w0, a[1] += x.w1. */
static RT_DSP_NOINLINE void dot_1x2(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
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
