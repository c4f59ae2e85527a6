/* expm1.c - rt_expm1_f32: out = exp(in) - 1, accurate near 0. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_expm1_f32(const rt_shape *in_s, const float *in,
                   const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, expm1f(x));
    return RT_OK;
}
