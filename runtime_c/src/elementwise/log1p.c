/* log1p.c - rt_log1p_f32: out = log(1 + in), accurate near 0. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_log1p_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, log1pf(x));
    return RT_OK;
}
