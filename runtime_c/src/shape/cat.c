/* cat.c - rt_cat_f32: concatenate n_in tensors along dim. Every input but a legacy empty one
 * (no elements, another rank) has out's rank and agrees with out except along dim. */
#include "../core/rt_internal.h"

rt_status rt_cat_f32(int32_t dim, int32_t n_in, const rt_shape *in_s,
                     const void *const *in, const rt_shape *out_s,
                     float *out)
{
    int32_t d, k, i, o, outer, inner, total = 0;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(n_in >= 1 && rt_shape_numel(out_s) >= 0, RT_ERR_PARAM);
    d = rt_norm_dim(dim, out_s->rank);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    for (k = 0; k < n_in; ++k) {
        if (rt_cat_skips(&in_s[k], out_s)) {
            continue;
        }
        RT_CHECK(in[k] != NULL, RT_ERR_NULL);
        RT_CHECK(in_s[k].rank == out_s->rank && rt_shape_numel(&in_s[k]) >= 0,
                 RT_ERR_SHAPE);
        for (i = 0; i < out_s->rank; ++i) {
            RT_CHECK(i == d || in_s[k].d[i] == out_s->d[i], RT_ERR_SHAPE);
        }
        total += in_s[k].d[d];
    }
    RT_CHECK(total == out_s->d[d], RT_ERR_SHAPE);
    outer = rt_dims_prod(out_s, 0, d);
    inner = rt_dims_prod(out_s, d + 1, out_s->rank);
    for (o = 0; o < outer; ++o) {
        for (k = 0; k < n_in; ++k) {
            int32_t chunk;
            if (rt_cat_skips(&in_s[k], out_s)) {
                continue;
            }
            chunk = in_s[k].d[d] * inner;
            memcpy(out, (const float *)in[k] + o * chunk, (size_t)chunk * sizeof(float));
            out += chunk;
        }
    }
    return RT_OK;
}
