/* conv_1x1_in_place_s8.c (Cortex-M DSP) - rt_conv2d_1x1_in_place_s8 as the portable file has
 * it (bands of pixels through the scratch, int8/conv_1x1_in_place_s8.h), but a layer the
 * quads take runs them on every band of four pixels or more, where rt_conv2d_1x1_s8 would
 * leave a band shorter than RT_DSP_Q_PIXELS to the blocks. Where the layer's whole table of
 * widened filter pairs fits RT_DSP_Q_BAND_BYTES with a quad (KWS's 64x64 layers), it is made
 * once and every band runs on it; else each band makes its tables again (the planner's bands
 * are multiples of four pixels, aot/overlap.py's pointwise_band). Bit-exact with
 * int8/conv_1x1_in_place_s8.c. */
#include "conv_dsp.h"
#include "dsp_variants.h"
#include "../../int8/conv_1x1_in_place_s8.h"

/* The bands of four pixels or more on one table, where it fits: returns the pixels done (a
 * last band of under four is the caller's), 0 where the table does not fit. */
static RT_DSP_NOINLINE int32_t one_table(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                         const rt_conv_s8_geom *g, const int8_t *w,
                                         const int32_t *bias, const int8_t *in, int8_t *out,
                                         int32_t pixels, int32_t band)
{
    const int32_t cin = g->cin, cout = g->cout, pairs = cout / 2;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t buf[RT_DSP_Q_BAND_BYTES / 4];   /* the quad's 8 * cin bytes widened, the table */
    int32_t *const xq = buf, *const wt = buf + 2 * cin;
    int32_t i;
    if (8 * cin + 4 * pairs * RT_DSP_Q_BLOCK(cin) > RT_DSP_Q_BAND_BYTES) {
        return 0;
    }
    rt_dsp_q_table(p, bias, w, cin, 0, pairs, wt);
    for (i = 0; pixels - i >= 4; i += band) {
        const int32_t k = pixels - i < band ? pixels - i : band;
        rt_dsp_q_quads(in + i * cin, k, cin, off2, xq, wt, pairs, (int8_t *)scratch->buf, cout);
        memcpy(out + i * cout, scratch->buf, (size_t)(k * cout));
    }
    return i;
}

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
        i = one_table(scratch, p, &g, w, bias, in, out, pixels, band);   /* (band <= pixels) */
        if (i == 0) {   /* the tables again a band; a last band under four pixels: below */
            for (; pixels - i >= 4; i += band) {
                const int32_t k = pixels - i < band ? pixels - i : band;
                rt_dsp_pw_quads(p, &g, w, bias, in + i * g.cin, (int8_t *)scratch->buf, k);
                memcpy(out + i * g.cout, scratch->buf, (size_t)(k * g.cout));
            }
        }
    }
    return band == 0 || i >= pixels ? RT_OK
                                    : rt_s8_pointwise_bands(scratch, p, &g, w_s, w, b_s, bias,
                                                            in + i * g.cin, out + i * g.cout,
                                                            pixels - i, band);
}
