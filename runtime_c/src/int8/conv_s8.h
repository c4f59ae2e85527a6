/* conv_s8.h - geometry of the NHWC int8 convolutions (internal). */
#ifndef RT_CONV_S8_H
#define RT_CONV_S8_H

#include "s8_internal.h"

typedef struct rt_conv_s8_geom {
    int32_t n, h, w, cin;       /* input [N, H, W, Cin] */
    int32_t kh, kw;             /* filter taps */
    int32_t oh, ow, cout;       /* output [N, OH, OW, Cout] */
    int32_t groups, cin_g;      /* input channels per group (1 for depthwise) */
} rt_conv_s8_geom;

rt_status rt_conv_s8_geom_init(rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                          const rt_shape *in_s, const void *in, const rt_shape *w_s,
                          const void *w, const rt_shape *b_s, const void *bias,
                          const rt_shape *out_s, const void *out, int depthwise);

/* The range of taps k (0 <= k0 <= k < k1 <= taps) whose input row/column
 * o * stride - pad + k * dil lies in [0, size). */
static inline void rt_s8_tap_range(int32_t o, int32_t stride, int32_t pad, int32_t dil,
                                   int32_t taps, int32_t size, int32_t *k0, int32_t *k1)
{
    const int32_t start = o * stride - pad;
    int32_t lo = 0, hi = taps;
    if (start < 0) {
        lo = (-start + dil - 1) / dil;
    }
    if (start + (taps - 1) * dil >= size) {
        hi = size - start <= 0 ? 0 : (size - start + dil - 1) / dil;
    }
    *k0 = lo;
    *k1 = hi < lo ? lo : hi;
}

/* The taps of output pixel (oy, ox) that fall inside the input: rows [ky0, ky1), columns
 * [kx0, kx1), and where the first of them is in the image (channel 0). */
typedef struct rt_s8_window {
    int32_t oy, ox;
    int32_t ky0, ky1, kx0, kx1;
    const int8_t *x;
} rt_s8_window;

static inline void rt_s8_window_at(const rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                                   const int8_t *img, int32_t oy, int32_t ox, rt_s8_window *v)
{
    v->oy = oy;
    v->ox = ox;
    rt_s8_tap_range(oy, p->stride_h, p->pad_h, p->dilation_h, g->kh, g->h, &v->ky0, &v->ky1);
    rt_s8_tap_range(ox, p->stride_w, p->pad_w, p->dilation_w, g->kw, g->w, &v->kx0, &v->kx1);
    v->x = img + (oy * p->stride_h - p->pad_h + v->ky0 * p->dilation_h) * g->w * g->cin +
           (ox * p->stride_w - p->pad_w + v->kx0 * p->dilation_w) * g->cin;
}

/* One depthwise output channel's sum over a rows x cols window of taps: (x + x_off) * w, x
 * and w at the first tap, stepping x_step and w_step a tap and y_step and w_row a row, in
 * (ky, kx) order (the scalar path of the arch depthwise kernels, for the channels their
 * vectors do not take). */
static inline int32_t rt_s8_dw_sum(const int8_t *x, const int8_t *w, int32_t rows, int32_t cols,
                                   int32_t x_step, int32_t y_step, int32_t w_step,
                                   int32_t w_row, int32_t x_off)
{
    int32_t acc = 0, ky, kx;
    for (ky = 0; ky < rows; ++ky, x += y_step, w += w_row) {
        const int8_t *xp = x, *wp = w;
        for (kx = 0; kx < cols; ++kx, xp += x_step, wp += w_step) {
            acc += ((int32_t)*xp + x_off) * (int32_t)*wp;
        }
    }
    return acc;
}

/* A pointwise layer: 1x1 taps, stride 1, no padding, one group, the output the input's size
 * (what rt_conv2d_1x1_s8 takes). */
static inline int rt_conv_s8_is_pointwise(const rt_conv_s8_geom *g, const rt_conv_s8_params *p)
{
    return g->kh == 1 && g->kw == 1 && g->groups == 1 && p->stride_h == 1 && p->stride_w == 1 &&
           p->pad_h == 0 && p->pad_w == 0 && g->oh == g->h && g->ow == g->w;
}

/* The output shares bytes with the input: a plan that overlaps them (aot/overlap.py), which
 * the fast kernels meet by keeping to paths that write pixels in order. */
static inline int rt_conv_s8_over_input(const rt_conv_s8_geom *g, const int8_t *in,
                                        const int8_t *out)
{
    return rt_spans_overlap(in, (uintptr_t)g->n * (uintptr_t)g->h * (uintptr_t)g->w *
                                    (uintptr_t)g->cin,
                            out, (uintptr_t)g->n * (uintptr_t)g->oh * (uintptr_t)g->ow *
                                     (uintptr_t)g->cout);
}

/* A depthwise layer of 3x3 taps, a channel multiplier of 1 and no dilation (what
 * rt_depthwise_conv2d_3x3_s8 takes; g from rt_conv_s8_geom_init for a depthwise layer). */
static inline int rt_conv_s8_is_dw3x3(const rt_conv_s8_geom *g, const rt_conv_s8_params *p)
{
    return g->kh == 3 && g->kw == 3 && g->cout == g->cin && p->dilation_h == 1 &&
           p->dilation_w == 1;
}

/* rt_conv2d_s8's scratch: two int8 patches (two output pixels' taps, gathered as the filter
 * holds them) when the filter's rows of taps are not whole words (Cin per group not a multiple
 * of 4) and there is more than one tap, else nothing. Kernels that convolve directly ignore
 * it; one formula for every arch keeps the planned program the same for every board. */
static inline int32_t rt_conv_s8_patch_bytes(const rt_shape *w_s)
{
    const int32_t taps = w_s->d[1] * w_s->d[2];
    return (w_s->d[3] % 4 != 0 && taps > 1) ? 2 * taps * w_s->d[3] : 0;
}

#endif /* RT_CONV_S8_H */
