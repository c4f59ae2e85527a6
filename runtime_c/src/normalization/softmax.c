/* softmax.c - rt_softmax_f32: _softmax over dim: exp(x - max) / sum. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_softmax_f32(int32_t dim, RT_F32_UNARY_TENSORS)
{
    rt_softmax_geom g;
    int32_t o, i, k;
    RT_TRY(rt_softmax_geom_init(&g, dim, in_s, in, out_s, out));
    for (o = 0; o < g.outer; ++o) {
        for (i = 0; i < g.inner; ++i) {
            const float *x = in + o * g.n * g.inner + i;
            float *y = out + o * g.n * g.inner + i;
            const float max = rt_softmax_row_max(x, g.n, g.inner);
            float sum = 0.0f;
            float inv;
            for (k = 0; k < g.n; ++k) {
                const float e = expf(x[k * g.inner] - max);
                y[k * g.inner] = e;
                sum += e;
            }
            inv = 1.0f / sum;
            for (k = 0; k < g.n; ++k) {
                y[k * g.inner] *= inv;
            }
        }
    }
    return RT_OK;
}
