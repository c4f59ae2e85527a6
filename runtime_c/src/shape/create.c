/* create.c - the creation kernels: rt_full (full, full_like, zeros, ones, scalar_tensor,
 * fill.Scalar) and rt_arange, with rt_arange_numel, the count both generators check.
 *
 * A value becomes out's dtype as numpy's astype does on an x86-64 host (the static C generator
 * once converted it that way, and the op suite's references still do): to float32 rounded to
 * nearest; to int64 truncated, INT64_MIN outside its range (and NaN); to the narrower ints
 * through int32 the same way (INT32_MIN outside its range), then its low bits (bool and uint8
 * are numpy uint8: 2.0 stays 2, -1.0 is 255). */
#include "../core/rt_internal.h"

/* One element of any dtype; every member starts at its first byte. */
typedef union rt_value {
    float f;
    int64_t i64;
    int32_t i32;
    uint16_t u16;
    uint8_t u8;
} rt_value;

/* d as an element of dtype, and that dtype's size in bytes (0: a dtype this file lacks) */
static int32_t astype(double d, int32_t dtype, rt_value *v)
{
    int32_t w;
    memset(v, 0, sizeof *v);
    if (dtype == RT_DTYPE_F32) {
        v->f = (float)d;
        return 4;
    }
    if (dtype == RT_DTYPE_I64) {
        v->i64 = d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (int64_t)d
                                                                            : INT64_MIN;
        return 8;
    }
    w = d > -2147483649.0 && d < 2147483648.0 ? (int32_t)d : INT32_MIN;
    switch (dtype) {
    case RT_DTYPE_I32:
        v->i32 = w;
        return 4;
    case RT_DTYPE_I16:
        v->u16 = (uint16_t)((uint32_t)w & 0xffffu);
        return 2;
    case RT_DTYPE_I8:
    case RT_DTYPE_U8:
    case RT_DTYPE_BOOL:
        v->u8 = (uint8_t)((uint32_t)w & 0xffu);
        return 1;
    default:
        return 0;
    }
}

rt_status rt_full(int32_t dtype, double value, const rt_shape *out_s, void *out)
{
    const int32_t n = rt_shape_numel(out_s);
    uint8_t *dst = (uint8_t *)out;
    rt_value v;
    const int32_t size = astype(value, dtype, &v);
    int32_t i;
    RT_CHECK(out != NULL, RT_ERR_NULL);
    RT_CHECK(size > 0, RT_ERR_PARAM);
    RT_CHECK(n >= 0, RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        memcpy(dst + (size_t)i * (size_t)size, &v, (size_t)size);
    }
    return RT_OK;
}

/* ---- arange ------------------------------------------------------------------------------ */

/* x rounded to double now: keeps the compiler from contracting a product into a later add */
static double rn(double x)
{
    volatile double v = x;
    return v;
}

/* ceil(x) without libm (only compared with a count) */
static double ceil_of(double x)
{
    double t;
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) { /* 2^52: whole, or NaN */
        return x;
    }
    t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

int64_t rt_arange_numel(double start, double end, double step)
{
    double n;
    if (!(step > 0.0 || step < 0.0) || !(start - start == 0.0) || !(end - end == 0.0) ||
        !((step > 0.0 && end >= start) || (step < 0.0 && end <= start))) {
        return -1; /* torch.arange refuses: a zero or NaN step, an infinite bound, the wrong sign */
    }
    n = ceil_of(rn((end - start) / step));
    return n <= (double)RT_ARANGE_MAX ? (int64_t)n : -1;
}

/* Knuth's TwoSum: s + *e == a + b exactly */
static double two_sum(double a, double b, double *e)
{
    const double s = rn(a + b);
    const double bb = rn(s - a);
    *e = rn(rn(a - rn(s - bb)) + rn(b - bb));
    return s;
}

/* x + y rounded to odd: exact, else the neighbour whose last significand bit is 1 */
static double add_odd(double x, double y)
{
    double e;
    double s = two_sum(x, y, &e);
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
 * sums: proved algorithms using rounding to odd", 2008). No libm. */
static double fma_k(double a, int64_t k, double c)
{
    const double kd = (double)k;
    double p, t, ah, al, err, uh, ul, th, tl;
    if (k == 0 || a == 0.0 || !(a > -1e300 && a < 1e300)) {
        return rn(a * kd) + c; /* an exact product: one rounding, IEEE's zero signs (and steps
                                * too large to split, which make no real arange) */
    }
    p = rn(a * kd);
    t = rn(134217729.0 * a); /* 2^27 + 1 */
    ah = rn(t - rn(t - a));
    al = rn(a - ah);
    err = rn(rn(rn(ah * kd) - p) + rn(al * kd));
    uh = two_sum(err, c, &ul);
    th = two_sum(p, uh, &tl);
    return rn(th + add_odd(tl, ul));
}

rt_status rt_arange(int32_t dtype, double start, double step, const rt_shape *out_s, void *out)
{
    const int64_t numel = rt_shape_numel(out_s);
    const int64_t n_vec = numel / (2 * RT_ARANGE_LANES) * (2 * RT_ARANGE_LANES);
    uint8_t *dst = (uint8_t *)out;
    rt_value v;
    int64_t i;
    RT_CHECK(out != NULL || numel == 0, RT_ERR_NULL);
    RT_CHECK(astype(0.0, dtype, &v) > 0, RT_ERR_PARAM);
    RT_CHECK(numel >= 0 && numel <= RT_ARANGE_MAX, RT_ERR_SHAPE);
    for (i = 0; i < numel; ++i) {
        const int64_t lane = i % RT_ARANGE_LANES;
        const double x = i < n_vec ? fma_k(step, lane, fma_k(step, i - lane, start))
                                   : fma_k(step, i, start);
        const int32_t size = astype(x, dtype, &v);
        memcpy(dst + (size_t)i * (size_t)size, &v, (size_t)size);
    }
    return RT_OK;
}
