/* upsample_bilinear2d.c - rt_upsample_bilinear2d_f32, NCHW: each output pixel interpolates the
 * four nearest input pixels, as torch computes it in float. With align_corners the corner
 * pixels of input and output line up: src = dst * (in - 1) / (out - 1). Otherwise pixel
 * centres do: src = (dst + 0.5) * scale - 0.5, clamped at 0, where scale is 1 / the user's
 * scale factor, or in / out when scale <= 0. */
#include "../core/rt_internal.h"

typedef struct tap {
    int32_t i0, i1;       /* the two source indices */
    float w0, w1;         /* their weights */
} tap;

static tap source_tap(int32_t dst, int32_t in, int32_t out, int32_t align_corners, float scale)
{
    tap t;
    float src;
    if (align_corners) {
        src = out > 1 ? (float)dst * ((float)(in - 1) / (float)(out - 1)) : 0.0f;
    } else {
        src = ((float)dst + 0.5f) * scale - 0.5f;
        src = src < 0.0f ? 0.0f : src;
    }
    t.i0 = (int32_t)src;
    if (t.i0 > in - 1) {
        t.i0 = in - 1;
    }
    t.i1 = t.i0 < in - 1 ? t.i0 + 1 : t.i0;
    t.w1 = src - (float)t.i0;
    if (t.w1 > 1.0f) {
        t.w1 = 1.0f;
    }
    t.w0 = 1.0f - t.w1;
    return t;
}

rt_status rt_upsample_bilinear2d_f32(int32_t align_corners, float scale_h, float scale_w,
                                     RT_F32_UNARY_TENSORS)
{
    rt_upsample_geom g;
    int32_t c, y, x;
    RT_TRY(rt_upsample_geom_init(&g, scale_h, scale_w, in_s, in, out_s, out));
    for (c = 0; c < g.planes; ++c) {
        const float *ip = in + c * g.ih * g.iw;
        for (y = 0; y < g.oh; ++y) {
            const tap ty = source_tap(y, g.ih, g.oh, align_corners, g.scale_h);
            const float *r0 = ip + ty.i0 * g.iw, *r1 = ip + ty.i1 * g.iw;
            for (x = 0; x < g.ow; ++x) {
                const tap tx = source_tap(x, g.iw, g.ow, align_corners, g.scale_w);
                *out++ = ty.w0 * (tx.w0 * r0[tx.i0] + tx.w1 * r0[tx.i1]) +
                         ty.w1 * (tx.w0 * r1[tx.i0] + tx.w1 * r1[tx.i1]);
            }
        }
    }
    return RT_OK;
}
