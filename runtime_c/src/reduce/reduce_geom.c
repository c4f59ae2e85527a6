/* reduce_geom.c - reduction geometry shared by sum/mean/amax. */
#include "../core/rt_internal.h"

rt_status rt_reduce_init(rt_reduce_geom *g, uint32_t dim_mask,
                         const rt_shape *in_s, const rt_shape *out_s)
{
    int32_t st[RT_MAX_DIMS];
    int32_t i, stride = 1, last_kind = -1;
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(out_s) >= 0,
             RT_ERR_SHAPE);
    RT_CHECK((dim_mask >> in_s->rank) == 0u, RT_ERR_PARAM);
    for (i = in_s->rank - 1; i >= 0; --i) {
        st[i] = stride;
        stride *= in_s->d[i];
    }
    g->n_keep = 0;
    g->n_red = 0;
    g->n_out = 1;
    g->red_count = 1;
    for (i = 0; i < in_s->rank; ++i) {
        const int32_t size = in_s->d[i];
        const int32_t red = (int32_t)((dim_mask >> i) & 1u);
        int32_t *n = red ? &g->n_red : &g->n_keep;
        int32_t *rd = red ? g->red_d : g->keep_d;
        int32_t *rs = red ? g->red_st : g->keep_st;
        if (size == 1) {
            continue; /* no effect on offsets or counts */
        }
        if (red != last_kind) { /* start a new run */
            rd[(*n)++] = 1;
        }
        rd[*n - 1] *= size; /* merge: runs are contiguous in memory */
        rs[*n - 1] = st[i];
        last_kind = red;
        if (red) {
            g->red_count *= size;
        } else {
            g->n_out *= size;
        }
    }
    RT_CHECK(g->n_out == rt_shape_numel(out_s), RT_ERR_SHAPE);
    g->inner = g->n_red > 0 ? g->red_d[g->n_red - 1] : 1;
    g->inner_st = g->n_red > 0 ? g->red_st[g->n_red - 1] : 0;
    g->red_rows = g->inner > 0 ? g->red_count / g->inner : 0;
    return RT_OK;
}

rt_status rt_reduce_init_pick(rt_reduce_geom *g, uint32_t dim_mask, const rt_shape *in_s,
                              const void *in, const rt_shape *out_s, const void *out)
{
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(rt_reduce_init(g, dim_mask, in_s, out_s));
    RT_CHECK(g->red_count > 0 || g->n_out == 0, RT_ERR_SHAPE);
    return RT_OK;
}

/* The offset of the idx-th (row-major) index over the n dims d, strides st. */
static int32_t offset_of(int32_t idx, const int32_t *d, const int32_t *st, int32_t n)
{
    int32_t off = 0;
    int32_t i;
    for (i = n - 1; i >= 0; --i) {
        off += (idx % d[i]) * st[i];
        idx /= d[i];
    }
    return off;
}

int32_t rt_reduce_base(const rt_reduce_geom *g, int32_t o)
{
    return offset_of(o, g->keep_d, g->keep_st, g->n_keep);
}

int32_t rt_reduce_row(const rt_reduce_geom *g, int32_t j)
{
    return offset_of(j, g->red_d, g->red_st, g->n_red - 1);
}
