/* elu.c - rt_elu_f32: out = scale * alpha * (exp(input_scale * in) - 1) for in <= 0,
 * else scale * in (NaN stays NaN) (ELU; SELU and CELU are its parameterizations). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_elu_f32(float alpha, float scale, float input_scale, RT_F32_UNARY_TENSORS)
{
    const float neg = alpha * scale;
    RT_MAP_UNARY(in_s, in, out_s, out,
                 x <= 0.0f ? expm1f(x * input_scale) * neg : x * scale);
    return RT_OK;
}
