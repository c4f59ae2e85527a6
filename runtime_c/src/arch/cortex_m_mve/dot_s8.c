/* dot_s8.c (Cortex-M Helium) - the int8 dot products of s8_internal.h, sixteen bytes a turn:
 * VMLADAVA for sum x * w, VADDVA for sum w, the input offset applied once. */
#include "s8_mve.h"

int32_t rt_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off)
{
    int32_t xw = 0, sw = 0;
    for (; n > 0; n -= 16, x += 16, w += 16) {
        const mve_pred16_t p = rt_mve_tail8(n);
        const int8x16_t wv = vldrbq_z_s8(w, p);
        xw = vmladavaq_p_s8(xw, vldrbq_z_s8(x, p), wv, p);
        sw = vaddvaq_p_s8(sw, wv, p);
    }
    return xw + x_off * sw;
}

void rt_s8_dot4(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t x_off,
                int32_t *a)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0, i;
    for (i = 0; i < n; i += 16) {
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const int8x16_t xv = vldrbq_z_s8(x + i, p);
        int8x16_t wv = vldrbq_z_s8(w0 + i, p);
        a0 = vmladavaq_p_s8(a0, xv, wv, p);
        s0 = vaddvaq_p_s8(s0, wv, p);
        wv = vldrbq_z_s8(w1 + i, p);
        a1 = vmladavaq_p_s8(a1, xv, wv, p);
        s1 = vaddvaq_p_s8(s1, wv, p);
        wv = vldrbq_z_s8(w2 + i, p);
        a2 = vmladavaq_p_s8(a2, xv, wv, p);
        s2 = vaddvaq_p_s8(s2, wv, p);
        wv = vldrbq_z_s8(w3 + i, p);
        a3 = vmladavaq_p_s8(a3, xv, wv, p);
        s3 = vaddvaq_p_s8(s3, wv, p);
    }
    a[0] += a0 + x_off * s0;
    a[1] += a1 + x_off * s1;
    a[2] += a2 + x_off * s2;
    a[3] += a3 + x_off * s3;
}
