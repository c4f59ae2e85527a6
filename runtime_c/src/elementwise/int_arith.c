/* int_arith.c - int64 elementwise arithmetic, as torch computes it for integer tensors (the
 * index arithmetic ExecuTorch's lowering leaves in programs: reflection padding, roll, ...).
 *   rt_int_binary_i64:        out = a <op> b, numpy broadcasting (add and sub: a +- alpha * b);
 *   rt_int_binary_scalar_i64: out = in <op> other;
 *   rt_abs_i64, rt_neg_i64, rt_clamp_i64.
 * Overflow wraps (two's complement), as torch; division by zero is RT_ERR_PARAM (torch raises).
 * Floor division and remainder round toward -inf (Python), trunc division and fmod toward 0. */
#include "../core/rt_internal.h"

static int64_t wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t wrap_mul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* *r = a <op> b; 0, or -1 for a zero divisor. */
static int apply(int32_t op, int64_t alpha, int64_t a, int64_t b, int64_t *r)
{
    int64_t q, m;
    switch (op) {
    case RT_INT_ADD: *r = wrap_add(a, wrap_mul(alpha, b)); return 0;
    case RT_INT_SUB: *r = wrap_sub(a, wrap_mul(alpha, b)); return 0;
    case RT_INT_MUL: *r = wrap_mul(a, b); return 0;
    case RT_INT_MAXIMUM: *r = a > b ? a : b; return 0;
    case RT_INT_MINIMUM: *r = a < b ? a : b; return 0;
    default: break;
    }
    if (b == 0) {
        return -1;
    }
    if (b == -1) {                       /* INT64_MIN / -1 wraps; its remainder is 0 */
        q = wrap_sub(0, a);
        m = 0;
    } else {
        q = a / b;
        m = a % b;
    }
    switch (op) {
    case RT_INT_DIV_TRUNC: *r = q; return 0;
    case RT_INT_FMOD: *r = m; return 0;
    case RT_INT_DIV_FLOOR: *r = (m != 0 && ((m < 0) != (b < 0))) ? q - 1 : q; return 0;
    case RT_INT_REMAINDER: *r = (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; return 0;
    default: return -1;
    }
}

rt_status rt_int_binary_i64(int32_t op, int64_t alpha,
                            const rt_shape *a_s, const int64_t *a,
                            const rt_shape *b_s, const int64_t *b,
                            const rt_shape *out_s, int64_t *out)
{
    const rt_shape *in_s[2];
    rt_bcast it;
    int32_t r, i;
    RT_CHECK(a != NULL && b != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(op >= RT_INT_ADD && op <= RT_INT_MINIMUM, RT_ERR_PARAM);
    in_s[0] = a_s;
    in_s[1] = b_s;
    RT_TRY(rt_bcast_init(&it, 2, in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        const int64_t *pa = a + it.off[0], *pb = b + it.off[1];
        for (i = 0; i < it.inner; ++i) {
            RT_CHECK_DATA(apply(op, alpha, pa[i * it.inner_st[0]], pb[i * it.inner_st[1]],
                                &out[i]) == 0, RT_ERR_PARAM);
        }
        out += it.inner;
        rt_bcast_next(&it);
    }
    return RT_OK;
}

rt_status rt_int_binary_scalar_i64(int32_t op, int64_t other, int64_t alpha,
                                   const rt_shape *in_s, const int64_t *in,
                                   const rt_shape *out_s, int64_t *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(op >= RT_INT_ADD && op <= RT_INT_MINIMUM, RT_ERR_PARAM);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        RT_CHECK_DATA(apply(op, alpha, in[i], other, &out[i]) == 0, RT_ERR_PARAM);
    }
    return RT_OK;
}

rt_status rt_abs_i64(const rt_shape *in_s, const int64_t *in,
                     const rt_shape *out_s, int64_t *out)
{
    int32_t n, i;
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        out[i] = in[i] < 0 ? wrap_sub(0, in[i]) : in[i];
    }
    return RT_OK;
}

rt_status rt_neg_i64(const rt_shape *in_s, const int64_t *in,
                     const rt_shape *out_s, int64_t *out)
{
    int32_t n, i;
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        out[i] = wrap_sub(0, in[i]);
    }
    return RT_OK;
}

rt_status rt_clamp_i64(int64_t lo, int64_t hi, const rt_shape *in_s, const int64_t *in,
                       const rt_shape *out_s, int64_t *out)
{
    int32_t n, i;
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    for (i = 0; i < n; ++i) {
        const int64_t v = in[i] < lo ? lo : in[i];
        out[i] = v > hi ? hi : v;                 /* lo > hi gives hi, as torch */
    }
    return RT_OK;
}
