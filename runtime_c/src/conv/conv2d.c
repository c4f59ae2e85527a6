/* conv2d.c - rt_conv2d_f32: direct convolution (aten.convolution, not
 * transposed), NCHW, groups/depthwise, 1-D as H = 1. The reference kernel:
 * every other conv kernel matches its contract.
 *
 * Per output channel the plane is cleared, then every (input channel, ky,
 * kx) tap adds w * input to the rectangle of outputs whose input it reaches:
 * the row and column ranges are computed once per tap, so the innermost
 * loop runs along an output row without bounds checks. Accumulation per
 * output is in (c, ky, kx) order, bias last. */
#include "../core/rt_internal.h"

/* Outputs o in [0, n) with 0 <= o * s + off < len: returns the first, sets
 * *end one past the last (an empty range has *end <= first). */
static int32_t tap_range(int32_t off, int32_t s, int32_t len, int32_t n,
                         int32_t *end)
{
    const int32_t first = off >= 0 ? 0 : (-off + s - 1) / s;
    const int32_t last = len - 1 - off >= 0 ? (len - 1 - off) / s + 1 : 0;
    *end = last < n ? last : n;
    return first;
}

/* One output plane (one n, one output channel of group grp). */
static void conv_plane(const rt_conv_geom *g, const float *in_g,
                       const float *w_oc, float bias, float *o)
{
    const int32_t npix = g->oh * g->ow;
    int32_t i, c, ky, kx, oy, ox;
    for (i = 0; i < npix; ++i) {
        o[i] = 0.0f;
    }
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_g + c * g->h * g->w;
        for (ky = 0; ky < g->kh; ++ky) {
            const int32_t yoff = ky * g->dh - g->ph;
            int32_t oy1;
            const int32_t oy0 = tap_range(yoff, g->sh, g->h, g->oh, &oy1);
            for (kx = 0; kx < g->kw; ++kx) {
                const float wv = w_oc[(c * g->kh + ky) * g->kw + kx];
                const int32_t xoff = kx * g->dw - g->pw;
                int32_t ox1;
                const int32_t ox0 = tap_range(xoff, g->sw, g->w, g->ow, &ox1);
                for (oy = oy0; oy < oy1; ++oy) {
                    const float *row = ip + (oy * g->sh + yoff) * g->w;
                    float *orow = o + oy * g->ow;
                    for (ox = ox0; ox < ox1; ++ox) {
                        orow[ox] = rt_mac_f32(orow[ox], row[ox * g->sw + xoff], wv);
                    }
                }
            }
        }
    }
    for (i = 0; i < npix; ++i) {
        o[i] += bias;
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
            conv_plane(&g, in_n + (oc / g.cout_g) * g.cin_g * g.h * g.w,
                       w + oc * g.cin_g * g.kh * g.kw, b != NULL ? b[oc] : 0.0f,
                       out + (n * g.cout + oc) * g.oh * g.ow);
        }
    }
    return RT_OK;
}
