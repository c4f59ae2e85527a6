/* slice_scatter.c - rt_slice_scatter: out = self, with the slice start, start + step, ...
 * along `dim` (as many positions as src has there) replaced by src. Element-size generic;
 * out may be self. start is already normalized to [0, size]; the slice must fit. */
#include "../core/rt_internal.h"

rt_status rt_slice_scatter(int32_t elem_size, int32_t dim, int32_t start, int32_t step,
                           const rt_shape *self_s, const void *self,
                           const rt_shape *src_s, const void *src,
                           const rt_shape *out_s, void *out)
{
    int32_t d, r, outer, n, inner, k, o, j;
    size_t row;
    RT_CHECK(self_s != NULL && self != NULL && src_s != NULL && src != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0 && step >= 1, RT_ERR_PARAM);
    RT_CHECK(self_s->rank >= 1 && src_s->rank == self_s->rank && out_s->rank == self_s->rank,
             RT_ERR_RANK);
    d = rt_norm_dim(dim, self_s->rank);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    for (r = 0; r < self_s->rank; ++r) {
        RT_CHECK(out_s->d[r] == self_s->d[r], RT_ERR_SHAPE);
        RT_CHECK(r == d || src_s->d[r] == self_s->d[r], RT_ERR_SHAPE);
    }
    outer = rt_dims_prod(self_s, 0, d);
    n = self_s->d[d];
    k = src_s->d[d];
    inner = rt_dims_prod(self_s, d + 1, self_s->rank);
    RT_CHECK(start >= 0 && start <= n && (k == 0 || start + (k - 1) * step < n), RT_ERR_PARAM);
    if (out != self) {
        memmove(out, self, (size_t)rt_shape_numel(self_s) * (size_t)elem_size);
    }
    row = (size_t)inner * (size_t)elem_size;
    for (o = 0; o < outer; ++o) {
        for (j = 0; j < k; ++j) {
            memcpy((char *)out + ((size_t)o * (size_t)n + (size_t)(start + j * step)) * row,
                   (const char *)src + ((size_t)o * (size_t)k + (size_t)j) * row, row);
        }
    }
    return RT_OK;
}
