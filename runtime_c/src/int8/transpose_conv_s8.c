/* transpose_conv_s8.c - rt_transpose_conv2d_s8: NHWC int8 transposed convolution (one group),
 * per-channel requantization, as TFLite Micro's TRANSPOSE_CONV computes it.
 *
 * TFLM scatters each input pixel times the filter into an int32 buffer of the whole output, then
 * adds the bias and requantizes. The sums are exact integers, so gathering gives the same bytes
 * with no buffer: output pixel (oy, ox) reads input row iy where oy + pad - ky * dil = iy *
 * stride, for each tap ky that makes that a whole row inside the input (columns alike). */
#include "s8_internal.h"

/* The input row (or column) tap k of output position o reads, or -1 where none. */
static int32_t source(int32_t o, int32_t k, int32_t stride, int32_t pad, int32_t dil,
                      int32_t size)
{
    const int32_t t = o + pad - k * dil;
    return t >= 0 && t % stride == 0 && t / stride < size ? t / stride : -1;
}

static int output_size_ok(int32_t out, int32_t in, int32_t k, int32_t stride, int32_t pad,
                          int32_t dil)
{
    const int32_t extra = out - ((in - 1) * stride - 2 * pad + dil * (k - 1) + 1);
    return extra >= 0 && extra < (stride > dil ? stride : dil);     /* output_padding */
}

rt_status rt_transpose_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    int32_t n, oy, ox, oc, ky, kx, h, iw, cin, kh, kw, oh, ow, cout;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL && p->mult != NULL && p->shift != NULL, RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && w_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    RT_CHECK(p->stride_h >= 1 && p->stride_w >= 1 && p->dilation_h >= 1 &&
             p->dilation_w >= 1 && p->pad_h >= 0 && p->pad_w >= 0, RT_ERR_PARAM);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && p->input_offset >= -127 &&
             p->input_offset <= 128 && p->output_offset >= -128 && p->output_offset <= 127,
             RT_ERR_PARAM);
    h = in_s->d[1];
    iw = in_s->d[2];
    cin = in_s->d[3];
    kh = w_s->d[1];
    kw = w_s->d[2];
    oh = out_s->d[1];
    ow = out_s->d[2];
    cout = out_s->d[3];
    RT_CHECK(w_s->d[0] == cout && w_s->d[3] == cin && out_s->d[0] == in_s->d[0] && kh >= 1 &&
             kw >= 1 && h >= 1 && iw >= 1, RT_ERR_SHAPE);
    RT_CHECK(output_size_ok(oh, h, kh, p->stride_h, p->pad_h, p->dilation_h) &&
             output_size_ok(ow, iw, kw, p->stride_w, p->pad_w, p->dilation_w), RT_ERR_SHAPE);
    RT_CHECK(bias == NULL || (b_s != NULL && rt_shape_numel(b_s) == cout), RT_ERR_SHAPE);
    for (n = 0; n < in_s->d[0]; ++n) {
        const int8_t *img = in + n * h * iw * cin;
        for (oy = 0; oy < oh; ++oy) {
            for (ox = 0; ox < ow; ++ox) {
                for (oc = 0; oc < cout; oc += 4) {   /* four channels share each input load */
                    const int32_t run = cout - oc < 4 ? cout - oc : 4;
                    int32_t a[4], j;
                    for (j = 0; j < 4; ++j) {
                        a[j] = bias != NULL && j < run ? bias[oc + j] : 0;
                    }
                    for (ky = 0; ky < kh; ++ky) {
                        const int32_t iy = source(oy, ky, p->stride_h, p->pad_h, p->dilation_h, h);
                        for (kx = 0; iy >= 0 && kx < kw; ++kx) {
                            const int32_t ix = source(ox, kx, p->stride_w, p->pad_w,
                                                      p->dilation_w, iw);
                            if (ix >= 0) {
                                rt_s8_dot_run(img + (iy * iw + ix) * cin,
                                              w + (oc * kh * kw + ky * kw + kx) * cin,
                                              kh * kw * cin, cin, p->input_offset, run, a);
                            }
                        }
                    }
                    for (j = 0; j < run; ++j) {
                        *out++ = rt_s8_clamp(rt_s8_requant(a[j], p->mult[oc + j],
                                                           p->shift[oc + j]) +
                                             p->output_offset, p->act_min, p->act_max);
                    }
                }
            }
        }
    }
    return RT_OK;
}
