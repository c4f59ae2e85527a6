/* bcast.c - numpy-style broadcast iterator (see rt_internal.h). */
#include "rt_internal.h"

/* Strides of in[k] as seen through out's dims (0 where broadcast). */
static rt_status full_strides(const rt_shape *in, const rt_shape *out,
                              int32_t *st)
{
    const int32_t lead = out->rank - in->rank;
    int32_t stride = 1;
    int32_t i;
    RT_CHECK(rt_shape_numel(in) >= 0 && lead >= 0, RT_ERR_SHAPE);
    for (i = out->rank - 1; i >= 0; --i) {
        const int32_t size = i >= lead ? in->d[i - lead] : 1;
        RT_CHECK(size == out->d[i] || size == 1, RT_ERR_SHAPE);
        st[i] = size == 1 ? 0 : stride;
        stride *= size;
    }
    return RT_OK;
}

rt_status rt_bcast_init(rt_bcast *it, int32_t n_in, const rt_shape *const *in,
                        const rt_shape *out)
{
    int32_t full[RT_BCAST_MAX_IN][RT_MAX_DIMS];
    int32_t numel;
    int32_t i, k;
    RT_CHECK(n_in >= 1 && n_in <= RT_BCAST_MAX_IN, RT_ERR_PARAM);
    numel = rt_shape_numel(out);
    RT_CHECK(numel >= 0, RT_ERR_SHAPE);
    for (k = 0; k < n_in; ++k) {
        RT_CHECK(in[k] != NULL, RT_ERR_NULL);
        RT_TRY(full_strides(in[k], out, full[k]));
    }
    it->n_in = n_in;
    it->rank = 0;
    for (i = 0; i < out->rank; ++i) {
        const int32_t size = out->d[i];
        int merge = it->rank > 0;
        if (size == 1) {
            continue; /* every stride is irrelevant */
        }
        for (k = 0; k < n_in && merge; ++k) {
            merge = it->st[k][it->rank - 1] == full[k][i] * size;
        }
        if (!merge) {
            it->d[it->rank] = 1;
            ++it->rank;
        }
        it->d[it->rank - 1] *= size;
        for (k = 0; k < n_in; ++k) {
            it->st[k][it->rank - 1] = full[k][i];
        }
    }
    if (it->rank == 0) { /* scalar output */
        it->rank = 1;
        it->d[0] = 1;
        for (k = 0; k < n_in; ++k) {
            it->st[k][0] = 0;
        }
    }
    it->inner = it->d[it->rank - 1];
    it->rows = numel == 0 ? 0 : numel / it->inner;
    for (k = 0; k < n_in; ++k) {
        it->off[k] = 0;
        it->inner_st[k] = it->st[k][it->rank - 1];
    }
    for (i = 0; i < it->rank; ++i) {
        it->idx[i] = 0;
    }
    return RT_OK;
}

void rt_bcast_next(rt_bcast *it)
{
    int32_t i, k;
    for (i = it->rank - 2; i >= 0; --i) {
        ++it->idx[i];
        for (k = 0; k < it->n_in; ++k) {
            it->off[k] += it->st[k][i];
        }
        if (it->idx[i] < it->d[i]) {
            return;
        }
        for (k = 0; k < it->n_in; ++k) {
            it->off[k] -= it->st[k][i] * it->d[i];
        }
        it->idx[i] = 0;
    }
}
