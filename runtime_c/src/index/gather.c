/* gather.c - rt_gather: out[i_0, .., i_dim, ..] = in[i_0, .., idx[i_0, .., i_dim, ..], ..]:
 * out has idx's shape, which may be smaller than in's in every dim but dim. Element-size
 * generic; idx is int64 or int32 (index_dtype, an rt_dtype); every entry must lie in
 * [0, size of dim), as torch requires: RT_ERR_INDEX otherwise. */
#include "../core/rt_internal.h"

rt_status rt_gather(int32_t elem_size, int32_t dim, int32_t index_dtype,
                    const rt_shape *in_s, const void *in,
                    const rt_shape *idx_s, const void *idx,
                    const rt_shape *out_s, void *out)
{
    int32_t c[RT_MAX_DIMS] = {0};
    int32_t st[RT_MAX_DIMS];
    int32_t r, rank, d, n, i, s, off;
    RT_CHECK(in_s != NULL && in != NULL && idx_s != NULL && idx != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0 && (index_dtype == RT_DTYPE_I64 || index_dtype == RT_DTYPE_I32),
             RT_ERR_PARAM);
    rank = in_s->rank > 0 ? in_s->rank : 1;
    RT_CHECK((idx_s->rank == in_s->rank || (in_s->rank == 0 && idx_s->rank <= 1)) &&
             out_s->rank == idx_s->rank, RT_ERR_RANK);
    d = rt_norm_dim(dim, rank);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    n = rt_shape_numel(idx_s);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    if (in_s->rank == 0) {                       /* a 0-d tensor: every index is 0 */
        for (i = 0; i < n; ++i) {
            const int64_t v = rt_index_value(index_dtype, idx, i);
            RT_CHECK_DATA(v == 0, RT_ERR_INDEX);
            memcpy((char *)out + (size_t)i * (size_t)elem_size, in, (size_t)elem_size);
        }
        return RT_OK;
    }
    for (r = rank - 1, s = 1; r >= 0; --r) {
        RT_CHECK(out_s->d[r] == idx_s->d[r], RT_ERR_SHAPE);
        RT_CHECK(r == d || idx_s->d[r] <= in_s->d[r], RT_ERR_SHAPE);
        st[r] = s;
        s *= in_s->d[r];
    }
    for (i = 0; i < n; ++i) {
        const int64_t v = rt_index_value(index_dtype, idx, i);
        RT_CHECK_DATA(v >= 0 && v < in_s->d[d], RT_ERR_INDEX);
        for (r = 0, off = 0; r < rank; ++r) {
            off += (r == d ? (int32_t)v : c[r]) * st[r];
        }
        memcpy((char *)out + (size_t)i * (size_t)elem_size,
               (const char *)in + (size_t)off * (size_t)elem_size, (size_t)elem_size);
        for (r = rank - 1; r >= 0 && ++c[r] == idx_s->d[r]; --r) {
            c[r] = 0;
        }
    }
    return RT_OK;
}
