/* sign.c - rt_sign_f32: out = 1 for in > 0, -1 for in < 0, else 0 (so +-0 and NaN give +0,
 * as torch.sign). */
#include "../core/rt_internal.h"

rt_status rt_sign_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f));
    return RT_OK;
}
