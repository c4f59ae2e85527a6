/* depthwise_conv_3x3_s8.c - rt_depthwise_conv2d_3x3_s8: rt_depthwise_conv2d_s8 for a 3x3
 * filter with a channel multiplier of 1 and no dilation only. The portable kernel is the
 * general one; the entry point exists so that an arch's kernel for these layers links only
 * into the models that have them. */
#include "conv_s8.h"

rt_status rt_depthwise_conv2d_3x3_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    RT_CHECK(rt_conv_s8_is_dw3x3(&g, p), RT_ERR_PARAM);
    return rt_depthwise_conv2d_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
}
