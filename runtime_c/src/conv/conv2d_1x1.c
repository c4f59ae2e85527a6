/* conv2d_1x1.c - rt_conv2d_1x1_f32: pointwise convolution (1x1 kernel,
 * stride 1, no padding, groups 1), same contract as rt_conv2d_f32.
 *
 * It is the GEMM out[Cout, HW] = w[Cout, Cin] x in[Cin, HW], computed in
 * blocks of 4 output channels x 4 pixels: 16 independent accumulators in
 * registers (a Cortex-M4 has 32 single-precision registers), each input
 * value and weight loaded once per block. Ragged ends reuse the last full
 * block shifted back. Accumulation is in input channel order, bias last,
 * then the fused activation: results are bit-identical to rt_conv2d_f32. The same blocks
 * make rt_conv2d_1x1_band_f32's bands of an in-place layer, reading the map where it lies. */
#include "../core/rt_internal.h"

/* out[oc + i][p + j], i, j < 4 (input channels ldi apart, output ones ldo apart). The 16
 * accumulators are spelled out: GCC at -O2 keeps a float[4][4] in memory. */
static void block4x4(const float *in, int32_t ldi, const float *w, int32_t cin,
                     const float *b, float lo, float hi, float *o, int32_t ldo)
{
    float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f;
    float a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
    float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f;
    float a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
    const float *w1 = w + cin, *w2 = w + 2 * cin, *w3 = w + 3 * cin;
    float b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f;
    int32_t c;
    for (c = 0; c < cin; ++c) {
        const float *ip = in + c * ldi;
        const float x0 = ip[0], x1 = ip[1], x2 = ip[2], x3 = ip[3];
        const float v0 = w[c], v1 = w1[c], v2 = w2[c], v3 = w3[c];
        RT_MAC_4X4(a, x0, x1, x2, x3, v0, v1, v2, v3);
    }
    if (b != NULL) {
        b0 = b[0];
        b1 = b[1];
        b2 = b[2];
        b3 = b[3];
    }
    rt_act_store4(o, a00, a01, a02, a03, b0, lo, hi);
    rt_act_store4(o + ldo, a10, a11, a12, a13, b1, lo, hi);
    rt_act_store4(o + 2 * ldo, a20, a21, a22, a23, b2, lo, hi);
    rt_act_store4(o + 3 * ldo, a30, a31, a32, a33, b3, lo, hi);
}

/* out[oc][p], one dot product (small planes, fewer than 4 channels) */
static float dot(const float *in, int32_t ldi, const float *w, int32_t cin)
{
    float acc = 0.0f;
    int32_t c;
    for (c = 0; c < cin; ++c) {
        acc = rt_mac_f32(acc, in[c * ldi], w[c]);
    }
    return acc;
}

/* Every output channel of px pixels: inputs from in (channels ldi apart), outputs into o
 * (channels ldo apart). */
static void pixels(const rt_conv_geom *g, const float *in, int32_t ldi, int32_t px,
                   const float *w, const float *b, float *o, int32_t ldo)
{
    int32_t oc, i;
    if (g->cout >= 4 && px >= 4) {
        for (oc = 0; oc < g->cout; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout ? oc : g->cout - 4;
            for (i = 0; i < px; i += 4) {
                const int32_t p0 = i + 4 <= px ? i : px - 4;
                block4x4(in + p0, ldi, w + c0 * g->cin, g->cin, b != NULL ? b + c0 : NULL,
                         g->lo, g->hi, o + c0 * ldo + p0, ldo);
            }
        }
        return;
    }
    for (oc = 0; oc < g->cout; ++oc) {
        for (i = 0; i < px; ++i) {
            o[oc * ldo + i] = rt_act(dot(in + i, ldi, w + oc * g->cin, g->cin) +
                                         (b != NULL ? b[oc] : 0.0f),
                                     g->lo, g->hi);
        }
    }
}

void rt_conv2d_1x1_band_f32(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
                            const float *w, const float *b, float *band)
{
#ifdef RT_CONV1X1_BAND   /* an arch's band (runtime_c/src/arch/cortex_m_dsp/conv2d_1x1.c) */
    if (RT_CONV1X1_BAND(g, x, hw, px, w, b, band)) {
        return;
    }
#endif
    pixels(g, x, hw, px, w, b, band, px);
}

rt_status rt_conv2d_1x1_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n, hw;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(RT_CONV_GEOM_IS_1X1(g), RT_ERR_PARAM);
    hw = g.h * g.w;
    for (n = 0; n < g.n; ++n) {
        const float *in_n = in + n * g.cin * hw;
        float *out_n = out + n * g.cout * hw;
#ifdef RT_CONV1X1_IMAGE   /* an arch's blocks (runtime_c/src/arch/cortex_m_dsp/conv2d_1x1.c) */
        if (RT_CONV1X1_IMAGE(&g, in_n, hw, w, b, out_n)) {
            continue;
        }
#endif
        pixels(&g, in_n, hw, hw, w, b, out_n, hw);
    }
    return RT_OK;
}
