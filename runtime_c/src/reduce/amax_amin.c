/* amax_amin.c - rt_amax_f32 / rt_amin_f32: the largest / smallest element over the dims in
 * dim_mask. NaN propagates and an empty reduction is an error, as in PyTorch. */
#include <math.h>

#include "../core/rt_internal.h"

static rt_status extreme(int want_max, uint32_t dim_mask, RT_F32_UNARY_TENSORS)
{
    rt_reduce_geom g;
    int32_t o, j, i;
    RT_TRY(rt_reduce_init_pick(&g, dim_mask, in_s, in, out_s, out));
    for (o = 0; o < g.n_out; ++o) {
        const float *base = in + rt_reduce_base(&g, o);
        float m = want_max ? -INFINITY : INFINITY;
        for (j = 0; j < g.red_rows; ++j) {
            const float *row = base + rt_reduce_row(&g, j);
            for (i = 0; i < g.inner; ++i) {
                const float v = row[i * g.inner_st];
                if ((want_max ? v > m : v < m) || isnan(v)) {
                    m = v;
                }
            }
        }
        out[o] = m;
    }
    return RT_OK;
}

rt_status rt_amax_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS)
{
    return extreme(1, dim_mask, in_s, in, out_s, out);
}

rt_status rt_amin_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS)
{
    return extreme(0, dim_mask, in_s, in, out_s, out);
}
