/* silu.c - rt_silu_f32: out = in / (1 + e^-in). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_silu_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, x / (1.0f + expf(-x)));
    return RT_OK;
}
