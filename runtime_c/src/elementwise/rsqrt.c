/* rsqrt.c - rt_rsqrt_f32: out = 1 / sqrt(in) (inf for 0, NaN for in < 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_rsqrt_f32(const rt_shape *in_s, const float *in,
                       const rt_shape *out_s, float *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        out[i] = 1.0f / sqrtf(x);
    }
    return RT_OK;
}
