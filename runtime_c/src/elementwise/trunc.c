/* trunc.c - rt_trunc_f32: out = in rounded toward zero. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_trunc_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, truncf(x));
    return RT_OK;
}
