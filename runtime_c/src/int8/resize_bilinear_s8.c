/* resize_bilinear_s8.c - rt_resize_bilinear_s8: bilinear resize of an NHWC int8 map, input
 * and output sharing qparams, as TensorFlow Lite Micro's RESIZE_BILINEAR computes it in
 * integers: each output position in 1/1024ths of an input pixel, the four neighbours' weights
 * products of those, their sum exact and rounded half away from zero. */
#include "s8_internal.h"

/* Output position o along an axis of `size` inputs: its position in 1/1024ths and its lower
 * and upper neighbours. */
typedef struct {
    int32_t pos, lo, hi;
} axis_pos;

static int32_t axis_scale(int32_t out, int32_t size, int32_t align_corners)
{
    if (align_corners && out > 1) {
        return ((1 << 10) * (size - 1) + (out - 1) / 2) / (out - 1);
    }
    return ((1 << 10) * size + out / 2) / out;
}

static axis_pos axis_at(int32_t o, int32_t scale, int32_t half_pixel, int32_t size)
{
    axis_pos a;
    a.pos = o * scale + (half_pixel ? scale / 2 - (1 << 9) : 0);
    a.lo = a.pos / (1 << 10) > 0 ? a.pos / (1 << 10) : 0;   /* C division: toward zero */
    a.hi = (a.pos + (1 << 10) - 1) / (1 << 10);
    a.lo = a.lo < size - 1 ? a.lo : size - 1;   /* (TFLM leaves it: a read past the map) */
    a.hi = a.hi < size - 1 ? a.hi : size - 1;
    return a;
}

rt_status rt_resize_bilinear_s8(int32_t align_corners, int32_t half_pixel, const rt_shape *in_s,
                                const int8_t *in, const rt_shape *out_s, int8_t *out)
{
    int32_t n, oy, ox, c, h, w, ch, oh, ow, sy, sx;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    h = in_s->d[1];
    w = in_s->d[2];
    ch = in_s->d[3];
    oh = out_s->d[1];
    ow = out_s->d[2];
    RT_CHECK(out_s->d[0] == in_s->d[0] && out_s->d[3] == ch, RT_ERR_SHAPE);
    RT_CHECK(h >= 1 && w >= 1 && oh >= 1 && ow >= 1 && h <= (1 << 20) && w <= (1 << 20) &&
             oh <= (1 << 20) && ow <= (1 << 20) && !(align_corners && half_pixel),
             RT_ERR_PARAM);
    sy = axis_scale(oh, h, align_corners);
    sx = axis_scale(ow, w, align_corners);
    for (n = 0; n < in_s->d[0]; ++n) {
        const int8_t *img = in + n * h * w * ch;
        for (oy = 0; oy < oh; ++oy) {
            const axis_pos y = axis_at(oy, sy, half_pixel, h);
            const int32_t fy = y.pos - (y.lo << 10);
            const int8_t *r0 = img + y.lo * w * ch, *r1 = img + y.hi * w * ch;
            for (ox = 0; ox < ow; ++ox) {
                const axis_pos x = axis_at(ox, sx, half_pixel, w);
                const int32_t fx = x.pos - (x.lo << 10);
                /* the four weights; each product of 1/1024ths stays within 2^21 (positions
                 * left of the first pixel give a weight above 1024 and one below 0) */
                const int32_t w00 = ((1 << 10) - fy) * ((1 << 10) - fx);
                const int32_t w10 = fy * ((1 << 10) - fx), w01 = ((1 << 10) - fy) * fx;
                const int32_t w11 = fy * fx;
                const int8_t *p00 = r0 + x.lo * ch, *p01 = r0 + x.hi * ch;
                const int8_t *p10 = r1 + x.lo * ch, *p11 = r1 + x.hi * ch;
                for (c = 0; c < ch; ++c) {
                    const int32_t acc = p00[c] * w00 + p10[c] * w10 + p01[c] * w01 +
                                        p11[c] * w11;
                    *out++ = (int8_t)((acc + (acc > 0 ? 1 << 19 : -(1 << 19))) / (1 << 20));
                }
            }
        }
    }
    return RT_OK;
}
