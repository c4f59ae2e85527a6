/* conv2d.c - rt_conv2d_f32: direct reference convolution (aten.convolution,
 * not transposed), NCHW, groups/depthwise, 1-D as H = 1. */
#include "../core/rt_internal.h"

/* One output plane (one n, one output channel oc of group grp). */
static void conv_plane(const rt_conv_geom *g, const float *in_n,
                       const float *w_oc, int32_t grp, float bias, float *o)
{
    int32_t oy, ox, c, ky, kx;
    for (oy = 0; oy < g->oh; ++oy) {
        for (ox = 0; ox < g->ow; ++ox) {
            const int32_t y0 = oy * g->sh - g->ph;
            const int32_t x0 = ox * g->sw - g->pw;
            float acc = 0.0f;
            for (c = 0; c < g->cin_g; ++c) {
                const float *ip = in_n + (grp * g->cin_g + c) * g->h * g->w;
                const float *wp = w_oc + c * g->kh * g->kw;
                for (ky = 0; ky < g->kh; ++ky) {
                    const int32_t y = y0 + ky * g->dh;
                    if (y < 0 || y >= g->h) {
                        continue;
                    }
                    for (kx = 0; kx < g->kw; ++kx) {
                        const int32_t x = x0 + kx * g->dw;
                        if (x >= 0 && x < g->w) {
                            acc += ip[y * g->w + x] * wp[ky * g->kw + kx];
                        }
                    }
                }
            }
            o[oy * g->ow + ox] = acc + bias;
        }
    }
}

rt_status rt_conv2d_f32(const rt_conv2d_params *p,
                        const rt_shape *in_s, const float *in,
                        const rt_shape *w_s, const float *w,
                        const rt_shape *b_s, const float *b,
                        const rt_shape *out_s, float *out)
{
    rt_conv_geom g;
    int32_t n, oc;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL &&
             w != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_conv2d_geom(&g, p, in_s, w_s, b_s, b, out_s));
    for (n = 0; n < g.n; ++n) {
        const float *in_n = in + n * g.cin * g.h * g.w;
        for (oc = 0; oc < g.cout; ++oc) {
            conv_plane(&g, in_n, w + oc * g.cin_g * g.kh * g.kw,
                       oc / g.cout_g, b != NULL ? b[oc] : 0.0f,
                       out + (n * g.cout + oc) * g.oh * g.ow);
        }
    }
    return RT_OK;
}
