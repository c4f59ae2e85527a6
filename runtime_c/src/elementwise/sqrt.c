/* sqrt.c - rt_sqrt_f32: out = sqrt(in) (NaN for in < 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_sqrt_f32(const rt_shape *in_s, const float *in,
                      const rt_shape *out_s, float *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        out[i] = sqrtf(x);
    }
    return RT_OK;
}
