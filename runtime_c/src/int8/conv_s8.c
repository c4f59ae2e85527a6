/* conv_s8.c - rt_conv2d_s8: NHWC int8 convolution (groups allowed), per-channel
 * requantization, as arm_convolve_s8 computes it. Taps outside the input are skipped:
 * they would hold the input zero point, which contributes nothing. Direct loops, four output
 * channels at a time: the portable kernel leaves the scratch (see conv_s8.h) unused. */
#include "conv_s8.h"

rt_status rt_conv2d_s8(const rt_scratch *scratch, const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t n, oy, ox, oc;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    {
        const int32_t cout_g = g.cout / g.groups;
        const int32_t row = g.w * g.cin;
        const int32_t in_off = p->input_offset;
        for (n = 0; n < g.n; ++n) {
            const int8_t *img = in + n * g.h * row;
            for (oy = 0; oy < g.oh; ++oy) {
                for (ox = 0; ox < g.ow; ++ox) {
                    const int32_t fsize = g.kh * g.kw * g.cin_g;
                    rt_s8_window win;
                    rt_s8_window_at(&g, p, img, oy, ox, &win);
                    for (oc = 0; oc < g.cout;) {
                        /* Four output channels of one group share each input load. */
                        const int32_t block = (cout_g % 4 == 0 && g.cout - oc >= 4) ? 4 : 1;
                        const int32_t c0 = (oc / cout_g) * g.cin_g;
                        const int8_t *wk = w + oc * fsize;
                        int32_t acc[4], j, ky, kx;
                        for (j = 0; j < block; ++j) {
                            acc[j] = bias != NULL ? bias[oc + j] : 0;
                        }
                        for (ky = win.ky0; ky < win.ky1; ++ky) {
                            const int8_t *irow = win.x + (ky - win.ky0) * p->dilation_h * row + c0;
                            const int8_t *wrow = wk + ky * g.kw * g.cin_g;
                            for (kx = win.kx0; kx < win.kx1; ++kx) {
                                const int8_t *ip = irow + (kx - win.kx0) * p->dilation_w * g.cin;
                                if (block == 4) {
                                    rt_s8_dot4(ip, wrow + kx * g.cin_g, fsize, g.cin_g, in_off, acc);
                                } else {
                                    acc[0] += rt_s8_dot(ip, wrow + kx * g.cin_g, g.cin_g,
                                                        in_off);
                                }
                            }
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
