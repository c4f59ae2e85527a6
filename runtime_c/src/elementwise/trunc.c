/* trunc.c - rt_trunc_f32: out = in rounded toward zero. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_trunc_f32(const rt_shape *in_s, const float *in,
                   const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, truncf(x));
    return RT_OK;
}
