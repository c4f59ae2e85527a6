/* depthwise_in_place_s8.c - rt_depthwise_conv2d_in_place_s8 and its 3x3 twin: a depthwise
 * layer exactly over its input, by bands of rows through the scratch (in_place_s8.h). The
 * arch files run the layers their kernels take whole in place as they stand. */
#include "in_place_s8.h"

rt_status rt_depthwise_conv2d_in_place_s8(const rt_scratch *scratch,
                                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    return rt_s8_depthwise_bands(rt_depthwise_conv2d_s8, scratch, p, in_s, in, w_s, w, b_s,
                                 bias, out_s, out);
}

rt_status rt_depthwise_conv2d_3x3_in_place_s8(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    return rt_s8_depthwise_bands(rt_depthwise_conv2d_3x3_s8, scratch, p, in_s, in, w_s, w,
                                 b_s, bias, out_s, out);
}
