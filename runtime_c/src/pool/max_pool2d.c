/* max_pool2d.c - rt_max_pool2d_f32: max_pool2d(_with_indices), NCHW or CHW.
 * Windows skip padding; NaN wins (PyTorch); indices are h * W + w. */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_max_pool2d_f32(const rt_pool2d_params *p,
                            const rt_shape *in_s, const float *in,
                            const rt_shape *out_s, float *out,
                            const rt_shape *idx_s, int64_t *idx)
{
    int32_t planes, ih, iw, oh, ow, c, oy, ox, y, x;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_pool2d_shapes(p, in_s, out_s, &planes, &ih, &iw, &oh, &ow));
    RT_CHECK((idx_s == NULL) == (idx == NULL), RT_ERR_NULL);
    RT_CHECK(idx == NULL || rt_same_numel(idx_s, out_s), RT_ERR_SHAPE);
    for (c = 0; c < planes; ++c) {
        const float *ip = in + c * ih * iw;
        for (oy = 0; oy < oh; ++oy) {
            for (ox = 0; ox < ow; ++ox) {
                int32_t y0 = oy * p->stride_h - p->pad_h;
                int32_t x0 = ox * p->stride_w - p->pad_w;
                const int32_t y1 = y0 + (p->kernel_h - 1) * p->dilation_h + 1;
                const int32_t x1 = x0 + (p->kernel_w - 1) * p->dilation_w + 1;
                float best = -INFINITY;
                int32_t best_i;
                while (y0 < 0) {
                    y0 += p->dilation_h;
                }
                while (x0 < 0) {
                    x0 += p->dilation_w;
                }
                best_i = y0 * iw + x0;
                for (y = y0; y < y1 && y < ih; y += p->dilation_h) {
                    for (x = x0; x < x1 && x < iw; x += p->dilation_w) {
                        const float v = ip[y * iw + x];
                        if (v > best || isnan(v)) {
                            best = v;
                            best_i = y * iw + x;
                        }
                    }
                }
                *out++ = best;
                if (idx != NULL) {
                    *idx++ = best_i;
                }
            }
        }
    }
    return RT_OK;
}
