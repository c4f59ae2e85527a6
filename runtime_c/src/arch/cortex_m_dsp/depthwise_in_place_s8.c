/* depthwise_in_place_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_in_place_s8 and its 3x3 twin.
 * A 3x3 layer the planes take in flat mode runs whole, in place as it stands: each group of
 * lanes has its whole padded planes widened before any of its outputs is written, and those
 * land on the group's own channels (depthwise_conv_3x3_s8.c). Other layers go by bands of
 * rows through the scratch (int8/in_place_s8.h). Bit-exact with int8/depthwise_in_place_s8.c. */
#include "dw_dsp.h"
#include "../../int8/in_place_s8.h"

/* The layer is exactly over its input and rt_depthwise_conv2d_3x3_s8 runs it in flat mode. */
static int flat_in_place(const rt_conv_s8_params *p, const rt_shape *in_s, const int8_t *in,
                         const rt_shape *w_s, const int8_t *w, const rt_shape *b_s,
                         const int32_t *bias, const rt_shape *out_s, const int8_t *out)
{
    rt_conv_s8_geom g;
    return (const void *)in == (const void *)out &&
           rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1) == RT_OK &&
           rt_conv_s8_is_dw3x3(&g, p) && p->stride_w == 1 && rt_dsp_dw3_flat_pw(&g, p) != 0 &&
           rt_dsp_dw3_takes(&g, p, bias);
}

rt_status rt_depthwise_conv2d_in_place_s8(const rt_scratch *scratch,
                                          const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    if (flat_in_place(p, in_s, in, w_s, w, b_s, bias, out_s, out)) {
        return rt_depthwise_conv2d_3x3_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    return rt_s8_depthwise_bands(rt_depthwise_conv2d_s8, scratch, p, in_s, in, w_s, w, b_s,
                                 bias, out_s, out);
}

rt_status rt_depthwise_conv2d_3x3_in_place_s8(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    if (flat_in_place(p, in_s, in, w_s, w, b_s, bias, out_s, out)) {
        return rt_depthwise_conv2d_3x3_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    return rt_s8_depthwise_bands(rt_depthwise_conv2d_3x3_s8, scratch, p, in_s, in, w_s, w,
                                 b_s, bias, out_s, out);
}
