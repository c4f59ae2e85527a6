/* pow.c - powers, with broadcasting for two tensors.
 *   rt_pow_f32:             out = a ** b
 *   rt_pow_scalar_f32:      out = in ** other, other a number. The exponents torch
 *                           computes by arithmetic instead of powf (2, 3, -1, -2, 0.5, -0.5)
 *                           are computed the same way here, so they agree to the bit.
 *   rt_pow_base_scalar_f32: out = base ** in, base a number.
 */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_pow_f32(RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, powf(x, y));
    return RT_OK;
}

rt_status rt_pow_scalar_f32(float other, RT_F32_UNARY_TENSORS)
{
    const float e = other;
    if (e == 2.0f) {
        RT_MAP_UNARY(in_s, in, out_s, out, x * x);
    } else if (e == 3.0f) {
        RT_MAP_UNARY(in_s, in, out_s, out, x * x * x);
    } else if (e == -1.0f) {
        RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / x);
    } else if (e == -2.0f) {
        RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / (x * x));
    } else if (e == 0.5f) {
        RT_MAP_UNARY(in_s, in, out_s, out, sqrtf(x));
    } else if (e == -0.5f) {
        RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / sqrtf(x));
    } else {
        RT_MAP_UNARY(in_s, in, out_s, out, powf(x, e));
    }
    return RT_OK;
}

rt_status rt_pow_base_scalar_f32(float base, RT_F32_UNARY_TENSORS)
{
    const float v = base;
    RT_MAP_UNARY(in_s, in, out_s, out, powf(v, x));
    return RT_OK;
}
