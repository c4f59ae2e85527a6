/* round.c - rt_round_f32: out = in rounded to the nearest integer, halves to even
 * (torch.round; rintf in the default rounding mode). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_round_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, rintf(x));
    return RT_OK;
}
