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

/* The lanes of the next 16 bytes that lie before the end of n. */
static inline mve_pred16_t rt_mve_tail8(int32_t n)
{
    return vctp8q((uint32_t)n);
}

#endif /* RT_S8_MVE_H */
