/* conv_1x1_in_place_s8.c (Cortex-M DSP) - rt_conv2d_1x1_in_place_s8 as the portable file has
 * it (bands of pixels through the scratch, int8/conv_1x1_in_place_s8.h), but a layer the
 * quads take runs them on every band of four pixels or more, where rt_conv2d_1x1_s8 would
 * leave a band shorter than RT_DSP_Q_PIXELS to the blocks: the tables are widened again a
 * band, which costs KWS's 64x64 layers less than the blocks' loads (the planner's bands are
 * multiples of four pixels, aot/overlap.py's pointwise_band). Bit-exact with
 * int8/conv_1x1_in_place_s8.c. */
#include "conv_dsp.h"
#include "dsp_variants.h"
#include "../../int8/conv_1x1_in_place_s8.h"

rt_status rt_conv2d_1x1_in_place_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                    RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t pixels, band, i = 0;
    RT_TRY(rt_s8_pointwise_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                 &band));
    pixels = g.n * g.oh * g.ow;
    if (band >= 4 && RT_DSP_HAS(RT_DSP_U_PW_QUADS) && g.cin <= RT_DSP_Q_K &&
        g.cout % 2 == 0 && rt_dsp_pw_fits(p, bias, g.cin, g.cout)) {
        for (; pixels - i >= 4; i += band) {   /* (a last band of under four: below) */
            const int32_t k = pixels - i < band ? pixels - i : band;
            rt_dsp_pw_quads(p, &g, w, bias, in + i * g.cin, (int8_t *)scratch->buf, k);
            memcpy(out + i * g.cout, scratch->buf, (size_t)(k * g.cout));
        }
    }
    return band == 0 || i >= pixels ? RT_OK
                                    : rt_s8_pointwise_bands(scratch, p, &g, w_s, w, b_s, bias,
                                                            in + i * g.cin, out + i * g.cout,
                                                            pixels - i, band);
}
