/* logical_not.c - rt_logical_not: out = (in == 0), for an input of any dtype. */
#include "../core/rt_internal.h"

rt_status rt_logical_not(int32_t in_dtype, const rt_shape *in_s, const void *in,
                         const rt_shape *out_s, uint8_t *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(rt_dtype_size(in_dtype) > 0, RT_ERR_PARAM);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        out[i] = (uint8_t)!rt_is_nonzero(in_dtype, in, i);
    }
    return RT_OK;
}
