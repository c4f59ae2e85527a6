/* layer_norm_s8.c - rt_layer_norm_s8: layer normalization of int8 rows (the last dim), int8 out:
 * the checks here, the rows in layer_norm_row_s8.c (which an arch folder may replace).
 *
 * TFLite Micro has no int8 layer norm to match; this follows PT2E's reference (layer_norm in
 * float32 on the dequantized row, then quantize) to within one output step: the row's sum and
 * sum of squares are exact integers, the deviation x * D - sum too, and only the per-row scale
 * 1 / sqrt(var + eps) and the affine step are float32 (a handful of operations an element;
 * soft-float on a core without an FPU). */
#include "s8_internal.h"

rt_status rt_layer_norm_s8(const rt_layer_norm_s8_params *p, const rt_shape *in_s,
                           const int8_t *in, const rt_shape *w_s, const float *weight,
                           const rt_shape *b_s, const float *bias, const rt_shape *out_s,
                           int8_t *out)
{
    int32_t rows, d;
    RT_CHECK(p != NULL && in != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &rows));
    RT_CHECK(in_s->rank >= 1, RT_ERR_RANK);
    d = in_s->d[in_s->rank - 1];
    RT_CHECK(d >= 1 && d <= 65536 && (weight == NULL || (w_s != NULL && rt_shape_numel(w_s) == d))
             && (bias == NULL || (b_s != NULL && rt_shape_numel(b_s) == d)), RT_ERR_SHAPE);
    RT_CHECK(p->in_scale > 0.0f && p->eps >= 0.0f && p->out_zero_point >= -128 &&
             p->out_zero_point <= 127, RT_ERR_PARAM);
    rt_s8_layer_norm_rows(p, weight, bias, in, out, rows / d, d);
    return RT_OK;
}
