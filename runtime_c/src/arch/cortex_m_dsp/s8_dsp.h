/* s8_dsp.h - the DSP extension's building blocks for the int8 kernels of this folder
 * (Cortex-M4, M7, M33, M55: ACLE intrinsics from gcc's arm_acle.h, no vendor SDK).
 *
 * Every helper returns exactly what the portable C of int8/s8_internal.h returns for the same
 * arguments: the arch kernels are bit-exact twins of the portable ones. Their widest assembly
 * loops (and cortex_m_mve's) take every core register but sp and pc, r7 among them: build
 * these files with the frame pointer omitted, gcc's default from -O1 on. */
#ifndef RT_S8_DSP_H
#define RT_S8_DSP_H

#include <arm_acle.h>

#include "../../int8/s8_internal.h"

#if !defined(__ARM_FEATURE_DSP)
#error "runtime_c/src/arch/cortex_m_dsp needs a CPU with the DSP extension (__ARM_FEATURE_DSP)"
#endif

/* Keeps a hot loop in a function of its own: inlined into a large kernel, gcc allocates its
 * registers together with the kernel's and spills the loop's. */
#define RT_DSP_NOINLINE __attribute__((noinline))

/* For a function whose assembly takes a label's address with ADR (a computed entry into an
 * unrolled loop). The assembler works the offset out from where the label lies in the
 * function's section, counting from the word-aligned PC: right only where the section starts
 * on a word. -O2 aligns functions so; -Og and -Os do not, and an ADR would then point two
 * bytes off, into the middle of an instruction. */
#define RT_DSP_ADR_ALIGNED __attribute__((aligned(4)))

/* Four bytes in one LDR (the M4/M7 load unaligned words). The builtin, since firmware builds
 * with -fno-builtin and a memcpy call per word would cost more than the products. */
static inline int32_t rt_dsp_load4(const int8_t *p)
{
    int32_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/* v in both halfwords (the input offset, added to two inputs at once by SXTAB16). */
static inline int16x2_t rt_dsp_pair(int32_t v)
{
    return (int16x2_t)(((uint32_t)(uint16_t)v << 16) | (uint16_t)v);
}

/* Bytes 0 and 2 of x as halfwords, each plus the offset pair off2; then bytes 1 and 3. Every
 * halfword holds x + x_off, |x + x_off| <= 255, so the SMLAD sums that follow are exact. */
static inline int16x2_t rt_dsp_even(int16x2_t off2, int32_t x)
{
    return __sxtab16(off2, x);
}

/* The odd bytes take SXTAB16's own rotate (gcc does not fold a separate one into it). */
static inline int16x2_t rt_dsp_odd(int16x2_t off2, int32_t x)
{
    int16x2_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(off2), "r"(x));
    return r;
}

/* Filter bytes 0 and 2, then 1 and 3, as halfwords. */
static inline int16x2_t rt_dsp_w_even(int32_t w)
{
    return __sxtb16(w);
}

static inline int16x2_t rt_dsp_w_odd(int32_t w)
{
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
    return r;
}

/* round(a * b / 2^32), ties toward +inf: SMMULR, one instruction. */
static inline int32_t rt_dsp_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

/* rt_s8_requant (x * mult * 2^(shift - 31), double rounding) in a few instructions for the
 * accumulators of real layers:
 *  - round(y * mult / 2^31) is round(2y * mult / 2^32), one SMMULR once 2y fits in 32 bits;
 *  - shift >= 0: y = x * 2^shift and nothing is divided, so the result is one SMMULR of
 *    x * 2^(shift + 1) when |x| < 2^(30 - shift);
 *  - shift < 0: r / 2^e (e = -shift) rounded half away from zero is
 *    floor((r + 2^(e-1) - [r < 0]) / 2^e), and |r| < 2^30 (|2x| < 2^31, |mult| <= 2^31), so
 *    the sum cannot overflow.
 * Anything else takes the portable path. */
static inline int32_t rt_dsp_requant(int32_t x, int32_t mult, int32_t shift)
{
    if (shift >= 0) {
        if (shift <= 29 && x > -(1 << (30 - shift)) && x < (1 << (30 - shift))) {
            return rt_dsp_smmulr((int32_t)((uint32_t)x << (shift + 1)), mult);
        }
    } else if (shift >= -31 && x > -(1 << 30) && x < (1 << 30)) {
        const int32_t r = rt_dsp_smmulr(x * 2, mult);
        /* r >> 31 is -1 for a negative r: gcc shifts signed values arithmetically */
        return (r + (1 << (-shift - 1)) + (r >> 31)) >> -shift;
    }
    return rt_requantize(x, mult, shift);   /* out of line: rare, and large */
}

/* rt_dsp_requant with the choices that depend on (mult, shift) made once, for a loop that
 * applies one pair to many values (the add's three rescalings): what is left per value is a
 * range check, SMMULR and the rounding shift, ten instructions. */
typedef struct rt_dsp_rq {
    int32_t mult, shift;
    int32_t lo, hi;        /* the fast path takes lo < x < hi (lo = hi = 0: never) */
    int32_t pre;           /* x << pre feeds SMMULR */
    int32_t half, neg, e;  /* r -> (r + half + (neg & [r < 0] * -1)) >> e */
} rt_dsp_rq;

static inline rt_dsp_rq rt_dsp_rq_make(int32_t mult, int32_t shift)
{
    rt_dsp_rq q;
    q.mult = mult;
    q.shift = shift;
    q.lo = q.hi = q.pre = q.half = q.neg = q.e = 0;
    if (shift >= 0 && shift <= 29) {
        q.hi = 1 << (30 - shift);
        q.lo = -q.hi;
        q.pre = shift + 1;
    } else if (shift < 0 && shift >= -31) {
        q.hi = 1 << 30;
        q.lo = -q.hi;
        q.pre = 1;
        q.half = 1 << (-shift - 1);
        q.neg = -1;
        q.e = -shift;
    }
    return q;
}

static inline int32_t rt_dsp_rq_apply(const rt_dsp_rq *q, int32_t x)
{
    if (x > q->lo && x < q->hi) {
        const int32_t r = rt_dsp_smmulr((int32_t)((uint32_t)x << q->pre), q->mult);
        return (r + q->half + ((r >> 31) & q->neg)) >> q->e;
    }
    return rt_requantize(x, q->mult, q->shift);
}

/* rt_dsp_rq_apply for an x known to lie in (q->lo, q->hi), as a layer's bound on its sums
 * proves for all of them at once (rt_dsp_sum_bound): six instructions. */
static inline int32_t rt_dsp_rq_apply_in_range(const rt_dsp_rq *q, int32_t x)
{
    const int32_t r = rt_dsp_smmulr((int32_t)((uint32_t)x << q->pre), q->mult);
    return (r + q->half + ((r >> 31) & q->neg)) >> q->e;
}

/* v saturated to int8: SSAT, one instruction. */
static inline int8_t rt_dsp_sat8(int32_t v)
{
    int32_t r;
    __asm__("ssat %0, #8, %1" : "=r"(r) : "r"(v));
    return (int8_t)r;
}

/* A bound on |bias + sum of n products (x + x_off) * w|: |x + x_off| <= 255, |w| <= 128.
 * Saturates at INT32_MAX (then no range is proved). */
static inline int32_t rt_dsp_sum_bound(int32_t bias, int32_t n)
{
    const int64_t b = (bias < 0 ? -(int64_t)bias : (int64_t)bias) + (int64_t)n * 255 * 128;
    return b > INT32_MAX ? INT32_MAX : (int32_t)b;
}

/* Can a depthwise layer's taps be pre-scaled by 2^(1 + max(shift, 0)) so that one SMMLAR
 * requantizes its sums (the DSP depthwise kernels): the activation all of int8 (SSAT
 * clamps), shifts in [-22, 6], multipliers >= 0 (a sum's sign is then its product's, which
 * the rounding reads), and every sum of bias and taps products, so scaled, under 2^31? */
static inline int rt_dsp_dw_requant_fits(const rt_conv_s8_params *p, const int32_t *bias,
                                         int32_t cout, int32_t taps)
{
    int32_t oc;
    if (p->act_min != -128 || p->act_max != 127 || p->output_offset < -128 ||
        p->output_offset > 127) {
        return 0;
    }
    for (oc = 0; oc < cout; ++oc) {
        const int32_t s = p->shift[oc], up = s > 0 ? s : 0;
        if (s < -22 || s > 6 || p->mult[oc] < 0 ||
            rt_dsp_sum_bound(bias != NULL ? bias[oc] : 0, taps) >= 1 << (30 - up)) {
            return 0;
        }
    }
    return 1;
}

/* A sum's requantization inside an asm loop, as the pre-scaled kernels make it (a DSP
 * depthwise kernel's taps, the pointwise blocks' doubled inputs): sum a to the int8 of
 * SMMLAR(a, mult, c + (neg & sign of a)) >> e, SSAT; t a scratch register. The arguments are
 * the asm operands' names, as strings. */
#define RT_DSP_RQ_ASM(a, t, neg, c, mult, e) \
    "and %[" t "], %[" neg "], %[" a "], asr #31\n\t" \
    "add %[" t "], %[" t "], %[" c "]\n\t" \
    "smmlar %[" a "], %[" a "], %[" mult "], %[" t "]\n\t" \
    "asr %[" a "], %[" a "], %[" e "]\n\t" \
    "ssat %[" a "], #8, %[" a "]\n\t"

/* The same where the shift goes right (e > 0, neg = -1): c plus the sign in one instruction. */
#define RT_DSP_RQ_RIGHT_ASM(a, t, c, mult, e) \
    "add %[" t "], %[" c "], %[" a "], asr #31\n\t" \
    "smmlar %[" a "], %[" a "], %[" mult "], %[" t "]\n\t" \
    "asr %[" a "], %[" a "], %[" e "]\n\t" \
    "ssat %[" a "], #8, %[" a "]\n\t"

/* The requantized, offset and clamped int8 of an int32 accumulator. */
static inline int8_t rt_dsp_out(int32_t acc, int32_t mult, int32_t shift, int32_t out_off,
                                int32_t lo, int32_t hi)
{
    return rt_s8_clamp(rt_dsp_requant(acc, mult, shift) + out_off, lo, hi);
}

/* The four outputs of a 2x2 tile: filters oc and oc + 1 (or oc alone when step is 1) of
 * pixel a (acc[0], acc[1]) and, when b is not NULL, pixel b (acc[2], acc[3]). */
static inline void rt_dsp_out_2x2(const rt_conv_s8_params *p, int32_t oc, int32_t step,
                                  const int32_t *acc, int8_t *a, int8_t *b)
{
    const int32_t off = p->output_offset, lo = p->act_min, hi = p->act_max;
    int32_t m = p->mult[oc], s = p->shift[oc];
    a[oc] = rt_dsp_out(acc[0], m, s, off, lo, hi);
    if (b != NULL) {
        b[oc] = rt_dsp_out(acc[2], m, s, off, lo, hi);
    }
    if (step == 2) {
        m = p->mult[oc + 1];
        s = p->shift[oc + 1];
        a[oc + 1] = rt_dsp_out(acc[1], m, s, off, lo, hi);
        if (b != NULL) {
            b[oc + 1] = rt_dsp_out(acc[3], m, s, off, lo, hi);
        }
    }
}

#endif /* RT_S8_DSP_H */
