/* conv_1x1_in_place_s8.c (Cortex-M Helium) - rt_conv2d_1x1_in_place_s8 as the portable file
 * has it (bands of pixels through the scratch, int8/conv_1x1_in_place_s8.h), but a layer of
 * one block of filters (up to 64, as conv_1x1_s8.c takes them) makes the block's pairs and
 * output stage once and runs every band through rt_mve_rows, instead of making them again a
 * band. Bit-exact with int8/conv_1x1_in_place_s8.c. */
#include "conv_mve.h"
#include "../../int8/conv_1x1_in_place_s8.h"

rt_status rt_conv2d_1x1_in_place_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                    RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    rt_mve_pair q[RT_MVE_BLOCK_PAIRS];
    int32_t pixels, band, i;
    RT_TRY(rt_s8_pointwise_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                 &band));
    pixels = g.n * g.oh * g.ow;
    if (band == 0 || g.cout > 2 * RT_MVE_BLOCK_PAIRS) {
        return band == 0 ? RT_OK
                         : rt_s8_pointwise_bands(scratch, p, &g, w_s, w, b_s, bias, in, out,
                                                 pixels, band);
    }
    {
        const rt_mve_out o = rt_mve_out_make(p, g.cout);
        const int32_t shifts = rt_mve_pairs_make(p, w, bias, g.cin, 0, g.cout, q);
        for (i = 0; i < pixels; i += band) {
            const int32_t k = pixels - i < band ? pixels - i : band;
            RT_TRY(rt_mve_rows(in + i * g.cin, k, w, g.cin, g.cout, g.cout, shifts, q, &o,
                               (int8_t *)scratch->buf));
            memcpy(out + i * g.cout, scratch->buf, (size_t)(k * g.cout));
        }
    }
    return RT_OK;
}
