/* rt_kernels_s8.h - int8 kernels, bit-exact with CMSIS-NN's default build and
 * TensorFlow Lite Micro's reference kernels.
 *
 * Conventions, beyond those of rt_kernels.h:
 *  - Feature maps are NHWC: rt_shape d = {N, H, W, C}, in that physical order.
 *    Conv filters are OHWI [Cout, KH, KW, Cin/groups]; depthwise filters are
 *    [1, KH, KW, Cout]. Weights and activations are int8, biases int32.
 *  - Offsets follow CMSIS-NN: input_offset = -z_in, filter_offset = -z_w,
 *    output_offset = +z_out.
 *  - (mult, shift) pairs come from QuantizeMultiplier: real multiplier
 *    M ~= mult * 2^(shift - 31), mult in [2^30, 2^31). Requantization is the
 *    "double rounding" of arm_nn_requantize (rt_requantize below).
 *  - Outputs are clamped to [act_min, act_max] (a folded relu/relu6/clamp, or
 *    [-128, 127]).
 *  - Kernels with a scratch argument say how much they need through
 *    rt_<op>_s8_scratch_size(); the planner places it in the arena.
 */
#ifndef RT_KERNELS_S8_H
#define RT_KERNELS_S8_H

#include "rt_types.h"

/* x * mult * 2^(shift - 31): a rounding doubling high multiply (ties toward
 * +inf), then a rounding right shift (ties away from zero). */
int32_t rt_requantize(int32_t x, int32_t mult, int32_t shift);

/* ---- conv / fully connected --------------------------------------------- */

typedef struct rt_conv_s8_params {
    int32_t stride_h, stride_w;      /* >= 1 */
    int32_t pad_h, pad_w;            /* top / left padding, >= 0; the output
                                        shape decides the bottom / right */
    int32_t dilation_h, dilation_w;  /* >= 1 */
    int32_t input_offset;            /* -z_in, in [-127, 128] */
    int32_t output_offset;           /* +z_out, in [-128, 127] */
    int32_t act_min, act_max;        /* -128 <= act_min <= act_max <= 127 */
    const int32_t *mult;             /* [Cout] */
    const int32_t *shift;            /* [Cout] */
} rt_conv_s8_params;

/* Convolution. in [N,H,W,Cin], w [Cout,KH,KW,Cin/groups] with groups =
 * Cin / w_s->d[3] dividing Cout, bias [Cout] int32 or (NULL, NULL), out
 * [N,OH,OW,Cout]. Padded taps contribute zero in the real domain.
 * Scratch: rt_conv2d_s8_scratch_size bytes, two output pixels' patches of taps
 * (2 * KH * KW * Cin/groups) when Cin/groups is not a multiple of 4 and the
 * filter has more than one tap, else 0. Kernels that gather patches (the DSP
 * arch) use it; with less they convolve directly, same result. */
int32_t rt_conv2d_s8_scratch_size(const rt_shape *w_s);
rt_status rt_conv2d_s8(const rt_scratch *scratch, const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

/* Same contract as rt_conv2d_s8, for a pointwise layer only: 1x1 taps, stride
 * 1, padding 0, one group (RT_ERR_PARAM otherwise). Bit-exact with
 * rt_conv2d_s8; the scratch is not used. */
rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           RT_S8_LAYER_TENSORS);

/* Transposed convolution of one group. in [N,H,W,Cin], w [Cout,KH,KW,Cin] (OHWI, O the output
 * channels), bias [Cout] int32 or (NULL, NULL), out [N,OH,OW,Cout] with
 * OH = (H - 1) * stride - 2 * pad + dilation * (KH - 1) + 1 + output_padding, output_padding
 * below the larger of stride and dilation (OW alike). Bit-exact with TFLite Micro's
 * TRANSPOSE_CONV; no scratch. */
rt_status rt_transpose_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

/* Depthwise convolution. in [N,H,W,Cin], w [1,KH,KW,Cout] with Cout a
 * multiple of Cin (channel multiplier Cout / Cin; output channel c reads
 * input channel c / multiplier), bias [Cout] or (NULL, NULL),
 * out [N,OH,OW,Cout]. */
rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

/* Same contract as rt_depthwise_conv2d_s8, for a 3x3 filter with a channel
 * multiplier of 1 and no dilation only (RT_ERR_PARAM otherwise): bit-exact with
 * it. Its own entry point, so that the arch kernels for these layers (the DSP
 * one works a channel at a time along the rows) link only into models that
 * have them. */
rt_status rt_depthwise_conv2d_3x3_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

/* The pointwise and depthwise layers above, their output planned over their input
 * (aot/overlap.py, under --overlap): the kernel runs on bands of the map into the scratch,
 * each band copied home once the input under it is dead; the same bytes as the kernel with
 * separate buffers, which is what runs where the output does not overlap the input.
 * Pointwise: bands of scratch->size / Cout pixels, the output at least
 * max(Cout - Cin, P * (Cout - Cin)) bytes below the input (P the pixels). Depthwise:
 * exactly in place, stride 1, multiplier 1, two bands of scratch->size / (2 * W * C) rows
 * (at least pad_h each). RT_ERR_PARAM for an overlap of another kind, RT_ERR_SCRATCH for too
 * little scratch. */
rt_status rt_conv2d_1x1_in_place_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                    RT_S8_LAYER_TENSORS);
rt_status rt_depthwise_conv2d_in_place_s8(const rt_scratch *scratch,
                                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);
rt_status rt_depthwise_conv2d_3x3_in_place_s8(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

typedef struct rt_fc_s8_params {
    int32_t input_offset;            /* -z_in */
    int32_t filter_offset;           /* -z_w (0 for symmetric weights) */
    int32_t output_offset;           /* +z_out */
    int32_t act_min, act_max;
    int32_t per_channel;             /* 1: mult/shift hold Cout pairs; 0: one */
    const int32_t *mult;
    const int32_t *shift;
} rt_fc_s8_params;

/* Fully connected: in [..., K] (rows = every leading dim), w [Cout, K],
 * bias [Cout] int32 or (NULL, NULL), out [..., Cout]. */
rt_status rt_fully_connected_s8(const rt_fc_s8_params *p, RT_S8_LAYER_TENSORS);

/* ---- elementwise ---------------------------------------------------------- */

typedef struct rt_add_s8_params {
    int32_t in1_offset, in1_mult, in1_shift;   /* -z_a, M_a = s_a / (2 max(s_a, s_b)) */
    int32_t in2_offset, in2_mult, in2_shift;   /* -z_b; a negative in2_mult subtracts */
    int32_t left_shift;                        /* 20 */
    int32_t out_offset, out_mult, out_shift;   /* +z_out, M = 2 max(s_a, s_b) / (2^20 s_out) */
    int32_t act_min, act_max;
} rt_add_s8_params;

/* Quantized add (arm_elementwise_add_s8), with numpy broadcasting of a and b
 * to out's shape. */
rt_status rt_add_s8(const rt_add_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out);

typedef struct rt_mul_s8_params {
    int32_t in1_offset, in2_offset;            /* -z_a, -z_b */
    int32_t out_offset, out_mult, out_shift;   /* M = s_a s_b / s_out */
    int32_t act_min, act_max;
} rt_mul_s8_params;

/* Quantized multiply (arm_elementwise_mul_s8), with broadcasting. */
rt_status rt_mul_s8(const rt_mul_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out);

/* ---- the int16 cell state of an LSTM (cell_s16.c) ------------------------------- */

typedef struct rt_mul_s16_params {
    int32_t in1_offset, in2_offset;   /* -z_a; -z_b of an int8 b, 0 of an int16 one */
    int32_t out_mult, out_shift;      /* M = s_a s_b / s_out; out at zero point 0 */
} rt_mul_s16_params;

/* out (int16) = saturate(requant((a + in1_offset) (b + in2_offset))), b int8 (b_elem 1) or
 * int16 (b_elem 2); a, b and out of one shape. */
rt_status rt_mul_s8_s16(const rt_mul_s16_params *p, const rt_shape *a_s, const int8_t *a,
                        const rt_shape *b_s, const void *b, int32_t b_elem,
                        const rt_shape *out_s, int16_t *out);
/* out = saturate(a + b): int16 tensors of one shape and one scale, zero point 0. */
rt_status rt_add_s16(const rt_shape *a_s, const int16_t *a, const rt_shape *b_s,
                     const int16_t *b, const rt_shape *out_s, int16_t *out);
/* out (int8) = first + the number of steps[0..count) at or below x (int16): a non-decreasing
 * function of x, given by the lowest code of each output above ``first`` (sorted). */
rt_status rt_step_s16_s8(const int16_t *steps, int32_t count, int32_t first,
                         const rt_shape *in_s, const int16_t *in, const rt_shape *out_s,
                         int8_t *out);

typedef struct rt_bmm_s8_params {
    int32_t lhs_offset, rhs_offset;            /* -z_lhs, -z_rhs */
    int32_t out_offset, out_mult, out_shift;   /* M = s_lhs s_rhs / s_out */
} rt_bmm_s8_params;

/* Batch matmul: lhs [B, M, K] times rhs [B, K, N], rhs given transposed [B, N, K]; out
 * [B, M, N]. Bit-exact with TFLite Micro's BATCH_MATMUL (adj_y). */
rt_status rt_batch_matmul_s8(const rt_bmm_s8_params *p, const rt_shape *lhs_s,
                             const int8_t *lhs, const rt_shape *rhs_s, const int8_t *rhs,
                             const rt_shape *out_s, int8_t *out);

/* Elementwise max / min of two int8 tensors sharing qparams, with
 * broadcasting. */
rt_status rt_maximum_s8(const rt_shape *a_s, const int8_t *a, const rt_shape *b_s,
                        const int8_t *b, const rt_shape *out_s, int8_t *out);
rt_status rt_minimum_s8(const rt_shape *a_s, const int8_t *a, const rt_shape *b_s,
                        const int8_t *b, const rt_shape *out_s, int8_t *out);

/* Lookup-table activation: out[i] = table[in[i] + 128]; in and out may be
 * the same buffer. */
rt_status rt_lut_s8(const int8_t *table, const rt_shape *in_s, const int8_t *in,
                    const rt_shape *out_s, int8_t *out);

/* Clamp to [lo, hi]; in and out may be the same buffer. */
rt_status rt_clamp_s8(int32_t lo, int32_t hi, const rt_shape *in_s, const int8_t *in,
                      const rt_shape *out_s, int8_t *out);

/* Bilinear resize of an NHWC map to out_s's H and W, input and output sharing qparams, as
 * TensorFlow Lite Micro's RESIZE_BILINEAR: align_corners, or half_pixel (torch's
 * align_corners=False), not both; sides of up to 2^20 pixels. */
rt_status rt_resize_bilinear_s8(int32_t align_corners, int32_t half_pixel, const rt_shape *in_s,
                                const int8_t *in, const rt_shape *out_s, int8_t *out);

/* ---- pooling ------------------------------------------------------------- */

typedef struct rt_pool_s8_params {
    int32_t kernel_h, kernel_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;            /* top / left; taps outside the input are skipped */
    int32_t dilation_h, dilation_w;  /* max pool only; 1 for average pooling */
    int32_t act_min, act_max;
} rt_pool_s8_params;

/* NHWC pooling; input and output share qparams. Average: the sum of the
 * valid taps divided by their count, rounded half away from zero
 * (arm_avgpool_s8). Max: the window's maximum. */
rt_status rt_avg_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out);
rt_status rt_max_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out);
/* rt_avg_pool2d_s8 where one window covers the whole map (kernel = H x W, no padding, a 1 x 1
 * output): the same bytes without the per-pixel tap ranges. RT_ERR_PARAM for another window. */
rt_status rt_global_avg_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s,
                                  const int8_t *in, const rt_shape *out_s, int8_t *out);

/* ---- reductions over rows ------------------------------------------------ */

typedef struct rt_reduce_s8_params {
    int32_t in_offset;     /* -z_in, in [-127, 128] */
    int32_t out_offset;    /* +z_out, in [-128, 127] */
    int32_t mult, shift;   /* s_in / s_out */
} rt_reduce_s8_params;

/* Over the middle dim of an (A, R, B) int8 tensor (R >= 1) into (A, 1, B). Sum: TFLite's SUM,
 * the sum of (x + in_offset) requantized and clamped. Min: REDUCE_MIN, one qparams in and
 * out. Any dims that are one run in memory reduce so, viewed (A, R, B). */
rt_status rt_reduce_sum_s8(const rt_reduce_s8_params *p, const rt_shape *in_s,
                           const int8_t *in, const rt_shape *out_s, int8_t *out);
rt_status rt_reduce_min_s8(const rt_shape *in_s, const int8_t *in, const rt_shape *out_s,
                           int8_t *out);

/* ---- softmax ------------------------------------------------------------- */

typedef struct rt_softmax_s8_params {
    int32_t mult, shift;   /* from min(s_in * 2^26, 2^31 - 1), shift >= 0 */
    int32_t diff_min;      /* -floor(31 * 2^26 / 2^shift) */
} rt_softmax_s8_params;

/* Softmax over the last dim (arm_softmax_s8); output scale 1/256, zp -128. */
rt_status rt_softmax_s8(const rt_softmax_s8_params *p, const rt_shape *in_s, const int8_t *in,
                        const rt_shape *out_s, int8_t *out);

/* ---- log softmax --------------------------------------------------------- */

typedef struct rt_log_softmax_s8_params {
    int32_t mult, shift;           /* M = min(s_in * 2^26, 2^31 - 1) > 1: input steps to Q5.26;
                                      shift in [0, 31] */
    int32_t rev_mult, rev_shift;   /* 2^(31 - shift) / mult (about 1 / M): Q5.26 back to input
                                      steps; rev_shift in [-31, 0] */
    int32_t diff_min;              /* -floor(31 * 2^26 / 2^shift), in (INT32_MIN, 0] */
} rt_log_softmax_s8_params;

/* Log softmax over the last dim, bit-exact with TensorFlow Lite Micro's LOG_SOFTMAX; output
 * scale 16/256, zp 127. in and out have one shape (rank 0: one row of one); rows of up to 4095
 * (the sum of their exps fits Q12.19), RT_ERR_SHAPE above. */
rt_status rt_log_softmax_s8(const rt_log_softmax_s8_params *p, const rt_shape *in_s,
                            const int8_t *in, const rt_shape *out_s, int8_t *out);

/* ---- normalization -------------------------------------------------------- */

typedef struct rt_layer_norm_s8_params {
    float in_scale;          /* the input's scale (its zero point cancels in x - mean) */
    float eps;
    float inv_out_scale;     /* float32(1 / output scale) */
    int32_t out_zero_point;
} rt_layer_norm_s8_params;

/* Layer norm over the last dim of an int8 tensor, weight and bias float32 [D] or (NULL, NULL):
 * exact integer row statistics, the normalization in float32, PT2E's rounding. Within one
 * output step of PT2E's float reference (TFLite Micro has no such kernel). */
rt_status rt_layer_norm_s8(const rt_layer_norm_s8_params *p, const rt_shape *in_s,
                           const int8_t *in, const rt_shape *w_s, const float *weight,
                           const rt_shape *b_s, const float *bias, const rt_shape *out_s,
                           int8_t *out);

/* ---- float boundary ------------------------------------------------------ */

typedef struct rt_quant_params {
    float scale;        /* dequantize: the scale; quantize: float32(1 / scale) */
    int32_t zero_point;
    int32_t qmin, qmax;
} rt_quant_params;

/* PT2E quantize_per_tensor: round_half_even(x * inv_scale) + zp, clamped. */
rt_status rt_quantize_f32_s8(const rt_quant_params *p, const rt_shape *in_s, const float *in,
                             const rt_shape *out_s, int8_t *out);
/* PT2E dequantize_per_tensor: (q - zp) * scale in float32. */
rt_status rt_dequantize_s8_f32(const rt_quant_params *p, const rt_shape *in_s, const int8_t *in,
                               const rt_shape *out_s, float *out);

/* ---- data movement of any element size ------------------------------------ */

/* out = in with dims permuted (out dim i = in dim perm[i]). */
rt_status rt_permute(int32_t elem_size, const int32_t *perm, const rt_shape *in_s,
                     const void *in, const rt_shape *out_s, void *out);
/* Constant padding: before[i] elements before dim i (rank entries), the rest
 * after (from out's shape), filled with the element at *value. */
rt_status rt_constant_pad(int32_t elem_size, const int32_t *before, const void *value,
                          const rt_shape *in_s, const void *in,
                          const rt_shape *out_s, void *out);
/* Concatenate n_in tensors along dim (an input with no elements and another rank than out's,
 * torch's legacy empty 1-D tensor, takes no part). */
rt_status rt_cat(int32_t elem_size, int32_t dim, int32_t n_in, const rt_shape *in_s,
                 const void *const *in, const rt_shape *out_s, void *out);
/* split_with_sizes: out[k] = the next sizes[k] items of in along dim, for k < n_out. */
rt_status rt_split(int32_t elem_size, int32_t dim, int32_t n_out, const int32_t *sizes,
                   const rt_shape *in_s, const void *in, const rt_shape *out_s,
                   void *const *out);
/* out = in[..., start:end:step, ...] along dim (start/end clamped as Python). */
rt_status rt_slice(int32_t elem_size, int32_t dim, int32_t start, int32_t end, int32_t step,
                   const rt_shape *in_s, const void *in, const rt_shape *out_s, void *out);

#endif /* RT_KERNELS_S8_H */
