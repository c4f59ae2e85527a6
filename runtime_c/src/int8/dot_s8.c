/* dot_s8.c - the portable int8 dot products (see s8_internal.h): a byte at a time, four
 * products per loop turn; rt_s8_dot4 loads each input once for four filters. */
#include "s8_internal.h"

int32_t rt_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off)
{
    int32_t acc = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        acc += ((int32_t)x[i] + x_off) * (int32_t)w[i] +
               ((int32_t)x[i + 1] + x_off) * (int32_t)w[i + 1] +
               ((int32_t)x[i + 2] + x_off) * (int32_t)w[i + 2] +
               ((int32_t)x[i + 3] + x_off) * (int32_t)w[i + 3];
    }
    for (; i < n; ++i) {
        acc += ((int32_t)x[i] + x_off) * (int32_t)w[i];
    }
    return acc;
}

void rt_s8_dot4(const int8_t *x, const int8_t *w, int32_t stride, int32_t n, int32_t x_off,
                int32_t *a)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], i;
    for (i = 0; i < n; ++i) {
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
