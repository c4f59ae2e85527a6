/* gelu.c - rt_gelu_f32: gelu, approximate='none': in * 0.5 * (1 + erf(in / sqrt(2))). */
#include <math.h>

#include "../core/rt_internal.h"

#define RT_SQRT1_2 0.70710678118654752440f

rt_status rt_gelu_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, x * 0.5f * (1.0f + erff(x * RT_SQRT1_2)));
    return RT_OK;
}
