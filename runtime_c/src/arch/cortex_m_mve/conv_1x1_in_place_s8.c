/* conv_1x1_in_place_s8.c (Cortex-M Helium) - rt_conv2d_1x1_in_place_s8 as the portable file
 * has it (bands of pixels through the scratch, int8/conv_1x1_in_place_s8.h), but a layer of
 * one block of filters (up to 64, as conv_1x1_s8.c takes them) makes the block's pairs and
 * output stage once and runs every band through rt_mve_rows, instead of making them again a
 * band. Its bands are RT_MVE_BAND_BYTES of outputs on the stack where that is more than the
 * planned scratch and they still land on input already read: rt_mve_rows runs its filter
 * pairs' loop once a band, which on KWS's eight-pixel bands cost 13% of a layer. Bit-exact
 * with int8/conv_1x1_in_place_s8.c. */
#include "conv_mve.h"
#include "../../int8/conv_1x1_in_place_s8.h"

#define RT_MVE_BAND_BYTES 2048   /* 32 pixels of 64 channels */

rt_status rt_conv2d_1x1_in_place_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                    RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    rt_mve_pair q[RT_MVE_BLOCK_PAIRS];
    int8_t stage[RT_MVE_BAND_BYTES];
    int8_t *buf;
    int32_t pixels, band, wide, i;
    RT_TRY(rt_s8_pointwise_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                 &band));
    pixels = g.n * g.oh * g.ow;
    if (band == 0 || g.cout > 2 * RT_MVE_BLOCK_PAIRS) {
        return band == 0 ? RT_OK
                         : rt_s8_pointwise_bands(scratch, p, &g, w_s, w, b_s, bias, in, out,
                                                 pixels, band);
    }
    wide = RT_MVE_BAND_BYTES / g.cout < pixels ? RT_MVE_BAND_BYTES / g.cout : pixels;
    buf = (int8_t *)scratch->buf;
    if (wide > band && rt_s8_pointwise_band_fits(&g, in, out, wide)) {
        band = wide;
        buf = stage;
    }
    {
        const rt_mve_out o = rt_mve_out_make(p, g.cout);
        const int32_t shifts = rt_mve_pairs_make(p, w, bias, g.cin, 0, g.cout, q);
        for (i = 0; i < pixels; i += band) {
            const int32_t k = pixels - i < band ? pixels - i : band;
            RT_TRY(rt_mve_rows(in + i * g.cin, k, w, g.cin, g.cout, g.cout, shifts, q, &o,
                               buf));
            rt_mve_copy(out + i * g.cout, buf, k * g.cout);
        }
    }
    return RT_OK;
}
