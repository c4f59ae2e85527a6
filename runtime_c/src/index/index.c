/* index.c - rt_index: out = in[idx_0, idx_1, ...] (torch's advanced indexing, aten.index.Tensor):
 * the index tensors (int64 or int32; NULL for a dim taken whole) broadcast together, and out
 * is the result shape rt_index_geom describes. Negative indices count from the end; one out of
 * range is RT_ERR_INDEX (out is then partly written). Element-size generic. */
#include "../core/rt_internal.h"

rt_status rt_index(const rt_index_params *p, const rt_shape *in_s, const void *in,
                   const rt_shape *idx_s, const void *const *idx,
                   const rt_shape *out_s, void *out)
{
    rt_index_geom g;
    int32_t c[RT_MAX_DIMS] = {0};
    int32_t i, r, off;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(rt_index_geom_init(&g, p, in_s, idx_s, idx));
    RT_CHECK(p->elem_size > 0, RT_ERR_PARAM);
    RT_CHECK(out_s != NULL, RT_ERR_NULL);
    RT_CHECK(out_s->rank == g.res_rank, RT_ERR_RANK);
    for (r = 0; r < g.res_rank; ++r) {
        RT_CHECK(out_s->d[r] == g.res_d[r], RT_ERR_SHAPE);
    }
    for (i = 0; i < g.res_n; ++i) {
        RT_TRY(rt_index_offset(&g, c, &off));
        memcpy((char *)out + (size_t)i * (size_t)p->elem_size,
               (const char *)in + (size_t)off * (size_t)p->elem_size, (size_t)p->elem_size);
        for (r = g.res_rank - 1; r >= 0 && ++c[r] == g.res_d[r]; --r) {
            c[r] = 0;
        }
    }
    return RT_OK;
}
