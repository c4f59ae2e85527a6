/* upsample_nearest2d.c - rt_upsample_nearest2d_f32, NCHW: src index =
 * min(floor(dst * scale), in - 1) in float, with PyTorch's shortcuts for
 * out == in and out == 2 * in. scale <= 0 means in / out. */
#include <math.h>

#include "../core/rt_internal.h"

static int32_t nearest_src(int32_t dst, int32_t in, int32_t out, float scale)
{
    float src;
    if (out == in) {
        return dst;
    }
    if (out == 2 * in) {
        return dst >> 1;
    }
    src = floorf((float)dst * scale);
    /* clamp before converting: no overflow for any scale */
    return src < (float)(in - 1) ? (int32_t)src : in - 1;
}

rt_status rt_upsample_nearest2d_f32(float scale_h, float scale_w, RT_F32_UNARY_TENSORS)
{
    rt_upsample_geom g;
    int32_t c, y, x;
    RT_TRY(rt_upsample_geom_init(&g, scale_h, scale_w, in_s, in, out_s, out));
    for (c = 0; c < g.planes; ++c, in += g.ih * g.iw) {
        for (y = 0; y < g.oh; ++y) {
            const float *row = in + nearest_src(y, g.ih, g.oh, g.scale_h) * g.iw;
            for (x = 0; x < g.ow; ++x) {
                *out++ = row[nearest_src(x, g.iw, g.ow, g.scale_w)];
            }
        }
    }
    return RT_OK;
}
