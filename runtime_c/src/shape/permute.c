/* permute.c - rt_permute_f32: out.d[i] = in.d[perm[i]], general N-d. Walks
 * out contiguously and gathers from in through permuted strides. */
#include "../core/rt_internal.h"

rt_status rt_permute_f32(const int32_t *perm, const rt_shape *in_s,
                         const float *in, const rt_shape *out_s, float *out)
{
    int32_t in_st[RT_MAX_DIMS], st[RT_MAX_DIMS], idx[RT_MAX_DIMS];
    int32_t rank, i, n, rows, r, off = 0, stride = 1;
    uint32_t seen = 0u;
    RT_CHECK(perm != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL,
             RT_ERR_NULL);
    n = rt_shape_numel(in_s);
    RT_CHECK(n >= 0 && out_s->rank == in_s->rank &&
             n == rt_shape_numel(out_s),
             RT_ERR_SHAPE);
    rank = in_s->rank;
    for (i = rank - 1; i >= 0; --i) {
        in_st[i] = stride;
        stride *= in_s->d[i];
    }
    for (i = 0; i < rank; ++i) {
        const int32_t p = rt_norm_dim(perm[i], rank);
        RT_CHECK(p >= 0 && (seen & (1u << p)) == 0u, RT_ERR_PARAM);
        RT_CHECK(out_s->d[i] == in_s->d[p], RT_ERR_SHAPE);
        seen |= 1u << p;
        st[i] = in_st[p];
        idx[i] = 0;
    }
    if (rank == 0 || n == 0) {
        if (n == 1) {
            out[0] = in[0];
        }
        return RT_OK;
    }
    rows = n / out_s->d[rank - 1];
    for (r = 0; r < rows; ++r) {
        const int32_t len = out_s->d[rank - 1];
        const int32_t s = st[rank - 1];
        for (i = 0; i < len; ++i) {
            out[i] = in[off + i * s];
        }
        out += len;
        for (i = rank - 2; i >= 0; --i) { /* odometer over outer dims */
            off += st[i];
            if (++idx[i] < out_s->d[i]) {
                break;
            }
            off -= st[i] * out_s->d[i];
            idx[i] = 0;
        }
    }
    return RT_OK;
}
