/* index_put.c - out = self with out[idx_0, idx_1, ...] = values (values broadcast to the
 * indexed result's shape, see rt_index_geom).
 * Element-size generic: where indices repeat, the last write wins; with accumulate (float32
 * only) values are added instead, and repeats add up.
 * out may be self. Negative indices count from the end; one out of range is RT_ERR_INDEX. */
#include "../core/rt_internal.h"

rt_status rt_index_put(const rt_index_params *p, int32_t accumulate,
                       const rt_shape *self_s, const void *self,
                       const rt_shape *idx_s, const void *const *idx,
                       const rt_shape *val_s, const void *val,
                       const rt_shape *out_s, void *out)
{
    rt_index_geom g;
    int32_t c[RT_MAX_DIMS] = {0};
    int32_t vst[RT_MAX_DIMS];
    int32_t i, r, off, voff, st;
    const size_t es = (size_t)p->elem_size;
    RT_CHECK(self_s != NULL && self != NULL && val_s != NULL && val != NULL && out_s != NULL &&
             out != NULL && p != NULL, RT_ERR_NULL);
    RT_CHECK(p->elem_size > 0 && (!accumulate || p->elem_size == 4), RT_ERR_PARAM);
    RT_CHECK(out_s->rank == self_s->rank, RT_ERR_RANK);
    for (r = 0; r < self_s->rank; ++r) {
        RT_CHECK(out_s->d[r] == self_s->d[r], RT_ERR_SHAPE);
    }
    RT_TRY(rt_index_geom_init(&g, p, self_s, idx_s, idx));
    RT_CHECK(val_s->rank <= g.res_rank, RT_ERR_RANK);
    for (r = g.res_rank - 1, st = 1; r >= 0; --r) {     /* values broadcast to the result */
        const int32_t vr = r - (g.res_rank - val_s->rank);
        const int32_t n = vr >= 0 ? val_s->d[vr] : 1;
        RT_CHECK(n == g.res_d[r] || n == 1, RT_ERR_SHAPE);
        vst[r] = n == 1 ? 0 : st;
        st *= n;
    }
    if (out != self) {
        memmove(out, self, (size_t)rt_shape_numel(self_s) * es);
    }
    for (i = 0; i < g.res_n; ++i) {
        RT_TRY(rt_index_offset(&g, c, &off));
        for (r = 0, voff = 0; r < g.res_rank; ++r) {
            voff += c[r] * vst[r];
        }
        if (accumulate) {
            ((float *)out)[off] += ((const float *)val)[voff];
        } else {
            memcpy((char *)out + (size_t)off * es, (const char *)val + (size_t)voff * es, es);
        }
        for (r = g.res_rank - 1; r >= 0 && ++c[r] == g.res_d[r]; --r) {
            c[r] = 0;
        }
    }
    return RT_OK;
}
