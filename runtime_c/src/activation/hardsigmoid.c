/* hardsigmoid.c - rt_hardsigmoid_f32: out = min(max(in + 3, 0), 6) / 6. */
#include "../core/rt_internal.h"

/* min(max(t, 0), 6) that lets NaN through, like PyTorch's kernel. */
static float relu6f(float t)
{
    t = t < 0.0f ? 0.0f : t;
    return t > 6.0f ? 6.0f : t;
}

rt_status rt_hardsigmoid_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, relu6f(x + 3.0f) / 6.0f);
    return RT_OK;
}
