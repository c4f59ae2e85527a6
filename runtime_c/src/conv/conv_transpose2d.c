/* conv_transpose2d.c - rt_conv_transpose2d_f32: the transposed convolution (the gradient of
 * conv2d with respect to its input), NCHW, rank-3 tensors as 1-D with H = 1. weight is
 * [Cin, Cout / groups, KH, KW]. Each input pixel scatters its products into the output:
 * oy = iy * stride - pad + ky * dilation; output_padding only adds rows/columns at the end,
 * which the output shape already holds. */
#include "../core/rt_internal.h"

rt_status rt_conv_transpose2d_f32(const rt_conv_transpose2d_params *p, RT_F32_LAYER_TENSORS)
{
    int32_t n, cin, ih, iw, cout, kh, kw, oh, ow, cin_g, cout_g, r;
    int32_t bn, g, ci, co, y, x, ky, kx, i;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL, RT_ERR_NULL);
    r = in_s->rank;
    RT_CHECK((r == 3 || r == 4) && w_s->rank == r && out_s->rank == r, RT_ERR_RANK);
    RT_CHECK(p->stride_h >= 1 && p->stride_w >= 1 && p->dilation_h >= 1 && p->dilation_w >= 1 &&
             p->pad_h >= 0 && p->pad_w >= 0 && p->groups >= 1, RT_ERR_PARAM);
    n = in_s->d[0];
    cin = in_s->d[1];
    ih = r == 4 ? in_s->d[2] : 1;
    iw = in_s->d[r - 1];
    kh = r == 4 ? w_s->d[2] : 1;
    kw = w_s->d[r - 1];
    oh = r == 4 ? out_s->d[2] : 1;
    ow = out_s->d[r - 1];
    RT_CHECK(w_s->d[0] == cin && cin % p->groups == 0, RT_ERR_SHAPE);
    cin_g = cin / p->groups;
    cout_g = w_s->d[1];
    cout = cout_g * p->groups;
    RT_CHECK(out_s->d[0] == n && out_s->d[1] == cout, RT_ERR_SHAPE);
    RT_CHECK(oh == (ih - 1) * p->stride_h - 2 * p->pad_h + p->dilation_h * (kh - 1) +
                   p->out_pad_h + 1 &&
             ow == (iw - 1) * p->stride_w - 2 * p->pad_w + p->dilation_w * (kw - 1) +
                   p->out_pad_w + 1, RT_ERR_SHAPE);
    RT_CHECK(p->out_pad_h >= 0 && p->out_pad_w >= 0 &&
             (p->out_pad_h < p->stride_h || p->out_pad_h < p->dilation_h) &&
             (p->out_pad_w < p->stride_w || p->out_pad_w < p->dilation_w), RT_ERR_PARAM);
    RT_CHECK(b == NULL || (b_s != NULL && rt_shape_numel(b_s) == cout), RT_ERR_SHAPE);
    for (bn = 0; bn < n; ++bn) {
        float *o = out + bn * cout * oh * ow;
        for (co = 0; co < cout; ++co) {
            const float v = b != NULL ? b[co] : 0.0f;
            for (i = 0; i < oh * ow; ++i) {
                o[co * oh * ow + i] = v;
            }
        }
        for (g = 0; g < p->groups; ++g) {
            for (ci = g * cin_g; ci < (g + 1) * cin_g; ++ci) {
                const float *ip = in + (bn * cin + ci) * ih * iw;
                for (co = 0; co < cout_g; ++co) {
                    const float *wp = w + (ci * cout_g + co) * kh * kw;
                    float *op = o + (g * cout_g + co) * oh * ow;
                    for (y = 0; y < ih; ++y) {
                        for (ky = 0; ky < kh; ++ky) {
                            const int32_t oy = y * p->stride_h - p->pad_h + ky * p->dilation_h;
                            if (oy < 0 || oy >= oh) {
                                continue;
                            }
                            for (x = 0; x < iw; ++x) {
                                const float xv = ip[y * iw + x];
                                for (kx = 0; kx < kw; ++kx) {
                                    const int32_t ox = x * p->stride_w - p->pad_w +
                                                       kx * p->dilation_w;
                                    if (ox >= 0 && ox < ow) {
                                        op[oy * ow + ox] =
                                            rt_mac_f32(op[oy * ow + ox], xv, wp[ky * kw + kx]);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return RT_OK;
}
