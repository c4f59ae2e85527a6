/* reciprocal.c - rt_reciprocal_f32: out = 1 / in (inf at +-0, as IEEE division). */
#include "../core/rt_internal.h"

rt_status rt_reciprocal_f32(const rt_shape *in_s, const float *in,
                        const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / x);
    return RT_OK;
}
