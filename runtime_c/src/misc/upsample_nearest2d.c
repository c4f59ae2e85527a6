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

rt_status rt_upsample_nearest2d_f32(float scale_h, float scale_w,
                                    const rt_shape *in_s, const float *in,
                                    const rt_shape *out_s, float *out)
{
    int32_t planes, ih, iw, oh, ow, c, y, x;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(out_s) >= 0 &&
             in_s->d[0] == out_s->d[0] && in_s->d[1] == out_s->d[1],
             RT_ERR_SHAPE);
    planes = in_s->d[0] * in_s->d[1];
    ih = in_s->d[2];
    iw = in_s->d[3];
    oh = out_s->d[2];
    ow = out_s->d[3];
    RT_CHECK((ih > 0 && iw > 0) || planes * oh * ow == 0, RT_ERR_SHAPE);
    if (!(scale_h > 0.0f)) {
        scale_h = (float)ih / (float)oh;
    }
    if (!(scale_w > 0.0f)) {
        scale_w = (float)iw / (float)ow;
    }
    for (c = 0; c < planes; ++c) {
        const float *ip = in + c * ih * iw;
        for (y = 0; y < oh; ++y) {
            const float *row = ip + nearest_src(y, ih, oh, scale_h) * iw;
            for (x = 0; x < ow; ++x) {
                *out++ = row[nearest_src(x, iw, ow, scale_w)];
            }
        }
    }
    return RT_OK;
}
