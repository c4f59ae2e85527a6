/* dot_s8.c (Cortex-M DSP) - the int8 dot products of s8_internal.h with SMLAD: four bytes a
 * load, split into two pairs of halfwords (SXTAB16 adds the input offset to both at once), two
 * dual multiply-accumulates. Same sums as the portable file, bit for bit. */
#include "s8_dsp.h"

int32_t rt_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t acc = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32_t xv = rt_dsp_load4(x + i), wv = rt_dsp_load4(w + i);
        acc = __smlad(rt_dsp_even(off2, xv), rt_dsp_w_even(wv), acc);
        acc = __smlad(rt_dsp_odd(off2, xv), rt_dsp_w_odd(wv), acc);
    }
    for (; i < n; ++i) {
        acc += ((int32_t)x[i] + x_off) * (int32_t)w[i];
    }
    return acc;
}

void rt_s8_dot4(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t x_off,
                int32_t *a)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32_t xv = rt_dsp_load4(x + i);
        const int16x2_t xe = rt_dsp_even(off2, xv), xo = rt_dsp_odd(off2, xv);
        int32_t wv = rt_dsp_load4(w0 + i);
        a0 = __smlad(xe, rt_dsp_w_even(wv), __smlad(xo, rt_dsp_w_odd(wv), a0));
        wv = rt_dsp_load4(w1 + i);
        a1 = __smlad(xe, rt_dsp_w_even(wv), __smlad(xo, rt_dsp_w_odd(wv), a1));
        wv = rt_dsp_load4(w2 + i);
        a2 = __smlad(xe, rt_dsp_w_even(wv), __smlad(xo, rt_dsp_w_odd(wv), a2));
        wv = rt_dsp_load4(w3 + i);
        a3 = __smlad(xe, rt_dsp_w_even(wv), __smlad(xo, rt_dsp_w_odd(wv), a3));
    }
    for (; i < n; ++i) {
        const int32_t v = (int32_t)x[i] + x_off;
        a0 += v * w0[i];
        a1 += v * w1[i];
        a2 += v * w2[i];
        a3 += v * w3[i];
    }
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
}
