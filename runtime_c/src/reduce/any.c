/* any.c - rt_any: whether any element over the reduced dims is nonzero. */
#include "../core/rt_internal.h"

rt_status rt_any(int32_t in_dtype, uint32_t dim_mask, const rt_shape *in_s,
                 const void *in, const rt_shape *out_s, uint8_t *out)
{
    rt_reduce_geom g;
    int32_t o, j, i;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(rt_dtype_size(in_dtype) > 0, RT_ERR_PARAM);
    RT_TRY(rt_reduce_init(&g, dim_mask, in_s, out_s));
    for (o = 0; o < g.n_out; ++o) {
        const int32_t base = rt_reduce_base(&g, o);
        int hit = 0;
        for (j = 0; j < g.red_rows && !hit; ++j) {
            const int32_t row = base + rt_reduce_row(&g, j);
            for (i = 0; i < g.inner && !hit; ++i) {
                hit = rt_is_nonzero(in_dtype, in, row + i * g.inner_st);
            }
        }
        out[o] = (uint8_t)hit;
    }
    return RT_OK;
}
