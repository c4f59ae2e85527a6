/* conv2d_1x1.c (x86-64, SSE2) - rt_conv2d_1x1_f32: same contract and
 * results (the same bits) as src/conv/conv2d_1x1.c.
 *
 * A pointwise convolution is the GEMM out[Cout, HW] = w[Cout, Cin] x
 * in[Cin, HW]. Blocks of 4 output channels x 8 pixels keep 8 SSE
 * accumulators; every input channel loads 2 input vectors and 4 weights and
 * does 8 multiply-adds. Pixels go in tiles whose Cin x tile input panel stays
 * in L1 while every channel block sweeps it. Ragged ends reuse the last full
 * block shifted back (recomputing a few outputs). Accumulation is in input
 * channel order, bias last, as in the reference. */
#include "sse_rows.h"

/* Input floats per pixel tile: 16 KiB, a third of a typical L1D. */
#define TILE_FLOATS 4096

X86_INLINE void mk4x8(const float *in, int32_t hw, const float *w, int32_t cin,
                      __m128 acc[8])
{
    int32_t c, j;
    for (j = 0; j < 8; ++j) {
        acc[j] = _mm_setzero_ps();
    }
    for (c = 0; c < cin; ++c) {
        const float *ip = in + c * hw;
        const __m128 v0 = _mm_loadu_ps(ip);
        const __m128 v1 = _mm_loadu_ps(ip + 4);
        X86_MAC4X2(acc, v0, v1, w[c], w[cin + c], w[2 * cin + c], w[3 * cin + c]);
    }
}

X86_INLINE void mk4x4(const float *in, int32_t hw, const float *w, int32_t cin,
                      __m128 acc[4])
{
    int32_t c;
    acc[0] = acc[1] = acc[2] = acc[3] = _mm_setzero_ps();
    for (c = 0; c < cin; ++c) {
        const __m128 v = _mm_loadu_ps(in + c * hw);
        acc[0] = _mm_add_ps(acc[0], _mm_mul_ps(v, _mm_set1_ps(w[c])));
        acc[1] = _mm_add_ps(acc[1], _mm_mul_ps(v, _mm_set1_ps(w[cin + c])));
        acc[2] = _mm_add_ps(acc[2], _mm_mul_ps(v, _mm_set1_ps(w[2 * cin + c])));
        acc[3] = _mm_add_ps(acc[3], _mm_mul_ps(v, _mm_set1_ps(w[3 * cin + c])));
    }
}

X86_INLINE __m128 mk1x4(const float *in, int32_t hw, const float *w,
                        int32_t cin)
{
    __m128 acc = _mm_setzero_ps();
    int32_t c;
    for (c = 0; c < cin; ++c) {
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(in + c * hw),
                                         _mm_set1_ps(w[c])));
    }
    return acc;
}

/* Channels [oc, oc + 4) over pixels [p0, p1) (p1 >= 4), their outputs ldo apart. */
static void block_rows4(const rt_conv_geom *g, const float *in, int32_t hw, const float *w,
                        int32_t cin, const float *b, float *o, int32_t ldo, int32_t p0,
                        int32_t p1)
{
    __m128 acc[8], bv[4];
    int32_t j, p = p0;
    for (j = 0; j < 4; ++j) {
        bv[j] = _mm_set1_ps(b != NULL ? b[j] : 0.0f);
    }
    for (; p + 8 <= p1; p += 8) {
        mk4x8(in + p, hw, w, cin, acc);
        for (j = 0; j < 4; ++j) {
            _mm_storeu_ps(o + j * ldo + p, x86_bias_act(acc[2 * j], bv[j], g));
            _mm_storeu_ps(o + j * ldo + p + 4, x86_bias_act(acc[2 * j + 1], bv[j], g));
        }
    }
    while (p < p1) {
        const int32_t x = p + 4 <= p1 ? p : p1 - 4;
        mk4x4(in + x, hw, w, cin, acc);
        for (j = 0; j < 4; ++j) {
            _mm_storeu_ps(o + j * ldo + x, x86_bias_act(acc[j], bv[j], g));
        }
        p = x + 4;
    }
}

/* Channel oc over pixels [p0, p1) (p1 >= 4). */
static void block_row1(const rt_conv_geom *g, const float *in, int32_t hw, const float *w,
                       int32_t cin, const float *b, float *o, int32_t p0,
                       int32_t p1)
{
    const __m128 bv = _mm_set1_ps(b != NULL ? b[0] : 0.0f);
    int32_t p = p0;
    while (p < p1) {
        const int32_t x = p + 4 <= p1 ? p : p1 - 4;
        _mm_storeu_ps(o + x, x86_bias_act(mk1x4(in + x, hw, w, cin), bv, g));
        p = x + 4;
    }
}

/* Fewer than 4 pixels (px; input channels hw apart, output ones ldo apart): one dot product
 * per output. */
static void small_plane(const rt_conv_geom *g, const float *in, int32_t hw, int32_t px,
                        const float *w, const float *b, float *o, int32_t ldo)
{
    int32_t oc, p, c;
    for (oc = 0; oc < g->cout; ++oc) {
        for (p = 0; p < px; ++p) {
            float acc = 0.0f;
            for (c = 0; c < g->cin; ++c) {
                acc += in[c * hw + p] * w[oc * g->cin + c];
            }
            o[oc * ldo + p] = rt_act(acc + (b != NULL ? b[oc] : 0.0f), g->lo, g->hi);
        }
    }
}

/* Every output channel over pixels [p0, p1) (p1 >= 4), outputs ldo apart. */
static void channels(const rt_conv_geom *g, const float *in, int32_t hw, const float *w,
                     const float *b, float *o, int32_t ldo, int32_t p0, int32_t p1)
{
    int32_t oc;
    if (g->cout >= 4) {
        for (oc = 0; oc < g->cout; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout ? oc : g->cout - 4;
            block_rows4(g, in, hw, w + c0 * g->cin, g->cin, b != NULL ? b + c0 : NULL,
                        o + c0 * ldo, ldo, p0, p1);
        }
        return;
    }
    for (oc = 0; oc < g->cout; ++oc) {
        block_row1(g, in, hw, w + oc * g->cin, g->cin, b != NULL ? b + oc : NULL, o + oc * ldo,
                   p0, p1);
    }
}

void rt_conv2d_1x1_band_f32(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
                            const float *w, const float *b, float *band)
{
    if (px < 4) {
        small_plane(g, x, hw, px, w, b, band, px);
    } else {
        channels(g, x, hw, w, b, band, px, 0, px);
    }
}

rt_status rt_conv2d_1x1_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n, hw, tile, t0;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(RT_CONV_GEOM_IS_1X1(g), RT_ERR_PARAM);
    hw = g.h * g.w;
    tile = (TILE_FLOATS / (g.cin > 0 ? g.cin : 1)) & ~7;
    tile = tile < 8 ? 8 : tile;
    for (n = 0; n < g.n; ++n) {
        const float *in_n = in + n * g.cin * hw;
        float *out_n = out + n * g.cout * hw;
        if (hw < 4) {
            small_plane(&g, in_n, hw, hw, w, b, out_n, hw);
            continue;
        }
        for (t0 = 0; t0 < hw; t0 += tile) {
            const int32_t t1 = t0 + tile < hw ? t0 + tile : hw;
            const int32_t p0 = t1 - t0 >= 4 ? t0 : t1 - 4; /* hw >= 4 */
            channels(&g, in_n, hw, w, b, out_n, hw, p0, t1);
        }
    }
    return RT_OK;
}
