/* pool_s8.c - NHWC int8 pooling; input and output share qparams. Taps outside the input
 * are skipped: the average divides by the valid taps (arm_avgpool_s8, rounding half away
 * from zero) and the max ignores them (arm_max_pool_s8). */
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

/* (sum of valid taps, their count) per channel into acc/count; mode 0 = sum, 1 = max. */
static rt_status pool(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                      const rt_shape *out_s, int8_t *out, int is_max)
{
    int32_t n, oy, ox, c, ky, kx;
    const int32_t h = in_s->d[1], w = in_s->d[2], ch = in_s->d[3];
    RT_TRY(pool_check(p, in_s, in, out_s, out));
    for (n = 0; n < in_s->d[0]; ++n) {
        const int8_t *img = in + n * h * w * ch;
        for (oy = 0; oy < out_s->d[1]; ++oy) {
            int32_t ky0, ky1;
            const int32_t iy0 = oy * p->stride_h - p->pad_h;
            rt_s8_tap_range(oy, p->stride_h, p->pad_h, p->dilation_h, p->kernel_h, h, &ky0, &ky1);
            for (ox = 0; ox < out_s->d[2]; ++ox) {
                int32_t kx0, kx1, count;
                const int32_t ix0 = ox * p->stride_w - p->pad_w;
                rt_s8_tap_range(ox, p->stride_w, p->pad_w, p->dilation_w, p->kernel_w, w,
                                &kx0, &kx1);
                count = (ky1 - ky0) * (kx1 - kx0);
                for (c = 0; c < ch; ++c) {
                    int32_t acc = is_max ? -128 : 0;
                    for (ky = ky0; ky < ky1; ++ky) {
                        const int8_t *row = img + (iy0 + ky * p->dilation_h) * w * ch + c;
                        for (kx = kx0; kx < kx1; ++kx) {
                            const int32_t v = row[(ix0 + kx * p->dilation_w) * ch];
                            if (is_max) {
                                acc = v > acc ? v : acc;
                            } else {
                                acc += v;
                            }
                        }
                    }
                    if (!is_max) {
                        RT_CHECK(count > 0, RT_ERR_SHAPE);
                        /* round half away from zero, with C's truncating division */
                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    }
                    *out++ = rt_s8_clamp(acc, p->act_min, p->act_max);
                }
            }
        }
    }
    return RT_OK;
}

rt_status rt_avg_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out)
{
    return pool(p, in_s, in, out_s, out, 0);
}

rt_status rt_max_pool2d_s8(const rt_pool_s8_params *p, const rt_shape *in_s, const int8_t *in,
                           const rt_shape *out_s, int8_t *out)
{
    return pool(p, in_s, in, out_s, out, 1);
}
