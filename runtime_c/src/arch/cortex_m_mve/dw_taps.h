/* dw_taps.h (Cortex-M Helium) - depthwise, a pixel at a time: each output pixel's window
 * worked out (rt_s8_window_at), then 16 channels a pass (up to DW_PASSES passes sharing the
 * window), 8 channels, or one. Chosen for the channels no faster strategy took: a multiplier
 * of 16k (one input for all 16 channels, VMLA by a scalar), windows too big for a band, the
 * last 8 or fewer channels. -O0 runs C loops for the assembly ones. */
#ifndef RT_MVE_DW_TAPS_H
#define RT_MVE_DW_TAPS_H

#include "dw_mve.h"

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

/* The steps of a window of rows x cols taps (from c) in taps16_c and
 * taps8_c, and the fold its outputs take: q's with the input offset where the window
 * is whole, else the bias alone (the offset then added to each input). */
#define DW_WINDOW_LOCALS \
    const int16_t x_off = (int16_t)c->p->input_offset; \
    const int32_t x_step = c->x_step, w_step = c->g.cout; \
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step; \
    const int32_t full = rows == c->g.kh && cols == c->g.kw; \
    const int32_t *f = full ? q->fold : q->bias

#if defined(__OPTIMIZE__)
/* A window's loop in assembly (CODE: DW_ZERO, the taps, DW_NEXT, the output stage, the
 * stores) over rows x cols taps from x and w, with the operands of taps16_c and
 * taps8_c. */
#define DW_WINDOW_ASM(CODE) \
    __asm__ volatile(CODE \
                     : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows) \
                     : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(off), [f] "r"(f), \
                       [prm] "r"(q), [out] "r"(out), [cols] "m"(cols), \
                       [xskip] "m"(x_skip), [wskip] "m"(w_skip) \
                     : DW_CLOBBERS)
#endif

/* Channels oc..oc+15 of one output pixel with a channel multiplier of 1 (consecutive
 * inputs), over a rows x cols window from input x and filter w at its first tap. Inputs and
 * taps load widened to 16 bits (VLDRB.S16); VMULLB/VMULLT multiply the even and the odd
 * lanes into 32-bit products: four accumulators hold channels (0, 2, .., 6), (1, 3, .., 7),
 * (8, .., 14), (9, .., 15). A window with every tap inside leaves the input offset to the
 * pass's fold (sum (x + x_off) * w = sum x * w + x_off * sum w): 12 vector instructions a tap
 * for 16 channels; others add it to the inputs (it then fits 16 bits). Out of line, so that
 * its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16_c(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                     const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    DW_WINDOW_LOCALS;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0, e1 = e0, o1 = e0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t off = x_off;
        if (full) {
            DW_WINDOW_ASM(DW_ZERO DW_TAP16 DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD);
        } else {
            DW_WINDOW_ASM(DW_ZERO DW_HALF("0", DW_ADD_OFF, "q0", "q1")
                          DW_HALF("8", DW_ADD_OFF, "q2", "q3")
                          DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD);
        }
        return;
    }
#endif
    if (full) {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int16x8_t xl = vldrbq_s16(x), xh = vldrbq_s16(x + 8);
                const int16x8_t wl = vldrbq_s16(w), wh = vldrbq_s16(w + 8);
                e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
                o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
                e1 = vaddq_s32(e1, vmullbq_int_s16(xh, wh));
                o1 = vaddq_s32(o1, vmulltq_int_s16(xh, wh));
            }
        }
    } else {
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
    }
    pass_out4(q, e0, f, 0, out);
    pass_out4(q, o0, f, 1, out);
    pass_out4(q, e1, f, 2, out);
    pass_out4(q, o1, f, 3, out);
}

/* Channels oc..oc+15 of one output pixel whose channels all read one input (a channel
 * multiplier of 16k), taken as a scalar plus the offset, VMLA by it, four int32 lanes a
 * vector. Out of line, so that its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                   const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    const int32_t x_off = c->p->input_offset, x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t *f = q->bias;
        int32_t t;
        __asm__ volatile(DW_ZERO
                         "ldrsb %[t], [%[x]]\n\t"
                         "add %[t], %[t], %[off]\n\t"
                         "vldrb.s32 q4, [%[w]]\n\t"
                         "vmla.s32 q0, q4, %[t]\n\t"
                         "vldrb.s32 q5, [%[w], #4]\n\t"
                         "vmla.s32 q1, q5, %[t]\n\t"
                         "vldrb.s32 q4, [%[w], #8]\n\t"
                         "vmla.s32 q2, q4, %[t]\n\t"
                         "vldrb.s32 q5, [%[w], #12]\n\t"
                         "vmla.s32 q3, q5, %[t]\n\t"
                         DW_NEXT DW_RQ_ALL DW_STORE_IN_ORDER
                         : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows), [t] "=&r"(t)
                         : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(x_off), [f] "r"(f),
                           [prm] "r"(q), [out] "l"(out), [cols] "m"(cols),
                           [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                         : DW_CLOBBERS);
        return;
    }
#endif
    for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
        for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
            const int32_t v = (int32_t)*x + x_off;
            a0 = vmlaq_n_s32(a0, vldrbq_s32(w), v);
            a1 = vmlaq_n_s32(a1, vldrbq_s32(w + 4), v);
            a2 = vmlaq_n_s32(a2, vldrbq_s32(w + 8), v);
            a3 = vmlaq_n_s32(a3, vldrbq_s32(w + 12), v);
        }
    }
    pass_out4(q, a0, q->bias, 0, out);
    pass_out4(q, a1, q->bias, 1, out);
    pass_out4(q, a2, q->bias, 2, out);
    pass_out4(q, a3, q->bias, 3, out);
}

/* Channels oc..oc+7 of one output pixel with a channel multiplier of 1:
 * taps16_c's first half (channels (0, 2, 4, 6) and (1, 3, 5, 7)), q made for 8
 * channels. */
static RT_DSP_NOINLINE void taps8_c(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                    const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    DW_WINDOW_LOCALS;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t off = x_off;
        if (full) {
            DW_WINDOW_ASM(DW_ZERO DW_HALF("0", "", "q0", "q1") DW_NEXT DW_RQ_HALF
                          DW_STORE_EVEN_ODD_HALF);
        } else {
            DW_WINDOW_ASM(DW_ZERO DW_HALF("0", DW_ADD_OFF, "q0", "q1") DW_NEXT DW_RQ_HALF
                          DW_STORE_EVEN_ODD_HALF);
        }
        return;
    }
#endif
    for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
        for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
            const int16x8_t xl = vaddq_n_s16(vldrbq_s16(x), full ? 0 : x_off);
            const int16x8_t wl = vldrbq_s16(w);
            e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
            o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
        }
    }
    pass_out4(q, e0, f, 0, out);
    pass_out4(q, o0, f, 1, out);
}

/* Channels oc..oc+16*passes-1 of every output pixel, 16 at a time (taps16_c, taps16), the
 * window worked out once per pixel. */
static void passes16(const dw_ctx *c, const int8_t *in, int32_t oc, int32_t passes,
                     int8_t *out)
{
    const int32_t shared = c->mult != 1;
    dw_pass q[DW_PASSES];
    int32_t n, oy, ox, j;
    for (j = 0; j < passes; ++j) {
        pass_make(c, oc + 16 * j, shared ? DW_NATURAL : DW_EVEN_ODD, 16, &q[j]);
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                const int8_t *vw;
                int32_t rows, cols;
                rt_s8_window_at(&c->g, c->p, img, oy, ox, &v);
                vw = c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc;
                rows = v.ky1 - v.ky0;
                cols = v.kx1 - v.kx0;
                for (j = 0; j < passes; ++j) {
                    const int32_t o = oc + 16 * j;
                    if (shared) {
                        taps16(c, &q[j], v.x + o / c->mult, vw + 16 * j, rows, cols, out + o);
                    } else {
                        taps16_c(c, &q[j], v.x + o, vw + 16 * j, rows, cols, out + o);
                    }
                }
            }
        }
    }
}

/* Channels oc..oc+7 of every output pixel (taps8_c with a multiplier of 1, else
 * taps8). */
static RT_DSP_NOINLINE void pass8(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const int32_t shared = c->mult != 1;
    dw_pass q;
    int32_t n, oy, ox;
    if (!shared) {
        pass_make(c, oc, DW_EVEN_ODD, 8, &q);
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                const int8_t *vw;
                rt_s8_window_at(&c->g, c->p, img, oy, ox, &v);
                vw = c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc;
                if (shared) {
                    taps8(c, v.x + oc / c->mult, vw, v.ky1 - v.ky0, v.kx1 - v.kx0, 1, oc, out);
                } else {
                    taps8_c(c, &q, v.x + oc, vw, v.ky1 - v.ky0, v.kx1 - v.kx0, out + oc);
                }
            }
        }
    }
}

/* Channel oc of every output pixel, one at a time. */
static RT_DSP_NOINLINE void one_channel(const dw_ctx *c, const int8_t *in, int32_t oc,
                                        int8_t *out)
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

#endif
