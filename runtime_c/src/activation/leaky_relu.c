/* leaky_relu.c - rt_leaky_relu_f32: out = in > 0 ? in : in * negative_slope. */
#include "../core/rt_internal.h"

rt_status rt_leaky_relu_f32(float negative_slope, RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, x > 0.0f ? x : x * negative_slope);
    return RT_OK;
}
