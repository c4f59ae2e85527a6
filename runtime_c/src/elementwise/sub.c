/* sub.c - rt_sub_f32: out = a - alpha * b, numpy broadcasting;
 * rt_sub_scalar_f32: out = in - alpha * other.
 * rt_rsub_scalar_f32: out = other - alpha * in (aten.rsub).
 */
#include "../core/rt_internal.h"

rt_status rt_sub_f32(float alpha, RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, x - alpha * y);
    return RT_OK;
}

rt_status rt_sub_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS)
{
    const float v = alpha * other;
    RT_MAP_UNARY(in_s, in, out_s, out, x - v);
    return RT_OK;
}

rt_status rt_rsub_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS)
{
    const float v = other;
    RT_MAP_UNARY(in_s, in, out_s, out, v - alpha * x);
    return RT_OK;
}
