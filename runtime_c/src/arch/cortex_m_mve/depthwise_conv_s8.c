/* depthwise_conv_s8.c (Cortex-M Helium) - rt_depthwise_conv2d_s8 sixteen channels a pass (the
 * outer loop; eight for what is left), four int32 lanes a vector, inputs and filter taps
 * widened as they load (VLDRB.S32). With a channel multiplier of 1 the lanes read consecutive
 * inputs, plus the offset, multiplied and added per tap; with a multiple of the pass all its
 * channels read one input, and VMLA takes it as a scalar. Four lanes are requantized at once
 * (rt_mve_requant). With a multiplier of 1 a 16-channel pass widens to 16 bits instead
 * (taps16_c: VMULLB/VMULLT). The last, partial pass and other multipliers take the portable
 * loop. No stack buffer.
 * Bit-exact with int8/depthwise_conv_s8.c. */
#include "s8_mve.h"
#include "../../int8/conv_s8.h"

/* What stays fixed across a layer's pixels. */
typedef struct dw_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int8_t *w;
    const int32_t *bias;
    int32_t mult, row, x_step, y_step;
} dw_ctx;

/* Four lanes of output: bias, requantization and clamp (rt_mve_requant), stored as bytes. */
static inline void out4(const dw_ctx *c, int32x4_t acc, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    if (c->bias != NULL) {
        acc = vaddq_s32(acc, vldrwq_s32(c->bias + oc));
    }
    vstrbq_s32(out + oc, rt_mve_requant(acc, vldrwq_s32(p->mult + oc), vldrwq_s32(p->shift + oc),
                                        p->output_offset, p->act_min, p->act_max));
}

/* Channels oc..oc+7 of one output pixel, over a rows x cols window from input x and filter w
 * at its first tap (channel oc): consecutive inputs (shared 0) or one input for all
 * (shared 1). Two vectors a pass leave the Q registers room for the loop (four spill);
 * out of line, so that its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps8(const dw_ctx *c, const int8_t *x, const int8_t *w,
                                  int32_t rows, int32_t cols, int32_t shared, int32_t oc,
                                  int8_t *out)
{
    const int32_t x_off = c->p->input_offset, x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0;
    int32_t ky, kx;
    if (shared) {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int32_t v = (int32_t)*x + x_off;
                a0 = vmlaq_n_s32(a0, vldrbq_s32(w), v);
                a1 = vmlaq_n_s32(a1, vldrbq_s32(w + 4), v);
            }
        }
    } else {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                a0 = vaddq_s32(a0, vmulq_s32(vaddq_n_s32(vldrbq_s32(x), x_off),
                                             vldrbq_s32(w)));
                a1 = vaddq_s32(a1, vmulq_s32(vaddq_n_s32(vldrbq_s32(x + 4), x_off),
                                             vldrbq_s32(w + 4)));
            }
        }
    }
    out4(c, a0, oc, out);
    out4(c, a1, oc + 4, out);
}

/* Four lanes of output holding every other channel, oc, oc + 2, oc + 4, oc + 6: bias,
 * requantization and clamp as out4, gathered and scattered with a stride of two. */
static inline void out4_even(const dw_ctx *c, int32x4_t acc, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const uint32x4_t idx = vmulq_n_u32(vidupq_n_u32(0u, 1), 2u);
    if (c->bias != NULL) {
        acc = vaddq_s32(acc, vldrwq_gather_shifted_offset_s32(c->bias + oc, idx));
    }
    vstrbq_scatter_offset_s32(out + oc, idx,
                              rt_mve_requant(acc, vldrwq_gather_shifted_offset_s32(p->mult + oc, idx),
                                             vldrwq_gather_shifted_offset_s32(p->shift + oc, idx),
                                             p->output_offset, p->act_min, p->act_max));
}

/* Channels oc..oc+15 of one output pixel with a channel multiplier of 1 (consecutive
 * inputs), over a rows x cols window from input x and filter w at its first tap. Inputs and
 * taps load widened to 16 bits (VLDRB.S16), the input plus its offset (which then fits 16
 * bits: the caller takes |x_off| <= 256); VMULLB/VMULLT multiply the even and the odd lanes
 * into 32-bit products: four accumulators hold channels (0, 2, .., 6), (1, 3, .., 7),
 * (8, .., 14), (9, .., 15), requantized and stored with a stride of two (out4_even). 14
 * vector instructions a tap for 16 channels (20 in taps16). Out of line, so that its loop
 * keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16_c(const dw_ctx *c, const int8_t *x, const int8_t *w,
                                     int32_t rows, int32_t cols, int32_t oc, int8_t *out)
{
    const int16_t x_off = (int16_t)c->p->input_offset;
    const int32_t x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0, e1 = e0, o1 = e0;
    int32_t ky, kx;
    for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
        for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
            const int16x8_t xl = vaddq_n_s16(vldrbq_s16(x), x_off);
            const int16x8_t xh = vaddq_n_s16(vldrbq_s16(x + 8), x_off);
            const int16x8_t wl = vldrbq_s16(w), wh = vldrbq_s16(w + 8);
            e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
            o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
            e1 = vaddq_s32(e1, vmullbq_int_s16(xh, wh));
            o1 = vaddq_s32(o1, vmulltq_int_s16(xh, wh));
        }
    }
    out4_even(c, e0, oc, out);
    out4_even(c, o0, oc + 1, out);
    out4_even(c, e1, oc + 8, out);
    out4_even(c, o1, oc + 9, out);
}

/* Channels oc..oc+15 of one output pixel, over a rows x cols window from input x and filter w
 * at its first tap (channel oc): consecutive inputs (shared 0) or one input for all
 * (shared 1). Out of line, so that its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16(const dw_ctx *c, const int8_t *x, const int8_t *w,
                                   int32_t rows, int32_t cols, int32_t shared, int32_t oc,
                                   int8_t *out)
{
    const int32_t x_off = c->p->input_offset, x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    int32_t ky, kx;
    if (shared) {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int32_t v = (int32_t)*x + x_off;
                a0 = vmlaq_n_s32(a0, vldrbq_s32(w), v);
                a1 = vmlaq_n_s32(a1, vldrbq_s32(w + 4), v);
                a2 = vmlaq_n_s32(a2, vldrbq_s32(w + 8), v);
                a3 = vmlaq_n_s32(a3, vldrbq_s32(w + 12), v);
            }
        }
    } else {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                a0 = vaddq_s32(a0, vmulq_s32(vaddq_n_s32(vldrbq_s32(x), x_off),
                                             vldrbq_s32(w)));
                a1 = vaddq_s32(a1, vmulq_s32(vaddq_n_s32(vldrbq_s32(x + 4), x_off),
                                             vldrbq_s32(w + 4)));
                a2 = vaddq_s32(a2, vmulq_s32(vaddq_n_s32(vldrbq_s32(x + 8), x_off),
                                             vldrbq_s32(w + 8)));
                a3 = vaddq_s32(a3, vmulq_s32(vaddq_n_s32(vldrbq_s32(x + 12), x_off),
                                             vldrbq_s32(w + 12)));
            }
        }
    }
    out4(c, a0, oc, out);
    out4(c, a1, oc + 4, out);
    out4(c, a2, oc + 8, out);
    out4(c, a3, oc + 12, out);
}


/* Channels oc..oc+width-1 (16 or 8) of every output pixel. */
static void pass(const dw_ctx *c, const int8_t *in, int32_t oc, int32_t width, int8_t *out)
{
    const int32_t shared = c->mult != 1;
    int32_t n, oy, ox;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                const int8_t *vw;
                rt_s8_window_at(&c->g, c->p, img, oy, ox, &v);
                vw = c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout;
                const int8_t *x = v.x + (shared ? oc / c->mult : oc);
                if (width == 16 && !shared && c->p->input_offset >= -256 &&
                    c->p->input_offset <= 256) {
                    taps16_c(c, x, vw + oc, v.ky1 - v.ky0, v.kx1 - v.kx0, oc, out);
                } else if (width == 16) {
                    taps16(c, x, vw + oc, v.ky1 - v.ky0, v.kx1 - v.kx0, shared, oc, out);
                } else {
                    taps8(c, x, vw + oc, v.ky1 - v.ky0, v.kx1 - v.kx0, shared, oc, out);
                }
            }
        }
    }
}

/* Channel oc of every output pixel, one at a time. */
static void one_channel(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    int32_t n, oy, ox;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                int32_t acc;
                rt_s8_window_at(&c->g, p, img, oy, ox, &v);
                acc = rt_s8_dw_sum(v.x + oc / c->mult,
                                   c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc,
                                   v.ky1 - v.ky0, v.kx1 - v.kx0, c->x_step, c->y_step,
                                   c->g.cout, c->g.kw * c->g.cout, p->input_offset);
                out[oc] = rt_dsp_out((c->bias != NULL ? c->bias[oc] : 0) + acc, p->mult[oc],
                                     p->shift[oc], p->output_offset, p->act_min, p->act_max);
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
    int32_t oc = 0;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.mult = c.g.cin > 0 ? c.g.cout / c.g.cin : 1;
    c.row = c.g.w * c.g.cin;
    c.x_step = p->dilation_w * c.g.cin;
    c.y_step = p->dilation_h * c.row;
    if (c.mult == 1 || c.mult % 16 == 0) {
        for (; oc + 16 <= c.g.cout; oc += 16) {
            pass(&c, in, oc, 16, out);
        }
    }
    if (c.mult == 1 || c.mult % 8 == 0) {
        for (; oc + 8 <= c.g.cout; oc += 8) {
            pass(&c, in, oc, 8, out);
        }
    }
    for (; oc < c.g.cout; ++oc) {
        one_channel(&c, in, oc, out);
    }
    return RT_OK;
}
