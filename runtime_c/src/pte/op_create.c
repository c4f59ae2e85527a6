/* op_create.c - interpreter adapters of the logic and creation ops: logical_not, any (all,
 * one dim, a dim list), full / full_like / zeros / ones / scalar_tensor / fill.Scalar, and
 * arange. ExecuTorch's to_edge leaves these in the programs it writes; mcu-aot folds them.
 *
 * Each adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py, the function named in each comment) and
 * produces what the static C produces. The renderers turn a number into a tensor's dtype with
 * numpy (ctx.data_array: np.asarray(values).astype(dtype)); op_astype below is that conversion.
 * Statuses: see op_args.h.
 */
#include "op_args.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_logical_not_out(const rt_pte_call *c);
rt_status rt_op_aten_any_all_out(const rt_pte_call *c);
rt_status rt_op_aten_any_out(const rt_pte_call *c);
rt_status rt_op_aten_any_dims_out(const rt_pte_call *c);
rt_status rt_op_aten_full_like_out(const rt_pte_call *c);
rt_status rt_op_aten_full_out(const rt_pte_call *c);
rt_status rt_op_aten_zeros_out(const rt_pte_call *c);
rt_status rt_op_aten_ones_out(const rt_pte_call *c);
rt_status rt_op_aten_scalar_tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_fill_Scalar_out(const rt_pte_call *c);
rt_status rt_op_aten_arange_out(const rt_pte_call *c);
rt_status rt_op_aten_arange_start_out(const rt_pte_call *c);

/* ---- logic ----------------------------------------------------------------------------------- */

/* logical_not.out (self, out): any dtype in, bool out */
rt_status rt_op_aten_logical_not_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    RT_TRY(op_tensor(c, 0, &x));
    RT_TRY(rt_pte_arg_tensor(c, 1, OP_BOOL, &out));
    if (c->check) {
        return RT_OK;
    }
    return rt_logical_not(x.dtype, &x.shape, x.data, &out.shape, out.data);
}

/* any_: self at arg 0, the reduced dims as a mask, out (bool) at out_i */
static rt_status any(const rt_pte_call *c, const rt_pte_tensor *x, uint32_t mask, int32_t out_i)
{
    rt_pte_tensor out;
    RT_TRY(rt_pte_arg_tensor(c, out_i, OP_BOOL, &out));
    if (c->check) {
        if (out_i == 3) { /* keepdim: only out's shape shows it */
            RT_TRY(rt_pte_kind_bool(c, 2));
        }
        return RT_OK;
    }
    return rt_any(x->dtype, x->shape.rank ? mask : 0u, &x->shape, x->data, &out.shape,
                  out.data);
}

static uint32_t all_dims(int32_t rank)
{
    return (1u << rank) - 1u;
}

/* any.all_out (self, out): every dim */
rt_status rt_op_aten_any_all_out(const rt_pte_call *c)
{
    rt_pte_tensor x;
    RT_TRY(op_tensor(c, 0, &x));
    return any(c, &x, all_dims(x.shape.rank), 1);
}

/* any.out (self, dim, keepdim, out): one dim */
rt_status rt_op_aten_any_out(const rt_pte_call *c)
{
    rt_pte_tensor x;
    int32_t d;
    RT_TRY(op_tensor(c, 0, &x));
    RT_TRY(rt_pte_arg_dim(c, 1, x.shape.rank, &d));
    return any(c, &x, 1u << d, 3);
}

/* any.dims_out (self, dim?, keepdim, out): None is every dim; a list (even empty) its dims */
rt_status rt_op_aten_any_dims_out(const rt_pte_call *c)
{
    rt_pte_tensor x;
    uint32_t mask = 0;
    RT_TRY(op_tensor(c, 0, &x));
    if (rt_pte_arg_is_none(c, 1)) {
        mask = all_dims(x.shape.rank);
    } else {
        int32_t dims[RT_MAX_DIMS], n, k;
        RT_TRY(rt_pte_arg_dims(c, 1, x.shape.rank, dims, &n));
        for (k = 0; k < n; ++k) {
            mask |= 1u << dims[k];
        }
    }
    return any(c, &x, mask, 3);
}

/* ---- creation: fill, arange ------------------------------------------------------------------ */

/* One element of any dtype; every member starts at its first byte. */
typedef union op_value {
    float f;
    int64_t i64;
    int32_t i32;
    uint16_t u16;
    uint8_t u8;
} op_value;

/* np.asarray([d]).astype(dtype) of a float64 on x86-64, as the renderer computes it: to
 * float32 rounded to nearest; to int64 truncated, INT64_MIN outside its range (and NaN); to
 * the narrower ints through int32 the same way (INT32_MIN outside its range), then its low
 * bits (bool and uint8 are numpy uint8: 2.0 stays 2, -1.0 is 255). */
static op_value op_astype(double d, int32_t dtype)
{
    op_value v;
    int32_t w;
    memset(&v, 0, sizeof v);
    if (dtype == OP_F32) {
        v.f = rt_pte_to_f32(d);
        return v;
    }
    if (dtype == OP_I64) {
        v.i64 = d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (int64_t)d
                                                                           : INT64_MIN;
        return v;
    }
    w = d > -2147483649.0 && d < 2147483648.0 ? (int32_t)d : INT32_MIN;
    switch (dtype) {
    case RT_DTYPE_I32:
        v.i32 = w;
        break;
    case RT_DTYPE_I16:
        v.u16 = (uint16_t)((uint32_t)w & 0xffffu);
        break;
    default: /* int8, uint8, bool */
        v.u8 = (uint8_t)((uint32_t)w & 0xffu);
        break;
    }
    return v;
}

/* fill: out (any dtype) at out_i gets `value` (read from arg value_i unless value_i is NO
 * argument, -1) converted to its dtype; rt_fill of the dtype's width */
static rt_status fill(const rt_pte_call *c, int32_t value_i, double value, int32_t out_i)
{
    rt_pte_tensor out;
    op_value v;
    int32_t size;
    RT_TRY(op_tensor(c, out_i, &out));
    if (value_i >= 0) {
        RT_TRY(rt_pte_arg_double(c, value_i, &value));
    }
    RT_TRY(op_elem(out.dtype, &size));
    if (c->check) {
        return RT_OK;
    }
    v = op_astype(value, out.dtype);
    return rt_fill(size, &v, &out.shape, out.data);
}

/* full_like.out (self, fill_value, memory_format?, out) */
rt_status rt_op_aten_full_like_out(const rt_pte_call *c)
{
    if (c->check) {
        RT_TRY(rt_pte_kind_tensor(c, 0));
        RT_TRY(rt_pte_kind_opt_int(c, 2));
    }
    return fill(c, 1, 0.0, 3);
}

/* full.out (size, fill_value, out) */
rt_status rt_op_aten_full_out(const rt_pte_call *c)
{
    if (c->check) {
        RT_TRY(rt_pte_kind_ints(c, 0));
    }
    return fill(c, 1, 0.0, 2);
}

/* zeros.out (size, out) */
rt_status rt_op_aten_zeros_out(const rt_pte_call *c)
{
    if (c->check) {
        RT_TRY(rt_pte_kind_ints(c, 0));
    }
    return fill(c, -1, 0.0, 1);
}

/* ones.out (size, out) */
rt_status rt_op_aten_ones_out(const rt_pte_call *c)
{
    if (c->check) {
        RT_TRY(rt_pte_kind_ints(c, 0));
    }
    return fill(c, -1, 1.0, 1);
}

/* scalar_tensor.out (s, out) */
rt_status rt_op_aten_scalar_tensor_out(const rt_pte_call *c)
{
    return fill(c, 0, 0.0, 1);
}

/* fill.Scalar_out (self, value, out) */
rt_status rt_op_aten_fill_Scalar_out(const rt_pte_call *c)
{
    if (c->check) {
        RT_TRY(rt_pte_kind_tensor(c, 0));
    }
    return fill(c, 1, 0.0, 2);
}

/* arange: the renderer takes torch.arange(start, end, step, dtype=float64) (refusing a zero
 * step and more than 2^20 values) and copies those values, converted to out's dtype, into
 * out. Here they are computed as torch's CPU kernel computes them on an x86-64 host (its AVX2
 * kernel, compiled with fused multiply-adds): over the first whole pairs of runs of
 * RT_PTE_ARANGE_LANES lanes, value i = fma(lane, step, fma(step, i - lane, start)), the rest
 * fma(step, i, start). With a whole start and step (the usual arange) every value is exact, so
 * any host agrees; a fractional step matches a generator host whose torch has these lanes
 * (ARM64 hosts have 2). Above 2048 values torch splits the range among its threads, each part
 * run as above: one part is assumed. The fma is exact (op_fma_k), with no libm. */
#ifndef RT_PTE_ARANGE_LANES
#define RT_PTE_ARANGE_LANES 4
#endif

/* x rounded to double now: keeps the compiler from contracting a product into a later add */
static double op_rn(double x)
{
    volatile double v = x;
    return v;
}

/* Knuth's TwoSum: s + *e == a + b exactly */
static double op_two_sum(double a, double b, double *e)
{
    const double s = op_rn(a + b);
    const double bb = op_rn(s - a);
    *e = op_rn(op_rn(a - op_rn(s - bb)) + op_rn(b - bb));
    return s;
}

/* x + y rounded to odd: exact, else the neighbour whose last significand bit is 1 */
static double op_add_odd(double x, double y)
{
    double e;
    double s = op_two_sum(x, y, &e);
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    if (e == 0.0 || (b & 1u)) {
        return s;
    }
    b = (e > 0.0) == (s > 0.0) ? b + 1u : b - 1u;
    memcpy(&s, &b, sizeof s);
    return s;
}

/* fma(a, k, c) = a * k + c rounded once, for finite a, c and a whole k in [0, 2^21): Dekker's
 * exact product a * k = p + err (a split in halves of 26 and 27 bits), then the correctly
 * rounded sum of p, err and c (Boldo and Melquiond, "Emulation of FMA and correctly rounded
 * sums: proved algorithms using rounding to odd", 2008). */
static double op_fma_k(double a, int64_t k, double c)
{
    const double kd = (double)k;
    double p, t, ah, al, err, uh, ul, th, tl;
    if (k == 0 || a == 0.0 || !(a > -1e300 && a < 1e300)) {
        return op_rn(a * kd) + c; /* an exact product: one rounding, IEEE's zero signs (and
                                   * steps too large to split, which make no real arange) */
    }
    p = op_rn(a * kd);
    t = op_rn(134217729.0 * a); /* 2^27 + 1 */
    ah = op_rn(t - op_rn(t - a));
    al = op_rn(a - ah);
    err = op_rn(op_rn(op_rn(ah * kd) - p) + op_rn(al * kd));
    uh = op_two_sum(err, c, &ul);
    th = op_two_sum(p, uh, &tl);
    return op_rn(th + op_add_odd(tl, ul));
}

/* ceil(x) without libm (only compared with a count) */
static double op_ceil(double x)
{
    double t;
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) { /* 2^52: whole, or NaN */
        return x;
    }
    t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

static rt_status arange(const rt_pte_call *c, int32_t start_i, int32_t end_i, int32_t step_i,
                        int32_t out_i)
{
    rt_pte_tensor out;
    double start = 0.0, end, step = 1.0, size_d;
    int64_t numel, n_vec, i;
    int32_t size;
    RT_TRY(op_tensor(c, out_i, &out));
    if (start_i >= 0) {
        RT_TRY(rt_pte_arg_double(c, start_i, &start));
    }
    RT_TRY(rt_pte_arg_double(c, end_i, &end));
    if (step_i >= 0) {
        RT_TRY(rt_pte_arg_double(c, step_i, &step));
    }
    numel = rt_pte_numel(&out.shape);
    if (step == 0.0 || numel > ((int64_t)1 << 20)) {
        return RT_ERR_PTE_ARGS;
    }
    /* torch.arange's own refusals (step NaN, an infinite bound, a step of the wrong sign) */
    if (!(step > 0.0 || step < 0.0) || !isfinite(start) || !isfinite(end) ||
        !((step > 0.0 && end >= start) || (step < 0.0 && end <= start))) {
        return RT_ERR_PTE_ARGS;
    }
    size_d = op_ceil((end - start) / step);
    if (!(size_d >= 0.0) || size_d != (double)numel) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(op_elem(out.dtype, &size));
    if (c->check) {
        return RT_OK;
    }
    n_vec = numel / (2 * RT_PTE_ARANGE_LANES) * (2 * RT_PTE_ARANGE_LANES);
    for (i = 0; i < numel; ++i) {
        double x;
        op_value v;
        if (i < n_vec) {
            const int64_t lane = i % RT_PTE_ARANGE_LANES;
            x = op_fma_k(step, lane, op_fma_k(step, i - lane, start));
        } else {
            x = op_fma_k(step, i, start);
        }
        v = op_astype(x, out.dtype);
        memcpy((uint8_t *)out.data + (size_t)i * (size_t)size, &v, (size_t)size);
    }
    return RT_OK;
}

/* arange.out (end, out) */
rt_status rt_op_aten_arange_out(const rt_pte_call *c)
{
    return arange(c, -1, 0, -1, 1);
}

/* arange.start_out (start, end, step, out) */
rt_status rt_op_aten_arange_start_out(const rt_pte_call *c)
{
    return arange(c, 0, 1, 2, 3);
}
