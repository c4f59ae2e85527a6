/* cumsum.c - rt_cumsum_f32: out[..., i, ...] = the sum of in[..., 0..i, ...] along dim. torch
 * accumulates in double; this runs a compensated float sum (rt_acc) instead, which stays
 * within an ulp or two of it without soft-float doubles. out may be in. */
#include "../core/rt_internal.h"

rt_status rt_cumsum_f32(int32_t dim, RT_F32_UNARY_TENSORS)
{
    int32_t d, outer, n, inner, o, i, k;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(rt_same_numel(in_s, out_s), RT_ERR_SHAPE);
    if (in_s->rank == 0) {
        RT_CHECK(dim == 0 || dim == -1, RT_ERR_PARAM);
        out[0] = in[0];
        return RT_OK;
    }
    d = rt_norm_dim(dim, in_s->rank);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    outer = rt_dims_prod(in_s, 0, d);
    n = in_s->d[d];
    inner = rt_dims_prod(in_s, d + 1, in_s->rank);
    for (o = 0; o < outer; ++o) {
        for (i = 0; i < inner; ++i) {
            const int32_t base = o * n * inner + i;
            rt_acc acc;
            rt_acc_init(&acc);
            for (k = 0; k < n; ++k) {
                rt_acc_add(&acc, in[base + k * inner]);
                out[base + k * inner] = rt_acc_value(&acc);
            }
        }
    }
    return RT_OK;
}
