/* log.c - rt_log_f32: out = ln(in) (NaN for in < 0, -inf for 0). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_log_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, logf(x));
    return RT_OK;
}
