/* clamp.c - rt_clamp_f32: clamp / hardtanh / relu6. out = min(max(in, lo),
 * hi); an absent bound is -INFINITY / INFINITY. NaN propagates and lo > hi
 * yields hi everywhere, as torch.clamp does. */
#include "../core/rt_internal.h"

rt_status rt_clamp_f32(float lo, float hi, RT_F32_UNARY_TENSORS)
{
    int32_t n, i;
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        float x = in[i];
        x = x < lo ? lo : x;
        out[i] = x > hi ? hi : x;
    }
    return RT_OK;
}
