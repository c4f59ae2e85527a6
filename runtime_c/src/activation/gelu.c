/* gelu.c - rt_gelu_f32: gelu, approximate='none': in * 0.5 * (1 + erf(in / sqrt(2))). */
#include <math.h>

#include "../core/rt_internal.h"

#define RT_SQRT1_2 0.70710678118654752440f

rt_status rt_gelu_f32(const rt_shape *in_s, const float *in,
                      const rt_shape *out_s, float *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        out[i] = x * 0.5f * (1.0f + erff(x * RT_SQRT1_2));
    }
    return RT_OK;
}
