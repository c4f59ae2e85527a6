/* embedding_geom.c - the checks shared by rt_embedding_i32_f32 and rt_embedding_i64_f32. */
#include "../core/rt_internal.h"

rt_status rt_embedding_geom_init(rt_embedding_geom *g, const rt_shape *w_s, const float *w,
                                 const rt_shape *idx_s, const void *idx,
                                 const rt_shape *out_s, const float *out)
{
    RT_CHECK(w_s != NULL && w != NULL && idx_s != NULL && idx != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(w_s->rank == 2, RT_ERR_RANK);
    g->n = rt_shape_numel(idx_s);
    g->v = w_s->d[0];
    g->dim = w_s->d[1];
    RT_CHECK(g->n >= 0 && rt_shape_numel(w_s) >= 0 && out_s->rank >= 1 &&
             out_s->d[out_s->rank - 1] == g->dim &&
             rt_shape_numel(out_s) == g->n * g->dim,
             RT_ERR_SHAPE);
    return RT_OK;
}
