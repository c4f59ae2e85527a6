/* Single-precision math for firmware without a C library, and for the host board too, so
 * every board computes bit-identical results.
 *
 * Accuracy against the correctly rounded result (tests/qemu/test_libc_min.py sweeps it):
 * sqrtf, fabsf, floorf, ceilf, truncf, roundf, rintf, fmodf exact; expf, logf, log2f,
 * log10f, log1pf, expm1f, tanhf, erff, powf within 2 ulp; sinf and cosf within 2 ulp for |x| <= 2^20. Only float
 * arithmetic is used, except in powf (log2(x) * y) and in the sin/cos argument reduction,
 * which need double precision (soft double on FPU-less cores, so they are slower).
 * The erff coefficients come from mathf_fit.py beside this file.
 */
#define MCU_AOT_MATHF_IMPL /* keep math.h from mapping fabsf and sqrtf to builtins here */
#include <math.h>
#include <stdint.h>

static uint32_t bits_of(float x)
{
    union { float f; uint32_t u; } v = {x};
    return v.u;
}

static float from_bits(uint32_t u)
{
    union { uint32_t u; float f; } v = {u};
    return v.f;
}

static float scale2(float y, int k) /* y * 2^k for k in [-252, 254] */
{
    if (k > 127) { y *= 0x1p127f; k -= 127; }
    if (k < -126) { y *= 0x1p-100f; k += 100; } /* two steps: one rounding at the end */
    if (k < -126) { y *= 0x1p-100f; k += 100; }
    return y * from_bits((uint32_t)(k + 127) << 23);
}

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^12. */
static const float LN2_HI = 0.693115234375f;     /* 0x3f317000 */
static const float LN2_LO = 3.19461833e-05f;     /* ln 2 - LN2_HI */
static const float INV_LN2 = 1.44269502f;
static const float ROUNDER = 12582912.0f;        /* 1.5 * 2^23: adding it rounds to integer */

float fabsf(float x) { return from_bits(bits_of(x) & 0x7fffffffu); }

float copysignf(float x, float y)
{
    return from_bits((bits_of(x) & 0x7fffffffu) | (bits_of(y) & 0x80000000u));
}

float truncf(float x)
{
    uint32_t u = bits_of(x);
    int e = (int)((u >> 23) & 0xffu) - 127;
    if (e >= 23) return x;                       /* integral, inf or nan */
    if (e < 0) return from_bits(u & 0x80000000u); /* |x| < 1: signed zero */
    return from_bits(u & ~(0x7fffffu >> e));
}

float floorf(float x)
{
    float t = truncf(x);
    return (x < 0.0f && t != x) ? t - 1.0f : t;
}

float ceilf(float x)
{
    float t = truncf(x);
    return (x > 0.0f && t != x) ? t + 1.0f : t;
}

float roundf(float x) /* halfway cases away from zero */
{
    float t = truncf(x);
    return fabsf(x - t) >= 0.5f ? t + copysignf(1.0f, x) : t;
}

float rintf(float x) /* halfway cases to even, like torch.round */
{
    float a = fabsf(x);
    if (!(a < 8388608.0f)) return x; /* 2^23 and above are integral; also inf and nan */
    return copysignf((a + 8388608.0f) - 8388608.0f, x);
}

float fminf(float x, float y) { return (y < x || x != x) ? y : x; }
float fmaxf(float x, float y) { return (y > x || x != x) ? y : x; }

__attribute__((optimize("no-math-errno"))) /* else __builtin_sqrtf may call sqrtf */
float sqrtf(float x)
{
#if ((defined(__ARM_FP) && (__ARM_FP & 4)) || defined(__riscv_fsqrt) || defined(__SSE__)) \
    && !defined(MATHF_SOFT_SQRT) /* tests build the software path on the host too */
    return __builtin_sqrtf(x); /* one instruction, correctly rounded (needs -fno-math-errno) */
#else
    /* Bit by bit: floor(sqrt(m * 2^26)) gives 25-26 bits, then round to nearest. */
    uint32_t u = bits_of(x);
    if (u == 0 || u == 0x80000000u || u == 0x7f800000u) return x; /* +-0, +inf */
    if (u > 0x7f800000u) return (x - x) / (x - x);                 /* negative or nan */
    int e = (int)(u >> 23);
    uint32_t m = u & 0x7fffffu;
    if (e == 0) { /* subnormal: normalize */
        e = 1;
        while (!(m & 0x800000u)) { m <<= 1; e--; }
    } else {
        m |= 0x800000u;
    }
    int ex = e - 150; /* x = m * 2^ex */
    if (ex & 1) { m <<= 1; ex--; }
    uint64_t n = (uint64_t)m << 26, root = 0, bit = (uint64_t)1 << 50;
    while (bit > n) bit >>= 2;
    while (bit) {
        if (n >= root + bit) { n -= root + bit; root = (root >> 1) + bit; }
        else root >>= 1;
        bit >>= 2;
    }
    int shift = root >= ((uint64_t)1 << 25) ? 2 : 1;
    uint32_t mant = (uint32_t)(root >> shift);
    int half = (int)((root >> (shift - 1)) & 1u);
    int sticky = (root & ((1u << (shift - 1)) - 1u)) != 0 || n != 0;
    if (half && (sticky || (mant & 1u))) mant++;
    int e2 = (ex - 26) / 2 + shift; /* sqrt(x) = mant * 2^e2 */
    if (mant == 0x1000000u) { mant >>= 1; e2++; }
    return from_bits(((uint32_t)(e2 + 150) << 23) + (mant & 0x7fffffu));
#endif
}

/* e^x = 2^k * (1 + p) with r = x - k ln 2 split as r_hi - r_lo; p keeps r_hi exact. */
float expf(float x)
{
    if (x != x) return x + x;
    if (x > 89.0f) return 0x1p127f * 0x1p127f; /* overflow: inf */
    if (x < -104.0f) return 0.0f;               /* below half the smallest subnormal */
    float kf = (x * INV_LN2 + ROUNDER) - ROUNDER;
    float r_hi = x - kf * LN2_HI; /* exact */
    float r_lo = kf * LN2_LO;
    float r = r_hi - r_lo;
    /* e^r - 1 - r to 6e-9 on |r| < 0.35: Taylor terms up to r^7 */
    float q = r * r * (0.5f + r * (1.66666672e-1f + r * (4.16666679e-2f + r * (8.33333377e-3f
              + r * (1.38888892e-3f + r * 1.98412701e-4f)))));
    float y = 1.0f + (r_hi - (r_lo - q));
    return scale2(y, (int)kf);
}

float expm1f(float x)
{
    float a = fabsf(x);
    if (!(a < 1.0f)) {
        if (x != x) return x + x;
        if (x < -18.0f) return -1.0f; /* e^x below 2^-25 */
        return expf(x) - 1.0f;          /* |e^x - 1| > 0.63: at most a 1.6x error gain */
    }
    if (a < 0x1p-25f) return x;
    /* Taylor series to r^12 (error < 2e-10 on |x| < 1); the leading x is exact */
    float q = x * x * (0.5f + x * (1.66666672e-1f + x * (4.16666679e-2f + x * (8.33333377e-3f
              + x * (1.38888892e-3f + x * (1.98412701e-4f + x * (2.48015876e-5f + x * (2.75573188e-6f
              + x * (2.75573188e-7f + x * (2.50521084e-8f + x * 2.08767570e-9f))))))))));
    return x + q;
}

/* log(2^k * (1 + f)) for f in [sqrt(2)/2 - 1, sqrt(2) - 1), plus a small correction c.
 * With s = f / (2 + f): log(1 + f) = f - hf + s * (hf + R(s^2)), hf = f^2 / 2, and
 * R(z) = 2z/3 + 2z^2/5 + 2z^3/7 + 2z^4/9 (the series of 2 atanh(s) - 2s over s). */
static float log_core(int k, float f, float c)
{
    float s = f / (2.0f + f);
    float z = s * s;
    float R = z * (6.66666687e-1f + z * (4.00000006e-1f + z * (2.85714298e-1f + z * 2.22222224e-1f)));
    float hf = 0.5f * f * f;
    float kf = (float)k;
    return kf * LN2_HI - ((hf - (s * (hf + R) + (kf * LN2_LO + c))) - f);
}

/* Split x > 0 (finite, normal) into 2^k * m with m in [sqrt(2)/2, sqrt(2)); returns m. */
static float split_log(float x, int *k)
{
    uint32_t u = bits_of(x) + (0x3f800000u - 0x3f3504f3u); /* moves the boundary to sqrt(2)/2 */
    *k += (int)(u >> 23) - 127;
    return from_bits((u & 0x7fffffu) + 0x3f3504f3u);
}

float logf(float x)
{
    uint32_t u = bits_of(x);
    int k = 0;
    if (u < 0x00800000u || u >= 0x7f800000u) { /* zero, subnormal, negative, inf, nan */
        if ((u & 0x7fffffffu) == 0) return -0x1p127f * 0x1p127f; /* -inf */
        if (u == 0x7f800000u || x != x) return x + x;
        if (u >> 31) return (x - x) / (x - x); /* negative: nan */
        x *= 0x1p25f;
        k = -25;
    }
    float m = split_log(x, &k);
    return log_core(k, m - 1.0f, 0.0f);
}

/* logf's argument split, shared by log2f and log10f: x = 2^k * m; 0 if x needs no more work
 * (zero, negative, inf, nan: *special holds the result). */
static int log_split(float x, int *k, float *m, float *special)
{
    uint32_t u = bits_of(x);
    *k = 0;
    if (u < 0x00800000u || u >= 0x7f800000u) {
        if ((u & 0x7fffffffu) == 0) { *special = -0x1p127f * 0x1p127f; return 0; }
        if (u == 0x7f800000u || x != x) { *special = x + x; return 0; }
        if (u >> 31) { *special = (x - x) / (x - x); return 0; }
        x *= 0x1p25f;
        *k = -25;
    }
    *m = split_log(x, k);
    return 1;
}

/* log2 x = k + log(m) / ln 2: exact at powers of two, where m = 1. */
float log2f(float x)
{
    int k;
    float m, special;
    if (!log_split(x, &k, &m, &special)) return special;
    return (float)k + log_core(0, m - 1.0f, 0.0f) * INV_LN2;
}

/* log10 x = k log10(2) + log(m) / ln 10, with log10(2) split so that k * hi is exact. */
float log10f(float x)
{
    static const float LOG10_2_HI = 0.30102539f;      /* 0x3e9a2000: 11 significant bits */
    static const float LOG10_2_LO = 4.60503907e-6f;   /* log10(2) - LOG10_2_HI */
    static const float INV_LN10 = 0.434294482f;
    int k;
    float m, special;
    if (!log_split(x, &k, &m, &special)) return special;
    float kf = (float)k;
    return kf * LOG10_2_HI + (kf * LOG10_2_LO + log_core(0, m - 1.0f, 0.0f) * INV_LN10);
}

/* fmod by long division of the significands: exact, as the result always is. */
float fmodf(float x, float y)
{
    uint32_t ux = bits_of(x), uy = bits_of(y);
    const uint32_t sign = ux & 0x80000000u;
    uint32_t mx, my;
    int ex, ey;
    ux &= 0x7fffffffu;
    uy &= 0x7fffffffu;
    if (uy == 0 || ux >= 0x7f800000u || uy > 0x7f800000u) return (x * y) / (x * y); /* nan */
    if (ux < uy) return x;                       /* |x| < |y|, y = inf included */
    ex = (int)(ux >> 23);
    ey = (int)(uy >> 23);
    /* significands with their leading bit at 2^23 (subnormals shifted up, exponent down) */
    if (ex == 0) {
        for (mx = ux, ex = 1; !(mx & 0x800000u); mx <<= 1) ex--;
    } else {
        mx = (ux & 0x7fffffu) | 0x800000u;
    }
    if (ey == 0) {
        for (my = uy, ey = 1; !(my & 0x800000u); my <<= 1) ey--;
    } else {
        my = (uy & 0x7fffffu) | 0x800000u;
    }
    for (; ex > ey; ex--) {                      /* mx * 2^(ex - ey) mod my, bit by bit */
        if (mx >= my) mx -= my;
        mx <<= 1;
    }
    if (mx >= my) mx -= my;
    if (mx == 0) return from_bits(sign);         /* an exact multiple: a signed zero */
    for (; !(mx & 0x800000u); mx <<= 1) ex--;
    if (ex > 0) return from_bits(sign | ((uint32_t)ex << 23) | (mx & 0x7fffffu));
    return from_bits(sign | (mx >> (1 - ex)));   /* subnormal, exact: the low bits are 0 */
}

float log1pf(float x)
{
    float a = fabsf(x);
    if (a < 0x1p-24f) return x; /* log1p(x) = x - x^2/2 rounds to x; keeps -0 */
    if (!(x > -1.0f) || x == 0x1p127f * 0x1p127f) {
        if (x == -1.0f) return -0x1p127f * 0x1p127f;
        return (x != x || x > 0.0f) ? x + x : (x - x) / (x - x);
    }
    float u = 1.0f + x;
    int k = 0;
    float m = split_log(u, &k);
    /* u = 1 + x - err; log(1 + x) = log(u) + err / u. Both forms below are exact. */
    float c = u > 2.0f ? 1.0f - (u - x) : x - (u - 1.0f);
    if (k > 24) c = 0.0f; /* x > 2^24: what 1 + x lost does not matter */
    return log_core(k, m - 1.0f, c / u);
}

/* tanh x = x + x^3 T(x^2) below 0.55 (Taylor terms to x^19), else 1 - 2 / (e^2|x| + 1),
 * whose result >= 0.5 makes the error of the division count at most half. */
float tanhf(float x)
{
    float a = fabsf(x);
    if (!(a < 9.1f)) return x != x ? x + x : copysignf(1.0f, x); /* 1 - tanh < 2^-25 */
    if (a < 0x1p-12f) return x;
    if (a < 0.55f) {
        float z = x * x;
        float t = -3.33333343e-1f + z * (1.33333340e-1f + z * (-5.39682545e-2f + z * (2.18694881e-2f
                  + z * (-8.86323949e-3f + z * (3.59212782e-3f + z * (-1.45583438e-3f + z * (5.90027854e-4f
                  + z * -2.39129113e-4f)))))));
        return x + x * (z * t);
    }
    float r = 1.0f - 2.0f / (expf(2.0f * a) + 1.0f);
    return copysignf(r, x);
}

/* sin and cos: reduce x by k * pi/2 in double (exact enough while |x| < 2^20: the error is
 * about k * 2^-53), then Taylor polynomials on [-pi/4, pi/4], whose truncation error is below
 * 2e-9 (sin, to x^9) and 2e-10 (cos, to x^10). Beyond |x| = 2^20 a float has no fractional
 * digits left and the result keeps only the reduction's accuracy; past 2^62 it is sin 0 / cos 0. */
static float sin_poly(float r)
{
    float z = r * r;
    return r + r * z * (-1.66666672e-1f + z * (8.33333377e-3f + z * (-1.98412701e-4f
               + z * 2.75573143e-6f)));
}

static float cos_poly(float r)
{
    float z = r * r;
    return 1.0f + z * (-0.5f + z * (4.16666679e-2f + z * (-1.38888892e-3f + z * (2.48015876e-5f
               + z * -2.75573143e-7f))));
}

static float reduce_half_pi(float x, int *quadrant)
{
    double t = (double)x * 0.63661977236758134;  /* 2/pi */
    long long k;
    if (!(t < 4.6e18 && t > -4.6e18)) {
        *quadrant = 0;
        return 0.0f;
    }
    k = (long long)(t < 0.0 ? t - 0.5 : t + 0.5);
    *quadrant = (int)(k & 3);
    return (float)(((double)x - (double)k * 1.5707963267948966) - (double)k * 6.123233995736766e-17);
}

float sinf(float x)
{
    int q;
    float r;
    if (x != x || x - x != 0.0f) return x - x; /* nan, or nan for +-inf */
    if (fabsf(x) < 0x1p-12f) return x;
    r = reduce_half_pi(x, &q);
    switch (q) {
    case 0: return sin_poly(r);
    case 1: return cos_poly(r);
    case 2: return -sin_poly(r);
    default: return -cos_poly(r);
    }
}

float cosf(float x)
{
    int q;
    float r;
    if (x != x || x - x != 0.0f) return x - x;
    r = reduce_half_pi(x, &q);
    switch (q) {
    case 0: return cos_poly(r);
    case 1: return -sin_poly(r);
    case 2: return -cos_poly(r);
    default: return sin_poly(r);
    }
}

/* erf: x + x P(x^2) below 1, else 1 - e^(-x^2) Q(1/x) with Q ~ erfc(x) e^(x^2). */
static const float ERF_SMALL[7] = {0.128379166f, -0.37612626f, 0.112835974f, -0.0268543288f,
                                   0.00518931216f, -0.000801885501f, 7.88249745e-05f};
static const float ERFC_MID[8] = {0.351134688f, 0.341368854f, -0.154569566f, 0.0495669022f,
                                  0.00240331818f, -0.0221706536f, 0.0251595117f, -0.0179977398f};
static const float ERFC_FAR[6] = {0.199072629f, 0.474015772f, -0.18610473f, -0.0255766418f,
                                  0.134411633f, -0.128139883f};

static float horner(const float *c, int n, float t)
{
    float acc = c[n - 1];
    for (int i = n - 2; i >= 0; i--) acc = acc * t + c[i];
    return acc;
}

float erff(float x)
{
    float a = fabsf(x);
    if (x != x) return x + x;
    if (a < 1.0f) return x + x * horner(ERF_SMALL, 7, x * x);
    if (a >= 4.0f) return copysignf(1.0f, x); /* erfc(4) < 2e-8 */
    float u = 1.0f / a;
    float q = a < 2.0f ? horner(ERFC_MID, 8, u - 0.75f) : horner(ERFC_FAR, 6, u - 0.375f);
    return copysignf(1.0f - expf(-a * a) * q, x);
}

/* ---- powf: log2 and exp2 in double, then one rounding to float ---- */

static double log2_d(float x) /* x > 0, finite; relative error ~1e-15 */
{
    int k = 0;
    if (bits_of(x) < 0x00800000u) { x *= 0x1p25f; k = -25; }
    double m = split_log(x, &k);
    double s = (m - 1.0) / (m + 1.0), z = s * s; /* ln m = 2 atanh(s), |s| < 0.172 */
    static const double inv_odd[10] = {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
                                       1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19};
    double t = inv_odd[9];
    for (int i = 8; i >= 0; i--) t = t * z + inv_odd[i];
    return k + 2.0 * s * t * 1.4426950408889634;
}

static double exp2_d(double t) /* |t| < 200 */
{
    double n = t >= 0 ? (double)(int)(t + 0.5) : -(double)(int)(0.5 - t);
    double g = (t - n) * 0.6931471805599453; /* 2^(t-n) = e^g, |g| <= 0.347 */
    static const double inv[15] = {0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7,
                                   1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14};
    double s = 1.0;
    for (int i = 14; i >= 1; i--) s = 1.0 + s * g * inv[i];
    union { uint64_t u; double d; } p2 = {(uint64_t)((int64_t)n + 1023) << 52};
    return s * p2.d;
}

/* 0: y is not an integer, 1: odd integer, 2: even integer. */
static int int_kind(float y)
{
    float a = fabsf(y);
    if (a >= 16777216.0f) return 2; /* 2^24 and above: even */
    if (truncf(a) != a) return 0;
    return ((uint32_t)a & 1u) ? 1 : 2;
}

float powf(float x, float y)
{
    const float inf = 0x1p127f * 0x1p127f;
    if (y == 0.0f || x == 1.0f) return 1.0f; /* even for nan */
    if (x != x || y != y) return x + y;
    int yk = int_kind(y);
    float a = fabsf(x);
    if (fabsf(y) == inf) {
        if (a == 1.0f) return 1.0f;
        return (a < 1.0f) == (y < 0.0f) ? inf : 0.0f;
    }
    if (a == 0.0f || a == inf) { /* signed zero or infinity */
        float r = (a == 0.0f) == (y < 0.0f) ? inf : 0.0f;
        return (x < 0.0f || (a == 0.0f && (bits_of(x) >> 31))) && yk == 1 ? -r : r;
    }
    if (x < 0.0f && yk == 0) return (x - x) / (x - x); /* negative base, fractional power */
    double t = (double)y * log2_d(a);
    float r = t > 129.0 ? inf : t < -151.0 ? 0.0f : (float)exp2_d(t);
    return x < 0.0f && yk == 1 ? -r : r;
}
