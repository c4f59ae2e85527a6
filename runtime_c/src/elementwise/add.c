/* add.c - rt_add_f32: out = a + alpha * b, numpy broadcasting, with a fused
 * activation when act is given (a residual add + relu in one pass);
 * rt_add_scalar_f32: out = in + alpha * other.
 */
#include "../core/rt_internal.h"

rt_status rt_add_f32(const rt_act_f32 *act, float alpha, RT_F32_BINARY_TENSORS)
{
    if (act != NULL && act->on) {
        const float lo = act->lo, hi = act->hi;
        RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, rt_act(x + alpha * y, lo, hi));
    } else {
        RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, x + alpha * y);
    }
    return RT_OK;
}

rt_status rt_add_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS)
{
    const float v = alpha * other;
    RT_MAP_UNARY(in_s, in, out_s, out, x + v);
    return RT_OK;
}
