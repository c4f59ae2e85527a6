/* layer_norm.c - rt_layer_norm_f32: native_layer_norm over the last
 * norm_ndim dims. Two-pass mean / biased variance per row with
 * compensated float sums (rt_acc), rstd = 1 / sqrt(var + eps),
 * out = (x * rstd - mean * rstd) * w + b as PyTorch's CPU kernel. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_layer_norm_f32(int32_t norm_ndim, float eps,
                            const rt_shape *in_s, const float *in,
                            const rt_shape *w_s, const float *w,
                            const rt_shape *b_s, const float *b,
                            const rt_shape *out_s, float *out,
                            const rt_shape *mean_s, float *mean,
                            const rt_shape *rstd_s, float *rstd)
{
    int32_t rows, n, r, i;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK((w_s == NULL) == (w == NULL) && (b_s == NULL) == (b == NULL) &&
             (mean_s == NULL) == (mean == NULL) &&
             (rstd_s == NULL) == (rstd == NULL),
             RT_ERR_NULL);
    RT_CHECK(rt_same_numel(in_s, out_s), RT_ERR_SHAPE);
    RT_CHECK(norm_ndim >= 0 && norm_ndim <= in_s->rank, RT_ERR_PARAM);
    rows = rt_dims_prod(in_s, 0, in_s->rank - norm_ndim);
    n = rt_dims_prod(in_s, in_s->rank - norm_ndim, in_s->rank);
    RT_CHECK(w == NULL || rt_shape_numel(w_s) == n, RT_ERR_SHAPE);
    RT_CHECK(b == NULL || rt_shape_numel(b_s) == n, RT_ERR_SHAPE);
    RT_CHECK(mean == NULL || rt_shape_numel(mean_s) == rows, RT_ERR_SHAPE);
    RT_CHECK(rstd == NULL || rt_shape_numel(rstd_s) == rows, RT_ERR_SHAPE);
    for (r = 0; r < rows; ++r) {
        const float *x = in + r * n;
        float *y = out + r * n;
        rt_acc acc;
        float mu, var, scale, shift;
        rt_acc_init(&acc);
        for (i = 0; i < n; ++i) {
            rt_acc_add(&acc, x[i]);
        }
        mu = rt_acc_value(&acc) / (float)n;
        rt_acc_init(&acc);
        for (i = 0; i < n; ++i) {
            const float t = x[i] - mu;
            rt_acc_add(&acc, t * t);
        }
        var = rt_acc_value(&acc) / (float)n;
        scale = 1.0f / sqrtf((var > 0.0f ? var : 0.0f) + eps);
        shift = -mu * scale;
        for (i = 0; i < n; ++i) {
            const float t = x[i] * scale + shift;
            y[i] = t * (w != NULL ? w[i] : 1.0f) + (b != NULL ? b[i] : 0.0f);
        }
        if (mean != NULL) {
            mean[r] = mu;
        }
        if (rstd != NULL) {
            rstd[r] = scale;
        }
    }
    return RT_OK;
}
