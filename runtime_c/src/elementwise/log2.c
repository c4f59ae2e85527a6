/* log2.c - rt_log2_f32: out = log2(in). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_log2_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, log2f(x));
    return RT_OK;
}
