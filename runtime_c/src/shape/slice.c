/* slice.c - rt_slice_f32: aten.slice(dim, start, end, step). start/end are
 * wrapped and clamped exactly as PyTorch does (pass INT32_MAX for "to the
 * end"); step >= 1. out must hold the sliced elements; its shape may
 * keep the dim (slice) or drop it (select). */
#include "../core/rt_internal.h"

static int32_t clamp_index(int32_t v, int32_t size)
{
    if (v < 0) {
        v += size;
    }
    return v < 0 ? 0 : (v > size ? size : v);
}

rt_status rt_slice_f32(int32_t dim, int32_t start, int32_t end, int32_t step, RT_F32_UNARY_TENSORS)
{
    int32_t d, size, len, outer, inner, o, j;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(rt_shape_numel(in_s) >= 0, RT_ERR_SHAPE);
    d = rt_norm_dim(dim, in_s->rank);
    RT_CHECK(d >= 0 && step >= 1, RT_ERR_PARAM);
    size = in_s->d[d];
    start = clamp_index(start, size);
    end = clamp_index(end, size);
    len = end > start ? (end - start + step - 1) / step : 0;
    outer = rt_dims_prod(in_s, 0, d);
    inner = rt_dims_prod(in_s, d + 1, in_s->rank);
    /* out may drop the sliced dim (select = slice of length 1) */
    RT_CHECK(rt_shape_numel(out_s) == outer * len * inner, RT_ERR_SHAPE);
    for (o = 0; o < outer; ++o) {
        const float *src = in + (o * size + start) * inner;
        if (step == 1) {
            memcpy(out, src, (size_t)(len * inner) * sizeof(float));
            out += len * inner;
            continue;
        }
        for (j = 0; j < len; ++j) {
            memcpy(out, src + j * step * inner, (size_t)inner * sizeof(float));
            out += inner;
        }
    }
    return RT_OK;
}
