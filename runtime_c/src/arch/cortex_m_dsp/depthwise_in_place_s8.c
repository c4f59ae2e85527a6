/* depthwise_in_place_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_in_place_s8 and its 3x3 twin.
 * A 3x3 layer the planes take in flat mode runs whole, in place as it stands: each group of
 * lanes has its whole padded planes widened before any of its outputs is written, and those
 * land on the group's own channels (depthwise_conv_3x3_s8.c). Other layers go by bands of
 * rows through the scratch (int8/in_place_s8.h). Bit-exact with int8/depthwise_in_place_s8.c. */
#include "dw_dsp.h"
#include "../../int8/in_place_s8.h"

/* A layer whose checks pass exactly in place (in_place_s8.h), which
 * rt_depthwise_conv2d_3x3_s8 runs in flat mode, runs whole; the rest by bands. */
static rt_status in_place(rt_s8_dw_kernel kernel, const rt_scratch *scratch,
                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t rows;
    RT_TRY(rt_s8_depthwise_bands_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                       &rows));
    if (rows > 0 && rt_conv_s8_is_dw3x3(&g, p) && rt_dsp_dw3_flat_pw(&g, p) != 0 &&
        rt_dsp_dw3_takes(&g, p, bias)) {
        return rt_depthwise_conv2d_3x3_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
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
