/* s8_mve.h - Helium (MVE) building blocks for the int8 kernels of this folder (Cortex-M55,
 * M85: intrinsics from gcc's arm_mve.h). These cores have the DSP extension too, so the
 * scalar requantization of ../cortex_m_dsp/s8_dsp.h serves here as well.
 *
 * The dot products use VMLADAVA (sixteen int8 products summed into a 32-bit register) and
 * VADDVA (sixteen int8 summed), with the input offset applied once at the end:
 * sum (x + x_off) * w = sum x * w + x_off * sum w. Tails are predicated (VCTP): the lanes past
 * n load as zero and add nothing. Integer sums in another order are the same sums, so every
 * kernel is bit-exact with its portable twin. */
#ifndef RT_S8_MVE_H
#define RT_S8_MVE_H

#include <arm_mve.h>

#include "../cortex_m_dsp/s8_dsp.h"

#if !defined(__ARM_FEATURE_MVE)
#error "runtime_c/src/arch/cortex_m_mve needs a CPU with Helium (__ARM_FEATURE_MVE)"
#endif

/* A body written once and specialized per caller (a flag made a constant): gcc would
 * otherwise keep one out-of-line copy with the flag tested in the loop. */
#define RT_MVE_INLINE inline __attribute__((always_inline))

/* The lanes of the next 16 bytes that lie before the end of n. */
static inline mve_pred16_t rt_mve_tail8(int32_t n)
{
    return vctp8q((uint32_t)n);
}

/* rt_s8_requant on four lanes, bit for bit, then the output offset and the activation clamp:
 *  - the left shift wraps like the portable one (VSHL);
 *  - VQRDMULH is the rounding doubling high multiply, ties toward +inf, INT32_MIN squared
 *    saturating to INT32_MAX, exactly as rt_s8_high_mul;
 *  - a negative value less one (saturating), then the rounding right shift VRSHL (ties up),
 *    is the division rounded half away from zero; at INT32_MIN the saturation changes nothing
 *    (INT32_MIN / 2^e is exact). */
static inline int32x4_t rt_mve_requant(int32x4_t acc, int32x4_t mult, int32x4_t shift,
                                       int32_t out_off, int32_t lo, int32_t hi)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(shift, zero), right = vminq_s32(shift, zero);
    const int32x4_t h = vqrdmulhq_s32(vshlq_s32(acc, left), mult);
    /* -1 in the lanes where h < 0 and there is a right shift */
    const int32x4_t fix = vshrq_n_s32(vandq_s32(h, vshrq_n_s32(right, 31)), 31);
    const int32x4_t q = vrshlq_s32(vqaddq_s32(h, fix), right);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(q, out_off), vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* rt_s8_requant on four lanes by one multiplier and shift held in core registers (no vector
 * constants for a loop to keep), the same steps as rt_mve_requant: left >= 0 (VSHL by
 * register), right <= 0 (VRSHL's count), fix 1 where right < 0, else 0. No offset or clamp. */
static RT_MVE_INLINE int32x4_t rt_mve_requant_n(int32x4_t x, int32_t mult, int32_t left,
                                                int32_t right, int32_t fix)
{
    const int32x4_t h = vqrdmulhq_n_s32(vshlq_r_s32(x, left), mult);
    return vrshlq_n_s32(vqaddq_s32(h, vmulq_n_s32(vshrq_n_s32(h, 31), fix)), right);
}

/* Whether a layer's output stage may leave the sign fix out: where the activation range starts
 * at the output offset or above (a ReLU in the zero point: KWS's, VWW's layers), a negative h
 * rounds to zero or below with the fix or without it (VRSHL adds half a step, less than one),
 * so its output is the offset or below and the clamp makes both lo. */
static inline int32_t rt_mve_sheds_fix(int32_t out_off, int32_t lo)
{
    return lo >= out_off;
}

#endif /* RT_S8_MVE_H */
