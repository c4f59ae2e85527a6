/* reciprocal.c - rt_reciprocal_f32: out = 1 / in (inf at +-0, as IEEE division). */
#include "../core/rt_internal.h"

rt_status rt_reciprocal_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / x);
    return RT_OK;
}
