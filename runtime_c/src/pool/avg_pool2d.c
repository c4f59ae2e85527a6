/* avg_pool2d.c - rt_avg_pool2d_f32: avg_pool2d, NCHW or CHW, with
 * ceil_mode, count_include_pad and divisor_override as PyTorch. The
 * pad-inclusive window is clipped to input + padding for the divisor; a
 * window that holds no input element gives 0. */
#include "../core/rt_internal.h"

static int32_t min_i32(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

static int32_t max_i32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

rt_status rt_avg_pool2d_f32(const rt_pool2d_params *p, RT_F32_UNARY_TENSORS)
{
    int32_t planes, ih, iw, oh, ow, c, oy, ox, y, x;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL,
             RT_ERR_NULL);
    RT_CHECK(p->dilation_h == 1 && p->dilation_w == 1 &&
             p->divisor_override >= 0,
             RT_ERR_PARAM);
    RT_TRY(rt_pool2d_shapes(p, in_s, out_s, &planes, &ih, &iw, &oh, &ow));
    for (c = 0; c < planes; ++c) {
        const float *ip = in + c * ih * iw;
        for (oy = 0; oy < oh; ++oy) {
            for (ox = 0; ox < ow; ++ox) {
                int32_t y0 = oy * p->stride_h - p->pad_h;
                int32_t x0 = ox * p->stride_w - p->pad_w;
                int32_t y1 = min_i32(y0 + p->kernel_h, ih + p->pad_h);
                int32_t x1 = min_i32(x0 + p->kernel_w, iw + p->pad_w);
                const int32_t pool_size = (y1 - y0) * (x1 - x0);
                int32_t divisor;
                float sum = 0.0f;
                y0 = max_i32(y0, 0);
                x0 = max_i32(x0, 0);
                y1 = min_i32(y1, ih);
                x1 = min_i32(x1, iw);
                if (y0 >= y1 || x0 >= x1) {
                    *out++ = 0.0f;
                    continue;
                }
                for (y = y0; y < y1; ++y) {
                    for (x = x0; x < x1; ++x) {
                        sum += ip[y * iw + x];
                    }
                }
                if (p->divisor_override != 0) {
                    divisor = p->divisor_override;
                } else if (p->count_include_pad) {
                    divisor = pool_size;
                } else {
                    divisor = (y1 - y0) * (x1 - x0);
                }
                *out++ = sum / (float)divisor;
            }
        }
    }
    return RT_OK;
}
