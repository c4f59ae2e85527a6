/* depthwise_in_place_s8.c (Cortex-M Helium) - rt_depthwise_conv2d_in_place_s8 and its 3x3
 * twin. Exactly in place, the Helium depthwise runs a layer its whole planes take (KWS's 25x5
 * maps, VWW's 6x6) as it stands, and refuses others before writing anything
 * (depthwise_conv_s8.c); those go by bands of rows through the scratch (int8/in_place_s8.h).
 * The bands' checks come first, so that the status is the portable one's.
 * This file also keeps the DSP folder's, which asks the DSP planes, out of the M55's firmware.
 * Bit-exact with int8/depthwise_in_place_s8.c. */
#include "../../int8/in_place_s8.h"

static rt_status in_place(rt_s8_dw_kernel kernel, const rt_scratch *scratch,
                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t rows;
    RT_TRY(rt_s8_depthwise_bands_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                       &rows));
    if (rows > 0) {
        const rt_status whole = kernel(p, in_s, in, w_s, w, b_s, bias, out_s, out);
        if (whole != RT_ERR_PARAM) {
            return whole;
        }
    }
    return rt_s8_depthwise_bands(kernel, scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out);
}

rt_status rt_depthwise_conv2d_in_place_s8(const rt_scratch *scratch,
                                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    return in_place(rt_depthwise_conv2d_s8, scratch, p, in_s, in, w_s, w, b_s, bias, out_s,
                    out);
}

rt_status rt_depthwise_conv2d_3x3_in_place_s8(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    return in_place(rt_depthwise_conv2d_3x3_s8, scratch, p, in_s, in, w_s, w, b_s, bias,
                    out_s, out);
}
