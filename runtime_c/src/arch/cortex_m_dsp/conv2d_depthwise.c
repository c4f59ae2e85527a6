/* conv2d_depthwise.c (Cortex-M with a single-precision FPU) - rt_conv2d_depthwise_f32; same
 * contract as src/conv/conv2d_depthwise.c, whose code this is but for one step (its hook
 * RT_DW_W5_ROWS): 3x3 filters over rows of 5 (KWS's 25x5 maps) at stride 1, the output rows
 * whose filter rows all lie inside the input go in one written-out loop: the 9 weights in
 * s16-s24, per output row the 5 sums (s0-s4) zeroed by one VLDM, one VLDM of each input row's
 * 5 values (s8-s12) and their 39 VMLAs, bias and the activation in registers, one VSTM. The same sums in
 * the same (ky, kx) order as the portable rows (taps over the row's padding are skipped
 * there too): bit for bit its results. */
#include "f32_dsp.h"

#if RT_F32_DSP_ASM
/* One input row's 5 values (row pointer r, advanced past them) times a filter row (va, vb,
 * vc) into the 5 sums s0-s4: output j takes inputs j - 1, j, j + 1 (those inside), in kx
 * order. */
#define RT_DW_W5_TAPS(r, va, vb, vc)                                                         \
    "vldmia " r "!, {s8-s12}\n\t"                                                         \
    "vmla.f32 s0, s8, " vb "\n\tvmla.f32 s0, s9, " vc "\n\t"                            \
    "vmla.f32 s1, s8, " va "\n\tvmla.f32 s1, s9, " vb "\n\tvmla.f32 s1, s10, " vc "\n\t" \
    "vmla.f32 s2, s9, " va "\n\tvmla.f32 s2, s10, " vb "\n\tvmla.f32 s2, s11, " vc "\n\t" \
    "vmla.f32 s3, s10, " va "\n\tvmla.f32 s3, s11, " vb "\n\tvmla.f32 s3, s12, " vc "\n\t" \
    "vmla.f32 s4, s11, " va "\n\tvmla.f32 s4, s12, " vb "\n\t"

/* The rows from output row oy on whose three filter rows are inside the input (stride 1):
 * all of them, written at o; returns how many (0: none here). x: input row oy - ph. */
static int32_t dw_w5_rows(const rt_conv_geom *g, const float *x, const float *w, float bias,
                          float *o, int32_t oy)
{
    int32_t rows = g->h - 2 * g->dh - (oy - g->ph);   /* iy0 = oy - ph runs to h - 2 dh - 1 */
    const float *x1 = x + 5 * g->dh, *x2 = x1 + 5 * g->dh;
    const int32_t hashi = g->hi != INFINITY;
    const float prm[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, bias, g->lo, g->hi}; /* zeros, s29-s31 */
    int32_t n;
    if (g->sh != 1) {
        return 0;
    }
    rows = rows < g->oh - oy ? rows : g->oh - oy;
    if (rows <= 0) {
        return 0;
    }
    n = rows;
    __asm__ volatile(
        "vldm %[w], {s16-s24}\n\t"
        "vldr s29, [%[prm], #20]\n\t"
        "vldr s30, [%[prm], #24]\n\t"
        "vldr s31, [%[prm], #28]\n\t"
        "1:\n\t"
        "vldm %[prm], {s0-s4}\n\t"
        RT_DW_W5_TAPS("%[x0]", "s16", "s17", "s18")
        RT_DW_W5_TAPS("%[x1]", "s19", "s20", "s21")
        RT_DW_W5_TAPS("%[x2]", "s22", "s23", "s24")
        "vadd.f32 s0, s0, s29\n\t"
        "vadd.f32 s1, s1, s29\n\t"
        "vadd.f32 s2, s2, s29\n\t"
        "vadd.f32 s3, s3, s29\n\t"
        "vadd.f32 s4, s4, s29\n\t"
        RT_F32_DSP_LO("s0") RT_F32_DSP_LO("s1") RT_F32_DSP_LO("s2") RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        "cmp %[hashi], #0\n\t"
        "beq 2f\n\t"
        RT_F32_DSP_HI("s0") RT_F32_DSP_HI("s1") RT_F32_DSP_HI("s2") RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        "2:\n\t"
        "vstmia %[o]!, {s0-s4}\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b"
        : [x0] "+r"(x), [x1] "+r"(x1), [x2] "+r"(x2), [o] "+r"(o), [n] "+r"(n)
        : [w] "r"(w), [prm] "r"(prm), [hashi] "r"(hashi)
        : RT_F32_DSP_CLOBBERS);
    return rows;
}

#define RT_DW_W5_ROWS(g, x, w, bias, o, oy) dw_w5_rows(g, x, w, bias, o, oy)
#endif

#include "../../conv/conv2d_depthwise.c"
