/* logit.c - rt_logit_f32: z = clamp(in, eps, 1 - eps), out = log(z / (1 - z)). A NaN eps
 * (torch's eps=None) clamps nothing: every comparison with it is false. */
#include <math.h>

#include "../core/rt_internal.h"

static float logit1(float x, float lo, float hi)
{
    const float z = x < lo ? lo : x > hi ? hi : x;
    return logf(z / (1.0f - z));
}

rt_status rt_logit_f32(float eps, RT_F32_UNARY_TENSORS)
{
    const float hi = 1.0f - eps;
    RT_MAP_UNARY(in_s, in, out_s, out, logit1(x, eps, hi));
    return RT_OK;
}
