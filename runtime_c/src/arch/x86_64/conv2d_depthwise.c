/* conv2d_depthwise.c (x86-64, SSE2) - rt_conv2d_depthwise_f32: same
 * contract and results (the same bits) as src/conv/conv2d_depthwise.c.
 *
 * Each output channel is a stencil over one input channel. Output rows whose
 * kernel rows all lie inside the input go in blocks of 4 rows x 2 vectors
 * of 4 columns: 8 independent SSE accumulators, one weight broadcast per
 * tap.
 * The few other rows (the padding at the top and bottom) go one at a time
 * with their kernel rows checked. Columns across the left/right border load
 * with zeros (sse_rows.h); a ragged edge is one more vector (or block of
 * rows) shifted back to overlap its neighbour; planes narrower than 4 store
 * part of a vector. Accumulation per output is in (ky, kx) order, bias last,
 * as in the reference, so the results are the same bits. */
#include "sse_rows.h"

/* acc[r] += row r of the tap, r < 4: rows rs apart from p, columns from x. */
/* acc_r += w * (row r of the tap), r < 4: rows rs apart from p, 4 columns
 * from x. */
X86_INLINE void tap4(const float *p, int32_t rs, int32_t x, int32_t s,
                     int32_t w, int32_t wide, __m128 wv, __m128 *a0,
                     __m128 *a1, __m128 *a2, __m128 *a3)
{
    __m128 v0, v1, v2, v3;
    if (x >= 0 && x + 3 * s < w) {
        v0 = x86_load4(p + x, s);
        v1 = x86_load4(p + rs + x, s);
        v2 = x86_load4(p + 2 * rs + x, s);
        v3 = x86_load4(p + 3 * rs + x, s);
    } else {
        v0 = x86_row4_edge(p, x, s, w, wide);
        v1 = x86_row4_edge(p + rs, x, s, w, wide);
        v2 = x86_row4_edge(p + 2 * rs, x, s, w, wide);
        v3 = x86_row4_edge(p + 3 * rs, x, s, w, wide);
    }
    *a0 = _mm_add_ps(*a0, _mm_mul_ps(v0, wv));
    *a1 = _mm_add_ps(*a1, _mm_mul_ps(v1, wv));
    *a2 = _mm_add_ps(*a2, _mm_mul_ps(v2, wv));
    *a3 = _mm_add_ps(*a3, _mm_mul_ps(v3, wv));
}

/* Output rows [oy, oy + 4), all of whose kernel rows are inside the input,
 * x 4 columns from xa and, if nv == 2, 4 more from xb. */
X86_INLINE void dw_rows4(const rt_conv_geom *g, const float *in_c,
                         const float *wc, int32_t oy, int32_t xa, int32_t xb,
                         int32_t nv, int32_t s, int32_t wide, __m128 bv,
                         float *o)
{
    const int32_t rs = g->sh * g->w; /* input step between output rows */
    const float *top = in_c + (oy * g->sh - g->ph) * g->w;
    const int32_t x0 = xa * s - g->pw, x1 = xb * s - g->pw;
    __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    __m128 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    float *q = o + oy * g->ow + xa, *q1 = o + oy * g->ow + xb;
    int32_t ky, kx;
    for (ky = 0; ky < g->kh; ++ky) {
        const float *p = top + ky * g->dh * g->w;
        const float *wr = wc + ky * g->kw;
        for (kx = 0; kx < g->kw; ++kx) {
            const __m128 wv = _mm_set1_ps(wr[kx]);
            tap4(p, rs, x0 + kx * g->dw, s, g->w, wide, wv, &a0, &a1, &a2, &a3);
            if (nv == 2) {
                tap4(p, rs, x1 + kx * g->dw, s, g->w, wide, wv, &a4, &a5, &a6, &a7);
            }
        }
    }
    _mm_storeu_ps(q, x86_bias_act(a0, bv, g));
    _mm_storeu_ps(q + g->ow, x86_bias_act(a1, bv, g));
    _mm_storeu_ps(q + 2 * g->ow, x86_bias_act(a2, bv, g));
    _mm_storeu_ps(q + 3 * g->ow, x86_bias_act(a3, bv, g));
    if (nv == 2) {
        _mm_storeu_ps(q1, x86_bias_act(a4, bv, g));
        _mm_storeu_ps(q1 + g->ow, x86_bias_act(a5, bv, g));
        _mm_storeu_ps(q1 + 2 * g->ow, x86_bias_act(a6, bv, g));
        _mm_storeu_ps(q1 + 3 * g->ow, x86_bias_act(a7, bv, g));
    }
}

/* Output row oy (kernel rows checked), columns [ox, ox + 4). */
X86_INLINE __m128 dw_row1(const rt_conv_geom *g, const float *in_c,
                          const float *wc, int32_t oy, int32_t ox, int32_t s,
                          int32_t wide)
{
    const int32_t iy0 = oy * g->sh - g->ph;
    __m128 acc = _mm_setzero_ps();
    int32_t ky, kx;
    for (ky = 0; ky < g->kh; ++ky) {
        const int32_t iy = iy0 + ky * g->dh;
        if (iy >= 0 && iy < g->h) {
            const float *row = in_c + iy * g->w;
            for (kx = 0; kx < g->kw; ++kx) {
                const int32_t x = ox * s - g->pw + kx * g->dw;
                acc = _mm_add_ps(acc, _mm_mul_ps(x86_row4(row, x, s, g->w, wide),
                                                 _mm_set1_ps(wc[ky * g->kw + kx])));
            }
        }
    }
    return acc;
}

X86_INLINE void dw_plane(const rt_conv_geom *g, const float *in_c,
                         const float *wc, float bias, float *o, int32_t s,
                         int32_t wide)
{
    const __m128 bv = _mm_set1_ps(bias);
    const int32_t span = (g->kh - 1) * g->dh;
    /* rows whose kernel rows are all inside: [y0, y1) */
    const int32_t y0 = (g->ph + g->sh - 1) / g->sh;
    const int32_t last = g->h - 1 + g->ph - span; /* last oy * sh inside */
    int32_t y1 = last >= 0 ? last / g->sh + 1 : 0;
    const int32_t nvec = (g->ow + 3) / 4;
    int32_t y, x, i;
    y1 = y1 < g->oh ? y1 : g->oh;
    if (y1 - y0 >= 4 && g->ow >= 4) {
        for (y = y0; y < y1; y += 4) {
            const int32_t yb = y + 4 <= y1 ? y : y1 - 4;
            /* vectors of 4 columns at 0, 4, ..., the last shifted back to
             * end at ow; two at a time */
            for (i = 0; i < nvec; i += 2) {
                const int32_t xa = 4 * i + 4 <= g->ow ? 4 * i : g->ow - 4;
                const int32_t xb = 4 * i + 8 <= g->ow ? 4 * i + 4 : g->ow - 4;
                if (i + 1 < nvec) {
                    dw_rows4(g, in_c, wc, yb, xa, xb, 2, s, wide, bv, o);
                } else {
                    dw_rows4(g, in_c, wc, yb, xa, xa, 1, s, wide, bv, o);
                }
            }
            y = yb;
        }
    } else {
        y1 = y0;
    }
    for (y = 0; y < g->oh; ++y) { /* the other rows, one at a time */
        if (y == y0) {
            y = y1;
            if (y >= g->oh) {
                break;
            }
        }
        x = 0;
        while (x < g->ow) {
            const int32_t xb = g->ow >= 4 ? (x + 4 <= g->ow ? x : g->ow - 4) : 0;
            const __m128 v = x86_bias_act(dw_row1(g, in_c, wc, y, xb, s, wide), bv, g);
            if (g->ow >= 4) {
                _mm_storeu_ps(o + y * g->ow + xb, v);
            } else {
                x86_store_part(o + y * g->ow, v, g->ow);
            }
            x = xb + 4;
        }
    }
}

X86_INLINE void dw_channels(const rt_conv_geom *g, const float *in_n,
                            const float *w, const float *b, float *out_n,
                            int32_t s, int32_t wide)
{
    int32_t oc;
    for (oc = 0; oc < g->cout; ++oc) {
        dw_plane(g, in_n + (oc / g->cout_g) * g->h * g->w, w + oc * g->kh * g->kw,
                 b != NULL ? b[oc] : 0.0f, out_n + oc * g->oh * g->ow, s, wide);
    }
}

/* dw_channels_s1, _s2, _sn and _narrow (sse_rows.h) */
X86_STRIDE_VARIANTS(dw_channels)

rt_status rt_conv2d_depthwise_staged_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS,
                                         float *stage, int32_t group)
{
    rt_conv_geom g, one;
    rt_dw_stage st;
    int32_t n, oc;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(g.cin_g == 1, RT_ERR_PARAM);
    if (stage == NULL) {
        for (n = 0; n < g.n; ++n) {
            const float *in_n = in + n * g.cin * g.h * g.w;
            float *out_n = out + n * g.cout * g.oh * g.ow;
            X86_BY_STRIDE(dw_channels, &g, in_n, w, b, out_n);
        }
        return RT_OK;
    }
    st = rt_dw_stage_of(&g, out, stage, group);
    one = g;   /* a plane at a time, each into its place in the stage */
    one.cin = one.cout = one.cout_g = 1;
    for (n = 0; n < g.n; ++n) {
        for (oc = 0; oc < g.cout; ++oc) {
            const int32_t i = n * g.cout + oc;
            X86_BY_STRIDE(dw_channels, &one, in + (n * g.cin + oc / g.cout_g) * g.h * g.w,
                          w + oc * g.kh * g.kw, b != NULL ? b + oc : NULL,
                          rt_dw_stage_plane(&st, i));
            rt_dw_stage_done(&st, i);
        }
    }
    return RT_OK;
}

rt_status rt_conv2d_depthwise_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    return rt_conv2d_depthwise_staged_f32(p, in_s, in, w_s, w, b_s, b, out_s, out, NULL, 1);
}
