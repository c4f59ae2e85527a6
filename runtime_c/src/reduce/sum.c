/* sum.c - rt_sum_f32: sum over the dims in dim_mask (compensated float
 * accumulation, see rt_acc). */
#include "../core/rt_internal.h"

rt_status rt_sum_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS)
{
    rt_reduce_geom g;
    int32_t o, j, i;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_reduce_init(&g, dim_mask, in_s, out_s));
    for (o = 0; o < g.n_out; ++o) {
        const float *base = in + rt_reduce_base(&g, o);
        rt_acc acc;
        rt_acc_init(&acc);
        for (j = 0; j < g.red_rows; ++j) {
            const float *row = base + rt_reduce_row(&g, j);
            for (i = 0; i < g.inner; ++i) {
                rt_acc_add(&acc, row[i * g.inner_st]);
            }
        }
        out[o] = rt_acc_value(&acc);
    }
    return RT_OK;
}
