/* f32_dsp.h - the register blocks of this folder's float32 kernels (conv2d.c, conv2d_1x1.c,
 * gemm.c) for a Cortex-M with a single-precision FPU (M4F, M7: FPv4-SP, FPv5), where s0-s31
 * hold 32 floats.
 *
 * Written out as inline assembly: gcc loads a row of floats one VLDR at a time, where VLDM
 * takes a row in one instruction, and it cannot keep 24 accumulators and their inputs in the
 * 32 registers without spilling. Each block clobbers every s register and keeps its loop in
 * a function of its own (so the callee-saved s16-s31 are pushed once per block, not per
 * iteration). Each product is a VMUL.F32 into a free register and a VADD.F32 of it into its
 * sum (rounded, then added: what rt_mac_f32 and VMLA compute, but 2 Cortex-M4 cycles where
 * VMLA takes 3, the VMULs issued one ahead of the VADDs so that none waits on the one before:
 * gen_f32_tiles.py's schedule), in k order per output: the results are bit for bit those of
 * the portable kernels' loops.
 * Without the FPU, or at -O0, the same blocks are plain C loops.
 *
 * The instruction lists are generated (f32_tiles.h, by gen_f32_tiles.py): this file puts
 * them together with their operands. The families, and when the kernels take each:
 *   4 x 5           4 rows of a x 5 columns of b, one VLDM of b a product: gemm.c's
 *                   matrix products, conv2d.c's im2col columns, conv2d_1x1.c when the pair
 *                   blocks do not fit (4 x 6 would leave no register for the products);
 *   2 x 8, 2 x 9    pairs of output channels over a packed panel of 8 (9) pixels, the loop
 *                   over pairs in the asm: conv2d_1x1.c (2 x 9 for 3x3 and 6x6 planes);
 *   1 x 12          one row of a x 12 columns: gemm.c's matrix x vector;
 *   k3s1, k3s2      4 channels x 4 pixels of a 3-tap row at stride 1 (2): conv2d.c's direct
 *                   3x3 convolutions.
 * How the shapes were chosen, and what was measured: docs/kernels/dsp.md. */
#ifndef RT_F32_DSP_H
#define RT_F32_DSP_H

#include "../../core/rt_internal.h"
#include "f32_tiles.h"

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
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",  \
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",      \
    "s26", "s27", "s28", "s29", "s30", "s31", "memory", "cc"
#endif


/* The operands of the 4 x n blocks: k products, rows a0-a3 of a, b and c, stepped in place. */
#define RT_F32_DSP_ROWS_OUT                                                                  \
    [k] "+r"(k), [a0] "+r"(a), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b] "+r"(b),     \
        [c] "+r"(c), [t] "=&r"(t)

/* c[r * ldc + j] = sum over p < k of a[r * lda + p] * b[p * ldb + j], r < 4, j < 5, stored
 * raw (no bias): 20 sums in s0-s19, per p one VLDM of the 5 b values and one load of each a
 * value; the loop takes two p a turn. k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_4x5(int32_t k, const float *a, int32_t lda,
                                               const float *b, int32_t ldb, float *c,
                                               int32_t ldc)
{
#if RT_F32_DSP_ASM
    const float *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int32_t ldb4 = ldb * 4, ldc4 = ldc * 4;
    int32_t t;
    __asm__ volatile(RT_F32_DSP_4X5_MAC RT_F32_DSP_4X5_STORE
                     : RT_F32_DSP_ROWS_OUT
                     : [ldb4] "r"(ldb4), [ldc4] "r"(ldc4)
                     : RT_F32_DSP_CLOBBERS);
#else
    int32_t r, j, p;
    for (r = 0; r < 4; ++r) {
        for (j = 0; j < 5; ++j) {
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s = rt_mac_f32(s, a[r * lda + p], b[p * ldb + j]);
            }
            c[r * ldc + j] = s;
        }
    }
#endif
}

/* rt_f32_dsp_4x5, then row r of the block + bias[r] (0 without bias) and clamped to
 * [lo, hi] as rt_act does it (x < lo: lo, then x > hi: hi; NaN passes), in registers
 * before the store: VCMP sets N for an ordered "less", and GT is false for unordered. The
 * bias and clamps come in prm[0..5] (0 without bias). k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_4x5_act(int32_t k, const float *a, int32_t lda,
                                                   const float *b, int32_t ldb, float *c,
                                                   int32_t ldc, const float *bias, float lo,
                                                   float hi)
{
#if RT_F32_DSP_ASM
    const float *a1 = a + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const int32_t ldb4 = ldb * 4, ldc4 = ldc * 4, hashi = hi != INFINITY;
    const float prm[6] = {bias != NULL ? bias[0] : 0.0f, bias != NULL ? bias[1] : 0.0f,
                          bias != NULL ? bias[2] : 0.0f, bias != NULL ? bias[3] : 0.0f, lo,
                          hi};
    int32_t t;
    __asm__ volatile(RT_F32_DSP_4X5_MAC RT_F32_DSP_4X5_ACT RT_F32_DSP_4X5_STORE
                     : RT_F32_DSP_ROWS_OUT
                     : [ldb4] "r"(ldb4), [ldc4] "r"(ldc4), [prm] "r"(prm), [hashi] "r"(hashi)
                     : RT_F32_DSP_CLOBBERS);
#else
    int32_t r, j;
    rt_f32_dsp_4x5(k, a, lda, b, ldb, c, ldc);
    for (r = 0; r < 4; ++r, c += ldc) {
        for (j = 0; j < 5; ++j) {
            c[j] = rt_act(c[j] + (bias != NULL ? bias[r] : 0.0f), lo, hi);
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
/* The body of rt_f32_dsp_2x8_act and rt_f32_dsp_2x9_act (TILE: RT_F32_DSP_2X8 or 2X9, N
 * pixels a panel): each pair's sums, bias and clamps, then its two rows of sums (s register
 * ranges R0, R1) stored ldc4 bytes apart, and on to the next pair (its weight rows follow,
 * its bias is bstep bytes on) while pairs remain. */
#define RT_F32_DSP_PAIRS(TILE, N, R0, R1)                                                    \
    const float *a1, *b;                                                                     \
    int32_t k, t;                                                                            \
    __asm__ volatile(TILE##_MAC TILE##_ACT                                                   \
                     "4:\n\t"                                                                \
                     "ldr %[t], [%[q], #8]\n\t"                                              \
                     "vstm %[c], {" R0 "}\n\t"                                               \
                     "add %[c], %[c], %[t]\n\t"                                              \
                     "vstm %[c], {" R1 "}\n\t"                                               \
                     "add %[c], %[c], %[t]\n\t"                                              \
                     "mov %[a0], %[a1]\n\t"                                                  \
                     "ldr %[t], [%[q], #12]\n\t"                                             \
                     "ldr %[k], [%[q], #16]\n\t"                                             \
                     "add %[t], %[t], %[k]\n\t"                                              \
                     "str %[t], [%[q], #12]\n\t"                                             \
                     "ldr %[t], [%[q], #32]\n\t"                                             \
                     "subs %[t], %[t], #1\n\t"                                               \
                     "str %[t], [%[q], #32]\n\t"                                             \
                     "bne 0b"                                                                \
                     : [k] "=&r"(k), [a0] "+r"(a), [a1] "=&r"(a1), [b] "=&r"(b),             \
                       [c] "+r"(c), [t] "=&r"(t)                                             \
                     : [q] "r"(q)                                                            \
                     : RT_F32_DSP_CLOBBERS)
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
#define RT_F32_DSP_PAIRS(TILE, N, R0, R1) rt_f32_dsp_pairs_c(a, c, q, N)
#endif


/* For each of q->pairs pairs of output channels (weight rows a, a + k; then the next two):
 * c[r * ldc + j] = act(sum over p < k of a[r * k + p] * b[8 p + j] + bias[r]), r < 2, j < 8:
 * 16 sums in s0-s15, per two p one VLDM of each row's two a values (s24-s25, s26-s27),
 * then per p one VLDMIA of the 8 b values (s16-s23) and 16 products (row 1's into the b
 * registers, row 0's through s28-s31); an odd k's first p alone (so the sums stay in p
 * order). Bias and the activation in registers before the store, as rt_f32_dsp_4x5_act
 * does. The pairs' loop is in the asm (the panel stays packed for all of them). k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_2x8_act(const float *a, float *c,
                                                   rt_f32_dsp_pairs *q)
{
    RT_F32_DSP_PAIRS(RT_F32_DSP_2X8, 8, "s0-s7", "s8-s15");
}

/* rt_f32_dsp_2x8_act's pairs over panels of 9 pixels (3x3 planes, 6x6: MobileNet's last
 * layers): 18 sums in s0-s17, per two p one VLDM of each row's two a values (s27-s28,
 * s29-s30), then per p one VLDMIA of the 9 b values (s18-s26) and 18 products (row 1's into
 * the b registers, row 0's through s31); an odd k's first p alone (the sums stay in p
 * order). Bias and the activation in registers before the store. k >= 1. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_2x9_act(const float *a, float *c,
                                                   rt_f32_dsp_pairs *q)
{
    RT_F32_DSP_PAIRS(RT_F32_DSP_2X9, 9, "s0-s8", "s9-s17");
}

/* c[j] = sum over p < k of a[p] * b[p * ldb + j], j < 12 (a row of a matrix x matrix, or a
 * vector x matrix): 12 sums in s0-s11, per p one VLDM of the 12 b values, each product into
 * its b value's register (VMULs one ahead of the VADDs); a is loaded 8 values a VLDM. k >= 0. */
static RT_F32_DSP_NOINLINE void rt_f32_dsp_1x12(int32_t k, const float *a, const float *b,
                                                int32_t ldb, float *c)
{
#if RT_F32_DSP_ASM
    const int32_t ldb4 = ldb * 4;
    int32_t k8 = k >> 3, k1 = k & 7, t;
#define RT_F32_DSP_STEP(x)                                                                   \
        "vldm %[b], {s12-s23}\n\t"                                                           \
        "add %[b], %[b], %[ldb4]\n\t"                                                        \
        "vmul.f32 s12, s12, " x "\n\t"                                                       \
        "vmul.f32 s13, s13, " x "\n\t"                                                       \
        "vadd.f32 s0, s0, s12\n\tvmul.f32 s14, s14, " x "\n\t"                               \
        "vadd.f32 s1, s1, s13\n\tvmul.f32 s15, s15, " x "\n\t"                               \
        "vadd.f32 s2, s2, s14\n\tvmul.f32 s16, s16, " x "\n\t"                               \
        "vadd.f32 s3, s3, s15\n\tvmul.f32 s17, s17, " x "\n\t"                               \
        "vadd.f32 s4, s4, s16\n\tvmul.f32 s18, s18, " x "\n\t"                               \
        "vadd.f32 s5, s5, s17\n\tvmul.f32 s19, s19, " x "\n\t"                               \
        "vadd.f32 s6, s6, s18\n\tvmul.f32 s20, s20, " x "\n\t"                               \
        "vadd.f32 s7, s7, s19\n\tvmul.f32 s21, s21, " x "\n\t"                               \
        "vadd.f32 s8, s8, s20\n\tvmul.f32 s22, s22, " x "\n\t"                               \
        "vadd.f32 s9, s9, s21\n\tvmul.f32 s23, s23, " x "\n\t"                               \
        "vadd.f32 s10, s10, s22\n\tvadd.f32 s11, s11, s23\n\t"
    __asm__ volatile(
        RT_F32_DSP_ZERO12
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
/* One k3 block's asm: PAD zeroes the register of the padding input (mode 1, 2; "" for mode
 * 0), X the registers of a filter row's inputs, MLA the stride's 48 products. */
#define RT_F32_DSP_K3_ASM(PAD, X, MLA)                                                       \
    __asm__ volatile(RT_F32_DSP_ZERO16 PAD                                                   \
                     "1:\n\t"                                                                \
                     "mov %[t], %[rows]\n\t"                                                 \
                     "2:\n\t"                                                                \
                     "vldm %[x], {" X "}\n\t"                                                \
                     "add %[x], %[x], %[step]\n\t"                                           \
                     MLA                                                                     \
                     "subs %[t], %[t], #1\n\t"                                               \
                     "bne 2b\n\t"                                                            \
                     "add %[x], %[x], %[next4]\n\t"                                          \
                     "add %[w0], %[w0], %[skip4]\n\t"                                        \
                     "add %[w1], %[w1], %[skip4]\n\t"                                        \
                     "add %[w2], %[w2], %[skip4]\n\t"                                        \
                     "add %[w3], %[w3], %[skip4]\n\t"                                        \
                     "subs %[cin], %[cin], #1\n\t"                                           \
                     "bne 1b\n\t"                                                            \
                     "vstm %[acc], {s0-s15}\n\t"                                             \
                     : [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2),             \
                       [w3] "+r"(w3), [cin] "+r"(cin), [t] "=&r"(t)                          \
                     : [rows] "r"(rows), [step] "r"(step4), [next4] "r"(next4),              \
                       [skip4] "r"(skip4), [acc] "r"(acc)                                    \
                     : RT_F32_DSP_CLOBBERS)

/* The 16 sums of a block of 4 output channels x 4 pixels of a conv with 3 taps a row at
 * stride 1 (k3s1) or 2 (k3s2), dilation 1 along the row: per input channel (cin of them)
 * and filter row (rows of them; x advances step floats a row, then next more a channel) one
 * VLDM of the block's 6 (or 9) inputs and one VLDM of each channel's 3 weights (w0 +
 * r * fsize, skip more floats a channel: the filter rows outside the input), 48 products.
 * Stored raw to acc[4 * channel + pixel]. mode 1: the block's first input is padding (0;
 * x points at the second), mode 2: its last one is. cin, rows >= 1. NAME's row of inputs is
 * s16-s<LAST> (LAST, BEFORE: "s21", "s20" at stride 1, "s24", "s23" at stride 2). */
#define RT_F32_DSP_K3(NAME, MLA, LAST, BEFORE)                                               \
    static RT_F32_DSP_NOINLINE void NAME(const float *x, const float *w0, int32_t fsize,     \
                                         int32_t cin, int32_t rows, int32_t step,            \
                                         int32_t next, int32_t skip, int mode, float *acc)   \
    {                                                                                        \
        const float *w1 = w0 + fsize, *w2 = w1 + fsize, *w3 = w2 + fsize;                    \
        const int32_t step4 = step * 4, next4 = next * 4, skip4 = skip * 4;                  \
        int32_t t;                                                                           \
        if (mode == 0) {                                                                     \
            RT_F32_DSP_K3_ASM("", "s16-" LAST, MLA);                                         \
        } else if (mode == 1) {                                                              \
            RT_F32_DSP_K3_ASM("vmov s16, %[t]\n\t", "s17-" LAST, MLA);                       \
        } else {                                                                             \
            RT_F32_DSP_K3_ASM("vmov " LAST ", %[t]\n\t", "s16-" BEFORE, MLA);                \
        }                                                                                    \
    }

RT_F32_DSP_K3(rt_f32_dsp_k3s1, RT_F32_DSP_K3S1_MLA, "s21", "s20")
RT_F32_DSP_K3(rt_f32_dsp_k3s2, RT_F32_DSP_K3S2_MLA, "s24", "s23")
#endif

#endif /* RT_F32_DSP_H */
