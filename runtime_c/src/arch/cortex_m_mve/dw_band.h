/* dw_band.h (Cortex-M Helium) - depthwise at a channel multiplier of 1, in bands: an output
 * row's input rows copied onto the stack (up to 64 channels, a plane of 16 channels a column
 * per pass, padded with the input zero point so that every window is whole), then one
 * assembly loop a pass over the row's pixels (taps, output stage, stores). 3x3 filters with
 * no tap -128 and no left shift multiply 8-bit (DW_QUARTERS, DW_PAIRS8), others widen to 16
 * bits (DW_EVEN_ODD). Down the rows at stride 1 the band is a ring of kh rows (ringed). Chosen
 * where the gathered strategies do not take the layer and the multiplier is 1; returns the
 * channels it did (the rest go a pixel at a time, dw_taps.h). */
#ifndef RT_MVE_DW_BAND_H
#define RT_MVE_DW_BAND_H

#include "dw_mve.h"

#if defined(__OPTIMIZE__)
/* A band's run: each pixel's filter rows from `rows` (memory) down, then the next pixel
 * (x on by xback, w back to w0, out on by cout), n pixels. */
#define DW_RUN_START \
    "5:\n\t" \
    "ldr %[rows], %[kh]\n\t"
#define DW_RUN_NEXT \
    "\n\t" \
    "add %[out], %[out], %[ws]\n\t" \
    "ldr lr, %[xback]\n\t" \
    "add %[x], %[x], lr\n\t" \
    "ldr %[w], %[w0]\n\t" \
    "subs %[n], %[n], #1\n\t" \
    "bne 5b"
#define DW_RQ_HALF_R \
    DW_RQ_CONSTS \
    DW_RQ_R("q0", "0", "128", "192") \
    DW_RQ_R("q1", "16", "144", "208")
#define DW_RUN(BODY) \
    __asm__ volatile(DW_RUN_START BODY DW_RUN_NEXT \
                     : [x] "+l"(x), [w] "+l"(w), [rows] "=&r"(rows), [out] "+r"(out), \
                       [n] "+r"(n) \
                     : [xs] "r"(xs), [ws] "r"(ws), [f] "r"(q->fold), [prm] "r"(q), \
                       [kh] "m"(kh), [xback] "m"(xback), [w0] "m"(w0), [xrow] "m"(xrow), \
                       [cols] "m"(kw), [xskip] "m"(xskip), [wskip] "m"(wskip) \
                     : DW_CLOBBERS)

/* DW_QUARTERS, a 3x3 filter over a band plane of 16 channels a column (x steps 16 a tap and
 * xrow, a register, after a row's third; the packed taps 16 a tap). Two taps' 8-bit products
 * (VMULLB/VMULLT.S8, even channels in q6, odd in q7) add up in 16 bits: no tap is -128, so
 * each product is at most 128 * 127 in size and two of them fit. Tap A of a pair sets them;
 * tap B adds to them, its input loaded twice (the first copy takes its even product). */
#define DW_PAIR_A(S, T) \
    "vldrb.8 q4, [%[x]], #" S "\n\t" \
    "vldrw.32 q5, [%[w], #" T "]\n\t" \
    "vmullb.s8 q6, q4, q5\n\t" \
    "vmullt.s8 q7, q4, q5\n\t"
#define DW_PAIR_B(S, T) \
    "vldrb.8 q4, [%[x]]\n\t" \
    "vldrw.32 q5, [%[w], #" T "]\n\t" \
    "vmullb.s8 q4, q4, q5\n\t" \
    "vadd.i16 q6, q6, q4\n\t" \
    "vldrb.8 q4, [%[x]], #" S "\n\t" \
    "vmullt.s8 q4, q4, q5\n\t" \
    "vadd.i16 q7, q7, q4\n\t"
/* the 16-bit sums widened into the accumulators' quarters: set, or added */
#define DW_WIDEN_SET \
    "vmovlb.s16 q0, q6\n\t" \
    "vmovlt.s16 q1, q6\n\t" \
    "vmovlb.s16 q2, q7\n\t" \
    "vmovlt.s16 q3, q7\n\t"
#define DW_WIDEN_ADD \
    "vmovlb.s16 q4, q6\n\t" \
    "vadd.i32 q0, q0, q4\n\t" \
    "vmovlt.s16 q4, q6\n\t" \
    "vadd.i32 q1, q1, q4\n\t" \
    "vmovlb.s16 q4, q7\n\t" \
    "vadd.i32 q2, q2, q4\n\t" \
    "vmovlt.s16 q4, q7\n\t" \
    "vadd.i32 q3, q3, q4\n\t"
#define DW_NEXT_ROW(R) "add %[x], %[x], %[" R "]\n\t"
/* taps (0, 1), (2, 3), (4, 5), (6, 7) and 8, x stepping S a tap (16: DW_QUARTERS' columns;
 * 8: DW_PAIRS8's, whose 16 bytes are two neighbouring columns); the rows end after taps 2
 * and 5, where x steps by the operands R1 and R2 (a ring's rows are not evenly apart) */
#define DW_PAIRS_3X3(S, R1, R2) \
    DW_PAIR_A(S, "0") DW_PAIR_B(S, "16") DW_WIDEN_SET \
    DW_PAIR_A(S, "32") DW_NEXT_ROW(R1) DW_PAIR_B(S, "48") DW_WIDEN_ADD \
    DW_PAIR_A(S, "64") DW_PAIR_B(S, "80") DW_NEXT_ROW(R2) DW_WIDEN_ADD \
    DW_PAIR_A(S, "96") DW_PAIR_B(S, "112") DW_WIDEN_ADD \
    DW_PAIR_A(S, "128") DW_WIDEN_ADD
/* the next pixel (or pair): out on by ws, x by back, the taps from their start */
#define DW_PAIRS_NEXT \
    "add %[out], %[out], %[ws]\n\t" \
    "add %[x], %[x], %[back]\n\t" \
    "subs %[n], %[n], #1\n\t" \
    "bne 5b"
/* n pairs of pixels of a DW_PAIRS8 pass, the output stage and stores OUT */
#define DW_PAIRS_RUN(OUT) \
    __asm__ volatile("5:\n\t" DW_PAIRS_3X3("8", "xrow", "xrow") OUT DW_PAIRS_NEXT \
                     : [x] "+r"(x), [out] "+r"(out), [n] "+r"(n) \
                     : [xrow] "r"(next), [ws] "r"(step), [f] "r"(q->fold), [prm] "r"(q), \
                       [w] "r"(q->taps), [back] "r"(back) \
                     : DW_CLOBBERS)
/* n pixels of every pass of a band, each DW_QUARTERS: per pass, its n pixels (from its plane's
 * first window at x and its outputs at out), then x on by pnext to the next plane's and out
 * by onext to its channels, the next pass's output stage and taps (q an array) */
#define DW_PASSES_RUN(OUT) \
    __asm__ volatile("6:\n\t" \
                     "ldr %[n], %[k]\n\t" \
                     "add %[w], %[prm], %[taps]\n\t" \
                     "add %[f], %[prm], %[fold]\n\t" \
                     "5:\n\t" DW_PAIRS_3X3("16", "xrow", "xrow2") OUT DW_PAIRS_NEXT "\n\t" \
                     "ldr lr, %[pnext]\n\t" \
                     "add %[x], %[x], lr\n\t" \
                     "ldr lr, %[onext]\n\t" \
                     "add %[out], %[out], lr\n\t" \
                     "add %[prm], %[prm], %[size]\n\t" \
                     "ldr lr, %[np]\n\t" \
                     "subs lr, lr, #1\n\t" \
                     "str lr, %[np]\n\t" \
                     "bne 6b" \
                     : [x] "+r"(x), [w] "=&r"(t), [out] "+r"(out), [n] "=&r"(n), \
                       [f] "=&r"(f), [prm] "+r"(q), [np] "+m"(passes) \
                     : [xrow] "r"(next), [xrow2] "r"(next2), [ws] "r"(step), [back] "r"(back), \
                       [k] "m"(k), \
                       [pnext] "m"(pnext), [onext] "m"(onext), \
                       [taps] "i"(offsetof(dw_pass, taps)), [fold] "i"(offsetof(dw_pass, fold)), \
                       [size] "i"(sizeof(dw_pass)) \
                     : DW_CLOBBERS)
#endif

#if !defined(__OPTIMIZE__)
/* One output pixel of a DW_QUARTERS pass, or two of a DW_PAIRS8 one, in C (the assembly's
 * steps, for -O0): x the window's first tap in a band plane (16 bytes a tap, or 8), rows
 * bc->y_step apart. */
static RT_DSP_NOINLINE void taps_pairs_c(const dw_ctx *bc, const dw_pass *q, const int8_t *x,
                                         int8_t *out)
{
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    int16x8_t e = vdupq_n_s16(0), o = e;
    int32_t t;
    for (t = 0; t < 9; ++t) {
        const int8x16_t xv = vldrbq_s8(x + t / 3 * bc->y_step + t % 3 * bc->x_step);
        const int8x16_t wv = vldrbq_s8(q->taps + 16 * t);
        e = t % 2 == 0 ? vmullbq_int_s8(xv, wv) : vaddq_s16(e, vmullbq_int_s8(xv, wv));
        o = t % 2 == 0 ? vmulltq_int_s8(xv, wv) : vaddq_s16(o, vmulltq_int_s8(xv, wv));
        if (t % 2 == 1 || t == 8) {
            a0 = vaddq_s32(a0, vmovlbq_s16(e));
            a1 = vaddq_s32(a1, vmovltq_s16(e));
            a2 = vaddq_s32(a2, vmovlbq_s16(o));
            a3 = vaddq_s32(a3, vmovltq_s16(o));
        }
    }
    pass_out4(q, a0, q->fold, 0, out);
    pass_out4(q, a1, q->fold, 1, out);
    pass_out4(q, a2, q->fold, 2, out);
    pass_out4(q, a3, q->fold, 3, out);
}
#endif

#if defined(__OPTIMIZE__)
/* `passes` DW_QUARTERS passes q over a band (run()'s, their planes `plane` bytes apart from x,
 * a plane of 16 channels a column; a window's second row d1 bytes on from its first, its
 * third d2 on from its second) in one assembly call: k pixels each, the first pixel's outputs
 * of pass j at out + 16 j. */
static RT_DSP_NOINLINE void run_quarters(const dw_ctx *bc, const dw_pass *q, int32_t passes,
                                         const int8_t *x, int32_t plane, int32_t d1, int32_t d2,
                                         int32_t k, int32_t xpix, int8_t *out)
{
    const int32_t step = bc->g.cout;
    const int32_t back = xpix - d1 - d2 - 48, next = d1 - 48, next2 = d2 - 48;
    const int32_t pnext = plane - k * xpix, onext = 16 - k * step;
    int32_t all_right = 1, j, n;
    const int8_t *t;
    const int32_t *f;
    for (j = 0; j < passes; ++j) {
        all_right &= q[j].all_right;
    }
    if (all_right) {
        DW_PASSES_RUN(DW_RQ_NARROW(DW_RQ_MUL_NEG));
    } else {
        DW_PASSES_RUN(DW_RQ_NARROW(DW_RQ_MUL));
    }
    (void)t;
    (void)f;
    (void)n;
}
#endif

/* n > 0 output pixels of a band (its layout in bc: x_step, y_step), `width` channels each
 * (16, or 8 with q made for 8; DW_PAIRS8: an even n): the first pixel's window at x and its
 * outputs at out, each next pixel's xpix bytes on and its outputs cout bytes on; the filter
 * at w (tap 0, the first channel). Every window is whole, so the pass's fold takes the input
 * offset. -O2: one assembly loop over the pixels (taps, output stage, stores); -O0: the same
 * steps in C a pixel (or a pair). */
static RT_DSP_NOINLINE void run(const dw_ctx *bc, const dw_pass *q, int32_t width,
                                const int8_t *x, const int8_t *w, int32_t n, int32_t xpix,
                                int8_t *out)
{
    const int32_t kh = bc->g.kh, kw = bc->g.kw;
#if defined(__OPTIMIZE__)
    const int32_t xs = bc->x_step, ws = bc->g.cout, xback = xpix - kh * bc->y_step;
    const int32_t xrow = bc->y_step - 2 * xs, xskip = bc->y_step - kw * xs, wskip = 0;
    const int8_t *w0 = w;
    int32_t rows;
    if (q->order == DW_QUARTERS) {   /* run_quarters' loop, one pass */
        run_quarters(bc, q, 1, x, 0, bc->y_step, bc->y_step, n, xpix, out);
    } else if (q->order == DW_PAIRS8) {
        /* n / 2 pairs of pixels, a tap 8 bytes on, each pair's outputs 2 cout on */
        const int32_t back = 2 * xpix - 2 * bc->y_step - 24, next = bc->y_step - 24;
        const int32_t step = 2 * ws;
        n /= 2;
        if (q->all_right) {
            DW_PAIRS_RUN(DW_RQ_NARROW_TO(DW_RQ_MUL_NEG, DW_STORE_PAIRS8));
        } else {
            DW_PAIRS_RUN(DW_RQ_NARROW_TO(DW_RQ_MUL, DW_STORE_PAIRS8));
        }
    } else if (width == 16 && kw == 3 && !q->any_left) {
        DW_RUN(DW_ROWS3 DW_RQ_ALL_R DW_STORE_EVEN_ODD);
    } else if (width == 16) {
        DW_RUN(DW_ZERO DW_TAP16 DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD);
    } else if (kw == 3 && !q->any_left) {
        DW_RUN(DW_ROWS3_HALF DW_RQ_HALF_R DW_STORE_EVEN_ODD_HALF);
    } else {
        DW_RUN(DW_ZERO DW_TAP8 DW_NEXT DW_RQ_HALF DW_STORE_EVEN_ODD_HALF);
    }
#else
    if (q->order == DW_PAIRS8) {
        for (; n > 0; n -= 2, x += 2 * xpix, out += 2 * bc->g.cout) {
            taps_pairs_c(bc, q, x, out);
        }
    }
    for (; n > 0; --n, x += xpix, out += bc->g.cout) {
        if (q->order == DW_QUARTERS) {
            taps_pairs_c(bc, q, x, out);
        } else if (width == 16) {
            taps16_c(bc, q, x, w, kh, kw, out);
        } else {
            taps8_c(bc, q, x, w, kh, kw, out);
        }
    }
#endif
}

/* The band of output row oy (image img) from input column x0 on, bw columns wide: channels
 * oc..oc+16*passes-1 (and 8 more where half) of the kh input rows its windows read (dilated
 * rows taken, the rest skipped), a plane a pass (16 channels a column; then the half pass's,
 * 8 a column), the zero point where a column or a row lies outside the input. Where `kept`,
 * the band holds output row oy - 1's (stride and dilation 1 down the rows): its rows move up
 * one and only the last is read in. */
static void band_fill(const dw_ctx *c, const int8_t *img, int32_t oy, int32_t x0, int32_t oc,
                      int32_t passes, int32_t half, int32_t bw, int32_t kept, int8_t *band)
{
    const rt_conv_s8_params *p = c->p;
    const int8x16_t zero = vdupq_n_s8((int8_t)(-p->input_offset));
    const mve_pred16_t eight = rt_mve_tail8(8);
    const int32_t cin = c->g.cin, kh = c->g.kh, plane = kh * bw * 16;
    int32_t i0;
    const int32_t i1 = band_inside(c, x0, bw, &i0);   /* the columns inside: [i0, i1) */
    int32_t ky = 0, i, j;
    if (kept) {
        for (j = 0; j < passes + (half != 0); ++j) {
            const int32_t width = j < passes ? 16 : 8;
            int8_t *d = band + j * plane;
            rt_mve_copy(d, d + bw * width, (kh - 1) * bw * width);   /* forward: safe */
        }
        ky = kh - 1;
    }
    for (; ky < kh; ++ky) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dilation_h;
        const int32_t in = iy >= 0 && iy < c->g.h && i1 > i0;
        const int32_t lo = in ? i0 : bw, hi = in ? i1 : bw;
        const int8_t *src = in ? img + (iy * c->g.w + x0 + i0) * cin + oc : img;
        for (j = 0; j < passes + (half != 0); ++j, src += 16) {
            const int32_t width = j < passes ? 16 : 8;
            int8_t *d = band + j * plane + ky * bw * width;
            const int8_t *s = src;
            if (width == cin) {   /* one plane, every channel: the input's row as it is */
                rt_mve_fill(d, zero, lo * width);
                rt_mve_copy(d + lo * width, s, (hi - lo) * width);
                rt_mve_fill(d + hi * width, zero, (bw - hi) * width);
            } else if (width == 16) {   /* a column a vector: maps are a few columns wide */
                for (i = 0; i < lo; ++i, d += 16) {
                    vstrbq_s8(d, zero);
                }
                for (; i < hi; ++i, s += cin, d += 16) {
                    vstrbq_s8(d, vldrbq_s8(s));
                }
                for (; i < bw; ++i, d += 16) {
                    vstrbq_s8(d, zero);
                }
            } else {
                for (i = 0; i < lo; ++i, d += 8) {
                    vstrbq_p_s8(d, zero, eight);
                }
                for (; i < hi; ++i, s += cin, d += 8) {
                    vstrbq_p_s8(d, vldrbq_z_s8(s, eight), eight);
                }
                for (; i < bw; ++i, d += 8) {
                    vstrbq_p_s8(d, zero, eight);
                }
            }
        }
    }
}

/* Ring bands: whole output rows at stride and dilation 1 down the rows, of 3x3 passes that
 * all multiply 8-bit (run_quarters, at -O2). Each plane holds its kh band rows as a ring:
 * input row iy goes to slot (iy + pad_h) % kh, so output row oy's window rows are the slots
 * from oy % kh on, round the ring (run_quarters takes the two steps between them). Each
 * output row after the first reads in one input row, a store a column, where a band would
 * move its rows up one first. */
#if defined(__OPTIMIZE__)

/* Input row iy (image img) into slot `slot` of every plane of a ring band (bw columns, the
 * columns [lo, hi) inside the input, the first at input column x0): its columns inside, and
 * where `full` (the ring's first rows) or the row lies outside the input, the rest as the
 * input zero point (later rows find it there). */
static void ring_row(const dw_ctx *c, const int8_t *img, int32_t iy, int32_t slot, int32_t full,
                     int32_t oc, int32_t planes, int32_t bw, int32_t lo, int32_t hi,
                     int32_t x0, int8_t *band)
{
    const int32_t rowb = bw * 16, plane = c->g.kh * rowb, cin = c->g.cin;
    const int8x16_t zero = vdupq_n_s8((int8_t)(-c->p->input_offset));
    int8_t *d = band + slot * rowb;
    int32_t i, j;
    if (iy < 0 || iy >= c->g.h || hi <= lo) {
        for (j = 0; j < planes; ++j, d += plane) {
            rt_mve_fill(d, zero, rowb);
        }
        return;
    }
    img += (iy * c->g.w + x0 + lo) * cin + oc;
    for (j = 0; j < planes; ++j, d += plane, img += 16) {
        const int8_t *src = img;
        int8_t *dst = d + lo * 16;
        if (full) {
            rt_mve_fill(d, zero, lo * 16);
            rt_mve_fill(d + hi * 16, zero, (bw - hi) * 16);
        }
        for (i = lo; i < hi; ++i, src += cin, dst += 16) {
            vstrbq_s8(dst, vldrbq_s8(src));
        }
    }
}

/* Image img's output rows for channels oc..oc+16*passes-1 (q: their passes, every one
 * DW_QUARTERS) through a ring band, outputs from out (the image's channel oc). */
static void ringed(const dw_ctx *c, const int8_t *img, int32_t oc, int32_t passes,
                   const dw_pass *q, int8_t *band, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t kh = c->g.kh, ow = c->g.ow, cout = c->g.cout;
    const int32_t bw = (ow - 1) * p->stride_w + (c->g.kw - 1) * p->dilation_w + 1;
    const int32_t rowb = bw * 16, x0 = -p->pad_w;
    int32_t lo;
    const int32_t hi = band_inside(c, x0, bw, &lo);
    dw_ctx bc = *c;
    int32_t oy, ky;
    bc.x_step = p->dilation_w * 16;
    bc.y_step = rowb;
    for (ky = 0; ky < kh; ++ky) {
        ring_row(c, img, ky - p->pad_h, ky, 1, oc, passes, bw, lo, hi, x0, band);
    }
    for (oy = 0; oy < c->g.oh; ++oy, out += ow * cout) {
        const int32_t s0 = oy % kh;   /* the window's first slot; kh is 3 */
        if (oy > 0) {
            ring_row(c, img, oy - p->pad_h + kh - 1, (oy + kh - 1) % kh, 0, oc, passes, bw, lo,
                     hi, x0, band);
        }
        run_quarters(&bc, q, passes, band + s0 * rowb, kh * rowb, s0 == 2 ? -2 * rowb : rowb,
                     s0 == 1 ? -2 * rowb : rowb, ow, p->stride_w * 16, out);
    }
}
#endif

/* How many output pixels of a row one band of cb channels holds (at most ow; 0: not one). */
static int32_t band_pixels(const dw_ctx *c, int32_t span, int32_t cb)
{
    const int32_t cols = RT_MVE_DW_BAND_BYTES / (c->g.kh * cb);
    const int32_t m = cols < span ? 0 : (cols - span) / c->p->stride_w + 1;
    return m < c->g.ow ? m : c->g.ow;
}

/* A channel multiplier of 1: channels 0..oc-1 (oc returned, a multiple of 8; 0 where not even
 * one pixel's band of 8 channels fits), a band of up to DW_PASSES 16-channel passes (an
 * 8-channel half pass last) at a time: whole output rows where the band of 16 channels holds
 * one, else runs of as many pixels as it holds. Each run's band is filled once, then run once
 * per pass. */
static RT_DSP_NOINLINE int32_t banded(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, ow = c->g.ow, chans = cout & ~7;
    const int32_t span = (c->g.kw - 1) * p->dilation_w + 1;
    const int32_t pairs = c->g.kh == 3 && c->g.kw == 3 && p->dilation_w == 1;
    const int32_t down1 = p->stride_h == 1 && p->dilation_h == 1;   /* bands overlap */
    int8_t band[RT_MVE_DW_BAND_BYTES];
    dw_pass q[DW_PASSES + 1];
    dw_ctx bc = *c;
    int32_t oc, cb, m, passes, quarters, ring, j, n, oy, ox;
    for (oc = 0; oc < chans; oc += cb) {
        /* a plane of 16 channels (of 8 where only 8 are left or 16 do not fit), two to
           four planes where whole rows of them fit */
        cb = chans - oc < 16 || band_pixels(c, span, 16) == 0 ? 8 : 16;
        m = band_pixels(c, span, cb);
        if (m == 0) {
            return oc;
        }
        while (m == ow && cb < 16 * DW_PASSES && cb + 16 <= chans - oc &&
               band_pixels(c, span, cb + 16) == ow) {
            cb += 16;
        }
        if (m == ow && cb < 16 * DW_PASSES && cb == chans - oc - 8 &&
            band_pixels(c, span, cb + 8) == ow) {
            cb += 8;   /* the last 8 with the rest: a half pass */
        }
        passes = cb >> 4;
        for (j = 0; j < passes; ++j) {
            pass_make(c, oc + 16 * j, pairs ? DW_QUARTERS : DW_EVEN_ODD, 16, &q[j]);
        }
        /* -O2: the leading 16-channel passes that multiply 8-bit, in one call a run */
        quarters = 0;
#if defined(__OPTIMIZE__)
        while (quarters < passes && q[quarters].order == DW_QUARTERS) {
            ++quarters;
        }
#endif
        if (cb & 8) {   /* and the odd last pixel's, where pixels go in pairs (their
                           narrowed outputs stored at byte offsets up to cout + 7) */
            pass_make(c, oc + 16 * passes,
                      pairs && p->stride_w == 1 && cout <= 248 ? DW_PAIRS8 : DW_EVEN_ODD, 8,
                      &q[passes]);
            pass_make(c, oc + 16 * passes, DW_EVEN_ODD, 8, &q[passes + 1]);
        }
        ring = m == ow && down1 && quarters == passes && !(cb & 8);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            if (ring) {   /* (-O2 only: -O0 runs no quarters) */
#if defined(__OPTIMIZE__)
                ringed(c, img, oc, passes, q, band, out + n * c->g.oh * ow * cout + oc);
#endif
                continue;
            }
            for (oy = 0; oy < c->g.oh; ++oy) {
                for (ox = 0; ox < ow; ox += m) {
                    const int32_t k = ow - ox < m ? ow - ox : m;
                    const int32_t bw = (k - 1) * p->stride_w + span;
                    int8_t *o = out + ((n * c->g.oh + oy) * ow + ox) * cout + oc;
                    int8_t *plane = band + quarters * c->g.kh * bw * 16;
                    band_fill(c, img, oy, ox * p->stride_w - p->pad_w, oc, passes, cb & 8, bw,
                              oy > 0 && k == ow && down1, band);
#if defined(__OPTIMIZE__)
                    if (quarters > 0) {
                        bc.x_step = p->dilation_w * 16;
                        bc.y_step = bw * 16;
                        run_quarters(&bc, q, quarters, band, c->g.kh * bw * 16, bw * 16,
                                     bw * 16, k, p->stride_w * 16, o);
                    }
#endif
                    for (j = quarters; j < passes + ((cb & 8) != 0); ++j) {
                        const int32_t width = j < passes ? 16 : 8, xpix = p->stride_w * width;
                        const int32_t two = q[j].order == DW_PAIRS8 ? k & ~1 : k;
                        bc.x_step = p->dilation_w * width;
                        bc.y_step = bw * width;
                        if (two > 0) {
                            run(&bc, &q[j], width, plane, c->w + oc + 16 * j, two, xpix,
                                o + 16 * j);
                        }
                        if (two < k) {
                            run(&bc, &q[j + 1], width, plane + two * xpix, c->w + oc + 16 * j,
                                k - two, xpix, o + two * cout + 16 * j);
                        }
                        plane += c->g.kh * bw * width;
                    }
                }
            }
        }
    }
    return chans;
}

#endif
