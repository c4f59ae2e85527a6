/* conv2d_depthwise.c - rt_conv2d_depthwise_f32: depthwise convolution
 * (groups == Cin, Cout = Cin * multiplier, any kernel, stride, padding and
 * dilation), same contract as rt_conv2d_f32.
 *
 * Each output channel is a stencil over one input channel. Per output row
 * the valid kernel rows are computed once; the columns split into a border
 * (taps checked against the row) and an interior where every tap is inside,
 * done 4 outputs at a time with independent accumulators. With hard float, 3x3
 * filters keep their 9 weights in registers per plane (dw_k3_plane), and a small
 * plane (DW_PAD_FLOATS) is first copied zero-padded onto the stack, so that all of
 * it is interior. Accumulation per output is in (ky, kx)
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

#if defined(__GNUC__)
#define DW_INLINE static inline __attribute__((always_inline))
#define DW_OUTLINE __attribute__((noinline))   /* a path of its own, not copied into callers */
#else
#define DW_INLINE static inline
#define DW_OUTLINE
#endif

/* dw_border for a 3x3 filter, dilation 1 along the row (dw_k3_plane's border columns):
 * the taps of output column ox inside the input, in (ky, kx) order. */
static float dw_k3_edge(const rt_conv_geom *g, const float *in_c, const float *wc,
                        int32_t iy0, int32_t ky0, int32_t ky1, int32_t ox)
{
    const int32_t ix = ox * g->sw - g->pw;
    const int32_t kx0 = ix >= 0 ? 0 : -ix, kx1 = g->w - ix < 3 ? g->w - ix : 3;
    float acc = 0.0f;
    int32_t ky, kx;
    for (ky = ky0; ky < ky1; ++ky) {
        const float *row = in_c + (iy0 + ky * g->dh) * g->w;
        for (kx = kx0; kx < kx1; ++kx) {
            acc = rt_mac_f32(acc, row[ix + kx], wc[3 * ky + kx]);
        }
    }
    return acc;
}

/* x + bias clamped to [lo, hi]; with hi infinite (ReLU, or no activation) one compare. */
#define DW_ACT(x, bias, lo, hi, hi_inf)                                                      \
    (hi_inf ? ((x) + (bias) < (lo) ? (lo) : (x) + (bias)) : rt_act((x) + (bias), lo, hi))

/* Hard float, a 3x3 filter at stride s along the row (1 or 2, a constant where it is
 * inlined), dilation 1 along the row: one output plane of channel plane in_c, the 9 weights
 * in registers for the whole plane (w[3 * ky + kx]). Per output row the interior columns go
 * 4 at a time, per filter row inside the input (ky0 <= ky < ky1; any dilation between
 * rows) the block's 6 (or 9) inputs loaded once; the border columns take dw_k3_edge. The
 * same sums in the same (ky, kx) order as dw_row. */
DW_INLINE void dw_k3_plane(const rt_conv_geom *g, const float *in_c, const float *w,
                           float bias, float *o, const int32_t s)
{
    const float w00 = w[0], w01 = w[1], w02 = w[2], w10 = w[3], w11 = w[4], w12 = w[5];
    const float w20 = w[6], w21 = w[7], w22 = w[8];
    const float lo = g->lo, hi = g->hi;
    const int hi_inf = hi == INFINITY;
    int32_t oy, ox, xi0, xi1;
    /* interior columns: ox * s - pw >= 0 and ox * s - pw + 2 < w */
    xi0 = (g->pw + s - 1) / s;
    xi1 = g->w - 3 + g->pw;
    xi1 = xi1 >= 0 ? xi1 / s + 1 : 0;
    xi1 = xi1 < g->ow ? xi1 : g->ow;
    xi0 = xi0 < xi1 ? xi0 : xi1;
#define DW_K3_ROW(r, v0, v1, v2)                                                             \
    do {                                                                                     \
        const float x0 = r[0], x1 = r[s], x2 = r[2 * s], x3 = r[3 * s];                      \
        const float y0 = r[1], y1 = r[1 + s], y2 = r[1 + 2 * s], y3 = r[1 + 3 * s];          \
        const float z3 = r[2 + 3 * s];                                                       \
        const float z0 = s == 1 ? x2 : x1, z1 = s == 1 ? x3 : x2, z2 = s == 1 ? y3 : x3;     \
        a0 = rt_mac_f32(a0, x0, v0); a1 = rt_mac_f32(a1, x1, v0);                            \
        a2 = rt_mac_f32(a2, x2, v0); a3 = rt_mac_f32(a3, x3, v0);                            \
        a0 = rt_mac_f32(a0, y0, v1); a1 = rt_mac_f32(a1, y1, v1);                            \
        a2 = rt_mac_f32(a2, y2, v1); a3 = rt_mac_f32(a3, y3, v1);                            \
        a0 = rt_mac_f32(a0, z0, v2); a1 = rt_mac_f32(a1, z1, v2);                            \
        a2 = rt_mac_f32(a2, z2, v2); a3 = rt_mac_f32(a3, z3, v2);                            \
    } while (0)
/* One output: a += its taps in (ky, kx) order, at its column offset `at`. */
#define DW_K3_ONE(at)                                                                        \
    do {                                                                                     \
        if (use0) {                                                                          \
            a = rt_mac_f32(a, in_c[r0 + (at)], w00);                                         \
            a = rt_mac_f32(a, in_c[r0 + (at) + 1], w01);                                     \
            a = rt_mac_f32(a, in_c[r0 + (at) + 2], w02);                                     \
        }                                                                                    \
        if (use1) {                                                                          \
            a = rt_mac_f32(a, in_c[r1 + (at)], w10);                                         \
            a = rt_mac_f32(a, in_c[r1 + (at) + 1], w11);                                     \
            a = rt_mac_f32(a, in_c[r1 + (at) + 2], w12);                                     \
        }                                                                                    \
        if (use2) {                                                                          \
            a = rt_mac_f32(a, in_c[r2 + (at)], w20);                                         \
            a = rt_mac_f32(a, in_c[r2 + (at) + 1], w21);                                     \
            a = rt_mac_f32(a, in_c[r2 + (at) + 2], w22);                                     \
        }                                                                                    \
    } while (0)
    for (oy = 0; oy < g->oh; ++oy, o += g->ow) {
        const int32_t iy0 = oy * g->sh - g->ph;
        /* filter rows inside the input: [ky0, ky1) */
        const int32_t ky0 = iy0 >= 0 ? 0 : (-iy0 + g->dh - 1) / g->dh;
        const int32_t ky_end = g->h - iy0 > 0 ? (g->h - iy0 - 1) / g->dh + 1 : 0;
        const int32_t ky1 = ky_end < 3 ? ky_end : 3;
        const int32_t use0 = ky0 <= 0 && ky1 > 0, use1 = ky0 <= 1 && ky1 > 1;
        const int32_t use2 = ky0 <= 2 && ky1 > 2;
        /* offsets of filter rows 0, 1, 2 at output column 0 (formed into pointers only for
           the rows inside the input) */
        const int32_t r0 = iy0 * g->w - g->pw, r1 = r0 + g->dh * g->w, r2 = r1 + g->dh * g->w;
        for (ox = 0; ox < xi0; ++ox) {
            o[ox] = rt_act(dw_k3_edge(g, in_c, w, iy0, ky0, ky1, ox) + bias, lo, hi);
        }
        for (; ox + 4 <= xi1; ox += 4) {
            const int32_t at = ox * s;
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            if (use0) {
                DW_K3_ROW((in_c + r0 + at), w00, w01, w02);
            }
            if (use1) {
                DW_K3_ROW((in_c + r1 + at), w10, w11, w12);
            }
            if (use2) {
                DW_K3_ROW((in_c + r2 + at), w20, w21, w22);
            }
            o[ox] = DW_ACT(a0, bias, lo, hi, hi_inf);
            o[ox + 1] = DW_ACT(a1, bias, lo, hi, hi_inf);
            o[ox + 2] = DW_ACT(a2, bias, lo, hi, hi_inf);
            o[ox + 3] = DW_ACT(a3, bias, lo, hi, hi_inf);
        }
        for (; ox < xi1; ++ox) {
            float a = 0.0f;
            DW_K3_ONE(ox * s);
            o[ox] = DW_ACT(a, bias, lo, hi, hi_inf);
        }
        for (; ox < g->ow; ++ox) {
            o[ox] = rt_act(dw_k3_edge(g, in_c, w, iy0, ky0, ky1, ox) + bias, lo, hi);
        }
    }
#undef DW_K3_ONE
}

/* dw_k3_plane without padding (a padded copy): every tap of every output inside, so no
 * row or column checks at all. */
DW_INLINE void dw_k3_dense(const rt_conv_geom *g, const float *in_c, const float *w,
                           float bias, float *o, const int32_t s)
{
    const float w00 = w[0], w01 = w[1], w02 = w[2], w10 = w[3], w11 = w[4], w12 = w[5];
    const float w20 = w[6], w21 = w[7], w22 = w[8];
    const float lo = g->lo, hi = g->hi;
    const int hi_inf = hi == INFINITY;
    const int32_t ow = g->ow, rstep = g->dh * g->w;
    int32_t oy, ox;
    for (oy = 0; oy < g->oh; ++oy, o += ow) {
        const float *p0 = in_c + oy * g->sh * g->w, *p1 = p0 + rstep, *p2 = p1 + rstep;
        for (ox = 0; ox + 4 <= ow; ox += 4) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            DW_K3_ROW((p0 + ox * s), w00, w01, w02);
            DW_K3_ROW((p1 + ox * s), w10, w11, w12);
            DW_K3_ROW((p2 + ox * s), w20, w21, w22);
            o[ox] = DW_ACT(a0, bias, lo, hi, hi_inf);
            o[ox + 1] = DW_ACT(a1, bias, lo, hi, hi_inf);
            o[ox + 2] = DW_ACT(a2, bias, lo, hi, hi_inf);
            o[ox + 3] = DW_ACT(a3, bias, lo, hi, hi_inf);
        }
        for (; ox < ow; ++ox) {
            const float *q0 = p0 + ox * s, *q1 = p1 + ox * s, *q2 = p2 + ox * s;
            float a = 0.0f;
            a = rt_mac_f32(a, q0[0], w00);
            a = rt_mac_f32(a, q0[1], w01);
            a = rt_mac_f32(a, q0[2], w02);
            a = rt_mac_f32(a, q1[0], w10);
            a = rt_mac_f32(a, q1[1], w11);
            a = rt_mac_f32(a, q1[2], w12);
            a = rt_mac_f32(a, q2[0], w20);
            a = rt_mac_f32(a, q2[1], w21);
            a = rt_mac_f32(a, q2[2], w22);
            o[ox] = DW_ACT(a, bias, lo, hi, hi_inf);
        }
    }
}

#undef DW_K3_ROW

/* Hard float, a 3x3 filter at stride 1 and padding 1 along rows of 5 (KWS's 25x5 maps: too
 * narrow for dw_k3_plane's blocks of 4): each output row from the filter rows inside the
 * input (any stride, padding and dilation between rows), each input row's 5 values loaded
 * once for the 13 taps on it, the 9 weights and the 5 sums in registers. No padded copy: a tap
 * over padding would add 0 * w, which changes no sum for finite weights (a sum here is never
 * -0), so it is skipped. The same sums in the same (ky, kx) order as dw_row. */
DW_OUTLINE static void dw_k3_w5(const rt_conv_geom *g, const float *in_c, const float *w,
                                float bias, float *o)
{
    const float w00 = w[0], w01 = w[1], w02 = w[2], w10 = w[3], w11 = w[4], w12 = w[5];
    const float w20 = w[6], w21 = w[7], w22 = w[8];
    const float lo = g->lo, hi = g->hi;
    const int hi_inf = hi == INFINITY;
    int32_t oy;
/* The 13 taps of one input row r (filter row va, vb, vc) on the row's 5 outputs. */
#define DW_W5_ROW(r, va, vb, vc)                                                             \
    do {                                                                                     \
        const float x0 = (r)[0], x1 = (r)[1], x2 = (r)[2], x3 = (r)[3], x4 = (r)[4];         \
        a0 = rt_mac_f32(a0, x0, vb); a0 = rt_mac_f32(a0, x1, vc);                            \
        a1 = rt_mac_f32(a1, x0, va); a1 = rt_mac_f32(a1, x1, vb);                            \
        a1 = rt_mac_f32(a1, x2, vc);                                                         \
        a2 = rt_mac_f32(a2, x1, va); a2 = rt_mac_f32(a2, x2, vb);                            \
        a2 = rt_mac_f32(a2, x3, vc);                                                         \
        a3 = rt_mac_f32(a3, x2, va); a3 = rt_mac_f32(a3, x3, vb);                            \
        a3 = rt_mac_f32(a3, x4, vc);                                                         \
        a4 = rt_mac_f32(a4, x3, va); a4 = rt_mac_f32(a4, x4, vb);                            \
    } while (0)
    for (oy = 0; oy < g->oh; ++oy, o += 5) {
        const int32_t iy0 = oy * g->sh - g->ph, iy1 = iy0 + g->dh, iy2 = iy1 + g->dh;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f;
#ifdef RT_DW_W5_ROWS   /* an arch's rows (runtime_c/src/arch/cortex_m_dsp/conv2d_depthwise.c) */
        if (iy0 >= 0 && iy2 < g->h) {   /* rows whose taps are all inside, at once */
            const int32_t rows = RT_DW_W5_ROWS(g, in_c + iy0 * 5, w, bias, o, oy);
            if (rows > 0) {
                oy += rows - 1;
                o += 5 * (rows - 1);
                continue;
            }
        }
#endif
        if (iy0 >= 0 && iy0 < g->h) {
            DW_W5_ROW(in_c + iy0 * 5, w00, w01, w02);
        }
        if (iy1 >= 0 && iy1 < g->h) {
            DW_W5_ROW(in_c + iy1 * 5, w10, w11, w12);
        }
        if (iy2 >= 0 && iy2 < g->h) {
            DW_W5_ROW(in_c + iy2 * 5, w20, w21, w22);
        }
        o[0] = DW_ACT(a0, bias, lo, hi, hi_inf);
        o[1] = DW_ACT(a1, bias, lo, hi, hi_inf);
        o[2] = DW_ACT(a2, bias, lo, hi, hi_inf);
        o[3] = DW_ACT(a3, bias, lo, hi, hi_inf);
        o[4] = DW_ACT(a4, bias, lo, hi, hi_inf);
    }
#undef DW_W5_ROW
}

/* dw_k3_w5's rows for another narrow width W (6: the 6x6 maps of a MobileNet on 96x96 inputs,
 * VWW's; up to 8 would fit), W a constant where it is inlined (the loops unrolled: the row's W
 * inputs and W sums in registers), each input row loaded once for its 3W - 2 taps. Each width
 * is code of its own (about 1 KB on the M4F), so only this one is built. */
#if defined(__GNUC__) && !defined(__clang__)
#define DW_UNROLL _Pragma("GCC unroll 8")
#else
#define DW_UNROLL
#endif
DW_INLINE void dw_k3_narrow(const rt_conv_geom *g, const float *in_c, const float *w,
                            float bias, float *o, const int32_t W)
{
    const float lo = g->lo, hi = g->hi;
    const int hi_inf = hi == INFINITY;
    int32_t oy, j;
    for (oy = 0; oy < g->oh; ++oy, o += W) {
        const int32_t iy0 = oy * g->sh - g->ph;
        float a[8];
        DW_UNROLL
        for (j = 0; j < W; ++j) {
            a[j] = 0.0f;
        }
#define DW_NARROW_ROW(ky)                                                                    \
        do {                                                                                 \
            const int32_t iy = iy0 + (ky) * g->dh;                                           \
            const float va = w[3 * (ky)], vb = w[3 * (ky) + 1], vc = w[3 * (ky) + 2];        \
            float x[8];                                                                      \
            if (iy >= 0 && iy < g->h) {                                                      \
                DW_UNROLL                                                                    \
                for (j = 0; j < W; ++j) {                                                    \
                    x[j] = in_c[iy * W + j];                                                 \
                }                                                                            \
                DW_UNROLL                                                                    \
                for (j = 0; j < W; ++j) {                                                    \
                    if (j > 0) {                                                             \
                        a[j] = rt_mac_f32(a[j], x[j - 1], va);                               \
                    }                                                                        \
                    a[j] = rt_mac_f32(a[j], x[j], vb);                                       \
                    if (j + 1 < W) {                                                         \
                        a[j] = rt_mac_f32(a[j], x[j + 1], vc);                               \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
        } while (0)
        DW_NARROW_ROW(0);
        DW_NARROW_ROW(1);
        DW_NARROW_ROW(2);
#undef DW_NARROW_ROW
        DW_UNROLL
        for (j = 0; j < W; ++j) {
            o[j] = DW_ACT(a[j], bias, lo, hi, hi_inf);
        }
    }
}

/* dw_k3_narrow for one width (dw_k3_w6). */
#define DW_K3_NARROW_FN(W)                                                                   \
    DW_OUTLINE static void dw_k3_w##W(const rt_conv_geom *g, const float *in_c,              \
                                      const float *w, float bias, float *o)                  \
    {                                                                                        \
        dw_k3_narrow(g, in_c, w, bias, o, W);                                                \
    }
DW_K3_NARROW_FN(6)
#undef DW_K3_NARROW_FN

static void dw_k3s1(const rt_conv_geom *g, const float *in_c, const float *w, float bias,
                    float *o)
{
    if (g->ph == 0 && g->pw == 0) {
        dw_k3_dense(g, in_c, w, bias, o, 1);
    } else {
        dw_k3_plane(g, in_c, w, bias, o, 1);
    }
}

static void dw_k3s2(const rt_conv_geom *g, const float *in_c, const float *w, float bias,
                    float *o)
{
    if (g->ph == 0 && g->pw == 0) {
        dw_k3_dense(g, in_c, w, bias, o, 2);
    } else {
        dw_k3_plane(g, in_c, w, bias, o, 2);
    }
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

/* A plane this small (padding included) is copied zero-padded onto the stack first, where
 * every tap is then inside: at stride 1 with rows too narrow for a block of 4 interior
 * outputs but not for a block of 4 outputs (KWS's 25x5), and for every 3x3 filter
 * (dw_k3_dense: no checks at all). 2 KB of stack. Hard float only: with soft float the
 * products dominate, and the copy would only cost flash. */
#define DW_PAD_FLOATS 512

rt_status rt_conv2d_depthwise_staged_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS,
                                         float *stage, int32_t group)
{
    rt_conv_geom g, gp;
    rt_dw_stage staged;
    const rt_dw_stage *st = &staged;
    float padded[DW_PAD_FLOATS];
    const rt_conv_geom *use = &g;
    int32_t n, oc, oy, y, x;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(g.cin_g == 1, RT_ERR_PARAM);
    staged = rt_dw_stage_of(&g, out, stage, group);
#ifdef RT_DW_IMAGE   /* an arch's whole-image path (runtime_c/src/arch/cortex_m_dsp/...) */
    if (RT_DW_IMAGE(&g, in, w, b, st)) {
        return RT_OK;
    }
#endif
    if (RT_HARD_FLOAT && g.kh == 3 && g.kw == 3 && g.sw == 1 && g.pw == 1 && g.dw == 1 &&
        (g.w == 5 || g.w == 6)) {   /* narrow rows: a row's inputs and sums in registers */
        for (n = 0; n < g.n; ++n) {
            for (oc = 0; oc < g.cout; ++oc) {
                const float *in_c = in + (n * g.cin + oc / g.cout_g) * g.h * g.w;
                float *o = rt_dw_stage_plane(st, n * g.cout + oc);
                if (g.w == 5) {
                    dw_k3_w5(&g, in_c, w + oc * 9, b != NULL ? b[oc] : 0.0f, o);
                } else {
                    dw_k3_w6(&g, in_c, w + oc * 9, b != NULL ? b[oc] : 0.0f, o);
                }
                rt_dw_stage_done(st, n * g.cout + oc);
            }
        }
        return RT_OK;
    }
    gp = g;
    gp.h = g.h + 2 * g.ph;
    gp.w = g.w + 2 * g.pw;
    gp.ph = gp.pw = 0;
    /* only where the row's interior is too narrow for a block of 4 (stride 1: the columns
       whose taps all lie inside number w - span) and the padded row is not */
    if (RT_HARD_FLOAT && (g.ph > 0 || g.pw > 0) && gp.h * gp.w <= DW_PAD_FLOATS &&
        ((g.sh == 1 && g.sw == 1 && g.w - (g.kw - 1) * g.dw < 4 && g.ow >= 4) ||
         (g.kh == 3 && g.kw == 3 && g.dw == 1 && g.sw <= 2))) {
        use = &gp;
        for (x = 0; x < gp.h * gp.w; ++x) {
            padded[x] = 0.0f;
        }
    }
    for (n = 0; n < g.n; ++n) {
        for (oc = 0; oc < g.cout; ++oc) {
            const float *in_c = in + (n * g.cin + oc / g.cout_g) * g.h * g.w;
            float *o = rt_dw_stage_plane(st, n * g.cout + oc);
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
            if (RT_HARD_FLOAT && g.kh == 3 && g.kw == 3 && g.dw == 1 && g.sw <= 2) {
                if (g.sw == 1) {
                    dw_k3s1(use, in_c, w + oc * 9, b != NULL ? b[oc] : 0.0f, o);
                } else {
                    dw_k3s2(use, in_c, w + oc * 9, b != NULL ? b[oc] : 0.0f, o);
                }
            } else {
                for (oy = 0; oy < g.oh; ++oy) {
                    dw_row(use, in_c, w + oc * g.kh * g.kw, b != NULL ? b[oc] : 0.0f,
                           oy, o + oy * g.ow);
                }
            }
            rt_dw_stage_done(st, n * g.cout + oc);
        }
    }
    return RT_OK;
}

rt_status rt_conv2d_depthwise_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    return rt_conv2d_depthwise_staged_f32(p, in_s, in, w_s, w, b_s, b, out_s, out, NULL, 1);
}
