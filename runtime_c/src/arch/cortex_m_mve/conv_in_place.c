/* conv_in_place.c (Cortex-M Helium, float32) - the in-place convolutions of
 * src/conv/conv_in_place.c, whose code this is but for one step (its hook):
 *
 * - RT_CONV1X1_BAND: a pointwise band's outputs computed straight from the map's pixels (input
 *   rows hw apart) into the scratch by gemm_mve.h, the product conv2d_1x1.c runs on the whole
 *   layer: the same tiles of 3 channels x 8 pixels, each output's sum in input channel order,
 *   so the same bits, without gathering the band's inputs first. */
#define GEMM_MVE_EPILOGUE 1
#include "gemm_mve.h"

/* Output channels [0, Cout) of the band's px pixels (x: its first pixel of channel 0). */
static void band_mve(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
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

#define RT_CONV1X1_BAND(g, x, hw, px, w, b, band) band_mve(g, x, hw, px, w, b, band)
#include "../../conv/conv_in_place.c"
