/* pool_s8.c - NHWC int8 pooling; input and output share qparams. Taps outside the input
 * are skipped: the average divides by the valid taps (arm_avgpool_s8, rounding half away
 * from zero) and the max ignores them (arm_max_pool_s8). The channels of an output pixel are
 * rt_s8_avg_px's or rt_s8_max_px's (pool_px_s8.c, which an arch folder may replace). */
#include "conv_s8.h"

static rt_status pool_check(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                            const rt_shape *out_s, const int8_t *out)
{
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(out_s) >= 0 &&
             in_s->d[0] == out_s->d[0] && in_s->d[3] == out_s->d[3], RT_ERR_SHAPE);
    RT_CHECK(p->kernel_h >= 1 && p->kernel_w >= 1 && p->stride_h >= 1 && p->stride_w >= 1 &&
             p->pad_h >= 0 && p->pad_w >= 0 && p->dilation_h >= 1 && p->dilation_w >= 1 &&
             RT_S8_RANGE_OK(p->act_min, p->act_max), RT_ERR_PARAM);
    return RT_OK;
}

/* Every output pixel: its window's valid taps to px. */
static rt_status pool(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                      const rt_shape *out_s, int8_t *out, rt_s8_pool_px_fn px, int is_max)
{
    int32_t n, oy, ox;
    const int32_t h = in_s->d[1], w = in_s->d[2], ch = in_s->d[3];
    const int32_t row_step = p->dilation_h * w * ch, col_step = p->dilation_w * ch;
    RT_TRY(pool_check(p, in_s, in, out_s, out));
    for (n = 0; n < in_s->d[0]; ++n) {
        const int8_t *img = in + n * h * w * ch;
        for (oy = 0; oy < out_s->d[1]; ++oy) {
            int32_t ky0, ky1;
            const int32_t iy0 = oy * p->stride_h - p->pad_h;
            rt_s8_tap_range(oy, p->stride_h, p->pad_h, p->dilation_h, p->kernel_h, h, &ky0, &ky1);
            for (ox = 0; ox < out_s->d[2]; ++ox, out += ch) {
                int32_t kx0, kx1;
                const int32_t ix0 = ox * p->stride_w - p->pad_w;
                rt_s8_tap_range(ox, p->stride_w, p->pad_w, p->dilation_w, p->kernel_w, w,
                                &kx0, &kx1);
                if (ky1 <= ky0 || kx1 <= kx0) {   /* no tap inside: no average */
                    RT_CHECK(is_max || ch == 0, RT_ERR_SHAPE);
                    px(img, 0, 0, row_step, col_step, ch, p->act_min, p->act_max, out);
                    continue;
                }
                px(img + ((iy0 + ky0 * p->dilation_h) * w + ix0 + kx0 * p->dilation_w) * ch,
                   ky1 - ky0, kx1 - kx0, row_step, col_step, ch, p->act_min, p->act_max, out);
            }
        }
    }
    return RT_OK;
}

rt_status rt_avg_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out)
{
    return pool(p, in_s, in, out_s, out, rt_s8_avg_px, 0);
}

rt_status rt_global_avg_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s,
                                  const int8_t *in, const rt_shape *out_s, int8_t *out)
{
    int32_t n, taps, ch;
    RT_TRY(pool_check(p, in_s, in, out_s, out));
    RT_CHECK(p->kernel_h == in_s->d[1] && p->kernel_w == in_s->d[2] && p->pad_h == 0 &&
             p->pad_w == 0 && p->dilation_h == 1 && p->dilation_w == 1 && out_s->d[1] == 1 &&
             out_s->d[2] == 1, RT_ERR_PARAM);
    taps = in_s->d[1] * in_s->d[2];
    ch = in_s->d[3];
    for (n = 0; n < in_s->d[0]; ++n) {   /* the map's pixels are one row of taps */
        rt_s8_avg_px(in + n * taps * ch, 1, taps, 0, ch, ch, p->act_min, p->act_max,
                     out + n * ch);
    }
    return RT_OK;
}

rt_status rt_max_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out)
{
    return pool(p, in_s, in, out_s, out, rt_s8_max_px, 1);
}
