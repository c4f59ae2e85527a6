/* fmod.c - C-style modulus: the result has the dividend's sign (or is 0).
 *   rt_fmod_f32: out = fmod(a, b), numpy broadcasting; rt_fmod_scalar_f32: fmod(in, other).
 */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_fmod_f32(RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, fmodf(x, y));
    return RT_OK;
}

rt_status rt_fmod_scalar_f32(float other, RT_F32_UNARY_TENSORS)
{
    const float v = other;
    RT_MAP_UNARY(in_s, in, out_s, out, fmodf(x, v));
    return RT_OK;
}
