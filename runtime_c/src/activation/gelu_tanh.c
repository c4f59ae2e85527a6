/* gelu_tanh.c - rt_gelu_tanh_f32: gelu, approximate='tanh':
 * 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))). */
#include <math.h>

#include "../core/rt_internal.h"

#define RT_GELU_BETA 0.79788456080286535588f /* sqrt(2 / pi) */
#define RT_GELU_KAPPA 0.044715f

rt_status rt_gelu_tanh_f32(RT_F32_UNARY_TENSORS)
{
    int32_t n, i;
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        const float inner = RT_GELU_BETA * (x + RT_GELU_KAPPA * (x * x * x));
        out[i] = 0.5f * x * (1.0f + tanhf(inner));
    }
    return RT_OK;
}
