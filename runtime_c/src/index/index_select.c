/* index_select.c - rt_index_select: out = the slices of in along `dim` that idx names, in
 * idx's order (out's dim `dim` has idx's length). Element-size generic; idx is int64 or int32
 * (index_dtype, an rt_dtype) and every entry must lie in [0, size of dim), as torch requires:
 * RT_ERR_INDEX otherwise, before anything is written. */
#include "../core/rt_internal.h"

rt_status rt_index_select(int32_t elem_size, int32_t dim, int32_t index_dtype,
                          const rt_shape *in_s, const void *in,
                          const rt_shape *idx_s, const void *idx,
                          const rt_shape *out_s, void *out)
{
    int32_t d, outer, n, inner, k, o, j;
    size_t row;
    RT_CHECK(in_s != NULL && in != NULL && idx_s != NULL && idx != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0 && (index_dtype == RT_DTYPE_I64 || index_dtype == RT_DTYPE_I32),
             RT_ERR_PARAM);
    RT_CHECK(idx_s->rank <= 1 && out_s->rank == (in_s->rank > 0 ? in_s->rank : 1), RT_ERR_RANK);
    d = rt_norm_dim(dim, in_s->rank > 0 ? in_s->rank : 1);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    k = rt_shape_numel(idx_s);
    if (in_s->rank == 0) {                         /* a 0-d tensor is one slice */
        outer = inner = n = 1;
    } else {
        outer = rt_dims_prod(in_s, 0, d);
        n = in_s->d[d];
        inner = rt_dims_prod(in_s, d + 1, in_s->rank);
        for (j = 0; j < in_s->rank; ++j) {
            RT_CHECK(out_s->d[j] == (j == d ? k : in_s->d[j]), RT_ERR_SHAPE);
        }
    }
    RT_CHECK(rt_shape_numel(out_s) == outer * k * inner, RT_ERR_SHAPE);
    for (j = 0; j < k; ++j) {
        const int64_t v = rt_index_value(index_dtype, idx, j);
        RT_CHECK_DATA(v >= 0 && v < n, RT_ERR_INDEX);
    }
    row = (size_t)inner * (size_t)elem_size;
    for (o = 0; o < outer; ++o) {
        for (j = 0; j < k; ++j) {
            const int32_t v = (int32_t)rt_index_value(index_dtype, idx, j);
            memcpy((char *)out + ((size_t)o * (size_t)k + (size_t)j) * row,
                   (const char *)in + ((size_t)o * (size_t)n + (size_t)v) * row, row);
        }
    }
    return RT_OK;
}
