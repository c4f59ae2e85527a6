/* layer_norm_row_s8.c - rt_s8_layer_norm_rows, the rows of rt_layer_norm_s8 (see
 * s8_internal.h): a row's sum and sum of squares exact, then, an element at a time, the
 * float32 steps of aot/quantization/ops.py's _layer_norm in its order.
 *
 * The integers fit 32 bits (D <= 2^16: |sum| <= 2^23, sum of squares <= 2^30, and the
 * deviation |x D - sum| < 2^24, which float32 holds exactly); only the variance's numerator
 * needs 64.
 *
 * An arch file may build on this one: it defines RT_LAYER_NORM_ROWS, includes this file, and
 * then defines rt_s8_layer_norm_rows itself, calling the two steps below for the rows it
 * leaves to them (runtime_c/src/arch/cortex_m_mve/layer_norm_row_s8.c). */
#include <math.h>

#include "s8_internal.h"

/* 1 / sqrt(var + eps) of a row of d from its sums: var = (D sumsq - sum^2) / D^2 in input
 * steps, its numerator exact. */
static float layer_norm_rstd(const rt_layer_norm_s8_params *p, int32_t sum, int32_t sumsq,
                             int32_t d)
{
    const int64_t num = (int64_t)sumsq * d - (int64_t)sum * sum;   /* >= 0 */
    /* the same rounding of the same integer; from 32 bits it is one instruction on an FPU */
    const float var = (num <= INT32_MAX ? (float)(int32_t)num : (float)num) /
                      ((float)d * (float)d);
    return 1.0f / sqrtf(var * p->in_scale * p->in_scale + p->eps);
}

/* out[i], i < d: (x D - sum) / D, times the input scale, rstd, the weight, plus
 * the bias, times 1 / the output scale; rounded, offset and clamped. */
static void layer_norm_out(const rt_layer_norm_s8_params *p, const float *weight,
                           const float *bias, const int8_t *in, int32_t sum, float rstd,
                           int8_t *out, int32_t d)
{
    int32_t i;
    for (i = 0; i < d; ++i) {
        float y = (float)((int32_t)in[i] * d - sum) / (float)d;
        y = y * p->in_scale;
        y = y * rstd;
        if (weight != NULL) {
            y = y * weight[i];
        }
        if (bias != NULL) {
            y = y + bias[i];
        }
        out[i] = rt_s8_from_float(y * p->inv_out_scale, p->out_zero_point);
    }
}

#ifndef RT_LAYER_NORM_ROWS
void rt_s8_layer_norm_rows(const rt_layer_norm_s8_params *p, const float *weight,
                           const float *bias, const int8_t *in, int8_t *out, int32_t rows,
                           int32_t d)
{
    int32_t r, i;
    for (r = 0; r < rows; ++r, in += d, out += d) {
        int32_t sum = 0, sumsq = 0;
        for (i = 0; i < d; ++i) {
            sum += in[i];
            sumsq += (int32_t)in[i] * in[i];
        }
        layer_norm_out(p, weight, bias, in, sum, layer_norm_rstd(p, sum, sumsq, d), out, d);
    }
}
#endif
