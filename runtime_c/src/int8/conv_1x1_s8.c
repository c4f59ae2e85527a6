/* conv_1x1_s8.c - rt_conv2d_1x1_s8: rt_conv2d_s8 for a pointwise layer only (1x1 taps,
 * stride 1, no padding, one group), a matrix product of the pixels by the filters: four
 * filters share each input load (rt_s8_dot4). Its own entry point so that a model whose
 * convolutions are all pointwise links no general convolution. Same sums, same
 * requantization: bit-exact with rt_conv2d_s8. */
#include "conv_s8.h"

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t i, pixels, oc, j;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pixels = g.n * g.oh * g.ow;
    for (i = 0; i < pixels; ++i, in += g.cin) {
        for (oc = 0; oc < g.cout;) {
            const int32_t block = g.cout - oc >= 4 ? 4 : 1;
            int32_t acc[4] = {0, 0, 0, 0};
            if (block == 4) {
                rt_s8_dot4(in, w + oc * g.cin, g.cin, g.cin, p->input_offset, acc);
            } else {
                acc[0] = rt_s8_dot(in, w + oc * g.cin, g.cin, p->input_offset);
            }
            for (j = 0; j < block; ++j, ++oc) {
                const int32_t v = rt_s8_requant(acc[j] + (bias != NULL ? bias[oc] : 0),
                                                p->mult[oc], p->shift[oc]) + p->output_offset;
                *out++ = rt_s8_clamp(v, p->act_min, p->act_max);
            }
        }
    }
    return RT_OK;
}
