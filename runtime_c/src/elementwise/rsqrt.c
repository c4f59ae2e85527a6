/* rsqrt.c - rt_rsqrt_f32: out = 1 / sqrt(in) (inf for 0, NaN for in < 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_rsqrt_f32(const rt_shape *in_s, const float *in,
                       const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / sqrtf(x));
    return RT_OK;
}
