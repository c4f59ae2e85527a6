/* relu.c - rt_relu_f32: out = max(in, 0); NaN propagates. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_relu_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, x < 0.0f ? 0.0f : x);
    return RT_OK;
}
