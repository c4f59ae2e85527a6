/* quantize.c - the float boundary of an int8 model, as PT2E's quantize_per_tensor and
 * dequantize_per_tensor compute it: q = clamp(round_half_even(x * inv_scale) + zp) with the
 * product in float32, and x = (q - zp) * scale in float32. */
#include "s8_internal.h"

rt_status rt_quantize_f32_s8(const rt_quant_params *p, const rt_shape *in_s, const float *in,
                             const rt_shape *out_s, int8_t *out)
{
    int32_t n, i;
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    RT_CHECK(p->qmin >= -128 && p->qmin <= p->qmax && p->qmax <= 127, RT_ERR_PARAM);
    for (i = 0; i < n; ++i) {
        const float v = rt_s8_round_even(in[i] * p->scale) + (float)p->zero_point;
        /* NaN goes to qmin, as the clamp of a NaN cast does in torch's kernel */
        out[i] = (int8_t)(v >= (float)p->qmax ? p->qmax : (v > (float)p->qmin ? (int32_t)v
                                                                                : p->qmin));
    }
    return RT_OK;
}

rt_status rt_dequantize_s8_f32(const rt_quant_params *p, const rt_shape *in_s, const int8_t *in,
                               const rt_shape *out_s, float *out)
{
    int32_t n, i;
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        out[i] = (float)((int32_t)in[i] - p->zero_point) * p->scale;
    }
    return RT_OK;
}
