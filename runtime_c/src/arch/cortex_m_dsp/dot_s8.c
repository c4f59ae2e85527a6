/* dot_s8.c (Cortex-M with the DSP extension: M4, M7, M33, M55) - the int8 dot products of
 * s8_internal.h with SMLAD: four bytes a load, split into two pairs of halfwords (SXTAB16 adds
 * the input offset to both at once), two dual multiply-accumulates. Same sums as the portable
 * file, bit for bit: every halfword holds x + x_off (|.| <= 255) or a weight. */
#include <arm_acle.h>

#include "../../int8/s8_internal.h"

#if !defined(__ARM_FEATURE_DSP)
#error "runtime_c/src/arch/cortex_m_dsp needs a CPU with the DSP extension (__ARM_FEATURE_DSP)"
#endif

/* bytes 1 and 3 into the places of 0 and 2 (the compiler folds it into SXTB16's rotate) */
static int32_t ror8(int32_t v)
{
    const uint32_t u = (uint32_t)v;
    return (int32_t)((u >> 8) | (u << 24));
}

static int32_t load4(const int8_t *p)
{
    int32_t v;
    /* one LDR (the M4/M7 load unaligned words); the builtin, since firmware builds with
     * -fno-builtin and a memcpy call per word would cost more than the products */
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

int32_t rt_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off)
{
    const int16x2_t off2 = (int16x2_t)(((uint32_t)(uint16_t)x_off << 16) | (uint16_t)x_off);
    int32_t acc = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        const int8x4_t xv = load4(x + i), wv = load4(w + i);
        acc = __smlad(__sxtab16(off2, xv), __sxtb16(wv), acc);                /* 0 and 2 */
        acc = __smlad(__sxtab16(off2, ror8(xv)),
                      __sxtb16(ror8(wv)), acc);       /* 1 and 3 */
    }
    for (; i < n; ++i) {
        acc += ((int32_t)x[i] + x_off) * (int32_t)w[i];
    }
    return acc;
}

void rt_s8_dot4(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t x_off,
                int32_t *a)
{
    const int16x2_t off2 = (int16x2_t)(((uint32_t)(uint16_t)x_off << 16) | (uint16_t)x_off);
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], i = 0;
    for (; i + 4 <= n; i += 4) {
        const int8x4_t xv = load4(x + i);
        const int16x2_t xe = __sxtab16(off2, xv);                             /* 0 and 2 */
        const int16x2_t xo = __sxtab16(off2, ror8(xv)); /* 1 and 3 */
        int8x4_t wv = load4(w0 + i);
        a0 = __smlad(xe, __sxtb16(wv), a0);
        a0 = __smlad(xo, __sxtb16(ror8(wv)), a0);
        wv = load4(w1 + i);
        a1 = __smlad(xe, __sxtb16(wv), a1);
        a1 = __smlad(xo, __sxtb16(ror8(wv)), a1);
        wv = load4(w2 + i);
        a2 = __smlad(xe, __sxtb16(wv), a2);
        a2 = __smlad(xo, __sxtb16(ror8(wv)), a2);
        wv = load4(w3 + i);
        a3 = __smlad(xe, __sxtb16(wv), a3);
        a3 = __smlad(xo, __sxtb16(ror8(wv)), a3);
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
