/* rsqrt.c - rt_rsqrt_f32: out = 1 / sqrt(in) (inf for 0, NaN for in < 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_rsqrt_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, 1.0f / sqrtf(x));
    return RT_OK;
}
