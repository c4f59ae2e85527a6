/* rt_kernels.h - declarations of every kernel of the mcu-aot C runtime.
 *
 * Conventions (see runtime_c/README.md):
 *  - Name: rt_<op>[_<variant>]_<dtype>. Returns rt_status (RT_OK = 0).
 *  - Argument order: scratch (only kernels that need one), op params (small
 *    scalars by value, groups of params as a const struct pointer), then one
 *    (const rt_shape *, data pointer) pair per input in PyTorch's order,
 *    then (shape, data) per output, outputs last.
 *  - An optional input/output is passed as (NULL, NULL).
 *  - Tensors are contiguous row-major; bool tensors are uint8_t (0 or 1).
 *  - Negative `dim` arguments count from the end, as in PyTorch.
 *  - Aliasing: elementwise kernels allow out == an input that has the
 *    output's shape; rt_copy_* are memmove-safe; all others need outputs
 *    that overlap no input.
 *  - Shapes and params are checked at the top of each kernel (cheap, no
 *    data loops); -DRT_CONFIG_NO_CHECKS compiles those checks out.
 */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include "rt_types.h"

/* ---- shape helpers ------------------------------------------------------ */

/* Number of elements, or -1 if the shape is invalid (rank outside
 * 0..RT_MAX_DIMS, a negative size, or more than INT32_MAX elements). */
int32_t rt_shape_numel(const rt_shape *s);

/* ---- fused activation ---------------------------------------------------- */

/* An activation fused into a kernel's epilogue (conv, addmm, add): every
 * output is clamped to [lo, hi] as rt_clamp_f32 does it, so relu is
 * [0, INFINITY], relu6 [0, 6]; NaN passes through. `on` == 0 is none, so a
 * zeroed struct (or a NULL pointer where one is passed) fuses nothing. */
typedef struct rt_act_f32 {
    int32_t on;
    float lo, hi;
} rt_act_f32;

/* ---- conv --------------------------------------------------------------- */

typedef struct rt_conv2d_params {
    int32_t stride_h, stride_w;     /* >= 1 */
    int32_t pad_h, pad_w;           /* >= 0, same before and after */
    int32_t dilation_h, dilation_w; /* >= 1 */
    int32_t groups;                 /* >= 1, divides Cin and Cout */
    rt_act_f32 act;                 /* fused activation (zero: none) */
} rt_conv2d_params;

/* aten.convolution (not transposed). in [N,Cin,H,W], w [Cout,Cin/g,KH,KW],
 * bias [Cout] or (NULL, NULL), out [N,Cout,OH,OW]. Rank-3 tensors are 1-D
 * convolution: [N,C,L] is treated as [N,C,1,L] and the *_h params are
 * ignored. Depthwise is groups == Cin. */
rt_status rt_conv2d_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);

/* Same contract as rt_conv2d_f32, for a pointwise conv only: 1x1 kernel,
 * stride 1, padding 0, groups 1 (RT_ERR_PARAM otherwise). A GEMM over the
 * flattened plane, register-blocked; bit-identical to rt_conv2d_f32. */
rt_status rt_conv2d_1x1_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);

/* Same contract as rt_conv2d_f32, for a depthwise conv only: groups == Cin
 * (RT_ERR_PARAM otherwise), Cout = Cin * multiplier, any kernel, stride,
 * padding, dilation. A stencil per channel with its border split off;
 * bit-identical to rt_conv2d_f32. */
rt_status rt_conv2d_depthwise_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);

/* The pointwise layers above, their output planned exactly over their input
 * (aot/overlap.py's conv_f32, under --overlap; where the output does not overlap the input,
 * the layer's kernel runs as above): the same bytes as the layer's kernel with separate
 * buffers, by bands of RT_F32_POINTWISE_BAND pixels (the plane where smaller), the scratch
 * holding a band's outputs (Cout * band floats; its inputs are read where they lie); one
 * image, or Cout <= Cin. RT_ERR_PARAM for an overlap of another kind, RT_ERR_SCRATCH for too
 * little scratch. */
#define RT_F32_POINTWISE_BAND 8
rt_status rt_conv2d_1x1_in_place_f32(const rt_scratch *scratch, const rt_conv2d_params *p,
                                     RT_F32_LAYER_TENSORS);
/* Likewise rt_conv2d_depthwise_f32 of multiplier 1 whose output planes are no larger than its
 * input ones, exactly in place by groups of planes: a group's output planes computed into the
 * scratch (as many as it holds, at least one) by the layer's kernel, then copied home over
 * input planes no later group reads. */
rt_status rt_conv2d_depthwise_in_place_f32(const rt_scratch *scratch,
                                           const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);
/* Likewise rt_conv2d_f32 of one group, stride 1 and "same" padding (the output the input's
 * size), rank 4, exactly in place by bands of max(1, pad_h) rows: the scratch holds two bands'
 * output rows of every channel (2 * Cout * band * W floats), a band going home once the next
 * is computed; one image, or Cout <= Cin. */
rt_status rt_conv2d_in_place_f32(const rt_scratch *scratch, const rt_conv2d_params *p,
                                 RT_F32_LAYER_TENSORS);

/* Same contract as rt_conv2d_f32; gathers one input patch into scratch and
 * takes contiguous dot products with each filter. Scratch size in bytes: */
int32_t rt_conv2d_im2col_f32_scratch_size(const rt_conv2d_params *p,
                                          const rt_shape *in_s,
                                          const rt_shape *w_s);
rt_status rt_conv2d_im2col_f32(const rt_scratch *scratch,
                               const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);

/* ---- matmul ------------------------------------------------------------- */

/* out[M,N] = a[M,K] @ b[K,N] */
rt_status rt_mm_f32(RT_F32_BINARY_TENSORS);
/* out[B,M,N] = a[B,M,K] @ b[B,K,N] */
rt_status rt_bmm_f32(RT_F32_BINARY_TENSORS);
/* out[B,M,N] = a[B,M,K] @ transpose(bt[B,N,K]) (pre-transposed B) */
rt_status rt_bmm_bt_f32(const rt_shape *a_s, const float *a,
                        const rt_shape *bt_s, const float *bt,
                        const rt_shape *out_s, float *out);
/* out[M,N] = act(beta * self + alpha * (a[M,K] @ b[K,N])); self broadcasts
 * to [M,N] (rank 0..2). beta == 0 ignores self (NaN/inf in it too). act is
 * a fused activation or NULL. */
rt_status rt_addmm_f32(const rt_act_f32 *act, float beta, float alpha,
                       const rt_shape *self_s, const float *self, RT_F32_BINARY_TENSORS);
/* out[...,N] = in[...,K] @ transpose(w[N,K]) + bias[N]; bias optional.
 * Also the "mm with pre-transposed B" kernel (bias = NULL). */
rt_status rt_linear_f32(RT_F32_LAYER_TENSORS);

/* ---- elementwise binary (numpy broadcasting up to RT_MAX_DIMS) ---------- */

/* out = act(a + alpha * b); act is a fused activation or NULL */
rt_status rt_add_f32(const rt_act_f32 *act, float alpha, RT_F32_BINARY_TENSORS);
/* out = a - alpha * b */
rt_status rt_sub_f32(float alpha, RT_F32_BINARY_TENSORS);
rt_status rt_mul_f32(RT_F32_BINARY_TENSORS);
/* true division (rounding_mode=None) */
rt_status rt_div_f32(RT_F32_BINARY_TENSORS);

/* torch.maximum / torch.minimum: NaN in either input propagates */
rt_status rt_maximum_f32(RT_F32_BINARY_TENSORS);
rt_status rt_minimum_f32(RT_F32_BINARY_TENSORS);

/* tensor-scalar forms: out = in + alpha*other, in - alpha*other,
 * other - alpha*in (aten.rsub), in * other, in / other */
rt_status rt_add_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS);
rt_status rt_sub_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS);
rt_status rt_rsub_scalar_f32(float other, float alpha, RT_F32_UNARY_TENSORS);
rt_status rt_mul_scalar_f32(float other, RT_F32_UNARY_TENSORS);
rt_status rt_div_scalar_f32(float other, RT_F32_UNARY_TENSORS);

/* comparisons -> bool (uint8_t 0/1), broadcasting, and tensor-scalar */
rt_status rt_eq_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_ne_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_lt_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_le_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_gt_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_ge_f32(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                    const float *b, const rt_shape *out_s, uint8_t *out);
rt_status rt_eq_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);
rt_status rt_ne_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);
rt_status rt_lt_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);
rt_status rt_le_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);
rt_status rt_gt_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);
rt_status rt_ge_scalar_f32(float other, const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out);

/* out = cond ? a : b, all three broadcast to out */
rt_status rt_where_f32(const rt_shape *cond_s, const uint8_t *cond, RT_F32_BINARY_TENSORS);

/* ---- elementwise unary: in and out have the same number of elements ----- */

rt_status rt_abs_f32(RT_F32_UNARY_TENSORS);
rt_status rt_neg_f32(RT_F32_UNARY_TENSORS);
rt_status rt_exp_f32(RT_F32_UNARY_TENSORS);
rt_status rt_log_f32(RT_F32_UNARY_TENSORS);
rt_status rt_sqrt_f32(RT_F32_UNARY_TENSORS);
rt_status rt_rsqrt_f32(RT_F32_UNARY_TENSORS);
rt_status rt_sin_f32(RT_F32_UNARY_TENSORS);
rt_status rt_cos_f32(RT_F32_UNARY_TENSORS);

/* ---- activation --------------------------------------------------------- */

rt_status rt_relu_f32(RT_F32_UNARY_TENSORS);
/* clamp / hardtanh / relu6: out = min(max(in, lo), hi); pass -INFINITY or
 * INFINITY for an absent bound. NaN propagates. lo > hi gives hi (torch). */
rt_status rt_clamp_f32(float lo, float hi, RT_F32_UNARY_TENSORS);
rt_status rt_sigmoid_f32(RT_F32_UNARY_TENSORS);
rt_status rt_tanh_f32(RT_F32_UNARY_TENSORS);
rt_status rt_hardswish_f32(RT_F32_UNARY_TENSORS);
rt_status rt_hardsigmoid_f32(RT_F32_UNARY_TENSORS);
/* gelu approximate='none' (erf) */
rt_status rt_gelu_f32(RT_F32_UNARY_TENSORS);
/* gelu approximate='tanh' */
rt_status rt_gelu_tanh_f32(RT_F32_UNARY_TENSORS);
rt_status rt_silu_f32(RT_F32_UNARY_TENSORS);
rt_status rt_leaky_relu_f32(float negative_slope, RT_F32_UNARY_TENSORS);
/* out = log(z / (1 - z)), z = in clamped to [eps, 1 - eps]; a NaN eps clamps nothing. */
rt_status rt_logit_f32(float eps, RT_F32_UNARY_TENSORS);

/* ---- pool: in [N,C,H,W] or [C,H,W]; 1-D pooling is H = 1 ---------------- */

typedef struct rt_pool2d_params {
    int32_t kernel_h, kernel_w;     /* >= 1 */
    int32_t stride_h, stride_w;     /* >= 1 */
    int32_t pad_h, pad_w;           /* 0 <= pad <= kernel / 2 */
    int32_t dilation_h, dilation_w; /* >= 1; must be 1 for avg pool */
    int32_t ceil_mode;              /* 0/1, as PyTorch */
    int32_t count_include_pad;      /* avg only, 0/1 */
    int32_t divisor_override;       /* avg only, 0 = none */
} rt_pool2d_params;

/* max_pool2d(_with_indices). NaN propagates. indices (flat h*W+w per plane,
 * as PyTorch) is optional: (NULL, NULL). */
rt_status rt_max_pool2d_f32(const rt_pool2d_params *p,
                            const rt_shape *in_s, const float *in,
                            const rt_shape *out_s, float *out,
                            const rt_shape *idx_s, int64_t *idx);
rt_status rt_avg_pool2d_f32(const rt_pool2d_params *p, RT_F32_UNARY_TENSORS);

/* ---- reduce: dim_mask bit i set = reduce over dim i of in --------------- */
/* out holds the kept dims in order (keepdim only changes out's shape, which
 * the caller gives). PyTorch's dim=[] / None means all bits set. sum and
 * mean use compensated (Kahan) float accumulation. */

rt_status rt_sum_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS);
rt_status rt_mean_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS);
/* NaN propagates; reducing a size-0 dim is an error, as in PyTorch (rt_amin_f32 below) */
rt_status rt_amax_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS);

/* ---- normalization ------------------------------------------------------ */

rt_status rt_softmax_f32(int32_t dim, RT_F32_UNARY_TENSORS);
rt_status rt_log_softmax_f32(int32_t dim, RT_F32_UNARY_TENSORS);
/* native_layer_norm over the last norm_ndim dims. weight/bias optional and
 * have that trailing shape. mean/rstd are optional outputs ([..., 1, ...],
 * one value per normalized row); rstd = 1/sqrt(var_biased + eps). */
rt_status rt_layer_norm_f32(int32_t norm_ndim, float eps,
                            const rt_shape *in_s, const float *in,
                            const rt_shape *w_s, const float *w,
                            const rt_shape *b_s, const float *b,
                            const rt_shape *out_s, float *out,
                            const rt_shape *mean_s, float *mean,
                            const rt_shape *rstd_s, float *rstd);
/* _native_batch_norm_legit_no_training, output 0 only. in [N,C,...]
 * (rank >= 2), channel dim 1; weight/bias optional, all params [C]. */
rt_status rt_batch_norm_f32(float eps, const rt_shape *in_s, const float *in,
                            const rt_shape *w_s, const float *w,
                            const rt_shape *b_s, const float *b,
                            const rt_shape *mean_s, const float *mean,
                            const rt_shape *var_s, const float *var,
                            const rt_shape *out_s, float *out);

/* ---- shape / data movement ---------------------------------------------- */

/* cat of n_in float32 tensors along dim: in_s[i], in[i] for i < n_in. An input with no
 * elements and another rank than out's (torch's legacy empty 1-D tensor) takes no part. */
rt_status rt_cat_f32(int32_t dim, int32_t n_in, const rt_shape *in_s,
                     const void *const *in, const rt_shape *out_s,
                     float *out);
/* out.d[i] = in.d[perm[i]]; perm has in.rank entries (negatives allowed) */
rt_status rt_permute_f32(const int32_t *perm, RT_F32_UNARY_TENSORS);
/* aten.slice: start/end are clamped as PyTorch does (negative = from end),
 * step >= 1. split/chunk/narrow/select are slices; out's shape may keep or
 * drop the sliced dim, only its element count is checked. */
rt_status rt_slice_f32(int32_t dim, int32_t start, int32_t end, int32_t step, RT_F32_UNARY_TENSORS);
/* view_copy / reshape / squeeze / unsqueeze / flatten / clone: same numel,
 * memmove (in and out may overlap). Variants per element type (bool = u8). */
rt_status rt_copy_f32(RT_F32_UNARY_TENSORS);
rt_status rt_copy_u8(const rt_shape *in_s, const void *in, /* any 1-byte dtype */
                     const rt_shape *out_s, void *out);
rt_status rt_copy_i32(const rt_shape *in_s, const int32_t *in,
                      const rt_shape *out_s, int32_t *out);
rt_status rt_copy_i64(const rt_shape *in_s, const int64_t *in,
                      const rt_shape *out_s, int64_t *out);
/* _to_copy / .to(dtype): out[i] = in[i] converted from in_dtype to out_dtype
 * (rt_dtype values; the same dtype is a plain copy). Float to an integer
 * type truncates toward zero and saturates at the type's range (NaN gives
 * 0); integers narrow by wrapping, as PyTorch does; any nonzero value gives
 * bool 1. in and out may be the same buffer only when the dtypes have the
 * same size. */
rt_status rt_to_copy(int32_t in_dtype, int32_t out_dtype,
                     const rt_shape *in_s, const void *in,
                     const rt_shape *out_s, void *out);
/* expand: broadcast in to out (size-1 or missing leading dims repeat). */
rt_status rt_expand(int32_t elem_size, const rt_shape *in_s, const void *in,
                    const rt_shape *out_s, void *out);

/* Constant padding: before[i] elements added before dim i (rank entries, in dim order;
 * negative crops), the amount after dim i being out.d[i] - in.d[i] - before[i], filled with
 * value. (PyTorch's pad list [last_lo, last_hi, prev_lo, ...] is reordered by the caller.) */
rt_status rt_constant_pad_f32(const int32_t *before, float value, RT_F32_UNARY_TENSORS);

/* ---- logic and creation (any dtype, given as an rt_dtype) --------------- */

/* out = !in: 1 where in is zero (NaN is nonzero), else 0; in of any dtype. */
rt_status rt_logical_not(int32_t in_dtype, const rt_shape *in_s, const void *in,
                         const rt_shape *out_s, uint8_t *out);
/* out = whether any element over the dims in dim_mask is nonzero (see the
 * reduce section for dim_mask; an empty reduction gives 0). */
rt_status rt_any(int32_t in_dtype, uint32_t dim_mask, const rt_shape *in_s,
                 const void *in, const rt_shape *out_s, uint8_t *out);
/* out[i] = value, converted to dtype as numpy's astype does on x86-64 (float32 rounded to
 * nearest; int64 truncated, INT64_MIN out of range or NaN; narrower ints through int32 the
 * same way, then their low bits): full, full_like, zeros, ones, scalar_tensor, fill. */
rt_status rt_full(int32_t dtype, double value, const rt_shape *out_s, void *out);

/* arange: out[i] = start + i * step in dtype, computed as torch's CPU kernel computes it on an
 * x86-64 host (its AVX2 kernel, compiled with fused multiply-adds): over the first whole pairs
 * of runs of RT_ARANGE_LANES lanes, value i = fma(lane, step, fma(step, i - lane, start)), the
 * rest fma(step, i, start); then converted as rt_full converts. With a whole start and step
 * (the usual arange) every value is exact, so any host agrees; a fractional step matches a
 * host whose torch has these lanes (ARM64 hosts have 2). Above 2048 values torch splits the
 * range among its threads, each part run as above: one part is assumed. The fma is exact,
 * with no libm. At most RT_ARANGE_MAX values. */
#ifndef RT_ARANGE_LANES
#define RT_ARANGE_LANES 4
#endif
#define RT_ARANGE_MAX ((int64_t)1 << 20)
rt_status rt_arange(int32_t dtype, double start, double step, const rt_shape *out_s,
                    void *out);
/* How many values torch.arange(start, end, step) has, ceil((end - start) / step); -1 where
 * torch refuses (a zero or NaN step, an infinite bound, a step of the wrong sign) or there are
 * more than RT_ARANGE_MAX. Both generators check out's size against it. */
int64_t rt_arange_numel(double start, double end, double step);

/* ---- misc --------------------------------------------------------------- */

/* upsample_nearest2d, in/out [N,C,H,W]: src = min(floor(dst * scale),
 * in - 1), with out == in and out == 2*in special-cased like PyTorch.
 * scale_h/w: the float PyTorch uses, float(1.0 / scale_factor) when a
 * scale factor was given, or 0 to use in_size / out_size. */
rt_status rt_upsample_nearest2d_f32(float scale_h, float scale_w, RT_F32_UNARY_TENSORS);

/* embedding: out[..., D] = weight[idx[...], :], weight [V, D], idx of int64 or int32
 * (idx_dtype, an rt_dtype). Returns RT_ERR_INDEX (out partly written) on an index outside
 * [0, V). */
rt_status rt_embedding_f32(int32_t idx_dtype, const rt_shape *w_s, const float *w,
                           const rt_shape *idx_s, const void *idx,
                           const rt_shape *out_s, float *out);

/* ---- elementwise math (rounding, powers, remainders, logs) -------------- */

/* unary, in and out with the same number of elements: 1/x; ceil, floor, trunc; round (halves
 * to even); log2, log10, log1p, expm1, erf; sign (+-0 and NaN give 0) */
rt_status rt_reciprocal_f32(RT_F32_UNARY_TENSORS);
rt_status rt_ceil_f32(RT_F32_UNARY_TENSORS);
rt_status rt_floor_f32(RT_F32_UNARY_TENSORS);
rt_status rt_trunc_f32(RT_F32_UNARY_TENSORS);
rt_status rt_round_f32(RT_F32_UNARY_TENSORS);
rt_status rt_log2_f32(RT_F32_UNARY_TENSORS);
rt_status rt_log10_f32(RT_F32_UNARY_TENSORS);
rt_status rt_log1p_f32(RT_F32_UNARY_TENSORS);
rt_status rt_expm1_f32(RT_F32_UNARY_TENSORS);
rt_status rt_erf_f32(RT_F32_UNARY_TENSORS);
rt_status rt_sign_f32(RT_F32_UNARY_TENSORS);

/* ELU: in <= 0 ? scale * alpha * expm1(input_scale * in) : scale * in */
rt_status rt_elu_f32(float alpha, float scale, float input_scale, RT_F32_UNARY_TENSORS);

/* binary with numpy broadcasting, and with a number as the second operand:
 * pow (a ** b), div_floor (floor(a / b), Python's //), div_trunc (trunc(a / b)),
 * remainder (sign of b, Python's %), fmod (sign of a, C's fmod) */
rt_status rt_pow_f32(RT_F32_BINARY_TENSORS);
rt_status rt_pow_scalar_f32(float other, RT_F32_UNARY_TENSORS);
rt_status rt_div_floor_f32(RT_F32_BINARY_TENSORS);
rt_status rt_div_floor_scalar_f32(float other, RT_F32_UNARY_TENSORS);
rt_status rt_div_trunc_f32(RT_F32_BINARY_TENSORS);
rt_status rt_div_trunc_scalar_f32(float other, RT_F32_UNARY_TENSORS);
rt_status rt_remainder_f32(RT_F32_BINARY_TENSORS);
rt_status rt_remainder_scalar_f32(float other, RT_F32_UNARY_TENSORS);
rt_status rt_fmod_f32(RT_F32_BINARY_TENSORS);
rt_status rt_fmod_scalar_f32(float other, RT_F32_UNARY_TENSORS);
/* out = base ** in */
rt_status rt_pow_base_scalar_f32(float base, RT_F32_UNARY_TENSORS);

/* int64 arithmetic (torch's integer semantics: wrapping overflow; floor division and
 * remainder toward -inf, trunc division and fmod toward 0); a zero divisor is RT_ERR_PARAM.
 * add/sub compute a +- alpha * b; alpha is ignored by the other ops. */
typedef enum rt_int_op {
    RT_INT_ADD = 0,
    RT_INT_SUB = 1,
    RT_INT_MUL = 2,
    RT_INT_DIV_FLOOR = 3,
    RT_INT_DIV_TRUNC = 4,
    RT_INT_REMAINDER = 5,
    RT_INT_FMOD = 6,
    RT_INT_MAXIMUM = 7,
    RT_INT_MINIMUM = 8
} rt_int_op;

rt_status rt_int_binary_i64(int32_t op, int64_t alpha,
                            const rt_shape *a_s, const int64_t *a,
                            const rt_shape *b_s, const int64_t *b,
                            const rt_shape *out_s, int64_t *out);
rt_status rt_int_binary_scalar_i64(int32_t op, int64_t other, int64_t alpha,
                                   const rt_shape *in_s, const int64_t *in,
                                   const rt_shape *out_s, int64_t *out);
rt_status rt_abs_i64(const rt_shape *in_s, const int64_t *in,
                     const rt_shape *out_s, int64_t *out);
rt_status rt_neg_i64(const rt_shape *in_s, const int64_t *in,
                     const rt_shape *out_s, int64_t *out);
/* out = min(max(in, lo), hi) */
rt_status rt_clamp_i64(int64_t lo, int64_t hi, const rt_shape *in_s, const int64_t *in,
                       const rt_shape *out_s, int64_t *out);

/* int64 comparisons, bool (uint8_t) out */
typedef enum rt_int_cmp {
    RT_INT_EQ = 0,
    RT_INT_NE = 1,
    RT_INT_LT = 2,
    RT_INT_LE = 3,
    RT_INT_GT = 4,
    RT_INT_GE = 5
} rt_int_cmp;

rt_status rt_int_compare_i64(int32_t cmp, const rt_shape *a_s, const int64_t *a,
                             const rt_shape *b_s, const int64_t *b,
                             const rt_shape *out_s, uint8_t *out);
rt_status rt_int_compare_scalar_i64(int32_t cmp, int64_t other,
                                    const rt_shape *in_s, const int64_t *in,
                                    const rt_shape *out_s, uint8_t *out);

/* ---- end elementwise math ---- */

/* ---- reductions, indexing and scatter ----------------------------------- */

/* amin: as rt_amax_f32, the smallest element */
rt_status rt_amin_f32(uint32_t dim_mask, RT_F32_UNARY_TENSORS);
/* argmax / argmin over one dim (or all: the flattened index), int64 out; the first of equal
 * elements wins and NaN beats every number, as in PyTorch */
rt_status rt_argmax_f32(uint32_t dim_mask, const rt_shape *in_s,
                        const float *in, const rt_shape *out_s, int64_t *out);
rt_status rt_argmin_f32(uint32_t dim_mask, const rt_shape *in_s,
                        const float *in, const rt_shape *out_s, int64_t *out);

/* lower median over dim_mask (one dim or all); NaN if any; indices (optional) the position of
 * the first element equal to it along the reduced dims. O(n^2) per output, no scratch. */
rt_status rt_median_f32(uint32_t dim_mask, const rt_shape *in_s, const float *in,
                        const rt_shape *out_s, float *out,
                        const rt_shape *idx_s, int64_t *indices);
/* running sum along dim (compensated float accumulation); out may be in */
rt_status rt_cumsum_f32(int32_t dim, RT_F32_UNARY_TENSORS);

/* Data movement by index, element-size generic (elem_size bytes per element). Index tensors
 * are int64 or int32, given as an rt_dtype code. */

/* out = the slices of in along dim named by idx (rank <= 1, each in [0, size)) */
rt_status rt_index_select(int32_t elem_size, int32_t dim, int32_t index_dtype,
                          const rt_shape *in_s, const void *in,
                          const rt_shape *idx_s, const void *idx,
                          const rt_shape *out_s, void *out);
/* out = in with dim's coordinate taken from idx (out has idx's shape; torch.gather) */
rt_status rt_gather(int32_t elem_size, int32_t dim, int32_t index_dtype,
                    const rt_shape *in_s, const void *in,
                    const rt_shape *idx_s, const void *idx,
                    const rt_shape *out_s, void *out);
/* out = in reversed along each dim in dim_mask; out must not overlap in */
rt_status rt_flip(int32_t elem_size, uint32_t dim_mask,
                  const rt_shape *in_s, const void *in,
                  const rt_shape *out_s, void *out);
/* out = self with positions start, start + step, ... of dim replaced by src; out may be self */
rt_status rt_slice_scatter(int32_t elem_size, int32_t dim, int32_t start, int32_t step,
                           const rt_shape *self_s, const void *self,
                           const rt_shape *src_s, const void *src,
                           const rt_shape *out_s, void *out);

/* Advanced indexing (aten.index.Tensor, aten.index_put). Entry d < n_idx of the index list
 * indexes dim d of in: index_dtype[d] is RT_DTYPE_I64 / RT_DTYPE_I32, or -1 with NULL data
 * for a dim taken whole (None). The index tensors broadcast together to B; the result is in's
 * other dims with B's dims inserted at bcast_pos (where the first index sits when the index
 * tensors are adjacent, else 0, as numpy). Negative indices count from the end. */
typedef struct rt_index_params {
    int32_t elem_size;
    int32_t n_idx;
    const int32_t *index_dtype;     /* n_idx entries */
    int32_t bcast_pos;
} rt_index_params;

rt_status rt_index(const rt_index_params *p, const rt_shape *in_s, const void *in,
                   const rt_shape *idx_s, const void *const *idx,
                   const rt_shape *out_s, void *out);
/* out = self; out[indices] = values (broadcast to the result shape), the last write winning;
 * accumulate (the tensors float32): out[indices] += values, repeated indices adding up */
rt_status rt_index_put(const rt_index_params *p, int32_t accumulate,
                       const rt_shape *self_s, const void *self,
                       const rt_shape *idx_s, const void *const *idx,
                       const rt_shape *val_s, const void *val,
                       const rt_shape *out_s, void *out);
/* ---- end reductions, indexing and scatter ---- */

/* ---- spatial: resampling, adaptive pooling, padding modes, transposed conv */

/* bilinear resize, NCHW, as torch in float; align_corners 0/1; scale = 1 / scale factor, or
 * <= 0 for in / out */
rt_status rt_upsample_bilinear2d_f32(int32_t align_corners, float scale_h, float scale_w,
                                     RT_F32_UNARY_TENSORS);
/* adaptive pooling to out's size, [N, C, H, W] or [C, H, W] (1-D: H = 1): cell rows
 * floor(o * H / OH) .. ceil((o + 1) * H / OH) - 1. The max variant also gives each cell's
 * flat index y * W + x (int64), unless indices is NULL. */
rt_status rt_adaptive_avg_pool2d_f32(RT_F32_UNARY_TENSORS);
rt_status rt_adaptive_max_pool2d_f32(const rt_shape *in_s, const float *in,
                                     const rt_shape *out_s, float *out,
                                     const rt_shape *idx_s, int64_t *indices);

/* transposed convolution, NCHW (rank 3: 1-D); weight [Cin, Cout / groups, KH, KW]; bias
 * optional. Output size (I - 1) * stride - 2 * pad + dilation * (K - 1) + out_pad + 1. */
typedef struct rt_conv_transpose2d_params {
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    int32_t out_pad_h, out_pad_w;
    int32_t dilation_h, dilation_w;
    int32_t groups;
} rt_conv_transpose2d_params;

rt_status rt_conv_transpose2d_f32(const rt_conv_transpose2d_params *p, RT_F32_LAYER_TENSORS);
/* reflection_pad1d/2d/3d and replication_pad1d/2d/3d, any element size
 * (1, 2, 4 or 8 bytes): out and in have the same rank; output index j of
 * dim i reads input index j - before[i] (before has rank entries, 0 for
 * unpadded dims; negative crops) mirrored about the edges without
 * repeating them (reflect: -1 -> 1, n -> n - 2) or clamped to [0, n - 1]
 * (replicate). RT_ERR_SHAPE if a reflected index would leave the input
 * (torch: padding < the dim's size). */
rt_status rt_reflection_pad(int32_t elem_size, const int32_t *before,
                            const rt_shape *in_s, const void *in,
                            const rt_shape *out_s, void *out);
rt_status rt_replication_pad(int32_t elem_size, const int32_t *before,
                             const rt_shape *in_s, const void *in,
                             const rt_shape *out_s, void *out);
/* ---- end spatial ---- */

#endif /* RT_KERNELS_H */
