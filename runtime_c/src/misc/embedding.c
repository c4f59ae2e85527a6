/* embedding.c - rt_embedding_f32: out[..., D] = weight[idx[...], :] with int64 or int32
 * indices (idx_dtype, an rt_dtype) into a [V, D] float table. An index outside [0, V) returns
 * RT_ERR_INDEX (rows before it are already written). */
#include "../core/rt_internal.h"

rt_status rt_embedding_f32(int32_t idx_dtype, const rt_shape *w_s, const float *w,
                           const rt_shape *idx_s, const void *idx,
                           const rt_shape *out_s, float *out)
{
    int32_t n, v, dim, i;
    RT_CHECK(w_s != NULL && w != NULL && idx_s != NULL && idx != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(idx_dtype == RT_DTYPE_I64 || idx_dtype == RT_DTYPE_I32, RT_ERR_PARAM);
    RT_CHECK(w_s->rank == 2, RT_ERR_RANK);
    n = rt_shape_numel(idx_s);
    v = w_s->d[0];
    dim = w_s->d[1];
    RT_CHECK(n >= 0 && rt_shape_numel(w_s) >= 0 && out_s->rank >= 1 &&
             out_s->d[out_s->rank - 1] == dim && rt_shape_numel(out_s) == n * dim,
             RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const int64_t k = rt_index_value(idx_dtype, idx, i);
        if (k < 0 || k >= v) { /* data-dependent: always checked */
            return RT_ERR_INDEX;
        }
        memcpy(out + i * dim, w + (int32_t)k * dim, (size_t)dim * sizeof(float));
    }
    return RT_OK;
}
