/* ceil.c - rt_ceil_f32: out = the least integer >= in. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_ceil_f32(const rt_shape *in_s, const float *in,
                  const rt_shape *out_s, float *out)
{
    RT_MAP_UNARY(in_s, in, out_s, out, ceilf(x));
    return RT_OK;
}
