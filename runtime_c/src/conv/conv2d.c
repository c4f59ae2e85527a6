/* conv2d.c - rt_conv2d_f32: direct convolution (aten.convolution, not
 * transposed), NCHW, groups/depthwise, 1-D as H = 1. The reference kernel:
 * every other conv kernel matches its contract.
 *
 * Four output channels at a time (of one group), the output is computed in
 * blocks of 4 channels x 4 pixels of a row: 16 accumulators in registers,
 * each input and weight loaded once per block. Blocks whose taps all fall
 * inside the input run without checks; the pixels of the others (the
 * border) take their own window of taps. Other channels (fewer than 4 left
 * in a group) go plane by plane: the plane is cleared, then every (input
 * channel, ky, kx) tap adds w * input to the rectangle of outputs whose
 * input it reaches, the row and column ranges computed once per tap.
 * Accumulation per output is in (c, ky, kx) order, bias last, either way;
 * the fused activation (p->act) clamps each output as it is stored.
 *
 * An arch file may include this one with its own steps (runtime_c/src/arch/cortex_m_dsp/
 * conv2d.c): RT_CONV2D_K3_BLOCKS (it defines block4x4_k3s1 and block4x4_k3s2),
 * RT_CONV2D_ROW(...) (a whole output row of a quad, nonzero when taken) and
 * RT_CONV2D_IMAGE(g, in_n, w, b, out_n) (an image's rows [g->oy0, g->oy1), nonzero when
 * taken).
 *
 * rt_conv2d_image_f32 runs the same code on a band of output rows (g->oy0, g->oy1 and
 * g->oplane), the kernel's sums unchanged: rt_conv2d_in_place_f32's bands. */
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

/* One output channel (of group grp) of one image: its rows [g->oy0, g->oy1). */
static void conv_plane(const rt_conv_geom *g, const float *in_g,
                       const float *w_oc, float bias, float *o)
{
    const int32_t npix = (g->oy1 - g->oy0) * g->ow;
    int32_t i, c, ky, kx, oy, ox;
    for (i = 0; i < npix; ++i) {
        o[i] = 0.0f;
    }
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_g + c * g->h * g->w;
        for (ky = 0; ky < g->kh; ++ky) {
            const int32_t yoff = ky * g->dh - g->ph;
            int32_t oy1;
            int32_t oy0 = tap_range(yoff, g->sh, g->h, g->oh, &oy1);
            oy0 = oy0 > g->oy0 ? oy0 : g->oy0;
            oy1 = oy1 < g->oy1 ? oy1 : g->oy1;
            for (kx = 0; kx < g->kw; ++kx) {
                const float wv = w_oc[(c * g->kh + ky) * g->kw + kx];
                const int32_t xoff = kx * g->dw - g->pw;
                int32_t ox1;
                const int32_t ox0 = tap_range(xoff, g->sw, g->w, g->ow, &ox1);
                for (oy = oy0; oy < oy1; ++oy) {
                    const float *row = ip + (oy * g->sh + yoff) * g->w;
                    float *orow = o + (oy - g->oy0) * g->ow;
                    for (ox = ox0; ox < ox1; ++ox) {
                        orow[ox] = rt_mac_f32(orow[ox], row[ox * g->sw + xoff], wv);
                    }
                }
            }
        }
    }
    for (i = 0; i < npix; ++i) {
        o[i] = rt_act(o[i] + bias, g->lo, g->hi);
    }
}

/* Output pixel (oy, ox) of four channels, over the taps of its window that fall inside the
 * input (ranges worked out once), in (c, ky, kx) order; w0 points at the first channel's
 * filter, the others follow fsize apart. */
static void pixel4(const rt_conv_geom *g, const float *in_g, const float *w0, int32_t fsize,
                   int32_t oy, int32_t ox, float *acc)
{
    const int32_t iy0 = oy * g->sh - g->ph, ix0 = ox * g->sw - g->pw;
    int32_t c, ky, kx, ky0, ky1, kx0, kx1;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    /* taps k with 0 <= i0 + k * d < size: k in [k0, k1) */
    ky0 = iy0 >= 0 ? 0 : (-iy0 + g->dh - 1) / g->dh;
    ky1 = g->h - iy0 > 0 ? (g->h - iy0 - 1) / g->dh + 1 : 0;
    ky1 = ky1 < g->kh ? ky1 : g->kh;
    kx0 = ix0 >= 0 ? 0 : (-ix0 + g->dw - 1) / g->dw;
    kx1 = g->w - ix0 > 0 ? (g->w - ix0 - 1) / g->dw + 1 : 0;
    kx1 = kx1 < g->kw ? kx1 : g->kw;
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_g + c * g->h * g->w;
        const float *wc = w0 + c * g->kh * g->kw;
        for (ky = ky0; ky < ky1; ++ky) {
            const float *row = ip + (iy0 + ky * g->dh) * g->w + ix0;
            const float *wr = wc + ky * g->kw;
            for (kx = kx0; kx < kx1; ++kx) {
                const float x = row[kx * g->dw];
                a0 = rt_mac_f32(a0, x, wr[kx]);
                a1 = rt_mac_f32(a1, x, wr[fsize + kx]);
                a2 = rt_mac_f32(a2, x, wr[2 * fsize + kx]);
                a3 = rt_mac_f32(a3, x, wr[3 * fsize + kx]);
            }
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Outputs (oc..oc+3, oy, ox..ox+3) whose taps are all inside the input: 16 sums in
 * registers, each input and weight loaded once. The 16 sums are spelled out: GCC at -O2
 * keeps a float[4][4] in memory. */
static void block4x4(const rt_conv_geom *g, const float *in_g, const float *w0, int32_t fsize,
                     int32_t oy, int32_t ox, float *o, int32_t plane, const float *bias,
                     int32_t sw)
{
    float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f;
    float a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
    float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f;
    float a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
    const int32_t dw = g->dw;
    const float lo = g->lo, hi = g->hi;
    const float *w1 = w0 + fsize, *w2 = w1 + fsize, *w3 = w2 + fsize;
    int32_t c, ky, kx;
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_g + c * g->h * g->w + (oy * g->sh - g->ph) * g->w +
                          ox * sw - g->pw;
        for (ky = 0; ky < g->kh; ++ky) {
            const float *row = ip + ky * g->dh * g->w;
            for (kx = 0; kx < g->kw; ++kx) {
                const float *x = row + kx * dw;
                const float x0 = x[0], x1 = x[sw], x2 = x[2 * sw], x3 = x[3 * sw];
                const float v0 = *w0++, v1 = *w1++, v2 = *w2++, v3 = *w3++;
                RT_MAC_4X4(a, x0, x1, x2, x3, v0, v1, v2, v3);
            }
        }
    }
    rt_act_store4(o, a00, a01, a02, a03, bias[0], lo, hi);
    rt_act_store4(o + plane, a10, a11, a12, a13, bias[1], lo, hi);
    rt_act_store4(o + 2 * plane, a20, a21, a22, a23, bias[2], lo, hi);
    rt_act_store4(o + 3 * plane, a30, a31, a32, a33, bias[3], lo, hi);
}

#ifndef RT_CONV2D_K3_BLOCKS   /* an arch file may bring its own (see below) */
/* block4x4 for a row of three taps at stride s (1 or 2, a constant where it is inlined),
 * dilation 1 along the row (the 3x3 layers of ResNets), over the filter rows [ky0, ky1) that fall inside the input (so the top and bottom
 * output rows take it too): per tap row the six inputs the block reads are loaded once, at
 * constant offsets (6 at stride 1, 9 at stride 2), and each tap's four weights once: 16
 * sums, the inputs and 4 weights fit the FPU's 32 registers. Same sums in the same (c, ky, kx) order as pixel4 and block4x4. */
#if defined(__GNUC__)
#define K3_INLINE static inline __attribute__((always_inline))
#else
#define K3_INLINE static inline
#endif

K3_INLINE void block4x4_k3(const rt_conv_geom *g, const float *in_g, const float *w0,
                           int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                           const float *bias, int32_t ky0, int32_t ky1, const int32_t s)
{
    float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f;
    float a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
    float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f;
    float a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
    const float lo = g->lo, hi = g->hi;
    const float *w1 = w0 + fsize, *w2 = w1 + fsize, *w3 = w2 + fsize;
    const int32_t rows = ky1 - ky0, step = g->dh * g->w, next = g->h * g->w - rows * step;
    const int32_t skip = 3 * (g->kh - rows);   /* the filter rows outside the input */
    const float *x = in_g + (oy * g->sh - g->ph + ky0 * g->dh) * g->w + ox * s - g->pw;
    int32_t c, ky;
    w0 += 3 * ky0;
    w1 += 3 * ky0;
    w2 += 3 * ky0;
    w3 += 3 * ky0;
    for (c = 0; c < g->cin_g; ++c, x += next, w0 += skip, w1 += skip, w2 += skip, w3 += skip) {
      for (ky = 0; ky < rows; ++ky, x += step) {
        /* the inputs of tap kx are x[kx + s * j], j < 4: xk below is x[k] (stride 1) or
           x[k] with the odd ones between (stride 2) */
        const float x0 = x[0], x1 = x[s], x2 = x[2 * s], x3 = x[3 * s];
        const float y0 = x[1], y1 = x[1 + s], y2 = x[1 + 2 * s], y3 = x[1 + 3 * s];
        const float x4 = x[2 + 3 * s];
        float v0 = w0[0], v1 = w1[0], v2 = w2[0], v3 = w3[0];
        RT_MAC_4X4(a, x0, x1, x2, x3, v0, v1, v2, v3);
        v0 = w0[1]; v1 = w1[1]; v2 = w2[1]; v3 = w3[1];
        RT_MAC_4X4(a, y0, y1, y2, y3, v0, v1, v2, v3);
        v0 = w0[2]; v1 = w1[2]; v2 = w2[2]; v3 = w3[2];
        {
            /* tap 2 reads x[2 + s * j]: stride 1 x2, x3, y3, x4; stride 2 x1, x2, x3, x4 */
            const float z0 = s == 1 ? x2 : x1, z1 = s == 1 ? x3 : x2, z2 = s == 1 ? y3 : x3;
            RT_MAC_4X4(a, z0, z1, z2, x4, v0, v1, v2, v3);
        }
        w0 += 3; w1 += 3; w2 += 3; w3 += 3;
      }
    }
    rt_act_store4(o, a00, a01, a02, a03, bias[0], lo, hi);
    rt_act_store4(o + plane, a10, a11, a12, a13, bias[1], lo, hi);
    rt_act_store4(o + 2 * plane, a20, a21, a22, a23, bias[2], lo, hi);
    rt_act_store4(o + 3 * plane, a30, a31, a32, a33, bias[3], lo, hi);
}

static void block4x4_k3s1(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1)
{
    block4x4_k3(g, in_g, w0, fsize, oy, ox, o, plane, bias, ky0, ky1, 1);
}

static void block4x4_k3s2(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1)
{
    block4x4_k3(g, in_g, w0, fsize, oy, ox, o, plane, bias, ky0, ky1, 2);
}
#endif

/* Output channels oc..oc+3 (one group) of one image, every pixel of rows [g->oy0, g->oy1). */
static void conv_quad(const rt_conv_geom *g, const float *in_g, const float *w_oc,
                      const float *b, float *o)
{
    const int32_t fsize = g->cin_g * g->kh * g->kw, plane = g->oplane;
    const float bias[4] = {b != NULL ? b[0] : 0.0f, b != NULL ? b[1] : 0.0f,
                           b != NULL ? b[2] : 0.0f, b != NULL ? b[3] : 0.0f};
    /* the columns whose taps are all inside the input: [xa, xb) */
    const int32_t span = (g->kw - 1) * g->dw;
    int32_t xa = (g->pw + g->sw - 1) / g->sw, xb = g->w - 1 - span + g->pw;
    int32_t oy, ox, j;
    xb = xb >= 0 ? xb / g->sw + 1 : 0;
    xb = xb < g->ow ? xb : g->ow;
    xa = xa < xb ? xa : xb;
    const int32_t k3 = RT_HARD_FLOAT && g->sw <= 2 && g->kw == 3 && g->dw == 1;
    for (oy = g->oy0; oy < g->oy1; ++oy) {
        const int32_t iy0 = oy * g->sh - g->ph;
        const int32_t rows_in = iy0 >= 0 && iy0 + (g->kh - 1) * g->dh < g->h;
        /* filter rows inside the input: [ky0, ky1) */
        const int32_t ky0 = iy0 >= 0 ? 0 : (-iy0 + g->dh - 1) / g->dh;
        const int32_t ky_end = g->h - iy0 > 0 ? (g->h - iy0 - 1) / g->dh + 1 : 0;
        const int32_t ky1 = ky_end < g->kh ? ky_end : g->kh;
#ifdef RT_CONV2D_ROW
        if (RT_CONV2D_ROW(g, in_g, w_oc, fsize, oy, o + (oy - g->oy0) * g->ow, plane, bias,
                          ky0, ky1, xa, xb)) {
            continue;
        }
#endif
        const int32_t blocks = rows_in || (k3 && ky1 > ky0);
        const int32_t first = blocks ? xa : g->ow, end = blocks ? xb : g->ow;
        float *orow = o + (oy - g->oy0) * g->ow;
        for (ox = 0; ox < g->ow; ++ox) {
            if (ox == first && end - first >= 4) {
                /* blocks of 4; a ragged end takes the last 4 again (same values) */
                int32_t x;
                for (x = first; x < end; x += 4) {
                    const int32_t x4 = x + 4 <= end ? x : end - 4;
                    /* stride 1 by its own call: gcc then loads the inputs at constant
                       offsets */
                    if (k3 && g->sw == 1) {
                        block4x4_k3s1(g, in_g, w_oc, fsize, oy, x4, orow + x4, plane, bias,
                                      rows_in ? 0 : ky0, rows_in ? g->kh : ky1);
                    } else if (k3) {
                        block4x4_k3s2(g, in_g, w_oc, fsize, oy, x4, orow + x4, plane, bias,
                                      rows_in ? 0 : ky0, rows_in ? g->kh : ky1);
                    } else if (g->sw == 1) {
                        block4x4(g, in_g, w_oc, fsize, oy, x4, orow + x4, plane, bias, 1);
                    } else {
                        block4x4(g, in_g, w_oc, fsize, oy, x4, orow + x4, plane, bias, g->sw);
                    }
                }
                ox = end;
                if (ox >= g->ow) {
                    break;
                }
            }
            {
                float acc[4];
                pixel4(g, in_g, w_oc, fsize, oy, ox, acc);
                for (j = 0; j < 4; ++j) {
                    orow[ox + j * plane] = rt_act(acc[j] + bias[j], g->lo, g->hi);
                }
            }
        }
    }
}

/* Image in_n's rows [g->oy0, g->oy1) of every channel, into out_n (g->oplane floats a
 * channel). */
void rt_conv2d_image_f32(const rt_conv_geom *g, const float *in_n, const float *w,
                         const float *b, float *out_n)
{
    int32_t oc;
#ifdef RT_CONV2D_IMAGE
    if (RT_CONV2D_IMAGE(g, in_n, w, b, out_n)) {
        return;
    }
#endif
    for (oc = 0; oc < g->cout;) {
        const float *in_g = in_n + (oc / g->cout_g) * g->cin_g * g->h * g->w;
        float *o = out_n + oc * g->oplane;
        const float *w_oc = w + oc * g->cin_g * g->kh * g->kw;
        /* four channels of one group at a time, the rest plane by plane */
        if ((oc % g->cout_g) + 4 <= g->cout_g) {
            conv_quad(g, in_g, w_oc, b != NULL ? b + oc : NULL, o);
            oc += 4;
        } else {
            conv_plane(g, in_g, w_oc, b != NULL ? b[oc] : 0.0f, o);
            oc += 1;
        }
    }
}

rt_status rt_conv2d_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    for (n = 0; n < g.n; ++n) {
        rt_conv2d_image_f32(&g, in + n * g.cin * g.h * g.w, w, b, out + n * g.cout * g.oplane);
    }
    return RT_OK;
}
