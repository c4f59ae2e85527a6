/* softmax.c - rt_softmax_f32 (_softmax over dim: exp(x - max) / sum) and rt_log_softmax_f32
 * (_log_softmax over dim: x - (max + log(sum(exp(x - max))))). */
#include <math.h>

#include "../core/rt_internal.h"

/* One walk over the rows along dim; `log` is a constant at each caller, so each kernel is
 * compiled on its own. */
static inline rt_status softmax_rows(int32_t log, int32_t dim, RT_F32_UNARY_TENSORS)
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
            if (log) {
                float shift;
                for (k = 0; k < g.n; ++k) {
                    sum += expf(x[k * g.inner] - max);
                }
                shift = max + logf(sum);
                for (k = 0; k < g.n; ++k) {
                    y[k * g.inner] = x[k * g.inner] - shift;
                }
            } else {
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
    }
    return RT_OK;
}

rt_status rt_softmax_f32(int32_t dim, RT_F32_UNARY_TENSORS)
{
    return softmax_rows(0, dim, in_s, in, out_s, out);
}

rt_status rt_log_softmax_f32(int32_t dim, RT_F32_UNARY_TENSORS)
{
    return softmax_rows(1, dim, in_s, in, out_s, out);
}
