/* index_geom.c - the geometry shared by rt_index and rt_index_put (see rt_internal.h). */
#include "../core/rt_internal.h"

rt_status rt_index_geom_init(rt_index_geom *g, const rt_index_params *p, const rt_shape *in_s,
                             const rt_shape *idx_s, const void *const *idx)
{
    int32_t d, k, r, st, rest;
    int32_t b_d[RT_MAX_DIMS];
    RT_CHECK(p != NULL && in_s != NULL, RT_ERR_NULL);
    RT_CHECK(p->n_idx >= 1 && p->n_idx <= in_s->rank && in_s->rank <= RT_MAX_DIMS, RT_ERR_PARAM);
    RT_CHECK(idx_s != NULL && idx != NULL, RT_ERR_NULL);
    g->rank = in_s->rank;
    g->b_rank = 0;
    for (d = 0; d < RT_MAX_DIMS; ++d) {
        b_d[d] = 1;
    }
    for (d = 0; d < g->rank; ++d) {             /* B: the index shapes, right-aligned */
        g->dtype[d] = d < p->n_idx ? p->index_dtype[d] : -1;
        g->idx[d] = NULL;
        if (g->dtype[d] < 0) {
            continue;
        }
        RT_CHECK(g->dtype[d] == RT_DTYPE_I64 || g->dtype[d] == RT_DTYPE_I32, RT_ERR_PARAM);
        RT_CHECK(idx[d] != NULL, RT_ERR_NULL);
        RT_CHECK(idx_s[d].rank <= RT_MAX_DIMS, RT_ERR_RANK);
        g->idx[d] = idx[d];
        if (idx_s[d].rank > g->b_rank) {
            g->b_rank = idx_s[d].rank;
        }
    }
    for (d = 0; d < g->rank; ++d) {
        const rt_shape *s = &idx_s[d];
        if (g->dtype[d] < 0) {
            continue;
        }
        for (k = 0; k < s->rank; ++k) {
            const int32_t bk = g->b_rank - s->rank + k, n = s->d[k];
            RT_CHECK(n >= 0, RT_ERR_SHAPE);
            RT_CHECK(n == b_d[bk] || n == 1 || b_d[bk] == 1, RT_ERR_SHAPE);
            if (b_d[bk] == 1) {
                b_d[bk] = n;
            }
        }
    }
    rest = 0;
    for (d = 0; d < g->rank; ++d) {
        rest += g->dtype[d] < 0;
    }
    RT_CHECK(p->bcast_pos >= 0 && p->bcast_pos <= rest, RT_ERR_PARAM);
    g->b_pos = p->bcast_pos;
    g->res_rank = rest + g->b_rank;
    RT_CHECK(g->res_rank <= RT_MAX_DIMS, RT_ERR_RANK);
    for (d = g->rank - 1, st = 1; d >= 0; --d) {   /* in's strides */
        g->in_d[d] = in_s->d[d];
        g->in_st[d] = st;
        st *= in_s->d[d];
    }
    for (d = 0, r = 0; d < g->rank; ++d) {          /* result dims and where rest dims go */
        g->res_dim[d] = -1;
        if (g->dtype[d] >= 0) {
            continue;
        }
        if (r == g->b_pos) {
            r += g->b_rank;
        }
        g->res_dim[d] = r;
        g->res_d[r++] = in_s->d[d];
    }
    for (k = 0; k < g->b_rank; ++k) {
        g->res_d[g->b_pos + k] = b_d[k];
    }
    g->res_n = 1;
    for (r = 0; r < g->res_rank; ++r) {
        g->res_n *= g->res_d[r];
    }
    for (d = 0; d < g->rank; ++d) {                 /* each index tensor's strides over B */
        const rt_shape *s = &idx_s[d];
        if (g->dtype[d] < 0) {
            continue;
        }
        for (k = g->b_rank - 1, st = 1; k >= 0; --k) {
            const int32_t sk = k - (g->b_rank - s->rank);
            const int32_t n = sk >= 0 ? s->d[sk] : 1;
            g->idx_st[d][k] = n == 1 ? 0 : st;
            st *= n;
        }
    }
    return RT_OK;
}

rt_status rt_index_offset(const rt_index_geom *g, const int32_t *c, int32_t *offset)
{
    int32_t d, k, off = 0;
    for (d = 0; d < g->rank; ++d) {
        int64_t v;
        int32_t lin = 0;
        if (g->dtype[d] < 0) {
            off += c[g->res_dim[d]] * g->in_st[d];
            continue;
        }
        for (k = 0; k < g->b_rank; ++k) {
            lin += c[g->b_pos + k] * g->idx_st[d][k];
        }
        v = rt_index_value(g->dtype[d], g->idx[d], lin);
        if (v < 0) {
            v += g->in_d[d];
        }
        RT_CHECK_DATA(v >= 0 && v < g->in_d[d], RT_ERR_INDEX);
        off += (int32_t)v * g->in_st[d];
    }
    *offset = off;
    return RT_OK;
}
