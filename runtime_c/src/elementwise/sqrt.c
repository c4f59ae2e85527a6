/* sqrt.c - rt_sqrt_f32: out = sqrt(in) (NaN for in < 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_sqrt_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, sqrtf(x));
    return RT_OK;
}
