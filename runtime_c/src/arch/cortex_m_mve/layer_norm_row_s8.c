/* layer_norm_row_s8.c (Cortex-M Helium) - rt_s8_layer_norm_rows: bit for bit the portable
 * rows (int8/layer_norm_row_s8.c, included below for the steps it shares), four elements a
 * vector:
 *  - a row's sum and sum of squares sixteen bytes at a time (VADDVA, VMLADAVA; the tail
 *    predicated), then 1 / sqrt(var + eps) as the portable code computes it;
 *  - per element the portable float32 steps in their order, each one rounding: (x D - sum)
 *    / D, then times the input scale, rstd, the weight, plus the bias, times 1 / the output
 *    scale (VMUL, VADD; every product an intrinsic, never C's *, so gcc has none to fuse
 *    into an add, whatever -ffp-contract says); VRINTN (ties to even), plus the zero point,
 *    the clamp (VMAXNM, VMINNM: a NaN becomes -128, as rt_s8_from_float makes it), VCVT,
 *    VSTRB.32.
 *
 * Helium has no division: (x D - sum) / D is the quotient n / D rounded once, from r = 1 / D
 * rounded: q = n r, within two ulps of n / D; then the remainder n - q D (one VFMA), exact:
 * with n and D integers it is a multiple of q's ulp, at most 4 D < 2^24 of them; then
 * q + (n - q D) r (one VFMA), off n / D by under 2^-23 ulp before its rounding, less than
 * the distance from n / D to any rounding boundary (a nonzero multiple of ulp / 2D: n / D,
 * |n| < 2^24, is never halfway between two floats). So the two fused steps give exactly the
 * portable division (also checked on a host for every n of every D <= 2500); nothing else is
 * fused.
 *
 * Helium's float instructions flush subnormal inputs and results to zero (they run with the
 * "standard" FPSCR: flush-to-zero, default NaN), where the scalar FPU keeps them. A call
 * takes the lanes only where no subnormal can enter or leave a step but the last multiply
 * (whose results under 2^-126 round to 0 either way): weights 0 or of at least 2^-20, biases
 * 0 or of at least 2^-100 (then a nonzero sum of a product of at least 2^-97 and a bias is
 * a multiple of 2^-123), an input scale of at least 2^-100 and a 1 / output scale that is
 * not subnormal; and a row where in_scale * rstd >= 2^-60 (so |(x D - sum) / D * s * rstd|
 * >= 2^-77 where it is not 0), or rstd is 0, infinite or NaN. Everything else (no model's
 * layer norm) goes the portable way, element by element. */
#define RT_LAYER_NORM_ROWS 1
#include "../../int8/layer_norm_row_s8.c"

#include "f32_mve.h"

/* Bounds of the lanes' domain (above). */
#define LN_SCALE_MIN 0x1p-100f
#define LN_ROW_MIN 0x1p-60f
#define LN_WEIGHT_MIN_BITS 0x35800000u /* 2^-20 */
#define LN_BIAS_MIN_BITS 0x0d800000u   /* 2^-100 */
#define LN_NORMAL_MIN 0x1p-126f

/* Whether every v[i], i < n, is 0, infinite, NaN or of magnitude at least the float whose
 * bits are min_bits: the bits of |v| less 1, as unsigned, are then at least min_bits - 1
 * (0 wraps to the top). Integers, so that no compare flushes a subnormal. */
static int ln_all_at_least(const float *v, int32_t n, uint32_t min_bits)
{
    uint32_t least = 0xFFFFFFFFu;
    int32_t i;
    for (i = 0; i < n; i += 4) {
        const mve_pred16_t m = vctp32q((uint32_t)(n - i));
        const uint32x4_t bits = vldrwq_z_u32((const uint32_t *)(const void *)(v + i), m);
        least = vminvq_p_u32(least, vsubq_n_u32(vandq_u32(bits, vdupq_n_u32(0x7FFFFFFFu)), 1u),
                             m);
    }
    return least >= min_bits - 1u;
}

/* What the lanes of a row keep: the per-call and per-row scalars, the clamp's bounds. */
typedef struct ln_row {
    float rcp, neg_d, scale, rstd, inv_out, zp;
    int32_t neg_sum;
    int32x4_t dv;
    float32x4_t lo, hi;
} ln_row;

/* out[i..i+3] (the lanes of m unless full) from in[i..i+3], the weights and biases at w + i
 * and b + i (read where has_w, has_b: constants where this is inlined). */
MVE_INLINE void ln_lanes(const ln_row *c, const float *w, const float *b, const int8_t *in,
                         int8_t *out, int32_t i, mve_pred16_t m, const int full,
                         const int has_w, const int has_b)
{
    const int32x4_t x = full ? vldrbq_s32(in + i) : vldrbq_z_s32(in + i, m);
    const float32x4_t n = vcvtq_f32_s32(vmlasq_n_s32(x, c->dv, c->neg_sum)); /* x D - sum */
    float32x4_t y = vmulq_n_f32(n, c->rcp);
    y = vfmaq_n_f32(y, vfmaq_n_f32(n, y, c->neg_d), c->rcp);              /* n / D */
    y = vmulq_n_f32(y, c->scale);
    y = vmulq_n_f32(y, c->rstd);
    if (has_w) {
        y = vmulq_f32(y, full ? vld1q_f32(w + i) : vldrwq_z_f32(w + i, m));
    }
    if (has_b) {
        y = vaddq_f32(y, full ? vld1q_f32(b + i) : vldrwq_z_f32(b + i, m));
    }
    y = vaddq_n_f32(vrndnq_f32(vmulq_n_f32(y, c->inv_out)), c->zp);
    y = vminnmq_f32(vmaxnmq_f32(y, c->lo), c->hi);
    if (full) {
        vstrbq_s32(out + i, vcvtq_s32_f32(y));
    } else {
        vstrbq_p_s32(out + i, vcvtq_s32_f32(y), m);
    }
}

/* One row of d: whole vectors, then the tail predicated. */
MVE_INLINE void ln_row_lanes(const ln_row *r, const float *weight, const float *bias,
                             const int8_t *in, int8_t *out, int32_t d, const int has_w,
                             const int has_b)
{
    const ln_row c = *r;
    int32_t i;
    for (i = 0; i + 4 <= d; i += 4) {
        ln_lanes(&c, weight, bias, in, out, i, 0, 1, has_w, has_b);
    }
    if (i < d) {
        ln_lanes(&c, weight, bias, in, out, i, vctp32q((uint32_t)(d - i)), 0, has_w, has_b);
    }
}

void rt_s8_layer_norm_rows(const rt_layer_norm_s8_params *p, const float *weight,
                           const float *bias, const int8_t *in, int8_t *out, int32_t rows,
                           int32_t d)
{
    const float inv_out = p->inv_out_scale;
    const int lanes = p->in_scale >= LN_SCALE_MIN &&
                      !(inv_out != 0.0f && inv_out < LN_NORMAL_MIN && inv_out > -LN_NORMAL_MIN) &&
                      (weight == NULL || ln_all_at_least(weight, d, LN_WEIGHT_MIN_BITS)) &&
                      (bias == NULL || ln_all_at_least(bias, d, LN_BIAS_MIN_BITS));
    ln_row c;
    int32_t r, i;
    c.rcp = 1.0f / (float)d;
    c.neg_d = -(float)d;
    c.scale = p->in_scale;
    c.inv_out = inv_out;
    c.zp = (float)p->out_zero_point;
    c.dv = vdupq_n_s32(d);
    c.lo = vdupq_n_f32(-128.0f);
    c.hi = vdupq_n_f32(127.0f);
    for (r = 0; r < rows; ++r, in += d, out += d) {
        int32_t sum = 0, sumsq = 0;
        for (i = 0; i < d; i += 16) {
            const mve_pred16_t m = vctp8q((uint32_t)(d - i));
            const int8x16_t x = vldrbq_z_s8(in + i, m);
            sum = vaddvaq_s8(sum, x);
            sumsq = vmladavaq_s8(sumsq, x, x);
        }
        c.rstd = layer_norm_rstd(p, sum, sumsq, d);
        c.neg_sum = -sum;
        if (!lanes || (c.rstd > 0.0f && p->in_scale * c.rstd < LN_ROW_MIN)) {
            layer_norm_out(p, weight, bias, in, sum, c.rstd, out, d);
        } else if (weight != NULL && bias != NULL) {
            ln_row_lanes(&c, weight, bias, in, out, d, 1, 1);
        } else if (weight != NULL) {
            ln_row_lanes(&c, weight, bias, in, out, d, 1, 0);
        } else if (bias != NULL) {
            ln_row_lanes(&c, weight, bias, in, out, d, 0, 1);
        } else {
            ln_row_lanes(&c, weight, bias, in, out, d, 0, 0);
        }
    }
}
