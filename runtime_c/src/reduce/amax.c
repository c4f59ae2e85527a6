/* amax.c - rt_amax_f32: max over the dims in dim_mask; NaN propagates and an
 * empty reduction is an error, as in PyTorch. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_amax_f32(uint32_t dim_mask, const rt_shape *in_s,
                      const float *in, const rt_shape *out_s, float *out)
{
    rt_reduce_geom g;
    int32_t o, j, i;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_reduce_init(&g, dim_mask, in_s, out_s));
    RT_CHECK(g.red_count > 0 || g.n_out == 0, RT_ERR_SHAPE);
    for (o = 0; o < g.n_out; ++o) {
        const float *base = in + rt_reduce_base(&g, o);
        float m = -INFINITY;
        for (j = 0; j < g.red_rows; ++j) {
            const float *row = base + rt_reduce_row(&g, j);
            for (i = 0; i < g.inner; ++i) {
                const float v = row[i * g.inner_st];
                if (v > m || isnan(v)) {
                    m = v;
                }
            }
        }
        out[o] = m;
    }
    return RT_OK;
}
