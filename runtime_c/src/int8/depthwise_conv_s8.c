/* depthwise_conv_s8.c - rt_depthwise_conv2d_s8: NHWC int8 depthwise convolution with a
 * channel multiplier (output channel c reads input channel c / multiplier), filter
 * [1, KH, KW, Cout], per-channel requantization (arm_depthwise_conv_s8). */
#include "conv_s8.h"

rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t n, oy, ox, oc;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    {
        const int32_t mult = g.cin > 0 ? g.cout / g.cin : 1;
        const int32_t row = g.w * g.cin;
        const int32_t in_off = p->input_offset;
        for (n = 0; n < g.n; ++n) {
            const int8_t *img = in + n * g.h * row;
            for (oy = 0; oy < g.oh; ++oy) {
                for (ox = 0; ox < g.ow; ++ox) {
                    const int32_t x_step = p->dilation_w * g.cin;
                    const int32_t y_step = p->dilation_h * row;
                    rt_s8_window win;
                    rt_s8_window_at(&g, p, img, oy, ox, &win);
                    for (oc = 0; oc < g.cout;) {
                        /* Four channels at a time: four accumulators, one walk of the taps. */
                        const int32_t block = g.cout - oc >= 4 ? 4 : 1;
                        const int8_t *irow = win.x + oc / mult;
                        const int8_t *wrow = w + (win.ky0 * g.kw + win.kx0) * g.cout + oc;
                        int32_t d[4], acc[4], j, ky, kx;
                        for (j = 0; j < 4; ++j) {   /* channel j's input, from the first's */
                            d[j] = j < block ? (oc + j) / mult - oc / mult : 0;
                            acc[j] = (bias != NULL && j < block) ? bias[oc + j] : 0;
                        }
                        for (ky = win.ky0; ky < win.ky1; ++ky) {
                            const int8_t *ip = irow;
                            const int8_t *wp = wrow;
                            if (block == 4) {
                                int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
                                for (kx = win.kx0; kx < win.kx1; ++kx) {
                                    a0 += ((int32_t)ip[0] + in_off) * (int32_t)wp[0];
                                    a1 += ((int32_t)ip[d[1]] + in_off) * (int32_t)wp[1];
                                    a2 += ((int32_t)ip[d[2]] + in_off) * (int32_t)wp[2];
                                    a3 += ((int32_t)ip[d[3]] + in_off) * (int32_t)wp[3];
                                    ip += x_step;
                                    wp += g.cout;
                                }
                                acc[0] = a0;
                                acc[1] = a1;
                                acc[2] = a2;
                                acc[3] = a3;
                            } else {
                                for (kx = win.kx0; kx < win.kx1; ++kx) {
                                    acc[0] += ((int32_t)*ip + in_off) * (int32_t)*wp;
                                    ip += x_step;
                                    wp += g.cout;
                                }
                            }
                            irow += y_step;
                            wrow += g.kw * g.cout;
                        }
                        for (j = 0; j < block; ++j, ++oc) {
                            const int32_t v = rt_s8_requant(acc[j], p->mult[oc], p->shift[oc]) +
                                              p->output_offset;
                            *out++ = rt_s8_clamp(v, p->act_min, p->act_max);
                        }
                    }
                }
            }
        }
    }
    return RT_OK;
}
