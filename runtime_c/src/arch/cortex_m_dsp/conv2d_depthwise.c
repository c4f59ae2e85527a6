/* conv2d_depthwise.c (Cortex-M with a single-precision FPU) - rt_conv2d_depthwise_f32; same
 * contract as src/conv/conv2d_depthwise.c, whose code this is but for two steps (its hooks):
 *
 * - RT_DW_IMAGE: 3x3 filters at one stride (1 or 2) and padding (0 or 1) both ways, rows of 8
 *   outputs or more (VWW's, MobileNet's): every output row in blocks of 4 from three padded
 *   input rows on the stack (dw_image; 2 KB);
 * - RT_DW_W5_ROWS: 3x3 filters over rows of 5 (KWS's 25x5 maps) at stride 1: the output rows
 *   whose filter rows all lie inside the input in one written-out loop.
 *
 * Both keep the 9 weights in s16-s24, zero a block's sums with one VLDM, load each input row
 * of a block with one VLDM for its VMLAs, and add the bias and clamp in registers before one
 * VSTM. The same sums in the same (ky, kx) order as the portable kernel (a tap over the
 * padding adds 0 * w, nothing for finite weights): bit for bit its results. */
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

/* A padded input row (w + 2 pw floats) of the whole-image path; 3 of them and a zero row on
 * the stack: 2 KB. */
#define DW_ROW_FLOATS 128

/* One filter row (va, vb, vc) over a block's inputs from row pointer r (advanced to the next
 * block) into the 4 sums s0-s3, at stride 1 (6 inputs, s4-s9) or 2 (9 inputs, s4-s12):
 * output j takes inputs s * j, s * j + 1, s * j + 2, in kx order. */
#define RT_DW_K3_ROW_S1(r, va, vb, vc) \
    "vldm " r ", {s4-s9}\n\t" \
    "add " r ", " r ", #16\n\t" \
    "vmla.f32 s0, s4, " va "\n\t" \
    "vmla.f32 s1, s5, " va "\n\t" \
    "vmla.f32 s2, s6, " va "\n\t" \
    "vmla.f32 s3, s7, " va "\n\t" \
    "vmla.f32 s0, s5, " vb "\n\t" \
    "vmla.f32 s1, s6, " vb "\n\t" \
    "vmla.f32 s2, s7, " vb "\n\t" \
    "vmla.f32 s3, s8, " vb "\n\t" \
    "vmla.f32 s0, s6, " vc "\n\t" \
    "vmla.f32 s1, s7, " vc "\n\t" \
    "vmla.f32 s2, s8, " vc "\n\t" \
    "vmla.f32 s3, s9, " vc "\n\t"

#define RT_DW_K3_ROW_S2(r, va, vb, vc) \
    "vldm " r ", {s4-s12}\n\t" \
    "add " r ", " r ", #32\n\t" \
    "vmla.f32 s0, s4, " va "\n\t" \
    "vmla.f32 s1, s6, " va "\n\t" \
    "vmla.f32 s2, s8, " va "\n\t" \
    "vmla.f32 s3, s10, " va "\n\t" \
    "vmla.f32 s0, s5, " vb "\n\t" \
    "vmla.f32 s1, s7, " vb "\n\t" \
    "vmla.f32 s2, s9, " vb "\n\t" \
    "vmla.f32 s3, s11, " vb "\n\t" \
    "vmla.f32 s0, s6, " vc "\n\t" \
    "vmla.f32 s1, s8, " vc "\n\t" \
    "vmla.f32 s2, s10, " vc "\n\t" \
    "vmla.f32 s3, s12, " vc "\n\t"

/* A block's 4 sums + bias (s29), clamped to [lo, hi] (s30, s31), stored; then the next block. */
#define RT_DW_K3_STORE                                                                       \
    "vadd.f32 s0, s0, s29\n\tvadd.f32 s1, s1, s29\n\t"                                    \
    "vadd.f32 s2, s2, s29\n\tvadd.f32 s3, s3, s29\n\t"                                    \
    RT_F32_DSP_LO("s0") RT_F32_DSP_LO("s1") RT_F32_DSP_LO("s2") RT_F32_DSP_LO("s3")          \
    "cmp %[hashi], #0\n\t"                                                                  \
    "beq 2f\n\t"                                                                            \
    RT_F32_DSP_HI("s0") RT_F32_DSP_HI("s1") RT_F32_DSP_HI("s2") RT_F32_DSP_HI("s3")          \
    "2:\n\t"                                                                                \
    "vstmia %[o]!, {s0-s3}\n\t"                                                             \
    "subs %[nb], %[nb], #1\n\t"                                                             \
    "bne 1b"

/* nb blocks of 4 outputs along an output row from the filter rows' inputs x0, x1, x2 (each
 * under the first output's first tap), 3x3 at stride s (1 or 2): the 9 weights in s16-s24,
 * per block the sums zeroed by one VLDM, each filter row one VLDM and 12 VMLAs, bias and
 * the activation in registers, one VSTM. prm: 5 zeros, bias, lo, hi. */
#define DW_K3_LOOP(ROW)                                                                      \
    __asm__ volatile("vldm %[w], {s16-s24}\n\t"                                              \
                     "vldr s29, [%[prm], #20]\n\t"                                           \
                     "vldr s30, [%[prm], #24]\n\t"                                           \
                     "vldr s31, [%[prm], #28]\n\t"                                           \
                     "1:\n\t"                                                                \
                     "vldm %[prm], {s0-s3}\n\t"                                              \
                     ROW("%[x0]", "s16", "s17", "s18")                                        \
                     ROW("%[x1]", "s19", "s20", "s21")                                        \
                     ROW("%[x2]", "s22", "s23", "s24")                                        \
                     RT_DW_K3_STORE                                                           \
                     : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [o] "+r"(o), [nb] "+r"(nb) \
                     : [w] "r"(w), [prm] "r"(prm), [hashi] "r"(hashi)                          \
                     : RT_F32_DSP_CLOBBERS)

static void dw_k3_blocks(const float *x0, const float *x1, const float *x2, const float *w,
                         const float *prm, int32_t hashi, float *o, int32_t nb, int32_t s)
{
    if (s == 1) {
        DW_K3_LOOP(RT_DW_K3_ROW_S1);
    } else {
        DW_K3_LOOP(RT_DW_K3_ROW_S2);
    }
}

/* n floats from src to dst: eight a VLDM/VSTM pair, the rest one at a time. */
static void dw_copy(float *dst, const float *src, int32_t n)
{
    int32_t n8 = n >> 3, k;
    if (n8 > 0) {
        __asm__ volatile(
            "1:\n\t"
            "vldmia %[s]!, {s0-s7}\n\t"
            "vstmia %[d]!, {s0-s7}\n\t"
            "subs %[n], %[n], #1\n\t"
            "bne 1b"
            : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n8)
            :
            : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "memory", "cc");
    }
    for (k = 0; k < (n & 7); ++k) {
        dst[k] = src[k];
    }
}

/* 3x3 filters, dilation 1, the same stride (1 or 2) and padding (0 or 1) both ways, rows of
 * at least 8 outputs (VWW's and MobileNet's layers): every output row in blocks of 4 from
 * three padded input rows on the stack (each input row copied once a plane into a ring of
 * three; the filter rows outside the input read a zero row), the last block shifted back over
 * the previous one when a row's outputs are not a multiple of 4. Taps over the padding add
 * 0 * w (nothing, for finite weights), in (ky, kx) order: the portable kernel's sums. 1 if it
 * took the layer. */
static int dw_image(const rt_conv_geom *g, const float *in, const float *w, const float *b,
                    float *out)
{
    float rows[4][DW_ROW_FLOATS];   /* three ring slots, then the zero row */
    const int32_t s = g->sw, wp = g->w + 2 * g->pw;
    const int32_t hashi = g->hi != INFINITY, tail = g->ow & 3;
    int32_t n, oc, oy, ky, k, held[3];
    if (g->kh != 3 || g->kw != 3 || g->dh != 1 || g->dw != 1 || g->sh != s || s > 2 ||
        g->ph != g->pw || g->pw > 1 || wp > DW_ROW_FLOATS || g->ow < 8) {
        return 0;
    }
    for (k = 0; k < wp; ++k) {
        rows[0][k] = rows[1][k] = rows[2][k] = rows[3][k] = 0.0f;
    }
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->cout; ++oc) {
            const float *in_c = in + (n * g->cin + oc / g->cout_g) * g->h * g->w;
            const float prm[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, b != NULL ? b[oc] : 0.0f,
                                  g->lo, g->hi};
            float *o = out + (n * g->cout + oc) * g->oh * g->ow;
            held[0] = held[1] = held[2] = -1;
            for (oy = 0; oy < g->oh; ++oy, o += g->ow) {
                const float *x[3];
                for (ky = 0; ky < 3; ++ky) {
                    const int32_t iy = oy * s - g->ph + ky;
                    if (iy < 0 || iy >= g->h) {
                        x[ky] = rows[3];
                        continue;
                    }
                    if (held[iy % 3] != iy) {
                        dw_copy(rows[iy % 3] + g->pw, in_c + iy * g->w, g->w);
                        held[iy % 3] = iy;
                    }
                    x[ky] = rows[iy % 3];
                }
                dw_k3_blocks(x[0], x[1], x[2], w + oc * 9, prm, hashi, o, g->ow >> 2, s);
                if (tail != 0) {
                    const int32_t at = (g->ow - 4) * s;
                    dw_k3_blocks(x[0] + at, x[1] + at, x[2] + at, w + oc * 9, prm, hashi,
                                 o + g->ow - 4, 1, s);
                }
            }
        }
    }
    return 1;
}

#define RT_DW_IMAGE(g, in, w, b, out) dw_image(g, in, w, b, out)
#endif

#include "../../conv/conv2d_depthwise.c"
