/* expm1.c - rt_expm1_f32: out = exp(in) - 1, accurate near 0. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_expm1_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, expm1f(x));
    return RT_OK;
}
