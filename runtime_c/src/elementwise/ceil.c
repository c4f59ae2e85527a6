/* ceil.c - rt_ceil_f32: out = the least integer >= in. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_ceil_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, ceilf(x));
    return RT_OK;
}
