/* cos.c - rt_cos_f32: out = cos(in), in radians. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_cos_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, cosf(x));
    return RT_OK;
}
