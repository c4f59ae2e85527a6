/* hardswish.c - rt_hardswish_f32: out = in * min(max(in + 3, 0), 6) / 6 (PyTorch order). */
#include "../core/rt_internal.h"

/* min(max(t, 0), 6) that lets NaN through, like PyTorch's kernel. */
static float relu6f(float t)
{
    t = t < 0.0f ? 0.0f : t;
    return t > 6.0f ? 6.0f : t;
}

rt_status rt_hardswish_f32(const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, float *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        out[i] = x * relu6f(x + 3.0f) / 6.0f;
    }
    return RT_OK;
}
