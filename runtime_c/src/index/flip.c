/* flip.c - rt_flip: out = in reversed along every dim in dim_mask. Element-size generic;
 * out must not overlap in. */
#include "../core/rt_internal.h"

rt_status rt_flip(int32_t elem_size, uint32_t dim_mask,
                  const rt_shape *in_s, const void *in,
                  const rt_shape *out_s, void *out)
{
    int32_t idx[RT_MAX_DIMS] = {0};
    int32_t stride[RT_MAX_DIMS];
    int32_t r, i, n, src, rank;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0, RT_ERR_PARAM);
    rank = in_s->rank;
    RT_CHECK(out_s->rank == rank, RT_ERR_RANK);
    RT_CHECK((dim_mask >> rank) == 0u, RT_ERR_PARAM);
    for (r = 0; r < rank; ++r) {
        RT_CHECK(out_s->d[r] == in_s->d[r], RT_ERR_SHAPE);
    }
    n = rt_shape_numel(in_s);
    RT_CHECK(n >= 0, RT_ERR_SHAPE);
    for (r = rank - 1, src = 1; r >= 0; --r) {
        stride[r] = src;
        src *= in_s->d[r];
    }
    for (i = 0; i < n; ++i) {                          /* i walks out; src is its source */
        src = 0;
        for (r = 0; r < rank; ++r) {
            const int32_t c = ((dim_mask >> r) & 1u) ? in_s->d[r] - 1 - idx[r] : idx[r];
            src += c * stride[r];
        }
        memcpy((char *)out + (size_t)i * (size_t)elem_size,
               (const char *)in + (size_t)src * (size_t)elem_size, (size_t)elem_size);
        for (r = rank - 1; r >= 0 && ++idx[r] == in_s->d[r]; --r) {
            idx[r] = 0;
        }
    }
    return RT_OK;
}
