/* op_elementwise.c - interpreter adapters of the elementwise ops: add/sub/mul/div (tensor and
 * number operands), comparisons, where, maximum/minimum, the unary ops and activations (gelu,
 * leaky_relu, hardtanh, clamp, elu), pow, remainder, fmod and div with a rounding mode.
 *
 * Each adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py, the function named in each comment) and
 * calls the same kernel with the same parameters, so the results are bit for bit the static
 * C's: int64 tensors take rt_int_binary_i64 / rt_int_compare_i64 / rt_clamp_i64 with the
 * renderer's op codes, float32 tensors the rt_<op>_f32 kernels. Statuses: see op_args.h.
 */
#include "op_args.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_add_out(const rt_pte_call *c);
rt_status rt_op_aten_sub_out(const rt_pte_call *c);
rt_status rt_op_aten_mul_out(const rt_pte_call *c);
rt_status rt_op_aten_div_out(const rt_pte_call *c);
rt_status rt_op_aten_add_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_sub_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_mul_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_div_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_rsub_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_eq_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_ne_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_lt_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_le_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_gt_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_ge_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_eq_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_ne_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_lt_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_le_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_gt_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_ge_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_where_self_out(const rt_pte_call *c);
rt_status rt_op_aten_maximum_out(const rt_pte_call *c);
rt_status rt_op_aten_minimum_out(const rt_pte_call *c);
rt_status rt_op_aten_relu_out(const rt_pte_call *c);
rt_status rt_op_aten_sigmoid_out(const rt_pte_call *c);
rt_status rt_op_aten_tanh_out(const rt_pte_call *c);
rt_status rt_op_aten_hardswish_out(const rt_pte_call *c);
rt_status rt_op_aten_hardsigmoid_out(const rt_pte_call *c);
rt_status rt_op_aten_abs_out(const rt_pte_call *c);
rt_status rt_op_aten_neg_out(const rt_pte_call *c);
rt_status rt_op_aten_exp_out(const rt_pte_call *c);
rt_status rt_op_aten_log_out(const rt_pte_call *c);
rt_status rt_op_aten_sqrt_out(const rt_pte_call *c);
rt_status rt_op_aten_rsqrt_out(const rt_pte_call *c);
rt_status rt_op_aten_sin_out(const rt_pte_call *c);
rt_status rt_op_aten_cos_out(const rt_pte_call *c);
rt_status rt_op_aten_reciprocal_out(const rt_pte_call *c);
rt_status rt_op_aten_ceil_out(const rt_pte_call *c);
rt_status rt_op_aten_floor_out(const rt_pte_call *c);
rt_status rt_op_aten_trunc_out(const rt_pte_call *c);
rt_status rt_op_aten_round_out(const rt_pte_call *c);
rt_status rt_op_aten_log2_out(const rt_pte_call *c);
rt_status rt_op_aten_log10_out(const rt_pte_call *c);
rt_status rt_op_aten_log1p_out(const rt_pte_call *c);
rt_status rt_op_aten_expm1_out(const rt_pte_call *c);
rt_status rt_op_aten_erf_out(const rt_pte_call *c);
rt_status rt_op_aten_sign_out(const rt_pte_call *c);
rt_status rt_op_aten_gelu_out(const rt_pte_call *c);
rt_status rt_op_aten_leaky_relu_out(const rt_pte_call *c);
rt_status rt_op_aten_hardtanh_out(const rt_pte_call *c);
rt_status rt_op_aten_clamp_out(const rt_pte_call *c);
rt_status rt_op_aten_elu_out(const rt_pte_call *c);
rt_status rt_op_aten_pow_Tensor_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_div_out_mode(const rt_pte_call *c);
rt_status rt_op_aten_remainder_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_fmod_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_pow_Tensor_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_div_Scalar_mode_out(const rt_pte_call *c);
rt_status rt_op_aten_remainder_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_fmod_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_pow_Scalar_out(const rt_pte_call *c);

typedef rt_status (*bin_f32)(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                             const float *b, const rt_shape *out_s, float *out);
typedef rt_status (*scalar_f32)(float other, const rt_shape *in_s, const float *in,
                                const rt_shape *out_s, float *out);
typedef rt_status (*cmp_f32)(const rt_shape *a_s, const float *a, const rt_shape *b_s,
                             const float *b, const rt_shape *out_s, uint8_t *out);
typedef rt_status (*cmp_scalar_f32)(float other, const rt_shape *in_s, const float *in,
                                    const rt_shape *out_s, uint8_t *out);
typedef rt_status (*unary_f32)(const rt_shape *in_s, const float *in, const rt_shape *out_s,
                               float *out);
typedef rt_status (*unary_i64)(const rt_shape *in_s, const int64_t *in, const rt_shape *out_s,
                               int64_t *out);

/* No int64 kernel for the op (kernels.py: op not in _INT_OPS). */
#define NO_INT (-1)
/* No such argument. */
#define NO_ARG (-1)

/* The float kernels with alpha (their own signatures); every other op passes its kernel. */
enum { OP_ADD, OP_SUB, OP_RSUB, OP_OTHER };

/* ---- tensor with tensor: binary, maximum_minimum, math_binary ------------------------------ */

/* self (arg 0) with the tensor at `other`, broadcasting; `alpha` the alpha argument (add,
 * sub) or NO_ARG; out at `out_i`. int64 self: rt_int_binary_i64(int_op) (_int_binary). */
static rt_status tensor_tensor(const rt_pte_call *c, int kind, bin_f32 fn, int32_t int_op,
                               int32_t alpha, int32_t other, int32_t out_i)
{
    rt_pte_tensor a, b, out;
    RT_TRY(op_tensor(c, 0, &a));
    if (a.dtype == OP_I64) {
        int64_t alpha_i = 1;
        if (int_op == NO_INT) {
            return RT_ERR_PTE_UNSUPPORTED;
        }
        if (alpha != NO_ARG) {
            RT_TRY(op_int_scalar(c, alpha, &alpha_i));
        }
        RT_TRY(rt_pte_arg_tensor(c, other, OP_I64, &b));
        RT_TRY(rt_pte_arg_tensor(c, out_i, OP_I64, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_int_binary_i64(int_op, alpha_i, &a.shape, a.data, &b.shape, b.data,
                                 &out.shape, out.data);
    } else {
        float alpha_f = 1.0f;
        if (alpha != NO_ARG) {
            RT_TRY(op_float(c, alpha, &alpha_f));
        }
        if (a.dtype != OP_F32) {
            return RT_ERR_PTE_DTYPE;
        }
        RT_TRY(rt_pte_arg_tensor(c, other, OP_F32, &b));
        RT_TRY(rt_pte_arg_tensor(c, out_i, OP_F32, &out));
        if (c->check) {
            return RT_OK;
        }
        switch (kind) {
        case OP_ADD: /* a producer: the activation fused into it, or none (ctx.act_ptr) */
            return rt_add_f32(c->act.on ? &c->act : NULL, alpha_f, &a.shape, a.data, &b.shape,
                              b.data, &out.shape, out.data);
        case OP_SUB:
            return rt_sub_f32(alpha_f, &a.shape, a.data, &b.shape, b.data, &out.shape,
                              out.data);
        default:
            return fn(&a.shape, a.data, &b.shape, b.data, &out.shape, out.data);
        }
    }
}

/* binary: add.out / sub.out (self, other, alpha, out), mul.out / div.out (self, other, out) */
rt_status rt_op_aten_add_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_ADD, NULL, RT_INT_ADD, 2, 1, 3);
}

rt_status rt_op_aten_sub_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_SUB, NULL, RT_INT_SUB, 2, 1, 3);
}

rt_status rt_op_aten_mul_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_mul_f32, RT_INT_MUL, NO_ARG, 1, 2);
}

rt_status rt_op_aten_div_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_div_f32, NO_INT, NO_ARG, 1, 2);
}

/* maximum_minimum */
rt_status rt_op_aten_maximum_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_maximum_f32, RT_INT_MAXIMUM, NO_ARG, 1, 2);
}

rt_status rt_op_aten_minimum_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_minimum_f32, RT_INT_MINIMUM, NO_ARG, 1, 2);
}

/* math_binary: pow.Tensor_Tensor_out (self, exponent, out), remainder / fmod .Tensor_out
 * (self, other, out), div.out_mode (self, other, rounding_mode, out) */
rt_status rt_op_aten_pow_Tensor_Tensor_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_pow_f32, NO_INT, NO_ARG, 1, 2);
}

rt_status rt_op_aten_remainder_Tensor_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_remainder_f32, RT_INT_REMAINDER, NO_ARG, 1, 2);
}

rt_status rt_op_aten_fmod_Tensor_out(const rt_pte_call *c)
{
    return tensor_tensor(c, OP_OTHER, rt_fmod_f32, RT_INT_FMOD, NO_ARG, 1, 2);
}

/* kernels.py's _div_fn: rounding_mode None (true division), "floor" or "trunc" (else
 * ARGS), as 0, 1, 2. */
static rt_status div_mode(const rt_pte_call *c, int32_t i, int *mode)
{
    const char *s;
    uint32_t len;
    *mode = 0;
    if (rt_pte_arg_is_none(c, i)) {
        return RT_OK;
    }
    RT_TRY(rt_pte_arg_string(c, i, &s, &len));
    if (op_str_is(s, len, "floor")) {
        *mode = 1;
    } else if (op_str_is(s, len, "trunc")) {
        *mode = 2;
    } else {
        return RT_ERR_PTE_ARGS;
    }
    return RT_OK;
}

rt_status rt_op_aten_div_out_mode(const rt_pte_call *c)
{
    static const bin_f32 fns[3] = {rt_div_f32, rt_div_floor_f32, rt_div_trunc_f32};
    static const int32_t ints[3] = {NO_INT, RT_INT_DIV_FLOOR, RT_INT_DIV_TRUNC};
    int mode;
    RT_TRY(div_mode(c, 2, &mode));
    return tensor_tensor(c, OP_OTHER, fns[mode], ints[mode], NO_ARG, 1, 3);
}

/* ---- tensor with a number: binary_scalar, math_binary_scalar ------------------------------- */

/* self (arg 0) with the number at arg 1 (alpha at `alpha` or NO_ARG), out at `out_i`. int64
 * self: rt_int_binary_scalar_i64(int_op) (_int_binary_scalar). */
static rt_status tensor_scalar(const rt_pte_call *c, int kind, scalar_f32 fn, int32_t int_op,
                               int32_t alpha, int32_t out_i)
{
    rt_pte_tensor a, out;
    RT_TRY(op_tensor(c, 0, &a));
    if (a.dtype == OP_I64) {
        int64_t alpha_i = 1, other_i;
        if (int_op == NO_INT) {
            return RT_ERR_PTE_UNSUPPORTED;
        }
        if (alpha != NO_ARG) {
            RT_TRY(op_int_scalar(c, alpha, &alpha_i));
        }
        RT_TRY(op_int_scalar(c, 1, &other_i));
        RT_TRY(rt_pte_arg_tensor(c, out_i, OP_I64, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_int_binary_scalar_i64(int_op, other_i, alpha_i, &a.shape, a.data,
                                        &out.shape, out.data);
    } else {
        float other_f, alpha_f = 1.0f;
        RT_TRY(op_float(c, 1, &other_f));
        if (alpha != NO_ARG) {
            RT_TRY(op_float(c, alpha, &alpha_f));
        }
        if (a.dtype != OP_F32) {
            return RT_ERR_PTE_DTYPE;
        }
        RT_TRY(rt_pte_arg_tensor(c, out_i, OP_F32, &out));
        if (c->check) {
            return RT_OK;
        }
        switch (kind) {
        case OP_ADD:
            return rt_add_scalar_f32(other_f, alpha_f, &a.shape, a.data, &out.shape, out.data);
        case OP_SUB:
            return rt_sub_scalar_f32(other_f, alpha_f, &a.shape, a.data, &out.shape, out.data);
        case OP_RSUB:
            return rt_rsub_scalar_f32(other_f, alpha_f, &a.shape, a.data, &out.shape,
                                      out.data);
        default:
            return fn(other_f, &a.shape, a.data, &out.shape, out.data);
        }
    }
}

/* binary_scalar: add / sub / rsub .Scalar_out (self, other, alpha, out), mul / div
 * .Scalar_out (self, other, out) */
rt_status rt_op_aten_add_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_ADD, NULL, RT_INT_ADD, 2, 3);
}

rt_status rt_op_aten_sub_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_SUB, NULL, RT_INT_SUB, 2, 3);
}

rt_status rt_op_aten_rsub_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_RSUB, NULL, NO_INT, 2, 3);
}

rt_status rt_op_aten_mul_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_OTHER, rt_mul_scalar_f32, RT_INT_MUL, NO_ARG, 2);
}

rt_status rt_op_aten_div_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_OTHER, rt_div_scalar_f32, NO_INT, NO_ARG, 2);
}

/* math_binary_scalar: pow.Tensor_Scalar_out (self, exponent, out), remainder / fmod
 * .Scalar_out (self, other, out), div.Scalar_mode_out (self, other, rounding_mode, out) */
rt_status rt_op_aten_pow_Tensor_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_OTHER, rt_pow_scalar_f32, NO_INT, NO_ARG, 2);
}

rt_status rt_op_aten_remainder_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_OTHER, rt_remainder_scalar_f32, RT_INT_REMAINDER, NO_ARG, 2);
}

rt_status rt_op_aten_fmod_Scalar_out(const rt_pte_call *c)
{
    return tensor_scalar(c, OP_OTHER, rt_fmod_scalar_f32, RT_INT_FMOD, NO_ARG, 2);
}

rt_status rt_op_aten_div_Scalar_mode_out(const rt_pte_call *c)
{
    static const scalar_f32 fns[3] = {rt_div_scalar_f32, rt_div_floor_scalar_f32,
                                      rt_div_trunc_scalar_f32};
    static const int32_t ints[3] = {NO_INT, RT_INT_DIV_FLOOR, RT_INT_DIV_TRUNC};
    int mode;
    RT_TRY(div_mode(c, 2, &mode));
    return tensor_scalar(c, OP_OTHER, fns[mode], ints[mode], NO_ARG, 3);
}

/* pow_base_scalar: pow.Scalar_out (self: a number, exponent, out) */
rt_status rt_op_aten_pow_Scalar_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float base;
    RT_TRY(op_float(c, 0, &base));
    RT_TRY(rt_pte_arg_tensor(c, 1, OP_F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_pow_base_scalar_f32(base, &x.shape, x.data, &out.shape, out.data);
}

/* ---- comparisons: compare, compare_scalar ---------------------------------------------------- */

/* .Tensor_out (self, other, out): bool out. */
static rt_status compare(const rt_pte_call *c, int32_t cmp, cmp_f32 fn)
{
    rt_pte_tensor a, b, out;
    RT_TRY(op_tensor(c, 0, &a));
    if (a.dtype == OP_I64) {
        RT_TRY(rt_pte_arg_tensor(c, 1, OP_I64, &b));
        RT_TRY(rt_pte_arg_tensor(c, 2, OP_BOOL, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_int_compare_i64(cmp, &a.shape, a.data, &b.shape, b.data, &out.shape,
                                  out.data);
    }
    if (a.dtype != OP_F32) {
        return RT_ERR_PTE_DTYPE;
    }
    RT_TRY(rt_pte_arg_tensor(c, 1, OP_F32, &b));
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_BOOL, &out));
    if (c->check) {
        return RT_OK;
    }
    return fn(&a.shape, a.data, &b.shape, b.data, &out.shape, out.data);
}

/* .Scalar_out (self, other, out): an int64 tensor against a whole number only. */
static rt_status compare_scalar(const rt_pte_call *c, int32_t cmp, cmp_scalar_f32 fn)
{
    rt_pte_tensor a, out;
    double v;
    RT_TRY(op_tensor(c, 0, &a));
    RT_TRY(rt_pte_arg_double(c, 1, &v));
    if (a.dtype == OP_I64) {
        int64_t w;
        RT_TRY(op_whole(v, &w));
        RT_TRY(rt_pte_arg_tensor(c, 2, OP_BOOL, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_int_compare_scalar_i64(cmp, w, &a.shape, a.data, &out.shape, out.data);
    }
    if (a.dtype != OP_F32) {
        return RT_ERR_PTE_DTYPE;
    }
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_BOOL, &out));
    if (c->check) {
        return RT_OK;
    }
    return fn(op_f32(v), &a.shape, a.data, &out.shape, out.data);
}

rt_status rt_op_aten_eq_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_EQ, rt_eq_f32);
}

rt_status rt_op_aten_ne_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_NE, rt_ne_f32);
}

rt_status rt_op_aten_lt_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_LT, rt_lt_f32);
}

rt_status rt_op_aten_le_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_LE, rt_le_f32);
}

rt_status rt_op_aten_gt_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_GT, rt_gt_f32);
}

rt_status rt_op_aten_ge_Tensor_out(const rt_pte_call *c)
{
    return compare(c, RT_INT_GE, rt_ge_f32);
}

rt_status rt_op_aten_eq_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_EQ, rt_eq_scalar_f32);
}

rt_status rt_op_aten_ne_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_NE, rt_ne_scalar_f32);
}

rt_status rt_op_aten_lt_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_LT, rt_lt_scalar_f32);
}

rt_status rt_op_aten_le_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_LE, rt_le_scalar_f32);
}

rt_status rt_op_aten_gt_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_GT, rt_gt_scalar_f32);
}

rt_status rt_op_aten_ge_Scalar_out(const rt_pte_call *c)
{
    return compare_scalar(c, RT_INT_GE, rt_ge_scalar_f32);
}

/* where: where.self_out (condition, self, other, out) */
rt_status rt_op_aten_where_self_out(const rt_pte_call *c)
{
    rt_pte_tensor cond, a, b, out;
    RT_TRY(rt_pte_arg_tensor(c, 0, OP_BOOL, &cond));
    RT_TRY(rt_pte_arg_tensor(c, 1, OP_F32, &a));
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_F32, &b));
    RT_TRY(rt_pte_arg_tensor(c, 3, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_where_f32(&cond.shape, cond.data, &a.shape, a.data, &b.shape, b.data,
                        &out.shape, out.data);
}

/* ---- unary: unary, gelu, leaky_relu, hardtanh, clamp, elu ------------------------------------ */

/* (self, out); abs and neg of an int64 tensor take their _i64 kernel (int_fn). */
static rt_status unary(const rt_pte_call *c, unary_f32 fn, unary_i64 int_fn)
{
    rt_pte_tensor x, out;
    RT_TRY(op_tensor(c, 0, &x));
    if (int_fn != NULL && x.dtype == OP_I64) {
        RT_TRY(rt_pte_arg_tensor(c, 1, OP_I64, &out));
        if (c->check) {
            return RT_OK;
        }
        return int_fn(&x.shape, x.data, &out.shape, out.data);
    }
    if (x.dtype != OP_F32) {
        return RT_ERR_PTE_DTYPE;
    }
    RT_TRY(rt_pte_arg_tensor(c, 1, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return fn(&x.shape, x.data, &out.shape, out.data);
}

/* unary: <op>.out (self, out) (the kernels named in full: the runtime index finds them) */
rt_status rt_op_aten_relu_out(const rt_pte_call *c)
{
    return unary(c, rt_relu_f32, NULL);
}

rt_status rt_op_aten_sigmoid_out(const rt_pte_call *c)
{
    return unary(c, rt_sigmoid_f32, NULL);
}

rt_status rt_op_aten_tanh_out(const rt_pte_call *c)
{
    return unary(c, rt_tanh_f32, NULL);
}

rt_status rt_op_aten_hardswish_out(const rt_pte_call *c)
{
    return unary(c, rt_hardswish_f32, NULL);
}

rt_status rt_op_aten_hardsigmoid_out(const rt_pte_call *c)
{
    return unary(c, rt_hardsigmoid_f32, NULL);
}

rt_status rt_op_aten_abs_out(const rt_pte_call *c)
{
    return unary(c, rt_abs_f32, rt_abs_i64);
}

rt_status rt_op_aten_neg_out(const rt_pte_call *c)
{
    return unary(c, rt_neg_f32, rt_neg_i64);
}

rt_status rt_op_aten_exp_out(const rt_pte_call *c)
{
    return unary(c, rt_exp_f32, NULL);
}

rt_status rt_op_aten_log_out(const rt_pte_call *c)
{
    return unary(c, rt_log_f32, NULL);
}

rt_status rt_op_aten_sqrt_out(const rt_pte_call *c)
{
    return unary(c, rt_sqrt_f32, NULL);
}

rt_status rt_op_aten_rsqrt_out(const rt_pte_call *c)
{
    return unary(c, rt_rsqrt_f32, NULL);
}

rt_status rt_op_aten_sin_out(const rt_pte_call *c)
{
    return unary(c, rt_sin_f32, NULL);
}

rt_status rt_op_aten_cos_out(const rt_pte_call *c)
{
    return unary(c, rt_cos_f32, NULL);
}

rt_status rt_op_aten_reciprocal_out(const rt_pte_call *c)
{
    return unary(c, rt_reciprocal_f32, NULL);
}

rt_status rt_op_aten_ceil_out(const rt_pte_call *c)
{
    return unary(c, rt_ceil_f32, NULL);
}

rt_status rt_op_aten_floor_out(const rt_pte_call *c)
{
    return unary(c, rt_floor_f32, NULL);
}

rt_status rt_op_aten_trunc_out(const rt_pte_call *c)
{
    return unary(c, rt_trunc_f32, NULL);
}

rt_status rt_op_aten_round_out(const rt_pte_call *c)
{
    return unary(c, rt_round_f32, NULL);
}

rt_status rt_op_aten_log2_out(const rt_pte_call *c)
{
    return unary(c, rt_log2_f32, NULL);
}

rt_status rt_op_aten_log10_out(const rt_pte_call *c)
{
    return unary(c, rt_log10_f32, NULL);
}

rt_status rt_op_aten_log1p_out(const rt_pte_call *c)
{
    return unary(c, rt_log1p_f32, NULL);
}

rt_status rt_op_aten_expm1_out(const rt_pte_call *c)
{
    return unary(c, rt_expm1_f32, NULL);
}

rt_status rt_op_aten_erf_out(const rt_pte_call *c)
{
    return unary(c, rt_erf_f32, NULL);
}

rt_status rt_op_aten_sign_out(const rt_pte_call *c)
{
    return unary(c, rt_sign_f32, NULL);
}

/* gelu.out (self, approximate, out): "none" (or "") erf, "tanh" the tanh form, else ARGS */
rt_status rt_op_aten_gelu_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    const char *s;
    uint32_t len;
    unary_f32 fn;
    RT_TRY(rt_pte_arg_string(c, 1, &s, &len));
    if (len == 0 || op_str_is(s, len, "none")) {
        fn = rt_gelu_f32;
    } else if (op_str_is(s, len, "tanh")) {
        fn = rt_gelu_tanh_f32;
    } else {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(rt_pte_arg_tensor(c, 0, OP_F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return fn(&x.shape, x.data, &out.shape, out.data);
}

/* leaky_relu.out (self, negative_slope, out) */
rt_status rt_op_aten_leaky_relu_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float slope;
    RT_TRY(op_float(c, 1, &slope));
    RT_TRY(rt_pte_arg_tensor(c, 0, OP_F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 2, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_leaky_relu_f32(slope, &x.shape, x.data, &out.shape, out.data);
}

/* hardtanh.out (self, min_val, max_val, out): rt_clamp_f32 */
rt_status rt_op_aten_hardtanh_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float lo, hi;
    RT_TRY(op_float(c, 1, &lo));
    RT_TRY(op_float(c, 2, &hi));
    RT_TRY(rt_pte_arg_tensor(c, 0, OP_F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 3, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_clamp_f32(lo, hi, &x.shape, x.data, &out.shape, out.data);
}

/* clamp.out (self, min?, max?, out): an absent bound is the type's extreme (int64) or an
 * infinity (float32) */
rt_status rt_op_aten_clamp_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    RT_TRY(op_tensor(c, 0, &x));
    if (x.dtype == OP_I64) {
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (!rt_pte_arg_is_none(c, 1)) {
            RT_TRY(op_int_scalar(c, 1, &lo));
        }
        if (!rt_pte_arg_is_none(c, 2)) {
            RT_TRY(op_int_scalar(c, 2, &hi));
        }
        RT_TRY(rt_pte_arg_tensor(c, 3, OP_I64, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_clamp_i64(lo, hi, &x.shape, x.data, &out.shape, out.data);
    } else {
        float lo = -INFINITY, hi = INFINITY;
        if (!rt_pte_arg_is_none(c, 1)) {
            RT_TRY(op_float(c, 1, &lo));
        }
        if (!rt_pte_arg_is_none(c, 2)) {
            RT_TRY(op_float(c, 2, &hi));
        }
        if (x.dtype != OP_F32) {
            return RT_ERR_PTE_DTYPE;
        }
        RT_TRY(rt_pte_arg_tensor(c, 3, OP_F32, &out));
        if (c->check) {
            return RT_OK;
        }
        return rt_clamp_f32(lo, hi, &x.shape, x.data, &out.shape, out.data);
    }
}

/* elu.out (self, alpha, scale, input_scale, out) */
rt_status rt_op_aten_elu_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float alpha, scale, input_scale;
    RT_TRY(op_float(c, 1, &alpha));
    RT_TRY(op_float(c, 2, &scale));
    RT_TRY(op_float(c, 3, &input_scale));
    RT_TRY(rt_pte_arg_tensor(c, 0, OP_F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 4, OP_F32, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_elu_f32(alpha, scale, input_scale, &x.shape, x.data, &out.shape, out.data);
}
