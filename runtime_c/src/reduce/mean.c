/* mean.c - rt_mean_f32: mean over the dims in dim_mask, computed as sum /
 * count like PyTorch (NaN for an empty reduction). */
#include "../core/rt_internal.h"

rt_status rt_mean_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS)
{
    rt_reduce_geom g;
    int32_t o;
    RT_TRY(rt_sum_f32(dim_mask, in_s, in, out_s, out));
    RT_TRY(rt_reduce_init(&g, dim_mask, in_s, out_s));
    for (o = 0; o < g.n_out; ++o) {
        out[o] /= (float)g.red_count;
    }
    return RT_OK;
}
