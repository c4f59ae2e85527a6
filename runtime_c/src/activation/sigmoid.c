/* sigmoid.c - rt_sigmoid_f32: out = 1 / (1 + e^-in). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_sigmoid_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / (1.0f + expf(-x)));
    return RT_OK;
}
