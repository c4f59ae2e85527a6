/* batch_norm.c - rt_batch_norm_f32: _native_batch_norm_legit_no_training
 * (output 0): per channel c (dim 1), a = w / sqrt(var + eps),
 * out = x * a + (b - mean * a), as PyTorch's CPU inference path. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_batch_norm_f32(float eps, const rt_shape *in_s, const float *in,
                            const rt_shape *w_s, const float *w,
                            const rt_shape *b_s, const float *b,
                            const rt_shape *mean_s, const float *mean,
                            const rt_shape *var_s, const float *var,
                            const rt_shape *out_s, float *out)
{
    int32_t batch, ch, inner, nb, c, i;
    RT_CHECK(in_s != NULL && in != NULL && mean_s != NULL && mean != NULL &&
             var_s != NULL && var != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK((w_s == NULL) == (w == NULL) && (b_s == NULL) == (b == NULL),
             RT_ERR_NULL);
    RT_CHECK(in_s->rank >= 2, RT_ERR_RANK);
    RT_CHECK(rt_same_numel(in_s, out_s), RT_ERR_SHAPE);
    batch = in_s->d[0];
    ch = in_s->d[1];
    inner = rt_dims_prod(in_s, 2, in_s->rank);
    RT_CHECK(rt_shape_numel(mean_s) == ch && rt_shape_numel(var_s) == ch &&
             (w == NULL || rt_shape_numel(w_s) == ch) &&
             (b == NULL || rt_shape_numel(b_s) == ch),
             RT_ERR_SHAPE);
    for (c = 0; c < ch; ++c) {
        const float invstd = 1.0f / sqrtf(var[c] + eps);
        const float a = invstd * (w != NULL ? w[c] : 1.0f);
        const float s = (b != NULL ? b[c] : 0.0f) - mean[c] * a;
        for (nb = 0; nb < batch; ++nb) {
            const float *x = in + (nb * ch + c) * inner;
            float *y = out + (nb * ch + c) * inner;
            for (i = 0; i < inner; ++i) {
                y[i] = x[i] * a + s;
            }
        }
    }
    return RT_OK;
}
