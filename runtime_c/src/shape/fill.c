/* fill.c - rt_fill: every element of out becomes one value (full, full_like,
 * zeros, ones, scalar_tensor); element-size generic. */
#include "../core/rt_internal.h"

rt_status rt_fill(int32_t elem_size, const void *value, const rt_shape *out_s, void *out)
{
    const int32_t n = rt_shape_numel(out_s);
    uint8_t *dst = (uint8_t *)out;
    int32_t i;
    RT_CHECK(value != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0 && elem_size <= 8, RT_ERR_PARAM);
    RT_CHECK(n >= 0, RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        memcpy(dst + (size_t)i * (size_t)elem_size, value, (size_t)elem_size);
    }
    return RT_OK;
}
