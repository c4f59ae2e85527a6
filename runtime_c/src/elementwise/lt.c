/* lt.c - rt_lt_f32: out = a < b (bool as uint8_t), numpy broadcasting;
 * rt_lt_scalar_f32: out = in < other.
 */
#include "../core/rt_internal.h"

rt_status rt_lt_f32(const rt_shape *a_s, const float *a,
                    const rt_shape *b_s, const float *b,
                    const rt_shape *out_s, uint8_t *out)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, (uint8_t)(x < y));
    return RT_OK;
}

rt_status rt_lt_scalar_f32(float other,
                           const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out)
{
    const float v = other;
    RT_MAP_UNARY(in_s, in, out_s, out, (uint8_t)(x < v));
    return RT_OK;
}
