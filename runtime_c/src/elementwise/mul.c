/* mul.c - rt_mul_f32: out = a * b, numpy broadcasting;
 * rt_mul_scalar_f32: out = in * other.
 */
#include "../core/rt_internal.h"

rt_status rt_mul_f32(RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, x * y);
    return RT_OK;
}

rt_status rt_mul_scalar_f32(float other, RT_F32_UNARY_TENSORS)
{
    const float v = other;
    RT_MAP_UNARY(in_s, in, out_s, out, x * v);
    return RT_OK;
}
