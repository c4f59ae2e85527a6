/* conv_1x1_s8.c (Cortex-M DSP) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product of
 * the pixels by the filters. With sums proved in range and the activation all of int8, as in
 * every real layer (rt_dsp_pw_fits), an even Cout, Cin up to RT_DSP_Q_K and 16 pixels or more,
 * quads: filter pairs widened to doubled halfwords once a layer into a table (with their
 * biases and requantization constants), pixels four at a time widened once per table, and
 * conv_dsp.h's loop runs every pair of the table over the quad, loads and SMLADs only (16
 * cycles per 16 multiply-accumulates on the M4), and requantizes (SMMLAR) and stores its
 * eight outputs; the quad and the table share one buffer of RT_DSP_Q_BYTES on the stack.
 * Else, with Cin a multiple of 4 (up to RT_DSP_PX_CIN), blocks of six pixels by one filter:
 * filters 64 at a time outside (their constants in a table), pixels six at a time inside,
 * widened once per table, each filter word split once for the six pixels (18 instructions
 * per 24 multiply-accumulates). Pixels left over from the blocks, and other layers, go a
 * pixel at a time as fully connected rows (rt_s8_fc_row). Each path's buffers are its own
 * (noinline), never on the stack together. A build compiles only the paths its model takes
 * (dsp_variants.h). Bit-exact with int8/conv_1x1_s8.c. */
#include "conv_dsp.h"
#include "dsp_variants.h"

/* Any pointwise layer: a pixel at a time, as a fully connected row (rt_s8_fc_row: the
 * pixel widened once, four filters a loop; every requantization). The last pixels of a
 * layer in blocks, and layers the blocks do not take. */
static void pointwise(const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w,
                      const int32_t *bias, const int8_t *in, int8_t *out, int32_t pixels)
{
    rt_fc_s8_params f;
    int32_t i;
    f.input_offset = p->input_offset;
    f.filter_offset = 0;
    f.output_offset = p->output_offset;
    f.act_min = p->act_min;
    f.act_max = p->act_max;
    f.per_channel = 1;
    f.mult = p->mult;
    f.shift = p->shift;
    for (i = 0; i < pixels; ++i, in += g->cin, out += g->cout) {
        rt_s8_fc_row(&f, in, w, g->cin, g->cout, bias, out);
    }
}

/* A layer rt_dsp_pw_fits takes: filters RT_DSP_PX_TABLE at a time outside (their constants
 * in a table), blocks of six pixels inside, widened once per table (xw); up to three
 * pixels left over are left to the caller (a pixel at a time is cheaper than a block), more
 * go in one last block. Returns the pixels done. */
static RT_DSP_NOINLINE int32_t pointwise_blocks(const rt_conv_s8_params *p,
                                                const rt_conv_s8_geom *g, const int8_t *w,
                                                const int32_t *bias, const int8_t *in,
                                                int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout, left = pixels % RT_DSP_PX;
    /* pixels in blocks: all of them when four or more are left over (the last block then
       redoes some of the one before it), else the multiple of RT_DSP_PX */
    const int32_t whole = left >= 4 && pixels > RT_DSP_PX ? pixels : pixels - left;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xw[RT_DSP_PX * RT_DSP_PX_CIN / 2];
    rt_dsp_px_filter t[RT_DSP_PX_TABLE];
    int32_t oc, i;
    for (oc = 0; oc < cout; oc += RT_DSP_PX_TABLE) {
        const int32_t n = cout - oc < RT_DSP_PX_TABLE ? cout - oc : RT_DSP_PX_TABLE;
        rt_dsp_px_table(p, bias, oc, n, t);
        for (i = 0; i < whole; i += RT_DSP_PX) {
            const int32_t i0 = i + RT_DSP_PX <= whole ? i : whole - RT_DSP_PX;
            rt_dsp_px_widen(in + i0 * cin, cin, off2, xw);
            rt_dsp_px_filters(xw, t, w + oc * cin, cin, n, out + i0 * cout + oc, cout);
        }
    }
    return whole;
}

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t pixels, done;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pixels = g.n * g.oh * g.ow;
    if (RT_DSP_HAS(RT_DSP_U_PW_QUADS) && g.cin <= RT_DSP_Q_K && g.cout % 2 == 0 &&
        pixels >= RT_DSP_Q_PIXELS && rt_dsp_pw_fits(p, bias, g.cin, g.cout)) {
        rt_dsp_pw_quads(p, &g, w, bias, in, out, pixels);
        return RT_OK;
    }
    done = RT_DSP_HAS(RT_DSP_U_PW_BLOCKS) && g.cin <= RT_DSP_PX_CIN &&
                   rt_dsp_pw_fits(p, bias, g.cin, g.cout)
               ? pointwise_blocks(p, &g, w, bias, in, out, pixels) : 0;
    /* the rest a pixel at a time, once the blocks' buffers are off the stack */
    pointwise(p, &g, w, bias, in + done * g.cin, out + done * g.cout, pixels - done);
    return RT_OK;
}
