/* depthwise_conv_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_s8 four channels at a time (the
 * outer loop, so that their output stage is set up and their filter taps widened to halfwords
 * once): one word of inputs and one LDRD of filter halfwords per tap. SXTAB16 adds the input
 * offset to two channels at once, and the halfword multiply-accumulates (SMLABB, SMLATT) keep
 * the four channels' sums apart. With a channel multiplier that is a multiple of 4 (a first
 * layer on one channel, say), the four channels read the same input, loaded once. Other
 * channels, and filters of more than DW_WIDE_TAPS taps, take the one-channel loop. Same sums,
 * same requantization: bit-exact with int8/depthwise_conv_s8.c. */
#include "s8_dsp.h"
#include "../../int8/conv_s8.h"

/* What stays fixed across a layer's pixels. */
typedef struct dw_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int8_t *w;
    const int32_t *bias;
    int32_t mult;             /* channel multiplier */
    int32_t row;              /* W * Cin: one input row */
    int32_t x_step, y_step;   /* the input from one tap to the next, one tap row to the next */
    int32_t quads;            /* channels [0, quads) go four at a time */
} dw_ctx;

/* The end of a tap and of a row of taps in quad_taps_wide's loops: the next tap, else the
 * next row (the skips and the row count kept on the stack). */
#define DW_ROW_END \
    "subs %[k], %[k], #1\n\t" \
    "bne 1b\n\t" \
    "ldr %[t0], %[xskip]\n\t" \
    "add %[x], %[x], %[t0]\n\t" \
    "ldr %[t0], %[wskip]\n\t" \
    "add %[w], %[w], %[t0]\n\t" \
    "ldr %[t0], %[rows]\n\t" \
    "subs %[t0], %[t0], #1\n\t" \
    "str %[t0], %[rows]\n\t" \
    "bne 2b"

/* A quad's filter taps widened once (kept for all its pixels): per tap, channels 0 and 2 as
 * halfwords, then 1 and 3. Layers with more taps take the one-channel loop. */
#define DW_WIDE_TAPS 64

static void widen_quad(const dw_ctx *c, int32_t oc, int32_t *wq)
{
    const int32_t taps = c->g.kh * c->g.kw;
    int32_t t;
    for (t = 0; t < taps; ++t) {
        const int32_t v = rt_dsp_load4(c->w + t * c->g.cout + oc);
        wq[2 * t] = (int32_t)rt_dsp_w_even(v);
        wq[2 * t + 1] = (int32_t)rt_dsp_w_odd(v);
    }
}

/* Four channels' sums over a rows x cols window of taps: x points at the first tap's input
 * of the first channel (the four read four consecutive inputs), wq at its widened filter taps.
 * One word of inputs a tap, SXTAB16 adding the offset to two channels at once, one LDRD of
 * filter halfwords, and halfword multiply-accumulates (SMLABB, SMLATT) keeping the four sums
 * apart: 11 instructions for four multiply-accumulates. shared: the four channels read one
 * input (a channel multiplier of 4k), taken as a byte. Written out (gcc spills the steps of
 * the C loop); -O0 takes the C loop. */
static RT_DSP_NOINLINE void quad_taps_wide(const dw_ctx *c, const int8_t *x, const int32_t *wq,
                                           int32_t rows, int32_t cols, int32_t shared,
                                           int32_t *a)
{
    const int32_t x_step = c->x_step, x_skip = c->y_step - cols * c->x_step;
    const int32_t w_skip = (c->g.kw - cols) * 8;
    int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    if (rows > 0 && cols > 0) {
#if defined(__OPTIMIZE__)
        int32_t k, t0, t1, t2, t3;
        if (!shared) {
            const int16x2_t off2 = rt_dsp_pair(c->p->input_offset);
            __asm__ volatile(
                "2:\n\t"
                "ldr %[k], %[cols]\n\t"
                "1:\n\t"
                "ldr %[t0], [%[x]]\n\t"
                "add %[x], %[x], %[xs]\n\t"
                "ldrd %[t2], %[t3], [%[w]], #8\n\t"
                "sxtab16 %[t1], %[off], %[t0]\n\t"            /* channels 0 and 2 */
                "sxtab16 %[t0], %[off], %[t0], ror #8\n\t"    /* channels 1 and 3 */
                "smlabb %[a0], %[t1], %[t2], %[a0]\n\t"
                "smlatt %[a2], %[t1], %[t2], %[a2]\n\t"
                "smlabb %[a1], %[t0], %[t3], %[a1]\n\t"
                "smlatt %[a3], %[t0], %[t3], %[a3]\n\t"
                DW_ROW_END
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w] "+r"(wq), [k] "=&r"(k), [t0] "=&r"(t0), [t1] "=&r"(t1),
                  [t2] "=&r"(t2), [t3] "=&r"(t3), [rows] "+m"(rows)
                : [xs] "r"(x_step), [off] "r"(off2), [cols] "m"(cols), [xskip] "m"(x_skip),
                  [wskip] "m"(w_skip)
                : "cc", "memory");
        } else {
            const int32_t x_off = c->p->input_offset;
            __asm__ volatile(
                "2:\n\t"
                "ldr %[k], %[cols]\n\t"
                "1:\n\t"
                "ldrsb %[t0], [%[x]]\n\t"
                "add %[x], %[x], %[xs]\n\t"
                "ldrd %[t2], %[t3], [%[w]], #8\n\t"
                "add %[t0], %[t0], %[off]\n\t"
                "smlabb %[a0], %[t0], %[t2], %[a0]\n\t"
                "smlabt %[a2], %[t0], %[t2], %[a2]\n\t"
                "smlabb %[a1], %[t0], %[t3], %[a1]\n\t"
                "smlabt %[a3], %[t0], %[t3], %[a3]\n\t"
                DW_ROW_END
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w] "+r"(wq), [k] "=&r"(k), [t0] "=&r"(t0), [t2] "=&r"(t2), [t3] "=&r"(t3),
                  [rows] "+m"(rows)
                : [xs] "r"(x_step), [off] "r"(x_off), [cols] "m"(cols), [xskip] "m"(x_skip),
                  [wskip] "m"(w_skip)
                : "cc", "memory");
            (void)t1;
        }
#else
        const int16x2_t off2 = rt_dsp_pair(c->p->input_offset);
        int32_t ky, kx;
        for (ky = 0; ky < rows; ++ky) {
            for (kx = 0; kx < cols; ++kx, x += x_step, wq += 2) {
                const int16x2_t we = (int16x2_t)wq[0], wo = (int16x2_t)wq[1];
                if (shared) {
                    const int32_t u = *x + c->p->input_offset;
                    a0 += u * (int16_t)(we & 0xffff);
                    a2 += u * (int16_t)((uint32_t)we >> 16);
                    a1 += u * (int16_t)(wo & 0xffff);
                    a3 += u * (int16_t)((uint32_t)wo >> 16);
                } else {
                    const int32_t xv = rt_dsp_load4(x);
                    const int16x2_t xe = rt_dsp_even(off2, xv), xo = rt_dsp_odd(off2, xv);
                    a0 = __smlabb(xe, we, a0);
                    a2 = __smlatt(xe, we, a2);
                    a1 = __smlabb(xo, wo, a1);
                    a3 = __smlatt(xo, wo, a3);
                }
            }
            x += x_skip;
            wq += w_skip / 4;
        }
#endif
    }
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
}

/* Four channels' output stage, set up once for all pixels. */
typedef struct out_quad {
    rt_dsp_rq q[4];
    int32_t off, lo, hi;
    int32_t direct;   /* every sum in its rescaling's fast range, activation range all of
                         int8: no checks, SSAT clamps */
} out_quad;

static RT_DSP_NOINLINE void store_quad(const out_quad *t, const int32_t *acc, int8_t *o)
{
    int32_t j;
    if (t->direct) {
        o[0] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q[0], acc[0]) + t->off);
        o[1] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q[1], acc[1]) + t->off);
        o[2] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q[2], acc[2]) + t->off);
        o[3] = rt_dsp_sat8(rt_dsp_rq_apply_in_range(&t->q[3], acc[3]) + t->off);
        return;
    }
    for (j = 0; j < 4; ++j) {
        o[j] = rt_s8_clamp(rt_dsp_rq_apply(&t->q[j], acc[j]) + t->off, t->lo, t->hi);
    }
}

/* The window of output pixel (oy, ox): its taps inside the input, and where they start. */
typedef struct window {
    int32_t rows, cols;
    const int8_t *x, *w;   /* input and filter at the first tap, channel 0 */
} window;

static window window_at(const dw_ctx *c, const int8_t *img, int32_t oy, int32_t ox)
{
    const rt_conv_s8_params *p = c->p;
    int32_t ky0, ky1, kx0, kx1;
    window v;
    rt_s8_tap_range(oy, p->stride_h, p->pad_h, p->dilation_h, c->g.kh, c->g.h, &ky0, &ky1);
    rt_s8_tap_range(ox, p->stride_w, p->pad_w, p->dilation_w, c->g.kw, c->g.w, &kx0, &kx1);
    v.rows = ky1 - ky0;
    v.cols = kx1 - kx0;
    v.x = img + (oy * p->stride_h - p->pad_h + ky0 * p->dilation_h) * c->row +
          (ox * p->stride_w - p->pad_w + kx0 * p->dilation_w) * c->g.cin;
    v.w = c->w + (ky0 * c->g.kw + kx0) * c->g.cout;
    return v;
}

/* Channels oc..oc+3 of every output pixel, their filter taps widened once (at most
 * DW_WIDE_TAPS taps). A row's interior pixels (every tap inside the input) step their input
 * pointer along the row; border pixels work out their window. */
static void quad_channels(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t taps = c->g.kh * c->g.kw;
    const int32_t xo = c->mult == 1 ? oc : oc / c->mult;   /* the input channel read */
    int32_t wq[2 * DW_WIDE_TAPS];
    int32_t n, oy, ox, j, b[4], xa, xb;
    out_quad t;
    t.off = p->output_offset;
    t.lo = p->act_min;
    t.hi = p->act_max;
    t.direct = t.lo == -128 && t.hi == 127;
    for (j = 0; j < 4; ++j) {
        int32_t bound;
        b[j] = c->bias != NULL ? c->bias[oc + j] : 0;
        bound = rt_dsp_sum_bound(b[j], taps);
        t.q[j] = rt_dsp_rq_make(p->mult[oc + j], p->shift[oc + j]);
        t.direct = t.direct && bound < t.q[j].hi && -bound > t.q[j].lo;
    }
    widen_quad(c, oc, wq);
    /* interior columns: ox * stride_w - pad_w >= 0 and the last tap inside, [xa, xb) */
    xa = (p->pad_w + p->stride_w - 1) / p->stride_w;
    xb = c->g.w - 1 - (c->g.kw - 1) * p->dilation_w + p->pad_w;
    xb = xb >= 0 ? xb / p->stride_w + 1 : 0;
    xb = xb < c->g.ow ? xb : c->g.ow;
    xa = xa < xb ? xa : xb;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox) {
                int32_t acc[4];
                acc[0] = b[0];
                acc[1] = b[1];
                acc[2] = b[2];
                acc[3] = b[3];
                if (ox == xa && xa < xb) {
                    /* the interior run: the window's rows once, then a step per pixel */
                    const window v = window_at(c, img, oy, ox);
                    const int32_t first = (v.w - c->w) / c->g.cout;   /* ky0 * kw */
                    const int8_t *x = v.x + xo;
                    for (; ox < xb; ++ox, x += p->stride_w * c->g.cin, out += c->g.cout) {
                        acc[0] = b[0];
                        acc[1] = b[1];
                        acc[2] = b[2];
                        acc[3] = b[3];
                        quad_taps_wide(c, x, wq + 2 * first, v.rows, c->g.kw, c->mult != 1,
                                       acc);
                        store_quad(&t, acc, out + oc);
                    }
                    --ox;
                    continue;
                } else {
                    const window v = window_at(c, img, oy, ox);
                    quad_taps_wide(c, v.x + xo, wq + 2 * ((v.w - c->w) / c->g.cout), v.rows,
                                   v.cols, c->mult != 1, acc);
                }
                store_quad(&t, acc, out + oc);
                out += c->g.cout;
            }
        }
    }
}

/* Channel oc of every output pixel, one at a time (a multiplier that is neither 1 nor 4k, or
 * the last Cout % 4 channels). */
static void one_channel(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    int32_t n, oy, ox;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                const window v = window_at(c, img, oy, ox);
                const int32_t acc = rt_s8_dw_sum(v.x + oc / c->mult, v.w + oc, v.rows, v.cols,
                                                 c->x_step, c->y_step, c->g.cout,
                                                 c->g.kw * c->g.cout, p->input_offset);
                out[oc] = rt_s8_clamp(rt_requantize((c->bias != NULL ? c->bias[oc] : 0) + acc,
                                                    p->mult[oc], p->shift[oc]) +
                                      p->output_offset, p->act_min, p->act_max);
            }
        }
    }
}

rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p,
                                 const rt_shape *in_s, const int8_t *in,
                                 const rt_shape *w_s, const int8_t *w,
                                 const rt_shape *b_s, const int32_t *bias,
                                 const rt_shape *out_s, int8_t *out)
{
    dw_ctx c;
    int32_t oc;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.mult = c.g.cin > 0 ? c.g.cout / c.g.cin : 1;
    c.row = c.g.w * c.g.cin;
    c.x_step = p->dilation_w * c.g.cin;
    c.y_step = p->dilation_h * c.row;
    c.quads = (c.mult == 1 || c.mult % 4 == 0) && c.g.kh * c.g.kw <= DW_WIDE_TAPS
                  ? c.g.cout / 4 * 4 : 0;
    for (oc = 0; oc < c.quads; oc += 4) {
        quad_channels(&c, in, oc, out);
    }
    for (; oc < c.g.cout; ++oc) {
        one_channel(&c, in, oc, out);
    }
    return RT_OK;
}
