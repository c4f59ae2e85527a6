/* softmax.c - rt_softmax_f32: _softmax over dim: exp(x - max) / sum. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_softmax_f32(int32_t dim, const rt_shape *in_s, const float *in,
                         const rt_shape *out_s, float *out)
{
    int32_t d, outer, n, inner, o, i, k;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(rt_same_numel(in_s, out_s), RT_ERR_SHAPE);
    d = in_s->rank == 0 ? 0 : rt_norm_dim(dim, in_s->rank); /* 0-d: n = 1 */
    RT_CHECK(d >= 0 && (in_s->rank > 0 || dim == 0 || dim == -1),
             RT_ERR_PARAM);
    outer = rt_dims_prod(in_s, 0, d);
    n = in_s->rank == 0 ? 1 : in_s->d[d];
    inner = in_s->rank == 0 ? 1 : rt_dims_prod(in_s, d + 1, in_s->rank);
    for (o = 0; o < outer; ++o) {
        for (i = 0; i < inner; ++i) {
            const float *x = in + o * n * inner + i;
            float *y = out + o * n * inner + i;
            float max = -INFINITY;
            float sum = 0.0f;
            float inv;
            for (k = 0; k < n; ++k) {
                const float v = x[k * inner];
                max = (v > max || isnan(v)) ? v : max;
            }
            for (k = 0; k < n; ++k) {
                const float e = expf(x[k * inner] - max);
                y[k * inner] = e;
                sum += e;
            }
            inv = 1.0f / sum;
            for (k = 0; k < n; ++k) {
                y[k * inner] *= inv;
            }
        }
    }
    return RT_OK;
}
