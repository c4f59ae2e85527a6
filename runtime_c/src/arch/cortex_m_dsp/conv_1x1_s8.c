/* conv_1x1_s8.c (Cortex-M DSP) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product of
 * the pixels by the filters on 2x2 tiles (two pixels x two filters). With Cin a multiple of 4
 * (up to RT_DSP_PW_XW), Cout even, sums proved in range and the activation all of int8, as in
 * every real layer, filters go 64 at a time outside (their requantization constants in a
 * table on the stack) and pixels two at a time inside, widened to doubled halfwords with the
 * input offset once per table; conv_dsp.h's written-out loop then runs every filter pair over
 * them, 66 instructions per 64 multiply-accumulates, and requantizes (SMMLAR) and stores its
 * four outputs. Other layers take one output at a time (rt_s8_dot). Bit-exact with
 * int8/conv_1x1_s8.c. */
#include "conv_dsp.h"

/* A layer rt_dsp_pw_fits takes: filters RT_DSP_PW_PAIRS pairs at a time outside (their
 * constants in a table), pixels two at a time inside, widened once per table (xw). */
static void pointwise_table(const rt_conv_s8_params *p, const rt_conv_s8_geom *g,
                            const int8_t *w, const int32_t *bias, const int8_t *in,
                            int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xw[RT_DSP_PW_XW];
    rt_dsp_pw_pair t[RT_DSP_PW_PAIRS];
    int32_t oc, i;
    for (oc = 0; oc < cout; oc += 2 * RT_DSP_PW_PAIRS) {
        const int32_t n = (cout - oc) / 2 < RT_DSP_PW_PAIRS ? (cout - oc) / 2 : RT_DSP_PW_PAIRS;
        rt_dsp_pw_table(p, bias, oc, n, t);
        for (i = 0; i < pixels; i += 2) {
            const int two = i + 1 < pixels;
            const int8_t *x = in + i * cin;
            rt_dsp_pw_widen2(x, two ? x + cin : x, cin, off2, xw);
            rt_dsp_pw_pairs(xw, t, w + oc * cin, cin, n, out + i * cout + oc,
                            two ? cout : 0);
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
    if (g.cin <= RT_DSP_PW_XW && rt_dsp_pw_fits(p, bias, g.cin, g.cout)) {
        pointwise_table(p, &g, w, bias, in, out, pixels);
    } else {
        pointwise(p, &g, w, bias, in, out, pixels);
    }
    return RT_OK;
}
