/* cos.c - rt_cos_f32: out = cos(in), in radians. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_cos_f32(const rt_shape *in_s, const float *in,
                     const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, cosf(x));
    return RT_OK;
}
