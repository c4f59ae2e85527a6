/* minimum.c - rt_minimum_f32: elementwise minimum of a and b, numpy
 * broadcasting; NaN in either input propagates (torch.minimum). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_minimum_f32(RT_F32_BINARY_TENSORS)
{
    RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, isnan(x) ? x : (isnan(y) || y < x) ? y : x);
    return RT_OK;
}
