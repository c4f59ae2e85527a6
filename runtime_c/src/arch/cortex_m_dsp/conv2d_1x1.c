/* conv2d_1x1.c (Cortex-M with a single-precision FPU) - rt_conv2d_1x1_f32: pointwise
 * convolution (1x1 kernel, stride 1, no padding, groups 1); same contract as
 * src/conv/conv2d_1x1.c.
 *
 * It is the GEMM out[Cout, HW] = w[Cout, Cin] x in[Cin, HW] in register blocks (f32_dsp.h):
 * 2 output channels x 9 pixels for planes of 9k pixels (3x3, 6x6) and 2 x 8 where blocks of 8
 * recompute little (per input channel one VLDM of the pixels; each filter row's weights one
 * VLDM per 2 or 4 input channels), both for sums of 16 inputs or more; else 4 channels x 6
 * pixels (one VLDM of 6 pixels and 4 weight loads per input channel). Bias and the fused
 * activation are applied in registers before the store. Ragged ends reuse the last full block
 * shifted back; planes of fewer than 6 pixels take the portable 4x4 block. Accumulation is in
 * input channel order, bias last, then the fused activation: results are bit-identical to the
 * portable kernel. */
#include "f32_dsp.h"

/* One image by f32_dsp.h's blocks, when the plane takes them (1), else 0. */
static int image_dsp(const rt_conv_geom *g, const float *in_n, int32_t hw, const float *w,
                     const float *b, float *out_n)
{
    int32_t oc, px;
    if (g->cin >= 16 && g->cout >= 2 && hw % 9 == 0 && hw % 8 != 0) {   /* 3x3, 6x6: 2 x 9 */
        for (oc = 0; oc < g->cout; oc += 2) {
            const int32_t c0 = oc + 2 <= g->cout ? oc : g->cout - 2;
            for (px = 0; px < hw; px += 9) {
                rt_f32_dsp_2x9_act(g->cin, w + c0 * g->cin, g->cin, in_n + px, hw,
                                   out_n + c0 * hw + px, hw, b != NULL ? b + c0 : NULL, g->lo,
                                   g->hi);
            }
        }
        return 1;
    }
    /* long sums over rows of which blocks of 8 recompute at most 4%: 2 x 8 */
    if (g->cin >= 16 && g->cout >= 2 && hw >= 8 && (8 - hw % 8) % 8 * 25 <= hw) {
        for (oc = 0; oc < g->cout; oc += 2) {
            const int32_t c0 = oc + 2 <= g->cout ? oc : g->cout - 2;
            for (px = 0; px < hw; px += 8) {
                const int32_t p0 = px + 8 <= hw ? px : hw - 8;
                rt_f32_dsp_2x8_act(g->cin, w + c0 * g->cin, g->cin, in_n + p0, hw,
                                   out_n + c0 * hw + p0, hw, b != NULL ? b + c0 : NULL, g->lo,
                                   g->hi);
            }
        }
        return 1;
    }
    if (g->cin >= 1 && g->cout >= 4 && hw >= 6) {
        for (oc = 0; oc < g->cout; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout ? oc : g->cout - 4;
            for (px = 0; px < hw; px += 6) {
                const int32_t p0 = px + 6 <= hw ? px : hw - 6;
                float *o = out_n + c0 * hw + p0;
                rt_f32_dsp_4x6_act(g->cin, w + c0 * g->cin, g->cin, in_n + p0, hw, o, hw,
                                   b != NULL ? b + c0 : NULL, g->lo, g->hi);
            }
        }
        return 1;
    }
    return 0;
}

#define RT_CONV1X1_IMAGE(g, in_n, hw, w, b, out_n) image_dsp(g, in_n, hw, w, b, out_n)
#include "../../conv/conv2d_1x1.c"
