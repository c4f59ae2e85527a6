/* remainder.c - Python-style modulus: the result has the divisor's sign (or is 0).
 *   rt_remainder_f32: out = a mod b, numpy broadcasting; rt_remainder_scalar_f32: in mod other.
 * A zero divisor gives NaN, as torch.remainder.
 */
#include <math.h>

#include "../core/rt_internal.h"

static float py_mod(float a, float b)
{
    const float r = fmodf(a, b);
    return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}

rt_status rt_remainder_f32(RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, py_mod(x, y));
    return RT_OK;
}

rt_status rt_remainder_scalar_f32(float other, RT_F32_UNARY_TENSORS)
{
    const float v = other;
    RT_MAP_UNARY(in_s, in, out_s, out, py_mod(x, v));
    return RT_OK;
}
