/* conv2d_1x1.c (Cortex-M Helium, float32) - rt_conv2d_1x1_f32: pointwise convolution (1x1
 * kernel, stride 1, no padding, groups 1); same contract as src/conv/conv2d_1x1.c.
 *
 * Per image it is the matrix product out[Cout, HW] = w[Cout, Cin] x in[Cin, HW] of
 * gemm_mve.h: tiles of 3 output channels x 8 pixels keep 6 Q-register accumulators over all
 * input channels; each input channel loads 2 vectors of pixels and 3 weights (as scalars,
 * VFMA.F32 Qd, Qn, Rm) for 6 fused multiply-adds. Ragged edges reuse the last full tile
 * shifted back; planes of fewer than 8 pixels load and store under lane predicates. The
 * bias of each channel and the fused activation are applied as the tile is stored. Results
 * differ from the portable kernel's by float rounding (fused multiply-adds). */
#define GEMM_MVE_EPILOGUE 1
#include "gemm_mve.h"

rt_status rt_conv2d_1x1_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    gemm_out o;
    int32_t n, hw;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(RT_CONV_GEOM_IS_1X1(g), RT_ERR_PARAM);
    hw = g.h * g.w;
    o.ldc = hw;
    o.bias = b;
    o.lo = g.lo;
    o.hi = g.hi;
    for (n = 0; n < g.n; ++n) {
        o.c = out + n * g.cout * hw;
        mve_gemm(g.cout, hw, g.cin, w, g.cin, in + n * g.cin * hw, hw, &o);
    }
    return RT_OK;
}

/* A band of an in-place layer: the same product straight from the map's pixels (input rows hw
 * apart) into the band, so each output's sum is the whole layer's (the same tiles, each sum in
 * input channel order), without gathering the band's inputs. */
void rt_conv2d_1x1_band_f32(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
                            const float *w, const float *b, float *band)
{
    gemm_out o;
    o.c = band;
    o.ldc = px;
    o.bias = b;
    o.lo = g->lo;
    o.hi = g->hi;
    mve_gemm(g->cout, px, g->cin, w, g->cin, x, hw, &o);
}
