/* softmax_geom.c - the [outer, n, inner] view and the row maximum shared by rt_softmax_f32
 * and rt_log_softmax_f32. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_softmax_geom_init(rt_softmax_geom *g, int32_t dim, const rt_shape *in_s,
                               const float *in, const rt_shape *out_s, const float *out)
{
    int32_t d;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(rt_same_numel(in_s, out_s), RT_ERR_SHAPE);
    d = in_s->rank == 0 ? 0 : rt_norm_dim(dim, in_s->rank); /* 0-d: n = 1 */
    RT_CHECK(d >= 0 && (in_s->rank > 0 || dim == 0 || dim == -1),
             RT_ERR_PARAM);
    g->outer = rt_dims_prod(in_s, 0, d);
    g->n = in_s->rank == 0 ? 1 : in_s->d[d];
    g->inner = in_s->rank == 0 ? 1 : rt_dims_prod(in_s, d + 1, in_s->rank);
    return RT_OK;
}

float rt_softmax_row_max(const float *x, int32_t n, int32_t stride)
{
    float max = -INFINITY;
    int32_t k;
    for (k = 0; k < n; ++k) {
        const float v = x[k * stride];
        max = (v > max || isnan(v)) ? v : max;
    }
    return max;
}
