/* conv_1x1_in_place_s8.c - rt_conv2d_1x1_in_place_s8: a pointwise layer whose output the
 * planner put over its input, by bands of pixels through rt_conv2d_1x1_s8 into the scratch
 * (conv_1x1_in_place_s8.h). Where the output does not overlap the input, one call runs the
 * whole layer. */
#include "conv_1x1_in_place_s8.h"

rt_status rt_conv2d_1x1_in_place_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                                    RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    int32_t band;
    RT_TRY(rt_s8_pointwise_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                 &band));
    return band == 0 ? RT_OK
                     : rt_s8_pointwise_bands(scratch, p, &g, w_s, w, b_s, bias, in, out,
                                             g.n * g.oh * g.ow, band);
}
