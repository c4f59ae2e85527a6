/* neg.c - rt_neg_f32: out = -in. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_neg_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, -x);
    return RT_OK;
}
