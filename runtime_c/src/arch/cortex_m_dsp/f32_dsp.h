/* f32_dsp.h - the register blocks of this folder's float32 kernels (conv2d.c, conv2d_1x1.c, gemm.c) for
 * a Cortex-M with a single-precision FPU (M4F, M7: FPv4-SP, FPv5), where s0-s31 hold 32
 * floats.
 *
 * Written out as inline assembly: gcc loads a row of floats one VLDR at a time, where VLDM
 * takes a row in one instruction, and it cannot keep 24 accumulators and their inputs in the
 * 32 registers without spilling. Each block clobbers every s register and keeps its loop in
 * a function of its own (so the callee-saved s16-s31 are pushed once per block, not per
 * iteration). The products are VMLA.F32 (rounded, then added: what rt_mac_f32 computes), in
 * k order per output: the results are bit for bit those of the portable kernels' loops.
 * Without the FPU, or at -O0, the same blocks are plain C loops. */
#ifndef RT_F32_DSP_H
#define RT_F32_DSP_H

#include "../../core/rt_internal.h"

#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && defined(__OPTIMIZE__)
#define RT_F32_DSP_ASM 1
#else
#define RT_F32_DSP_ASM 0
#endif

/* The activation's clamps of one sum in an asm block (lo in s30, hi in s31), as rt_act does
 * them: x < lo (an ordered "less": VCMP sets N) takes lo, then x > hi (GT is false for an
 * unordered compare: NaN passes) takes hi. */
#define RT_F32_DSP_LO(r) \
    "vcmp.f32 " r ", s30\n\tvmrs APSR_nzcv, fpscr\n\tit mi\n\tvmovmi.f32 " r ", s30\n\t"
#define RT_F32_DSP_HI(r) \
    "vcmp.f32 " r ", s31\n\tvmrs APSR_nzcv, fpscr\n\tit gt\n\tvmovgt.f32 " r ", s31\n\t"

/* unused: a kernel that uses one block only does not warn about the other */
#define RT_F32_DSP_NOINLINE __attribute__((noinline, unused))

#if RT_F32_DSP_ASM
#define RT_F32_DSP_CLOBBERS                                                                  \
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", \
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",     \
    "s26", "s27", "s28", "s29", "s30", "s31", "memory", "cc"
#endif

/* c[r * ldc + j] = sum over p < k of a[r * lda + p] * b[p * ldb + j], r < 4, j < 6, stored
 * raw (no bias): 24 sums in s0-s23, per p one VLDM of the 6 b values and one load of each a
 * value; the loop takes two p a turn. k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_4x6(int32_t k, const float *a, int32_t lda,
                                               const float *b, int32_t ldb, float *c,
                                               int32_t ldc)
{
#if RT_F32_DSP_ASM
    const float *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int32_t ldb4 = ldb * 4, ldc4 = ldc * 4;
    int32_t t;
    __asm__ volatile(
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "vmov s12, s13, %[t], %[t]\n\t"
        "vmov s14, s15, %[t], %[t]\n\t"
        "vmov s16, s17, %[t], %[t]\n\t"
        "vmov s18, s19, %[t], %[t]\n\t"
        "vmov s20, s21, %[t], %[t]\n\t"
        "vmov s22, s23, %[t], %[t]\n\t"
        "tst %[k], #1\n\t"
        "beq 1f\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "1:\n\t"
        "lsrs %[k], %[k], #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "vstm %[c], {s0-s5}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s6-s11}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s12-s17}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s18-s23}\n\t"
        : [k] "+r"(k), [a0] "+r"(a), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
          [b] "+r"(b), [c] "+r"(c), [t] "=&r"(t)
        : [ldb4] "r"(ldb4), [ldc4] "r"(ldc4)
        : RT_F32_DSP_CLOBBERS);
#else
    int32_t r, j, p;
    for (r = 0; r < 4; ++r) {
        for (j = 0; j < 6; ++j) {
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s = rt_mac_f32(s, a[r * lda + p], b[p * ldb + j]);
            }
            c[r * ldc + j] = s;
        }
    }
#endif
}

/* rt_f32_dsp_4x6, then row r of the block + bias[r] (0 without bias) and clamped to
 * [lo, hi] as rt_act does it (x < lo: lo, then x > hi: hi; NaN passes), in registers
 * before the store: VCMP sets N for an ordered "less", and GT is false for unordered. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_4x6_act(int32_t k, const float *a, int32_t lda,
                                                   const float *b, int32_t ldb, float *c,
                                                   int32_t ldc, const float *bias, float lo,
                                                   float hi)
{
#if RT_F32_DSP_ASM
    const float *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int32_t ldb4 = ldb * 4, ldc4 = ldc * 4, hashi = hi != INFINITY;
    const float prm[6] = {bias != NULL ? bias[0] : 0.0f, bias != NULL ? bias[1] : 0.0f,
                          bias != NULL ? bias[2] : 0.0f, bias != NULL ? bias[3] : 0.0f, lo, hi};
    int32_t t;
    __asm__ volatile(
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "vmov s12, s13, %[t], %[t]\n\t"
        "vmov s14, s15, %[t], %[t]\n\t"
        "vmov s16, s17, %[t], %[t]\n\t"
        "vmov s18, s19, %[t], %[t]\n\t"
        "vmov s20, s21, %[t], %[t]\n\t"
        "vmov s22, s23, %[t], %[t]\n\t"
        "tst %[k], #1\n\t"
        "beq 1f\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "1:\n\t"
        "lsrs %[k], %[k], #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "vldm %[b], {s24-s29}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s29, s30\n\t"
        "vmla.f32 s6, s24, s31\n\t"
        "vmla.f32 s7, s25, s31\n\t"
        "vmla.f32 s8, s26, s31\n\t"
        "vmla.f32 s9, s27, s31\n\t"
        "vmla.f32 s10, s28, s31\n\t"
        "vmla.f32 s11, s29, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s12, s24, s30\n\t"
        "vmla.f32 s13, s25, s30\n\t"
        "vmla.f32 s14, s26, s30\n\t"
        "vmla.f32 s15, s27, s30\n\t"
        "vmla.f32 s16, s28, s30\n\t"
        "vmla.f32 s17, s29, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s18, s24, s31\n\t"
        "vmla.f32 s19, s25, s31\n\t"
        "vmla.f32 s20, s26, s31\n\t"
        "vmla.f32 s21, s27, s31\n\t"
        "vmla.f32 s22, s28, s31\n\t"
        "vmla.f32 s23, s29, s31\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "vldr s30, [%[prm], #16]\n\t"
        "vldr s31, [%[prm], #20]\n\t"
        "vldr s24, [%[prm], #0]\n\t"
        "vadd.f32 s0, s0, s24\n\t"
        "vadd.f32 s1, s1, s24\n\t"
        "vadd.f32 s2, s2, s24\n\t"
        "vadd.f32 s3, s3, s24\n\t"
        "vadd.f32 s4, s4, s24\n\t"
        "vadd.f32 s5, s5, s24\n\t"
        RT_F32_DSP_LO("s0")
        RT_F32_DSP_LO("s1")
        RT_F32_DSP_LO("s2")
        RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        RT_F32_DSP_LO("s5")
        "vldr s24, [%[prm], #4]\n\t"
        "vadd.f32 s6, s6, s24\n\t"
        "vadd.f32 s7, s7, s24\n\t"
        "vadd.f32 s8, s8, s24\n\t"
        "vadd.f32 s9, s9, s24\n\t"
        "vadd.f32 s10, s10, s24\n\t"
        "vadd.f32 s11, s11, s24\n\t"
        RT_F32_DSP_LO("s6")
        RT_F32_DSP_LO("s7")
        RT_F32_DSP_LO("s8")
        RT_F32_DSP_LO("s9")
        RT_F32_DSP_LO("s10")
        RT_F32_DSP_LO("s11")
        "vldr s24, [%[prm], #8]\n\t"
        "vadd.f32 s12, s12, s24\n\t"
        "vadd.f32 s13, s13, s24\n\t"
        "vadd.f32 s14, s14, s24\n\t"
        "vadd.f32 s15, s15, s24\n\t"
        "vadd.f32 s16, s16, s24\n\t"
        "vadd.f32 s17, s17, s24\n\t"
        RT_F32_DSP_LO("s12")
        RT_F32_DSP_LO("s13")
        RT_F32_DSP_LO("s14")
        RT_F32_DSP_LO("s15")
        RT_F32_DSP_LO("s16")
        RT_F32_DSP_LO("s17")
        "vldr s24, [%[prm], #12]\n\t"
        "vadd.f32 s18, s18, s24\n\t"
        "vadd.f32 s19, s19, s24\n\t"
        "vadd.f32 s20, s20, s24\n\t"
        "vadd.f32 s21, s21, s24\n\t"
        "vadd.f32 s22, s22, s24\n\t"
        "vadd.f32 s23, s23, s24\n\t"
        RT_F32_DSP_LO("s18")
        RT_F32_DSP_LO("s19")
        RT_F32_DSP_LO("s20")
        RT_F32_DSP_LO("s21")
        RT_F32_DSP_LO("s22")
        RT_F32_DSP_LO("s23")
        "cmp %[hashi], #0\n\t"
        "beq 4f\n\t"
        RT_F32_DSP_HI("s0")
        RT_F32_DSP_HI("s1")
        RT_F32_DSP_HI("s2")
        RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        RT_F32_DSP_HI("s5")
        RT_F32_DSP_HI("s6")
        RT_F32_DSP_HI("s7")
        RT_F32_DSP_HI("s8")
        RT_F32_DSP_HI("s9")
        RT_F32_DSP_HI("s10")
        RT_F32_DSP_HI("s11")
        RT_F32_DSP_HI("s12")
        RT_F32_DSP_HI("s13")
        RT_F32_DSP_HI("s14")
        RT_F32_DSP_HI("s15")
        RT_F32_DSP_HI("s16")
        RT_F32_DSP_HI("s17")
        RT_F32_DSP_HI("s18")
        RT_F32_DSP_HI("s19")
        RT_F32_DSP_HI("s20")
        RT_F32_DSP_HI("s21")
        RT_F32_DSP_HI("s22")
        RT_F32_DSP_HI("s23")
        "4:\n\t"
        "vstm %[c], {s0-s5}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s6-s11}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s12-s17}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s18-s23}\n\t"
        : [k] "+r"(k), [a0] "+r"(a), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
          [b] "+r"(b), [c] "+r"(c), [t] "=&r"(t)
        : [ldb4] "r"(ldb4), [ldc4] "r"(ldc4), [prm] "r"(prm), [hashi] "r"(hashi)
        : RT_F32_DSP_CLOBBERS);
#else
    int32_t r, j;
    rt_f32_dsp_4x6(k, a, lda, b, ldb, c, ldc);
    for (r = 0; r < 4; ++r, c += ldc) {
        for (j = 0; j < 6; ++j) {
            c[j] = rt_act(c[j] + (bias != NULL ? bias[r] : 0.0f), lo, hi);
        }
    }
#endif
}

/* rt_f32_dsp_4x6_act's block for rows of 5 pixels (a plane or chunk whose width is a
 * multiple of 5, where blocks of 6 would recompute pixels): 20 sums in s0-s19, per p
 * one VLDM of the 5 b values and one load of each a value, two p a turn; bias and the
 * activation in registers before the store, as rt_f32_dsp_4x6_act does. k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_4x5_act(int32_t k, const float *a, int32_t lda,
                                                   const float *b, int32_t ldb, float *c,
                                                   int32_t ldc, const float *bias, float lo,
                                                   float hi)
{
#if RT_F32_DSP_ASM
    const float *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int32_t ldb4 = ldb * 4, ldc4 = ldc * 4, hashi = hi != INFINITY;
    const float prm[6] = {bias != NULL ? bias[0] : 0.0f, bias != NULL ? bias[1] : 0.0f,
                          bias != NULL ? bias[2] : 0.0f, bias != NULL ? bias[3] : 0.0f, lo, hi};
    int32_t t;
    __asm__ volatile(
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "vmov s12, s13, %[t], %[t]\n\t"
        "vmov s14, s15, %[t], %[t]\n\t"
        "vmov s16, s17, %[t], %[t]\n\t"
        "vmov s18, s19, %[t], %[t]\n\t"
        "tst %[k], #1\n\t"
        "beq 1f\n\t"
        "vldm %[b], {s24-s28}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s24, s31\n\t"
        "vmla.f32 s6, s25, s31\n\t"
        "vmla.f32 s7, s26, s31\n\t"
        "vmla.f32 s8, s27, s31\n\t"
        "vmla.f32 s9, s28, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s10, s24, s30\n\t"
        "vmla.f32 s11, s25, s30\n\t"
        "vmla.f32 s12, s26, s30\n\t"
        "vmla.f32 s13, s27, s30\n\t"
        "vmla.f32 s14, s28, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s15, s24, s31\n\t"
        "vmla.f32 s16, s25, s31\n\t"
        "vmla.f32 s17, s26, s31\n\t"
        "vmla.f32 s18, s27, s31\n\t"
        "vmla.f32 s19, s28, s31\n\t"
        "1:\n\t"
        "lsrs %[k], %[k], #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldm %[b], {s24-s28}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s24, s31\n\t"
        "vmla.f32 s6, s25, s31\n\t"
        "vmla.f32 s7, s26, s31\n\t"
        "vmla.f32 s8, s27, s31\n\t"
        "vmla.f32 s9, s28, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s10, s24, s30\n\t"
        "vmla.f32 s11, s25, s30\n\t"
        "vmla.f32 s12, s26, s30\n\t"
        "vmla.f32 s13, s27, s30\n\t"
        "vmla.f32 s14, s28, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s15, s24, s31\n\t"
        "vmla.f32 s16, s25, s31\n\t"
        "vmla.f32 s17, s26, s31\n\t"
        "vmla.f32 s18, s27, s31\n\t"
        "vmla.f32 s19, s28, s31\n\t"
        "vldm %[b], {s24-s28}\n\t"
        "add %[b], %[b], %[ldb4]\n\t"
        "vldmia %[a0]!, {s30}\n\t"
        "vldmia %[a1]!, {s31}\n\t"
        "vmla.f32 s0, s24, s30\n\t"
        "vmla.f32 s1, s25, s30\n\t"
        "vmla.f32 s2, s26, s30\n\t"
        "vmla.f32 s3, s27, s30\n\t"
        "vmla.f32 s4, s28, s30\n\t"
        "vmla.f32 s5, s24, s31\n\t"
        "vmla.f32 s6, s25, s31\n\t"
        "vmla.f32 s7, s26, s31\n\t"
        "vmla.f32 s8, s27, s31\n\t"
        "vmla.f32 s9, s28, s31\n\t"
        "vldmia %[a2]!, {s30}\n\t"
        "vmla.f32 s10, s24, s30\n\t"
        "vmla.f32 s11, s25, s30\n\t"
        "vmla.f32 s12, s26, s30\n\t"
        "vmla.f32 s13, s27, s30\n\t"
        "vmla.f32 s14, s28, s30\n\t"
        "vldmia %[a3]!, {s31}\n\t"
        "vmla.f32 s15, s24, s31\n\t"
        "vmla.f32 s16, s25, s31\n\t"
        "vmla.f32 s17, s26, s31\n\t"
        "vmla.f32 s18, s27, s31\n\t"
        "vmla.f32 s19, s28, s31\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "vldr s30, [%[prm], #16]\n\t"
        "vldr s31, [%[prm], #20]\n\t"
        "vldr s24, [%[prm], #0]\n\t"
        "vadd.f32 s0, s0, s24\n\t"
        "vadd.f32 s1, s1, s24\n\t"
        "vadd.f32 s2, s2, s24\n\t"
        "vadd.f32 s3, s3, s24\n\t"
        "vadd.f32 s4, s4, s24\n\t"
        RT_F32_DSP_LO("s0")
        RT_F32_DSP_LO("s1")
        RT_F32_DSP_LO("s2")
        RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        "vldr s24, [%[prm], #4]\n\t"
        "vadd.f32 s5, s5, s24\n\t"
        "vadd.f32 s6, s6, s24\n\t"
        "vadd.f32 s7, s7, s24\n\t"
        "vadd.f32 s8, s8, s24\n\t"
        "vadd.f32 s9, s9, s24\n\t"
        RT_F32_DSP_LO("s5")
        RT_F32_DSP_LO("s6")
        RT_F32_DSP_LO("s7")
        RT_F32_DSP_LO("s8")
        RT_F32_DSP_LO("s9")
        "vldr s24, [%[prm], #8]\n\t"
        "vadd.f32 s10, s10, s24\n\t"
        "vadd.f32 s11, s11, s24\n\t"
        "vadd.f32 s12, s12, s24\n\t"
        "vadd.f32 s13, s13, s24\n\t"
        "vadd.f32 s14, s14, s24\n\t"
        RT_F32_DSP_LO("s10")
        RT_F32_DSP_LO("s11")
        RT_F32_DSP_LO("s12")
        RT_F32_DSP_LO("s13")
        RT_F32_DSP_LO("s14")
        "vldr s24, [%[prm], #12]\n\t"
        "vadd.f32 s15, s15, s24\n\t"
        "vadd.f32 s16, s16, s24\n\t"
        "vadd.f32 s17, s17, s24\n\t"
        "vadd.f32 s18, s18, s24\n\t"
        "vadd.f32 s19, s19, s24\n\t"
        RT_F32_DSP_LO("s15")
        RT_F32_DSP_LO("s16")
        RT_F32_DSP_LO("s17")
        RT_F32_DSP_LO("s18")
        RT_F32_DSP_LO("s19")
        "cmp %[hashi], #0\n\t"
        "beq 4f\n\t"
        RT_F32_DSP_HI("s0")
        RT_F32_DSP_HI("s1")
        RT_F32_DSP_HI("s2")
        RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        RT_F32_DSP_HI("s5")
        RT_F32_DSP_HI("s6")
        RT_F32_DSP_HI("s7")
        RT_F32_DSP_HI("s8")
        RT_F32_DSP_HI("s9")
        RT_F32_DSP_HI("s10")
        RT_F32_DSP_HI("s11")
        RT_F32_DSP_HI("s12")
        RT_F32_DSP_HI("s13")
        RT_F32_DSP_HI("s14")
        RT_F32_DSP_HI("s15")
        RT_F32_DSP_HI("s16")
        RT_F32_DSP_HI("s17")
        RT_F32_DSP_HI("s18")
        RT_F32_DSP_HI("s19")
        "4:\n\t"
        "vstm %[c], {s0-s4}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s5-s9}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s10-s14}\n\t"
        "add %[c], %[c], %[ldc4]\n\t"
        "vstm %[c], {s15-s19}"
        : [k] "+r"(k), [a0] "+r"(a), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
          [b] "+r"(b), [c] "+r"(c), [t] "=&r"(t)
        : [ldb4] "r"(ldb4), [ldc4] "r"(ldc4), [prm] "r"(prm), [hashi] "r"(hashi)
        : RT_F32_DSP_CLOBBERS);
#else
    int32_t r, j, p;
    for (r = 0; r < 4; ++r, c += ldc) {
        for (j = 0; j < 5; ++j) {
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s = rt_mac_f32(s, a[r * lda + p], b[p * ldb + j]);
            }
            c[j] = rt_act(s + (bias != NULL ? bias[r] : 0.0f), lo, hi);
        }
    }
#endif
}


/* A run of output channel pairs over one panel of pixels, for rt_f32_dsp_2x8_act and
 * rt_f32_dsp_2x9_act (the asm reads it at these byte offsets; the loop counts pairs down and
 * steps bias through it). */
typedef struct rt_f32_dsp_pairs {
    const float *b;    /*  0: the panel: k rows of 8 (9) pixels, packed one after the other */
    int32_t k;         /*  4: products a sum, and the length of a weight row */
    int32_t ldc4;      /*  8: bytes between output channel rows */
    const float *bias; /* 12: the current pair's two biases */
    int32_t bstep;     /* 16: bytes bias steps a pair: 8, or 0 where it points at two zeros */
    float lo, hi;      /* 20, 24: the activation's clamps */
    int32_t hashi;     /* 28: hi is finite */
    int32_t pairs;     /* 32: pairs left (>= 1) */
} rt_f32_dsp_pairs;

#if RT_F32_DSP_ASM
/* The end of a pair in rt_f32_dsp_2x8_act and rt_f32_dsp_2x9_act: the two rows of sums (s
 * register ranges R0, R1) stored ldc4 bytes apart, then on to the next pair (its weight rows
 * follow, its bias is bstep bytes on) while pairs remain; the blocks' operands. */
#define RT_F32_DSP_PAIRS_NEXT(R0, R1)                                                        \
        "4:\n\t"                                                                             \
        "ldr %[t], [%[q], #8]\n\t"                                                           \
        "vstm %[c], {" R0 "}\n\t"                                                            \
        "add %[c], %[c], %[t]\n\t"                                                           \
        "vstm %[c], {" R1 "}\n\t"                                                            \
        "add %[c], %[c], %[t]\n\t"                                                           \
        "mov %[a0], %[a1]\n\t"                                                               \
        "ldr %[t], [%[q], #12]\n\t"                                                          \
        "ldr %[k], [%[q], #16]\n\t"                                                          \
        "add %[t], %[t], %[k]\n\t"                                                           \
        "str %[t], [%[q], #12]\n\t"                                                          \
        "ldr %[t], [%[q], #32]\n\t"                                                          \
        "subs %[t], %[t], #1\n\t"                                                            \
        "str %[t], [%[q], #32]\n\t"                                                          \
        "bne 0b"                                                                             \
        : [k] "=&r"(k), [a0] "+r"(a), [a1] "=&r"(a1), [b] "=&r"(b), [c] "+r"(c),            \
          [t] "=&r"(t)                                                                       \
        : [q] "r"(q)                                                                         \
        : RT_F32_DSP_CLOBBERS
#else
/* rt_f32_dsp_2x8_act and rt_f32_dsp_2x9_act as C loops: panels of wd pixels. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_pairs_c(const float *a, float *c,
                                                    rt_f32_dsp_pairs *q, int32_t wd)
{
    int32_t r, j, p;
    for (; q->pairs > 0; --q->pairs, a += 2 * q->k, c += 2 * (q->ldc4 / 4)) {
        for (r = 0; r < 2; ++r) {
            for (j = 0; j < wd; ++j) {
                float s = 0.0f;
                for (p = 0; p < q->k; ++p) {
                    s = rt_mac_f32(s, a[r * q->k + p], q->b[p * wd + j]);
                }
                c[r * (q->ldc4 / 4) + j] = rt_act(s + q->bias[r], q->lo, q->hi);
            }
        }
        q->bias += q->bstep / 4;
    }
}
#endif

/* For each of q->pairs pairs of output channels (weight rows a, a + k; then the next two):
 * c[r * ldc + j] = act(sum over p < k of a[r * k + p] * b[8 p + j] + bias[r]), r < 2, j < 8:
 * 16 sums in s0-s15, per four p one VLDM of each row's four a values (s16-s19, s20-s23),
 * then per p one VLDMIA of the 8 b values (s24-s31) and 16 VMLAs; the k % 4 first p one at a
 * time (so the sums stay in p order). Bias and the activation in registers before the store,
 * as rt_f32_dsp_4x6_act does. Fewer loads per product than 4 x 6 (each a value is loaded
 * once per four p, with the b row its 16 products share), and the pairs' loop in the asm
 * (the panel stays packed for all of them). k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_2x8_act(const float *a, float *c,
                                                   rt_f32_dsp_pairs *q)
{
#if RT_F32_DSP_ASM
    const float *a1, *b;
    int32_t k, t;
    __asm__ volatile(
        "0:\n\t"
        "ldr %[b], [%[q], #0]\n\t"
        "ldr %[k], [%[q], #4]\n\t"
        "add %[a1], %[a0], %[k], lsl #2\n\t"
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "vmov s12, s13, %[t], %[t]\n\t"
        "vmov s14, s15, %[t], %[t]\n\t"
        "ands %[t], %[k], #3\n\t"
        "beq 1f\n\t"
        "5:\n\t"
        "vldmia %[a0]!, {s16}\n\t"
        "vldmia %[a1]!, {s20}\n\t"
        "vldmia %[b]!, {s24-s31}\n\t"
        "vmla.f32 s0, s24, s16\n\t"
        "vmla.f32 s1, s25, s16\n\t"
        "vmla.f32 s2, s26, s16\n\t"
        "vmla.f32 s3, s27, s16\n\t"
        "vmla.f32 s4, s28, s16\n\t"
        "vmla.f32 s5, s29, s16\n\t"
        "vmla.f32 s6, s30, s16\n\t"
        "vmla.f32 s7, s31, s16\n\t"
        "vmla.f32 s8, s24, s20\n\t"
        "vmla.f32 s9, s25, s20\n\t"
        "vmla.f32 s10, s26, s20\n\t"
        "vmla.f32 s11, s27, s20\n\t"
        "vmla.f32 s12, s28, s20\n\t"
        "vmla.f32 s13, s29, s20\n\t"
        "vmla.f32 s14, s30, s20\n\t"
        "vmla.f32 s15, s31, s20\n\t"
        "subs %[t], %[t], #1\n\t"
        "bne 5b\n\t"
        "1:\n\t"
        "lsrs %[k], %[k], #2\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldmia %[a0]!, {s16-s19}\n\t"
        "vldmia %[a1]!, {s20-s23}\n\t"
        "vldmia %[b]!, {s24-s31}\n\t"
        "vmla.f32 s0, s24, s16\n\t"
        "vmla.f32 s1, s25, s16\n\t"
        "vmla.f32 s2, s26, s16\n\t"
        "vmla.f32 s3, s27, s16\n\t"
        "vmla.f32 s4, s28, s16\n\t"
        "vmla.f32 s5, s29, s16\n\t"
        "vmla.f32 s6, s30, s16\n\t"
        "vmla.f32 s7, s31, s16\n\t"
        "vmla.f32 s8, s24, s20\n\t"
        "vmla.f32 s9, s25, s20\n\t"
        "vmla.f32 s10, s26, s20\n\t"
        "vmla.f32 s11, s27, s20\n\t"
        "vmla.f32 s12, s28, s20\n\t"
        "vmla.f32 s13, s29, s20\n\t"
        "vmla.f32 s14, s30, s20\n\t"
        "vmla.f32 s15, s31, s20\n\t"
        "vldmia %[b]!, {s24-s31}\n\t"
        "vmla.f32 s0, s24, s17\n\t"
        "vmla.f32 s1, s25, s17\n\t"
        "vmla.f32 s2, s26, s17\n\t"
        "vmla.f32 s3, s27, s17\n\t"
        "vmla.f32 s4, s28, s17\n\t"
        "vmla.f32 s5, s29, s17\n\t"
        "vmla.f32 s6, s30, s17\n\t"
        "vmla.f32 s7, s31, s17\n\t"
        "vmla.f32 s8, s24, s21\n\t"
        "vmla.f32 s9, s25, s21\n\t"
        "vmla.f32 s10, s26, s21\n\t"
        "vmla.f32 s11, s27, s21\n\t"
        "vmla.f32 s12, s28, s21\n\t"
        "vmla.f32 s13, s29, s21\n\t"
        "vmla.f32 s14, s30, s21\n\t"
        "vmla.f32 s15, s31, s21\n\t"
        "vldmia %[b]!, {s24-s31}\n\t"
        "vmla.f32 s0, s24, s18\n\t"
        "vmla.f32 s1, s25, s18\n\t"
        "vmla.f32 s2, s26, s18\n\t"
        "vmla.f32 s3, s27, s18\n\t"
        "vmla.f32 s4, s28, s18\n\t"
        "vmla.f32 s5, s29, s18\n\t"
        "vmla.f32 s6, s30, s18\n\t"
        "vmla.f32 s7, s31, s18\n\t"
        "vmla.f32 s8, s24, s22\n\t"
        "vmla.f32 s9, s25, s22\n\t"
        "vmla.f32 s10, s26, s22\n\t"
        "vmla.f32 s11, s27, s22\n\t"
        "vmla.f32 s12, s28, s22\n\t"
        "vmla.f32 s13, s29, s22\n\t"
        "vmla.f32 s14, s30, s22\n\t"
        "vmla.f32 s15, s31, s22\n\t"
        "vldmia %[b]!, {s24-s31}\n\t"
        "vmla.f32 s0, s24, s19\n\t"
        "vmla.f32 s1, s25, s19\n\t"
        "vmla.f32 s2, s26, s19\n\t"
        "vmla.f32 s3, s27, s19\n\t"
        "vmla.f32 s4, s28, s19\n\t"
        "vmla.f32 s5, s29, s19\n\t"
        "vmla.f32 s6, s30, s19\n\t"
        "vmla.f32 s7, s31, s19\n\t"
        "vmla.f32 s8, s24, s23\n\t"
        "vmla.f32 s9, s25, s23\n\t"
        "vmla.f32 s10, s26, s23\n\t"
        "vmla.f32 s11, s27, s23\n\t"
        "vmla.f32 s12, s28, s23\n\t"
        "vmla.f32 s13, s29, s23\n\t"
        "vmla.f32 s14, s30, s23\n\t"
        "vmla.f32 s15, s31, s23\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "vldr s30, [%[q], #20]\n\t"
        "vldr s31, [%[q], #24]\n\t"
        "ldr %[t], [%[q], #12]\n\t"
        "vldr s24, [%[t]]\n\t"
        "vadd.f32 s0, s0, s24\n\t"
        "vadd.f32 s1, s1, s24\n\t"
        "vadd.f32 s2, s2, s24\n\t"
        "vadd.f32 s3, s3, s24\n\t"
        "vadd.f32 s4, s4, s24\n\t"
        "vadd.f32 s5, s5, s24\n\t"
        "vadd.f32 s6, s6, s24\n\t"
        "vadd.f32 s7, s7, s24\n\t"
        RT_F32_DSP_LO("s0")
        RT_F32_DSP_LO("s1")
        RT_F32_DSP_LO("s2")
        RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        RT_F32_DSP_LO("s5")
        RT_F32_DSP_LO("s6")
        RT_F32_DSP_LO("s7")
        "vldr s24, [%[t], #4]\n\t"
        "vadd.f32 s8, s8, s24\n\t"
        "vadd.f32 s9, s9, s24\n\t"
        "vadd.f32 s10, s10, s24\n\t"
        "vadd.f32 s11, s11, s24\n\t"
        "vadd.f32 s12, s12, s24\n\t"
        "vadd.f32 s13, s13, s24\n\t"
        "vadd.f32 s14, s14, s24\n\t"
        "vadd.f32 s15, s15, s24\n\t"
        RT_F32_DSP_LO("s8")
        RT_F32_DSP_LO("s9")
        RT_F32_DSP_LO("s10")
        RT_F32_DSP_LO("s11")
        RT_F32_DSP_LO("s12")
        RT_F32_DSP_LO("s13")
        RT_F32_DSP_LO("s14")
        RT_F32_DSP_LO("s15")
        "ldr %[t], [%[q], #28]\n\t"
        "cmp %[t], #0\n\t"
        "beq 4f\n\t"
        RT_F32_DSP_HI("s0")
        RT_F32_DSP_HI("s1")
        RT_F32_DSP_HI("s2")
        RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        RT_F32_DSP_HI("s5")
        RT_F32_DSP_HI("s6")
        RT_F32_DSP_HI("s7")
        RT_F32_DSP_HI("s8")
        RT_F32_DSP_HI("s9")
        RT_F32_DSP_HI("s10")
        RT_F32_DSP_HI("s11")
        RT_F32_DSP_HI("s12")
        RT_F32_DSP_HI("s13")
        RT_F32_DSP_HI("s14")
        RT_F32_DSP_HI("s15")
        RT_F32_DSP_PAIRS_NEXT("s0-s7", "s8-s15"));
#else
    rt_f32_dsp_pairs_c(a, c, q, 8);
#endif
}


/* rt_f32_dsp_2x8_act's pairs over panels of 9 pixels (3x3 planes, 6x6: MobileNet's last
 * layers, where blocks of 8 or 6 would recompute pixels or leave long tails): 18 sums in
 * s0-s17, per two p one VLDM of each row's two a values (s18-s19, s20-s21), then per p one
 * VLDMIA of the 9 b values (s22-s30) and 18 VMLAs; an odd k's first p alone (the sums stay
 * in p order). Bias and the activation in registers before the store. k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_2x9_act(const float *a, float *c,
                                                   rt_f32_dsp_pairs *q)
{
#if RT_F32_DSP_ASM
    const float *a1, *b;
    int32_t k, t;
    __asm__ volatile(
        "0:\n\t"
        "ldr %[b], [%[q], #0]\n\t"
        "ldr %[k], [%[q], #4]\n\t"
        "add %[a1], %[a0], %[k], lsl #2\n\t"
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "vmov s12, s13, %[t], %[t]\n\t"
        "vmov s14, s15, %[t], %[t]\n\t"
        "vmov s16, s17, %[t], %[t]\n\t"
        "tst %[k], #1\n\t"
        "beq 1f\n\t"
        "vldmia %[a0]!, {s18}\n\t"
        "vldmia %[a1]!, {s20}\n\t"
        "vldmia %[b]!, {s22-s30}\n\t"
        "vmla.f32 s0, s22, s18\n\t"
        "vmla.f32 s1, s23, s18\n\t"
        "vmla.f32 s2, s24, s18\n\t"
        "vmla.f32 s3, s25, s18\n\t"
        "vmla.f32 s4, s26, s18\n\t"
        "vmla.f32 s5, s27, s18\n\t"
        "vmla.f32 s6, s28, s18\n\t"
        "vmla.f32 s7, s29, s18\n\t"
        "vmla.f32 s8, s30, s18\n\t"
        "vmla.f32 s9, s22, s20\n\t"
        "vmla.f32 s10, s23, s20\n\t"
        "vmla.f32 s11, s24, s20\n\t"
        "vmla.f32 s12, s25, s20\n\t"
        "vmla.f32 s13, s26, s20\n\t"
        "vmla.f32 s14, s27, s20\n\t"
        "vmla.f32 s15, s28, s20\n\t"
        "vmla.f32 s16, s29, s20\n\t"
        "vmla.f32 s17, s30, s20\n\t"
        "1:\n\t"
        "lsrs %[k], %[k], #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldmia %[a0]!, {s18-s19}\n\t"
        "vldmia %[a1]!, {s20-s21}\n\t"
        "vldmia %[b]!, {s22-s30}\n\t"
        "vmla.f32 s0, s22, s18\n\t"
        "vmla.f32 s1, s23, s18\n\t"
        "vmla.f32 s2, s24, s18\n\t"
        "vmla.f32 s3, s25, s18\n\t"
        "vmla.f32 s4, s26, s18\n\t"
        "vmla.f32 s5, s27, s18\n\t"
        "vmla.f32 s6, s28, s18\n\t"
        "vmla.f32 s7, s29, s18\n\t"
        "vmla.f32 s8, s30, s18\n\t"
        "vmla.f32 s9, s22, s20\n\t"
        "vmla.f32 s10, s23, s20\n\t"
        "vmla.f32 s11, s24, s20\n\t"
        "vmla.f32 s12, s25, s20\n\t"
        "vmla.f32 s13, s26, s20\n\t"
        "vmla.f32 s14, s27, s20\n\t"
        "vmla.f32 s15, s28, s20\n\t"
        "vmla.f32 s16, s29, s20\n\t"
        "vmla.f32 s17, s30, s20\n\t"
        "vldmia %[b]!, {s22-s30}\n\t"
        "vmla.f32 s0, s22, s19\n\t"
        "vmla.f32 s1, s23, s19\n\t"
        "vmla.f32 s2, s24, s19\n\t"
        "vmla.f32 s3, s25, s19\n\t"
        "vmla.f32 s4, s26, s19\n\t"
        "vmla.f32 s5, s27, s19\n\t"
        "vmla.f32 s6, s28, s19\n\t"
        "vmla.f32 s7, s29, s19\n\t"
        "vmla.f32 s8, s30, s19\n\t"
        "vmla.f32 s9, s22, s21\n\t"
        "vmla.f32 s10, s23, s21\n\t"
        "vmla.f32 s11, s24, s21\n\t"
        "vmla.f32 s12, s25, s21\n\t"
        "vmla.f32 s13, s26, s21\n\t"
        "vmla.f32 s14, s27, s21\n\t"
        "vmla.f32 s15, s28, s21\n\t"
        "vmla.f32 s16, s29, s21\n\t"
        "vmla.f32 s17, s30, s21\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "vldr s30, [%[q], #20]\n\t"
        "vldr s31, [%[q], #24]\n\t"
        "ldr %[t], [%[q], #12]\n\t"
        "vldr s22, [%[t]]\n\t"
        "vadd.f32 s0, s0, s22\n\t"
        "vadd.f32 s1, s1, s22\n\t"
        "vadd.f32 s2, s2, s22\n\t"
        "vadd.f32 s3, s3, s22\n\t"
        "vadd.f32 s4, s4, s22\n\t"
        "vadd.f32 s5, s5, s22\n\t"
        "vadd.f32 s6, s6, s22\n\t"
        "vadd.f32 s7, s7, s22\n\t"
        "vadd.f32 s8, s8, s22\n\t"
        RT_F32_DSP_LO("s0")
        RT_F32_DSP_LO("s1")
        RT_F32_DSP_LO("s2")
        RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        RT_F32_DSP_LO("s5")
        RT_F32_DSP_LO("s6")
        RT_F32_DSP_LO("s7")
        RT_F32_DSP_LO("s8")
        "vldr s22, [%[t], #4]\n\t"
        "vadd.f32 s9, s9, s22\n\t"
        "vadd.f32 s10, s10, s22\n\t"
        "vadd.f32 s11, s11, s22\n\t"
        "vadd.f32 s12, s12, s22\n\t"
        "vadd.f32 s13, s13, s22\n\t"
        "vadd.f32 s14, s14, s22\n\t"
        "vadd.f32 s15, s15, s22\n\t"
        "vadd.f32 s16, s16, s22\n\t"
        "vadd.f32 s17, s17, s22\n\t"
        RT_F32_DSP_LO("s9")
        RT_F32_DSP_LO("s10")
        RT_F32_DSP_LO("s11")
        RT_F32_DSP_LO("s12")
        RT_F32_DSP_LO("s13")
        RT_F32_DSP_LO("s14")
        RT_F32_DSP_LO("s15")
        RT_F32_DSP_LO("s16")
        RT_F32_DSP_LO("s17")
        "ldr %[t], [%[q], #28]\n\t"
        "cmp %[t], #0\n\t"
        "beq 4f\n\t"
        RT_F32_DSP_HI("s0")
        RT_F32_DSP_HI("s1")
        RT_F32_DSP_HI("s2")
        RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        RT_F32_DSP_HI("s5")
        RT_F32_DSP_HI("s6")
        RT_F32_DSP_HI("s7")
        RT_F32_DSP_HI("s8")
        RT_F32_DSP_HI("s9")
        RT_F32_DSP_HI("s10")
        RT_F32_DSP_HI("s11")
        RT_F32_DSP_HI("s12")
        RT_F32_DSP_HI("s13")
        RT_F32_DSP_HI("s14")
        RT_F32_DSP_HI("s15")
        RT_F32_DSP_HI("s16")
        RT_F32_DSP_HI("s17")
        RT_F32_DSP_PAIRS_NEXT("s0-s8", "s9-s17"));
#else
    rt_f32_dsp_pairs_c(a, c, q, 9);
#endif
}


/* c[j] = sum over p < k of a[p] * b[p * ldb + j], j < 12 (a row of a matrix x matrix, or a
 * vector x matrix): 12 sums in s0-s11, per p one VLDM of the 12 b values; a is loaded 8
 * values a VLDM. k >= 0. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_1x12(int32_t k, const float *a, const float *b,
                                                int32_t ldb, float *c)
{
#if RT_F32_DSP_ASM
    const int32_t ldb4 = ldb * 4;
    int32_t k8 = k >> 3, k1 = k & 7, t;
#define RT_F32_DSP_STEP(x)                                                                   \
        "vldm %[b], {s12-s23}\n\t"                                                           \
        "add %[b], %[b], %[ldb4]\n\t"                                                        \
        "vmla.f32 s0, s12, " x "\n\t"                                                        \
        "vmla.f32 s1, s13, " x "\n\t"                                                        \
        "vmla.f32 s2, s14, " x "\n\t"                                                        \
        "vmla.f32 s3, s15, " x "\n\t"                                                        \
        "vmla.f32 s4, s16, " x "\n\t"                                                        \
        "vmla.f32 s5, s17, " x "\n\t"                                                        \
        "vmla.f32 s6, s18, " x "\n\t"                                                        \
        "vmla.f32 s7, s19, " x "\n\t"                                                        \
        "vmla.f32 s8, s20, " x "\n\t"                                                        \
        "vmla.f32 s9, s21, " x "\n\t"                                                        \
        "vmla.f32 s10, s22, " x "\n\t"                                                       \
        "vmla.f32 s11, s23, " x "\n\t"
    __asm__ volatile(
        "movs %[t], #0\n\t"
        "vmov s0, s1, %[t], %[t]\n\t"
        "vmov s2, s3, %[t], %[t]\n\t"
        "vmov s4, s5, %[t], %[t]\n\t"
        "vmov s6, s7, %[t], %[t]\n\t"
        "vmov s8, s9, %[t], %[t]\n\t"
        "vmov s10, s11, %[t], %[t]\n\t"
        "cmp %[k8], #0\n\t"
        "beq 2f\n\t"
        "1:\n\t"
        "vldmia %[a]!, {s24-s31}\n\t"
        RT_F32_DSP_STEP("s24") RT_F32_DSP_STEP("s25") RT_F32_DSP_STEP("s26")
        RT_F32_DSP_STEP("s27") RT_F32_DSP_STEP("s28") RT_F32_DSP_STEP("s29")
        RT_F32_DSP_STEP("s30") RT_F32_DSP_STEP("s31")
        "subs %[k8], %[k8], #1\n\t"
        "bne 1b\n\t"
        "2:\n\t"
        "cmp %[k1], #0\n\t"
        "beq 4f\n\t"
        "3:\n\t"
        "vldmia %[a]!, {s24}\n\t"
        RT_F32_DSP_STEP("s24")
        "subs %[k1], %[k1], #1\n\t"
        "bne 3b\n\t"
        "4:\n\t"
        "vstm %[c], {s0-s11}\n\t"
        : [k8] "+r"(k8), [k1] "+r"(k1), [a] "+r"(a), [b] "+r"(b), [t] "=&r"(t)
        : [ldb4] "r"(ldb4), [c] "r"(c)
        : RT_F32_DSP_CLOBBERS);
#undef RT_F32_DSP_STEP
#else
    int32_t j, p;
    for (j = 0; j < 12; ++j) {
        float s = 0.0f;
        for (p = 0; p < k; ++p) {
            s = rt_mac_f32(s, a[p], b[p * ldb + j]);
        }
        c[j] = s;
    }
#endif
}

#if RT_F32_DSP_ASM
/* The 16 sums of a block of 4 output channels x 4 pixels of a conv with 3 taps a row at
 * stride 1 (k3s1) or 2 (k3s2), dilation 1 along the row: per input channel (cin of them)
 * and filter row (rows of them; x advances step floats a row, then next more a channel) one
 * VLDM of the block's 6 (or 9) inputs and one VLDM of each channel's 3 weights (w0 +
 * r * fsize, skip more floats a channel: the filter rows outside the input), 48 VMLA.
 * Stored raw to acc[4 * channel + pixel]. mode 1: the block's first input is padding (0;
 * x points at the second), mode 2: its last one is. cin, rows >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_k3s1(const float *x, const float *w0, int32_t fsize,
                                               int32_t cin, int32_t rows, int32_t step,
                                               int32_t next, int32_t skip, int mode,
                                               float *acc)
{
    const float *w1 = w0 + fsize, *w2 = w1 + fsize, *w3 = w2 + fsize;
    const int32_t step4 = step * 4, next4 = next * 4, skip4 = skip * 4;
    int32_t t;
    if (mode == 0) {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s16-s21}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s17, s25\n\t"
            "vmla.f32 s2, s18, s25\n\t"
            "vmla.f32 s3, s19, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s18, s26\n\t"
            "vmla.f32 s2, s19, s26\n\t"
            "vmla.f32 s3, s20, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s19, s27\n\t"
            "vmla.f32 s2, s20, s27\n\t"
            "vmla.f32 s3, s21, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s17, s25\n\t"
            "vmla.f32 s6, s18, s25\n\t"
            "vmla.f32 s7, s19, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s18, s26\n\t"
            "vmla.f32 s6, s19, s26\n\t"
            "vmla.f32 s7, s20, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s19, s27\n\t"
            "vmla.f32 s6, s20, s27\n\t"
            "vmla.f32 s7, s21, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s17, s25\n\t"
            "vmla.f32 s10, s18, s25\n\t"
            "vmla.f32 s11, s19, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s18, s26\n\t"
            "vmla.f32 s10, s19, s26\n\t"
            "vmla.f32 s11, s20, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s19, s27\n\t"
            "vmla.f32 s10, s20, s27\n\t"
            "vmla.f32 s11, s21, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s17, s25\n\t"
            "vmla.f32 s14, s18, s25\n\t"
            "vmla.f32 s15, s19, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s18, s26\n\t"
            "vmla.f32 s14, s19, s26\n\t"
            "vmla.f32 s15, s20, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s19, s27\n\t"
            "vmla.f32 s14, s20, s27\n\t"
            "vmla.f32 s15, s21, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    } else if (mode == 1) {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "vmov s16, %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s17-s21}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s17, s25\n\t"
            "vmla.f32 s2, s18, s25\n\t"
            "vmla.f32 s3, s19, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s18, s26\n\t"
            "vmla.f32 s2, s19, s26\n\t"
            "vmla.f32 s3, s20, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s19, s27\n\t"
            "vmla.f32 s2, s20, s27\n\t"
            "vmla.f32 s3, s21, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s17, s25\n\t"
            "vmla.f32 s6, s18, s25\n\t"
            "vmla.f32 s7, s19, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s18, s26\n\t"
            "vmla.f32 s6, s19, s26\n\t"
            "vmla.f32 s7, s20, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s19, s27\n\t"
            "vmla.f32 s6, s20, s27\n\t"
            "vmla.f32 s7, s21, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s17, s25\n\t"
            "vmla.f32 s10, s18, s25\n\t"
            "vmla.f32 s11, s19, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s18, s26\n\t"
            "vmla.f32 s10, s19, s26\n\t"
            "vmla.f32 s11, s20, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s19, s27\n\t"
            "vmla.f32 s10, s20, s27\n\t"
            "vmla.f32 s11, s21, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s17, s25\n\t"
            "vmla.f32 s14, s18, s25\n\t"
            "vmla.f32 s15, s19, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s18, s26\n\t"
            "vmla.f32 s14, s19, s26\n\t"
            "vmla.f32 s15, s20, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s19, s27\n\t"
            "vmla.f32 s14, s20, s27\n\t"
            "vmla.f32 s15, s21, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    } else {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "vmov s21, %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s16-s20}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s17, s25\n\t"
            "vmla.f32 s2, s18, s25\n\t"
            "vmla.f32 s3, s19, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s18, s26\n\t"
            "vmla.f32 s2, s19, s26\n\t"
            "vmla.f32 s3, s20, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s19, s27\n\t"
            "vmla.f32 s2, s20, s27\n\t"
            "vmla.f32 s3, s21, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s17, s25\n\t"
            "vmla.f32 s6, s18, s25\n\t"
            "vmla.f32 s7, s19, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s18, s26\n\t"
            "vmla.f32 s6, s19, s26\n\t"
            "vmla.f32 s7, s20, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s19, s27\n\t"
            "vmla.f32 s6, s20, s27\n\t"
            "vmla.f32 s7, s21, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s17, s25\n\t"
            "vmla.f32 s10, s18, s25\n\t"
            "vmla.f32 s11, s19, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s18, s26\n\t"
            "vmla.f32 s10, s19, s26\n\t"
            "vmla.f32 s11, s20, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s19, s27\n\t"
            "vmla.f32 s10, s20, s27\n\t"
            "vmla.f32 s11, s21, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s17, s25\n\t"
            "vmla.f32 s14, s18, s25\n\t"
            "vmla.f32 s15, s19, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s18, s26\n\t"
            "vmla.f32 s14, s19, s26\n\t"
            "vmla.f32 s15, s20, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s19, s27\n\t"
            "vmla.f32 s14, s20, s27\n\t"
            "vmla.f32 s15, s21, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    }
}


static RT_F32_DSP_NOINLINE void rt_f32_dsp_k3s2(const float *x, const float *w0, int32_t fsize,
                                               int32_t cin, int32_t rows, int32_t step,
                                               int32_t next, int32_t skip, int mode,
                                               float *acc)
{
    const float *w1 = w0 + fsize, *w2 = w1 + fsize, *w3 = w2 + fsize;
    const int32_t step4 = step * 4, next4 = next * 4, skip4 = skip * 4;
    int32_t t;
    if (mode == 0) {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s16-s24}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s18, s25\n\t"
            "vmla.f32 s2, s20, s25\n\t"
            "vmla.f32 s3, s22, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s19, s26\n\t"
            "vmla.f32 s2, s21, s26\n\t"
            "vmla.f32 s3, s23, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s20, s27\n\t"
            "vmla.f32 s2, s22, s27\n\t"
            "vmla.f32 s3, s24, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s18, s25\n\t"
            "vmla.f32 s6, s20, s25\n\t"
            "vmla.f32 s7, s22, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s19, s26\n\t"
            "vmla.f32 s6, s21, s26\n\t"
            "vmla.f32 s7, s23, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s20, s27\n\t"
            "vmla.f32 s6, s22, s27\n\t"
            "vmla.f32 s7, s24, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s18, s25\n\t"
            "vmla.f32 s10, s20, s25\n\t"
            "vmla.f32 s11, s22, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s19, s26\n\t"
            "vmla.f32 s10, s21, s26\n\t"
            "vmla.f32 s11, s23, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s20, s27\n\t"
            "vmla.f32 s10, s22, s27\n\t"
            "vmla.f32 s11, s24, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s18, s25\n\t"
            "vmla.f32 s14, s20, s25\n\t"
            "vmla.f32 s15, s22, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s19, s26\n\t"
            "vmla.f32 s14, s21, s26\n\t"
            "vmla.f32 s15, s23, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s20, s27\n\t"
            "vmla.f32 s14, s22, s27\n\t"
            "vmla.f32 s15, s24, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    } else if (mode == 1) {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "vmov s16, %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s17-s24}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s18, s25\n\t"
            "vmla.f32 s2, s20, s25\n\t"
            "vmla.f32 s3, s22, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s19, s26\n\t"
            "vmla.f32 s2, s21, s26\n\t"
            "vmla.f32 s3, s23, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s20, s27\n\t"
            "vmla.f32 s2, s22, s27\n\t"
            "vmla.f32 s3, s24, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s18, s25\n\t"
            "vmla.f32 s6, s20, s25\n\t"
            "vmla.f32 s7, s22, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s19, s26\n\t"
            "vmla.f32 s6, s21, s26\n\t"
            "vmla.f32 s7, s23, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s20, s27\n\t"
            "vmla.f32 s6, s22, s27\n\t"
            "vmla.f32 s7, s24, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s18, s25\n\t"
            "vmla.f32 s10, s20, s25\n\t"
            "vmla.f32 s11, s22, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s19, s26\n\t"
            "vmla.f32 s10, s21, s26\n\t"
            "vmla.f32 s11, s23, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s20, s27\n\t"
            "vmla.f32 s10, s22, s27\n\t"
            "vmla.f32 s11, s24, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s18, s25\n\t"
            "vmla.f32 s14, s20, s25\n\t"
            "vmla.f32 s15, s22, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s19, s26\n\t"
            "vmla.f32 s14, s21, s26\n\t"
            "vmla.f32 s15, s23, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s20, s27\n\t"
            "vmla.f32 s14, s22, s27\n\t"
            "vmla.f32 s15, s24, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    } else {
        __asm__ volatile(
            "movs %[t], #0\n\t"
            "vmov s0, s1, %[t], %[t]\n\t"
            "vmov s2, s3, %[t], %[t]\n\t"
            "vmov s4, s5, %[t], %[t]\n\t"
            "vmov s6, s7, %[t], %[t]\n\t"
            "vmov s8, s9, %[t], %[t]\n\t"
            "vmov s10, s11, %[t], %[t]\n\t"
            "vmov s12, s13, %[t], %[t]\n\t"
            "vmov s14, s15, %[t], %[t]\n\t"
            "vmov s24, %[t]\n\t"
            "1:\n\t"
            "mov %[t], %[rows]\n\t"
            "2:\n\t"
            "vldm %[x], {s16-s23}\n\t"
            "add %[x], %[x], %[step]\n\t"
            "vldmia %[w0]!, {s25-s27}\n\t"
            "vmla.f32 s0, s16, s25\n\t"
            "vmla.f32 s1, s18, s25\n\t"
            "vmla.f32 s2, s20, s25\n\t"
            "vmla.f32 s3, s22, s25\n\t"
            "vmla.f32 s0, s17, s26\n\t"
            "vmla.f32 s1, s19, s26\n\t"
            "vmla.f32 s2, s21, s26\n\t"
            "vmla.f32 s3, s23, s26\n\t"
            "vmla.f32 s0, s18, s27\n\t"
            "vmla.f32 s1, s20, s27\n\t"
            "vmla.f32 s2, s22, s27\n\t"
            "vmla.f32 s3, s24, s27\n\t"
            "vldmia %[w1]!, {s25-s27}\n\t"
            "vmla.f32 s4, s16, s25\n\t"
            "vmla.f32 s5, s18, s25\n\t"
            "vmla.f32 s6, s20, s25\n\t"
            "vmla.f32 s7, s22, s25\n\t"
            "vmla.f32 s4, s17, s26\n\t"
            "vmla.f32 s5, s19, s26\n\t"
            "vmla.f32 s6, s21, s26\n\t"
            "vmla.f32 s7, s23, s26\n\t"
            "vmla.f32 s4, s18, s27\n\t"
            "vmla.f32 s5, s20, s27\n\t"
            "vmla.f32 s6, s22, s27\n\t"
            "vmla.f32 s7, s24, s27\n\t"
            "vldmia %[w2]!, {s25-s27}\n\t"
            "vmla.f32 s8, s16, s25\n\t"
            "vmla.f32 s9, s18, s25\n\t"
            "vmla.f32 s10, s20, s25\n\t"
            "vmla.f32 s11, s22, s25\n\t"
            "vmla.f32 s8, s17, s26\n\t"
            "vmla.f32 s9, s19, s26\n\t"
            "vmla.f32 s10, s21, s26\n\t"
            "vmla.f32 s11, s23, s26\n\t"
            "vmla.f32 s8, s18, s27\n\t"
            "vmla.f32 s9, s20, s27\n\t"
            "vmla.f32 s10, s22, s27\n\t"
            "vmla.f32 s11, s24, s27\n\t"
            "vldmia %[w3]!, {s25-s27}\n\t"
            "vmla.f32 s12, s16, s25\n\t"
            "vmla.f32 s13, s18, s25\n\t"
            "vmla.f32 s14, s20, s25\n\t"
            "vmla.f32 s15, s22, s25\n\t"
            "vmla.f32 s12, s17, s26\n\t"
            "vmla.f32 s13, s19, s26\n\t"
            "vmla.f32 s14, s21, s26\n\t"
            "vmla.f32 s15, s23, s26\n\t"
            "vmla.f32 s12, s18, s27\n\t"
            "vmla.f32 s13, s20, s27\n\t"
            "vmla.f32 s14, s22, s27\n\t"
            "vmla.f32 s15, s24, s27\n\t"
            "subs %[t], %[t], #1\n\t"
            "bne 2b\n\t"
            "add %[x], %[x], %[next4]\n\t"
            "add %[w0], %[w0], %[skip4]\n\t"
            "add %[w1], %[w1], %[skip4]\n\t"
            "add %[w2], %[w2], %[skip4]\n\t"
            "add %[w3], %[w3], %[skip4]\n\t"
            "subs %[cin], %[cin], #1\n\t"
            "bne 1b\n\t"
            "vstm %[acc], {s0-s15}\n\t"
            : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
              [cin] "+r"(cin), [t] "=&r"(t)
            : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4), [skip4] "r"(skip4),
              [acc] "r"(acc)
            : RT_F32_DSP_CLOBBERS);
    }
}

#endif

#endif /* RT_F32_DSP_H */
