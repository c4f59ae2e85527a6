/* conv_1x1_s8.c (Cortex-M DSP) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product of
 * the pixels by the filters on 2x2 tiles (two pixels x two filters). With Cin a multiple of 4
 * (up to RT_DSP_WIDE_WORDS) and sums proved in range, as in every real layer, pixels go two
 * at a time outside, widened to halfwords with the input offset once (on the stack), and
 * every filter pair reads them: 18 instructions per 16 multiply-accumulates (conv_dsp.h).
 * Other layers take one output at a time (rt_s8_dot). Bit-exact with int8/conv_1x1_s8.c. */
#include "conv_dsp.h"

/* Pixels two at a time outside (widened once into xw, room for Cin words), filters two at a
 * time inside, each tile's four outputs requantized and stored on the spot. An odd last pixel
 * is widened twice and stored once; an odd last filter is read twice and stored once. */
static void pointwise_widened(const rt_conv_s8_params *p, const rt_conv_s8_geom *g,
                              const int8_t *w, const int32_t *bias, const int8_t *in,
                              int8_t *out, int32_t pixels, int32_t *xw)
{
    const int32_t cin = g->cin, cout = g->cout;
    const int full = p->act_min == -128 && p->act_max == 127;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t i, oc;
    for (i = 0; i < pixels; i += 2, in += 2 * cin, out += 2 * cout) {
        const int two = i + 1 < pixels;
        rt_dsp_widen_pair(in, two ? in + cin : in, cin, off2, xw);
        for (oc = 0; oc < cout; oc += 2) {
            const int32_t o1 = cout - oc >= 2 ? oc + 1 : oc;
            int32_t acc[4];
            acc[0] = acc[2] = bias != NULL ? bias[oc] : 0;
            acc[1] = acc[3] = bias != NULL ? bias[o1] : 0;
            rt_dsp_widened_2x2(xw, w + oc * cin, w + o1 * cin, cin, acc);
            rt_dsp_store_2x2(p, oc, o1, acc, out, two ? out + cout : NULL, full);
        }
    }
}

/* Any other pointwise layer: one output at a time, every step out of line (rare, and kept
 * small). */
static void pointwise(const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w,
                      const int32_t *bias, const int8_t *in, int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout;
    int32_t i, oc;
    for (i = 0; i < pixels; ++i, in += cin, out += cout) {
        for (oc = 0; oc < cout; ++oc) {
            const int32_t acc = (bias != NULL ? bias[oc] : 0) +
                                rt_s8_dot(in, w + oc * cin, cin, p->input_offset);
            out[oc] = rt_s8_clamp(rt_requantize(acc, p->mult[oc], p->shift[oc]) +
                                  p->output_offset, p->act_min, p->act_max);
        }
    }
}

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           const rt_shape *in_s, const int8_t *in,
                           const rt_shape *w_s, const int8_t *w,
                           const rt_shape *b_s, const int32_t *bias,
                           const rt_shape *out_s, int8_t *out)
{
    rt_conv_s8_geom g;
    int32_t pixels;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pixels = g.n * g.oh * g.ow;
    if (g.cin > 0 && g.cin % 4 == 0 && g.cin <= RT_DSP_WIDE_WORDS &&
        rt_dsp_layer_in_range(p, bias, g.cin, g.cout)) {
        int32_t xw[RT_DSP_WIDE_WORDS];
        pointwise_widened(p, &g, w, bias, in, out, pixels, xw);
    } else {
        pointwise(p, &g, w, bias, in, out, pixels);
    }
    return RT_OK;
}
