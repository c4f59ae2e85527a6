/* sin.c - rt_sin_f32: out = sin(in), in radians. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_sin_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, sinf(x));
    return RT_OK;
}
