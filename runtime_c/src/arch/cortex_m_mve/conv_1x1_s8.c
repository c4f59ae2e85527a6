/* conv_1x1_s8.c (Cortex-M Helium) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product
 * of the pixels by the filters (conv_mve.c). Filters a block of up to 64 at a time outside,
 * their output stage made once (bias plus the input offset times the filter's sum, the
 * requantization vectors); then one assembly loop takes every pair of pixels across the
 * block's filter pairs: four VMLADAVAs per sixteen taps, then each tile's four sums
 * requantized in one vector and scattered. 2 KB of stack for the block's parameters.
 * Bit-exact with int8/conv_1x1_s8.c. */
#include "conv_mve.h"

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    rt_mve_pair q[RT_MVE_BLOCK_PAIRS];
    rt_mve_out o;
    int32_t pixels, oc;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pixels = g.n * g.oh * g.ow;
    o = rt_mve_out_make(p, g.cout);
    for (oc = 0; oc < g.cout; oc += 2 * RT_MVE_BLOCK_PAIRS) {
        const int32_t count = g.cout - oc < 2 * RT_MVE_BLOCK_PAIRS ? g.cout - oc
                                                                   : 2 * RT_MVE_BLOCK_PAIRS;
        const int32_t shifts = rt_mve_pairs_make(p, w + oc * g.cin, bias, g.cin, oc, count, q);
        RT_TRY(rt_mve_rows(in, pixels, w + oc * g.cin, g.cin, g.cout, count, shifts, q, &o,
                           out + oc));
    }
    return RT_OK;
}
