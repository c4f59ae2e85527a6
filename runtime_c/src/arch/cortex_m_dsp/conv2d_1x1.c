/* conv2d_1x1.c (Cortex-M with a single-precision FPU) - rt_conv2d_1x1_f32: pointwise
 * convolution (1x1 kernel, stride 1, no padding, groups 1); same contract as
 * src/conv/conv2d_1x1.c.
 *
 * It is the GEMM out[Cout, HW] = w[Cout, Cin] x in[Cin, HW] in register blocks (f32_dsp.h):
 * 2 output channels x 9 pixels for planes of 9k pixels (3x3, 6x6) and 2 x 8 where blocks of 8
 * recompute little, both for sums of 8 to 256 inputs: a block of pixels has its inputs
 * packed into a panel on the stack once for every output channel, so that per input channel
 * one VLDMIA loads the pixels (and each filter row's weights one VLDM per 2 input
 * channels), and the block runs every filter pair in one asm call; else 4 channels x 5
 * pixels (one VLDM of 5 pixels and 4 weight loads per input channel). Bias and the fused
 * activation are applied in registers before the store. Ragged ends reuse the last full block
 * shifted back; planes of fewer than 5 pixels take the portable 4x4 block. An in-place layer's
 * bands of 8 pixels take the 2 x 8 block from the map where it lies. Accumulation is in
 * input channel order, bias last, then the fused activation: results are bit-identical to the
 * portable kernel. */
#include "f32_dsp.h"

/* Stack floats for a panel of 8 or 9 pixels' inputs (2x8 and 2x9 blocks): 9 KB, up to 256
 * input channels (wider layers take the 4 x 5 blocks). */
#define PANEL_FLOATS 2304

/* The panel of pixels [px, px + wd) of every input channel (rows hw apart in x), packed as
 * cin rows of wd floats (wd: 8 or 9): per channel one VLDM and one VSTMIA. */
static void pack_panel(float *panel, const float *x, int32_t cin, int32_t hw, int32_t wd)
{
#if RT_F32_DSP_ASM
    const int32_t hw4 = 4 * hw;
#define PACK_PANEL(REGS)                                                                     \
    __asm__ volatile("1:\n\t"                                                                \
                     "vldm %[x], {" REGS "}\n\t"                                             \
                     "add %[x], %[x], %[hw4]\n\t"                                            \
                     "vstmia %[d]!, {" REGS "}\n\t"                                          \
                     "subs %[n], %[n], #1\n\t"                                               \
                     "bne 1b"                                                                \
                     : [x] "+r"(x), [d] "+r"(panel), [n] "+r"(cin)                           \
                     : [hw4] "r"(hw4)                                                        \
                     : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "memory", "cc")
    if (wd == 9) {
        PACK_PANEL("s0-s8");
    } else {
        PACK_PANEL("s0-s7");
    }
#undef PACK_PANEL
#else
    int32_t c, j;
    for (c = 0; c < cin; ++c) {
        for (j = 0; j < wd; ++j) {
            panel[c * wd + j] = x[c * hw + j];
        }
    }
#endif
}

/* q->pairs filter pairs from filter c0 over the panel, into the pixels' block at o (filter c0's
 * row): the 2x9 or the 2x8 block. */
static void pairs_from(const rt_conv_geom *g, int nine, const float *w, const float *b,
                       int32_t c0, int32_t pairs, float *o, int32_t hw, rt_f32_dsp_pairs *q)
{
    static const float no_bias[2] = {0.0f, 0.0f};
    q->bias = b != NULL ? b + c0 : no_bias;
    q->pairs = pairs;   /* counted down by the block */
    if (nine) {
        rt_f32_dsp_2x9_act(w + c0 * g->cin, o + c0 * hw, q);
    } else {
        rt_f32_dsp_2x8_act(w + c0 * g->cin, o + c0 * hw, q);
    }
}

/* The 2 x 8 and 2 x 9 blocks' parameters: the panel, the layer's sums, bias and activation,
 * outputs ldc floats apart. */
static rt_f32_dsp_pairs pairs_of(const rt_conv_geom *g, float *panel, const float *b,
                                 int32_t ldc)
{
    rt_f32_dsp_pairs q;
    q.b = panel;
    q.k = g->cin;
    q.ldc4 = 4 * ldc;
    q.bstep = b != NULL ? 8 : 0;
    q.lo = g->lo;
    q.hi = g->hi;
    q.hashi = g->hi != INFINITY;
    q.bias = NULL;   /* (both set a run at a time: pairs_from) */
    q.pairs = 0;
    return q;
}

/* One image by f32_dsp.h's blocks, when the plane takes them (1), else 0. */
static int image_dsp(const rt_conv_geom *g, const float *in_n, int32_t hw, const float *w,
                     const float *b, float *out_n)
{
    float panel[PANEL_FLOATS];
    int32_t oc, px;
    /* 3x3, 6x6: 2 x 9; long sums over rows of which blocks of 8 recompute at most 4%: 2 x 8.
       Either a pixel block's inputs packed once, for all output channels. */
    const int nine = hw % 9 == 0 && hw % 8 != 0;
    if (g->cin >= 8 && g->cout >= 2 && g->cin * 9 <= PANEL_FLOATS &&
        (nine || (hw >= 8 && (8 - hw % 8) % 8 * 25 <= hw))) {
        const int32_t wd = nine ? 9 : 8;
        rt_f32_dsp_pairs q = pairs_of(g, panel, b, hw);
        for (px = 0; px < hw; px += wd) {
            const int32_t p0 = px + wd <= hw ? px : hw - wd;
            pack_panel(panel, in_n + p0, g->cin, hw, wd);
            pairs_from(g, nine, w, b, 0, g->cout / 2, out_n + p0, hw, &q);
            if (g->cout % 2 != 0) {   /* an odd count's last filter as the last two */
                pairs_from(g, nine, w, b, g->cout - 2, 1, out_n + p0, hw, &q);
            }
        }
        return 1;
    }
    if (g->cin >= 1 && g->cout >= 4 && hw >= 5) {
        for (oc = 0; oc < g->cout; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout ? oc : g->cout - 4;
            for (px = 0; px < hw; px += 5) {
                const int32_t p0 = px + 5 <= hw ? px : hw - 5;
                float *o = out_n + c0 * hw + p0;
                rt_f32_dsp_4x5_act(g->cin, w + c0 * g->cin, g->cin, in_n + p0, hw, o, hw,
                                   b != NULL ? b + c0 : NULL, g->lo, g->hi);
            }
        }
        return 1;
    }
    return 0;
}

/* A band of px pixels of an in-place layer (rt_conv2d_1x1_band_f32), its outputs px apart:
 * 8 pixels by the 2 x 8 block where the layer takes it, its panel packed from the map where it
 * lies; else 5 pixels or more (a plane's last band) by the 4 x 5 blocks (1); else 0 (the
 * portable blocks). */
static int band_dsp(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
                    const float *w, const float *b, float *band)
{
    float panel[PANEL_FLOATS];
    rt_f32_dsp_pairs q;
    int32_t oc, i;
    if (px != 8 || g->cin < 8 || g->cout < 2 || g->cin * 9 > PANEL_FLOATS) {
        if (g->cin < 1 || g->cout < 4 || px < 5) {
            return 0;
        }
        for (oc = 0; oc < g->cout; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout ? oc : g->cout - 4;
            for (i = 0; i < px; i += 5) {
                const int32_t p0 = i + 5 <= px ? i : px - 5;
                rt_f32_dsp_4x5_act(g->cin, w + c0 * g->cin, g->cin, x + p0, hw,
                                   band + c0 * px + p0, px, b != NULL ? b + c0 : NULL, g->lo,
                                   g->hi);
            }
        }
        return 1;
    }
    q = pairs_of(g, panel, b, px);
    pack_panel(panel, x, g->cin, hw, px);
    pairs_from(g, 0, w, b, 0, g->cout / 2, band, px, &q);
    if (g->cout % 2 != 0) {
        pairs_from(g, 0, w, b, g->cout - 2, 1, band, px, &q);
    }
    return 1;
}

#define RT_CONV1X1_IMAGE(g, in_n, hw, w, b, out_n) image_dsp(g, in_n, hw, w, b, out_n)
#define RT_CONV1X1_BAND(g, x, hw, px, w, b, band) band_dsp(g, x, hw, px, w, b, band)
#include "../../conv/conv2d_1x1.c"
