/* conv2d_depthwise.c - rt_conv2d_depthwise_f32: depthwise convolution
 * (groups == Cin, Cout = Cin * multiplier, any kernel, stride, padding and
 * dilation), same contract as rt_conv2d_f32.
 *
 * Each output channel is a stencil over one input channel. Per output row
 * the valid kernel rows are computed once; the columns split into a border
 * (taps checked against the row) and an interior where every tap is inside,
 * done 4 outputs at a time with independent accumulators. A small plane
 * whose rows are too narrow for such a block is first copied zero-padded onto
 * the stack (DW_PAD_FLOATS), so that all of it is interior. Accumulation per output is in (ky, kx)
 * order, bias last, then the fused activation: results are bit-identical to
 * rt_conv2d_f32 for finite weights (a tap over padding adds 0 * w, as torch
 * does, where rt_conv2d_f32 skips it: a NaN or infinite weight differs). */
#include "../core/rt_internal.h"

/* One output over the taps of its window inside the input (border columns): the column range
 * is worked out once, so the loop has no checks. */
static float dw_border(const rt_conv_geom *g, const float *in_c,
                       const float *wc, int32_t iy0, int32_t ky0, int32_t ky1,
                       int32_t ox)
{
    const int32_t x0 = ox * g->sw - g->pw;
    float acc = 0.0f;
    int32_t ky, kx, kx0, kx1;
    kx0 = x0 >= 0 ? 0 : (-x0 + g->dw - 1) / g->dw;
    kx1 = g->w - x0 > 0 ? (g->w - x0 - 1) / g->dw + 1 : 0;
    kx1 = kx1 < g->kw ? kx1 : g->kw;
    for (ky = ky0; ky < ky1; ++ky) {
        const float *row = in_c + (iy0 + ky * g->dh) * g->w + x0;
        const float *wr = wc + ky * g->kw;
        for (kx = kx0; kx < kx1; ++kx) {
            acc = rt_mac_f32(acc, row[kx * g->dw], wr[kx]);
        }
    }
    return acc;
}

/* One output row of channel plane in_c. */
static void dw_row(const rt_conv_geom *g, const float *in_c, const float *wc,
                   float bias, int32_t oy, float *o)
{
    const int32_t iy0 = oy * g->sh - g->ph;
    const int32_t span = (g->kw - 1) * g->dw;
    const float lo = g->lo, hi = g->hi;
    int32_t ky0 = 0, ky1 = g->kh, xi0, xi1, ox, ky, kx;
    while (ky0 < ky1 && iy0 + ky0 * g->dh < 0) {
        ++ky0;
    }
    while (ky1 > ky0 && iy0 + (ky1 - 1) * g->dh >= g->h) {
        --ky1;
    }
    /* interior columns: ox * sw - pw >= 0 and ox * sw - pw + span < w */
    xi0 = (g->pw + g->sw - 1) / g->sw;
    xi1 = g->w - 1 + g->pw - span; /* last ox * sw inside, then a count */
    xi1 = xi1 >= 0 ? xi1 / g->sw + 1 : 0;
    xi1 = xi1 < g->ow ? xi1 : g->ow;
    xi0 = xi0 < xi1 ? xi0 : xi1;
    for (ox = 0; ox < xi0; ++ox) {
        o[ox] = rt_act(dw_border(g, in_c, wc, iy0, ky0, ky1, ox) + bias, lo, hi);
    }
    for (ox = xi0; ox + 4 <= xi1; ox += 4) {
        const float *base = in_c + ox * g->sw - g->pw;
        const int32_t s = g->sw;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        for (ky = ky0; ky < ky1; ++ky) {
            const float *row = base + (iy0 + ky * g->dh) * g->w;
            const float *wr = wc + ky * g->kw;
            for (kx = 0; kx < g->kw; ++kx) {
                const float *ip = row + kx * g->dw;
                const float wv = wr[kx];
                a0 = rt_mac_f32(a0, ip[0], wv);
                a1 = rt_mac_f32(a1, ip[s], wv);
                a2 = rt_mac_f32(a2, ip[2 * s], wv);
                a3 = rt_mac_f32(a3, ip[3 * s], wv);
            }
        }
        o[ox] = rt_act(a0 + bias, lo, hi);
        o[ox + 1] = rt_act(a1 + bias, lo, hi);
        o[ox + 2] = rt_act(a2 + bias, lo, hi);
        o[ox + 3] = rt_act(a3 + bias, lo, hi);
    }
    for (; ox < xi1; ++ox) {   /* interior columns left over: every tap inside, no checks */
        const float *base = in_c + ox * g->sw - g->pw;
        float a = 0.0f;
        for (ky = ky0; ky < ky1; ++ky) {
            const float *row = base + (iy0 + ky * g->dh) * g->w;
            const float *wr = wc + ky * g->kw;
            for (kx = 0; kx < g->kw; ++kx) {
                a = rt_mac_f32(a, row[kx * g->dw], wr[kx]);
            }
        }
        o[ox] = rt_act(a + bias, lo, hi);
    }
    for (; ox < g->ow; ++ox) {
        o[ox] = rt_act(dw_border(g, in_c, wc, iy0, ky0, ky1, ox) + bias, lo, hi);
    }
}

/* A plane this small (padding included), at stride 1 and with rows too narrow for a block
 * of 4 interior outputs but not for a block of 4 outputs (KWS's 25x5), is copied
 * zero-padded onto the stack first: every tap is then inside and the rows take blocks.
 * 2 KB of stack. Hard float only: with soft float the products dominate, and the copy
 * would only cost flash. */
#define DW_PAD_FLOATS 512

rt_status rt_conv2d_depthwise_f32(const rt_conv2d_params *p,
                                  const rt_shape *in_s, const float *in,
                                  const rt_shape *w_s, const float *w,
                                  const rt_shape *b_s, const float *b,
                                  const rt_shape *out_s, float *out)
{
    rt_conv_geom g, gp;
    float padded[DW_PAD_FLOATS];
    const rt_conv_geom *use = &g;
    int32_t n, oc, oy, y, x;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL &&
             w != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_conv2d_geom(&g, p, in_s, w_s, b_s, b, out_s));
    RT_CHECK(g.cin_g == 1, RT_ERR_PARAM);
    gp = g;
    gp.h = g.h + 2 * g.ph;
    gp.w = g.w + 2 * g.pw;
    gp.ph = gp.pw = 0;
    /* only where the row's interior is too narrow for a block of 4 (stride 1: the columns
       whose taps all lie inside number w - span) and the padded row is not */
    if (RT_HARD_FLOAT && (g.ph > 0 || g.pw > 0) && g.sh == 1 && g.sw == 1 &&
        g.w - (g.kw - 1) * g.dw < 4 &&
        g.ow >= 4 && gp.h * gp.w <= DW_PAD_FLOATS) {
        use = &gp;
        for (x = 0; x < gp.h * gp.w; ++x) {
            padded[x] = 0.0f;
        }
    }
    for (n = 0; n < g.n; ++n) {
        for (oc = 0; oc < g.cout; ++oc) {
            const float *in_c = in + (n * g.cin + oc / g.cout_g) * g.h * g.w;
            float *o = out + (n * g.cout + oc) * g.oh * g.ow;
            if (use == &gp) {
                if (oc % g.cout_g == 0) {   /* a new input channel: its plane, padded */
                    for (y = 0; y < g.h; ++y) {
                        for (x = 0; x < g.w; ++x) {
                            padded[(y + g.ph) * gp.w + g.pw + x] = in_c[y * g.w + x];
                        }
                    }
                }
                in_c = padded;
            }
            for (oy = 0; oy < g.oh; ++oy) {
                dw_row(use, in_c, w + oc * g.kh * g.kw, b != NULL ? b[oc] : 0.0f,
                       oy, o + oy * g.ow);
            }
        }
    }
    return RT_OK;
}
