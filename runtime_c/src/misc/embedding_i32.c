/* embedding_i32.c - rt_embedding_i32_f32: out[..., D] = weight[idx[...], :]
 * with int32_t indices into a [V, D] float table. An index outside [0, V)
 * returns RT_ERR_INDEX (rows before it are already written). */
#include "../core/rt_internal.h"

rt_status rt_embedding_i32_f32(const rt_shape *w_s, const float *w,
                               const rt_shape *idx_s, const int32_t *idx,
                               const rt_shape *out_s, float *out)
{
    rt_embedding_geom g;
    int32_t i;
    RT_TRY(rt_embedding_geom_init(&g, w_s, w, idx_s, idx, out_s, out));
    for (i = 0; i < g.n; ++i) {
        const int32_t k = idx[i];
        if (k < 0 || k >= g.v) { /* data-dependent: always checked */
            return RT_ERR_INDEX;
        }
        memcpy(out + i * g.dim, w + (int32_t)k * g.dim,
               (size_t)g.dim * sizeof(float));
    }
    return RT_OK;
}
