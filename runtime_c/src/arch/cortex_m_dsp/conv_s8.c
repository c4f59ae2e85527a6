/* conv_s8.c (Cortex-M DSP) - rt_conv2d_s8 on 2x2 tiles: two output pixels by two filters
 * share every load. Four input bytes become two pairs of halfwords with the input offset added
 * (SXTAB16), four filter bytes two more (SXTB16), and eight SMLADs make sixteen
 * multiply-accumulates.
 *
 * One group whose requantization the pointwise layers' pairs' loop takes (conv_dsp.h: an even
 * Cout, shifts in [-22, 0], sums under 2^30, the activation all of int8; every real layer)
 * takes the pairs' path: the two pixels' patches are gathered (the filter length padded to a
 * multiple of 4 with zero-point taps and zero weights), widened to doubled halfwords once per
 * table of 64 filters, and one written-out loop runs every filter pair over them and
 * requantizes and stores as it goes (conv_pairs). Long patches (148 to 576 taps of whole
 * words: a 3x3 filter over 32 or 64 channels) with an even Cout go four pixels at a time by
 * filter pairs through conv_kxk.h's loop (conv_kxk): each quad's patches widened once for up
 * to 64 filters, straight from the input rows, and the filter words split by SXTB16 in the
 * loop. Shorter patches (up to 288 taps) on maps of 16 pixels or more go four pixels at a
 * time by filter pairs too (conv_quads, conv_dsp.h's quads): the filters widened once a layer
 * into a table, as many pairs as the stack buffer leaves room for, and per table each quad's
 * patches widened once, straight from the input rows when the quad lies inside it
 * (quad_inside), else gathered first; filter rows not of whole words (a first layer's 3x3
 * over 3 channels) are taken in an order of their own that widens them straight from the
 * input rows as well (split_quad). Other short patches (up to 144 taps) go six pixels at a
 * time through the pointwise layers' blocks (conv_blocks). Each path's buffers are in a
 * function of its own (noinline), so that no two paths' are on the stack together. Other
 * groups whose sums are proved in range
 * take the widened path: the patches widened to halfwords once, on the stack, every filter
 * pair over them in one loop, 18 instructions per 16 multiply-accumulates, each tile
 * requantized in C. Otherwise the taps of one filter row are contiguous in both the NHWC
 * input and the OHWI filter, so a row of taps is one run of the dot product; taps outside
 * the input are skipped, as in the portable kernel. When those runs are not whole words (Cin
 * per group not a multiple of 4, e.g. a first layer on one or three channels) and the
 * scratch holds two patches, the two pixels' taps are gathered first (padding as the input
 * zero point, which adds nothing) and each tile is one run over the whole filter. Pointwise
 * layers have their own entry point (conv_1x1_s8.c). Same sums, same requantization:
 * bit-exact with int8/conv_s8.c. */
#include "conv_kxk.h"
#include "dsp_variants.h"

/* One pixel, two filters: a[0] += x.w0, a[1] += x.w1. */
static RT_DSP_NOINLINE void dot_1x2(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
                    int32_t x_off, int32_t *a)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t a0 = a[0], a1 = a[1], i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32_t xv = rt_dsp_load4(x + i);
        const int16x2_t xe = rt_dsp_even(off2, xv), xo = rt_dsp_odd(off2, xv);
        const int32_t v0 = rt_dsp_load4(w0 + i), v1 = rt_dsp_load4(w1 + i);
        a0 = __smlad(xe, rt_dsp_w_even(v0), __smlad(xo, rt_dsp_w_odd(v0), a0));
        a1 = __smlad(xe, rt_dsp_w_even(v1), __smlad(xo, rt_dsp_w_odd(v1), a1));
    }
    for (; i < n; ++i) {
        const int32_t u = (int32_t)x[i] + x_off;
        a0 += u * w0[i];
        a1 += u * w1[i];
    }
    a[0] = a0;
    a[1] = a1;
}

/* The 2x2 tile's sums over rows runs of n taps: a[0] += x0.w0, a[1] += x0.w1,
 * a[2] += x1.w0, a[3] += x1.w1 (x + x_off); after each run the inputs step on by x_skip and
 * the filters by w_skip.
 *
 * The loop needs fifteen values live (four sums, four pointers, six halfword pairs and the
 * offset pair), one more than Thumb-2 has registers, and gcc spills the pointers it then
 * post-increments (three loads and stores a turn). Written out, the offset pair and the end are
 * reloaded from the stack once a turn instead: 24 instructions for 16 multiply-accumulates,
 * every run of a window in one call. It takes whole words (n a multiple of 4); other runs and
 * an unoptimized build (-O0 keeps r7 for the frame) take the C loop. */
static void dot_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                    int32_t rows, int32_t n, int32_t x_skip, int32_t w_skip, int32_t x_off,
                    int32_t *a)
{
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t a00 = a[0], a01 = a[1], a10 = a[2], a11 = a[3], r, i;
#if defined(__OPTIMIZE__)
    /* whole words; one run may end in a tail of 1 to 3 taps, finished by the C loop */
    const int32_t words = n & ~3;
    if (words > 0 && rows > 0 && (words == n || (rows == 1 && x_skip == 0 && w_skip == 0))) {
        const int8_t *end = x0;
        int32_t t0, t1, t2, t3, t4, t5;
        __asm__ volatile(
            "2:\n\t"
            "ldr %[t5], %[n]\n\t"
            "add %[t5], %[x0], %[t5]\n\t"
            "str %[t5], %[end]\n\t"
            "1:\n\t"
            RT_DSP_2X2_TURN
            "ldr %[t5], %[end]\n\t"
            "cmp %[x0], %[t5]\n\t"
            "bne 1b\n\t"
            "ldr %[t5], %[xs]\n\t"
            "add %[x0], %[x0], %[t5]\n\t"
            "add %[x1], %[x1], %[t5]\n\t"
            "ldr %[t5], %[ws]\n\t"
            "add %[w0], %[w0], %[t5]\n\t"
            "add %[w1], %[w1], %[t5]\n\t"
            "ldr %[t5], %[rows]\n\t"
            "subs %[t5], %[t5], #1\n\t"
            "str %[t5], %[rows]\n\t"
            "bne 2b"
            : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11),
              [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1),
              [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
              [t4] "=&r"(t4), [t5] "=&r"(t5), [end] "+m"(end), [rows] "+m"(rows)
            : [off] "m"(off2), [n] "m"(words), [xs] "m"(x_skip), [ws] "m"(w_skip)
            : "cc", "memory");
        /* what is left: nothing, or the tail of the one run (from where the loop stopped) */
        n -= words;
        rows = n > 0 ? 1 : 0;
    }
#endif
    for (r = 0; r < rows; ++r) {
        for (i = 0; i + 4 <= n; i += 4) {
            const int32_t xa = rt_dsp_load4(x0 + i), xb = rt_dsp_load4(x1 + i);
            const int16x2_t ae = rt_dsp_even(off2, xa), ao = rt_dsp_odd(off2, xa);
            const int16x2_t be = rt_dsp_even(off2, xb), bo = rt_dsp_odd(off2, xb);
            int32_t wv = rt_dsp_load4(w0 + i);
            int16x2_t we = rt_dsp_w_even(wv), wo = rt_dsp_w_odd(wv);
            a00 = __smlad(ae, we, __smlad(ao, wo, a00));
            a10 = __smlad(be, we, __smlad(bo, wo, a10));
            wv = rt_dsp_load4(w1 + i);
            we = rt_dsp_w_even(wv);
            wo = rt_dsp_w_odd(wv);
            a01 = __smlad(ae, we, __smlad(ao, wo, a01));
            a11 = __smlad(be, we, __smlad(bo, wo, a11));
        }
        for (; i < n; ++i) {
            const int32_t u = (int32_t)x0[i] + x_off, v = (int32_t)x1[i] + x_off;
            a00 += u * w0[i];
            a01 += u * w1[i];
            a10 += v * w0[i];
            a11 += v * w1[i];
        }
        x0 += n + x_skip;
        x1 += n + x_skip;
        w0 += n + w_skip;
        w1 += n + w_skip;
    }
    a[0] = a00;
    a[1] = a01;
    a[2] = a10;
    a[3] = a11;
}

/* What stays fixed across a layer's tiles. */
typedef struct conv_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int8_t *w;
    const int32_t *bias;
    int32_t fsize;     /* KH * KW * Cin/groups: one filter */
    int32_t cout_g;    /* filters per group */
    int32_t row;       /* W * Cin: one input row */
    int32_t runs;      /* 1: a filter row of taps is one contiguous run of the input */
    int8_t *patch;     /* two gathered patches, or NULL */
} conv_ctx;

/* n bytes from src to dst, a word at a time (unaligned), the last n % 4 bytes alone. */
static inline void copy_run(int8_t *dst, const int8_t *src, int32_t n)
{
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        const int32_t v = rt_dsp_load4(src + i);
        __builtin_memcpy(dst + i, &v, sizeof v);
    }
    for (; i < n; ++i) {
        dst[i] = src[i];
    }
}

/* n bytes of dst set to z, a word at a time. */
static inline void fill_run(int8_t *dst, int8_t z, int32_t n)
{
    const uint32_t v = 0x01010101u * (uint8_t)z;
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        __builtin_memcpy(dst + i, &v, sizeof v);
    }
    for (; i < n; ++i) {
        dst[i] = z;
    }
}

/* Pixel v's taps of group c0 / Cin_g as one patch laid out like a filter, the taps outside
 * the input as the input zero point. With one group and dilation_w 1 a filter row is one run
 * of the input: its taps inside are copied as one run, those outside filled, a word at a
 * time. */
static void gather(const conv_ctx *c, const int8_t *img, const rt_s8_window *v,
                   int32_t c0, int8_t *dst)
{
    const rt_conv_s8_params *p = c->p;
    const int8_t zero = (int8_t)(-p->input_offset);
    const int32_t iy0 = v->oy * p->stride_h - p->pad_h, ix0 = v->ox * p->stride_w - p->pad_w;
    const int32_t kw = c->g.kw, cin = c->g.cin, run = kw * cin;
    /* the taps of a row inside the input, when rows are runs: kx0 <= kx < kx1 */
    const int32_t kx0 = ix0 < 0 ? -ix0 : 0, kx1 = ix0 + kw > c->g.w ? c->g.w - ix0 : kw;
    int32_t ky, kx, i;
    for (ky = 0; ky < c->g.kh; ++ky) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        if (c->runs) {
            if (iy < 0 || iy >= c->g.h || kx1 <= kx0) {
                fill_run(dst, zero, run);
            } else {
                fill_run(dst, zero, kx0 * cin);
                copy_run(dst + kx0 * cin, img + iy * c->row + (ix0 + kx0) * cin,
                         (kx1 - kx0) * cin);
                fill_run(dst + kx1 * cin, zero, (kw - kx1) * cin);
            }
            dst += run;
            continue;
        }
        for (kx = 0; kx < kw; ++kx) {
            const int32_t ix = ix0 + kx * p->dilation_w;
            if (iy >= 0 && iy < c->g.h && ix >= 0 && ix < c->g.w) {
                const int8_t *src = img + iy * c->row + ix * cin + c0;
                for (i = 0; i < c->g.cin_g; ++i) {
                    dst[i] = src[i];
                }
            } else {
                for (i = 0; i < c->g.cin_g; ++i) {
                    dst[i] = zero;
                }
            }
            dst += c->g.cin_g;
        }
    }
}

/* Filters w0, w1 over the taps of window a and, when b is not NULL, of window b, which has
 * the same taps inside the input. */
static void taps(const conv_ctx *c, const rt_s8_window *a, const rt_s8_window *b,
                 int32_t c0, const int8_t *w0, const int8_t *w1, int32_t *acc)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin_g = c->g.cin_g, x_off = p->input_offset;
    const int32_t y_step = p->dilation_h * c->row, x_step = p->dilation_w * c->g.cin;
    const int8_t *xa = a->x + c0, *xb = b != NULL ? b->x + c0 : NULL;
    int32_t ky, kx, wk = (a->ky0 * c->g.kw + a->kx0) * cin_g;
    if (c->runs && xb != NULL) {   /* every row of the window in one call */
        const int32_t n = (a->kx1 - a->kx0) * cin_g;
        dot_2x2(xa, xb, w0 + wk, w1 + wk, a->ky1 - a->ky0, n, y_step - n,
                c->g.kw * cin_g - n, x_off, acc);
        return;
    }
    for (ky = a->ky0; ky < a->ky1; ++ky) {
        if (c->runs) {
            dot_1x2(xa, w0 + wk, w1 + wk, (a->kx1 - a->kx0) * cin_g, x_off, acc);
        } else {
            for (kx = 0; kx < a->kx1 - a->kx0; ++kx) {
                const int32_t o = kx * cin_g, xo = kx * x_step;
                if (xb != NULL) {
                    dot_2x2(xa + xo, xb + xo, w0 + wk + o, w1 + wk + o, 1, cin_g, 0, 0, x_off,
                            acc);
                } else {
                    dot_1x2(xa + xo, w0 + wk + o, w1 + wk + o, cin_g, x_off, acc);
                }
            }
        }
        xa += y_step;
        xb = xb != NULL ? xb + y_step : NULL;
        wk += c->g.kw * cin_g;
    }
}

/* Output pixel a and, when b is not NULL, pixel b: every filter. */
static void tile(const conv_ctx *c, const int8_t *img, const rt_s8_window *a,
                 const rt_s8_window *b, int8_t *out_a, int8_t *out_b)
{
    const rt_conv_s8_params *p = c->p;
    int32_t grp, oc;
    for (grp = 0; grp < c->g.groups; ++grp) {
        const int32_t c0 = grp * c->g.cin_g, end = (grp + 1) * c->cout_g;
        if (c->patch != NULL) {
            gather(c, img, a, c0, c->patch);
            if (b != NULL) {
                gather(c, img, b, c0, c->patch + c->fsize);
            }
        }
        for (oc = grp * c->cout_g; oc < end;) {
            /* two filters of the group, or the last one twice */
            const int32_t step = end - oc >= 2 ? 2 : 1;
            const int8_t *w0 = c->w + oc * c->fsize, *w1 = w0 + (step - 1) * c->fsize;
            int32_t acc[4];
            acc[0] = acc[2] = c->bias != NULL ? c->bias[oc] : 0;
            acc[1] = acc[3] = c->bias != NULL ? c->bias[oc + step - 1] : 0;
            if (c->patch == NULL) {
                taps(c, a, b, c0, w0, w1, acc);
            } else if (b != NULL) {
                dot_2x2(c->patch, c->patch + c->fsize, w0, w1, 1, c->fsize, 0, 0,
                        p->input_offset, acc);
            } else {
                dot_1x2(c->patch, w0, w1, c->fsize, p->input_offset, acc);
            }
            rt_dsp_out_2x2(p, oc, step, acc, out_a, b != NULL ? out_b : NULL);
            oc += step;
        }
    }
}

/* Pixels u and v's patches (one group, every tap) widened into xw as rt_dsp_widen_pair lays
 * a pixel pair out, Cin a multiple of 4: tap by tap, straight from the input. A pixel's tap
 * outside the input is a widened zero (x + x_off = 0) in its lanes only. */
static void widen_taps(const conv_ctx *c, const int8_t *img, const rt_s8_window *u,
                       const rt_s8_window *v, int32_t *xw)
{
    const rt_conv_s8_params *p = c->p;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    const int32_t cin = c->g.cin;
    const int32_t uy = u->oy * p->stride_h - p->pad_h, ux = u->ox * p->stride_w - p->pad_w;
    const int32_t vy = v->oy * p->stride_h - p->pad_h, vx = v->ox * p->stride_w - p->pad_w;
    int32_t ky, kx, i;
    for (ky = 0; ky < c->g.kh; ++ky) {
        const int32_t iy = uy + ky * p->dilation_h, jy = vy + ky * p->dilation_h;
        for (kx = 0; kx < c->g.kw; ++kx, xw += cin) {
            const int32_t ix = ux + kx * p->dilation_w, jx = vx + kx * p->dilation_w;
            const int in_u = iy >= 0 && iy < c->g.h && ix >= 0 && ix < c->g.w;
            const int in_v = jy >= 0 && jy < c->g.h && jx >= 0 && jx < c->g.w;
            const int8_t *a = in_u ? img + iy * c->row + ix * cin : img;
            const int8_t *b = in_v ? img + jy * c->row + jx * cin : img;
            if (in_u && in_v) {
                rt_dsp_widen_pair(a, b, cin, off2, xw);
                continue;
            }
            for (i = 0; i < cin; i += 4) {
                const int32_t wa = in_u ? rt_dsp_load4(a + i) : 0;
                const int32_t wb = in_v ? rt_dsp_load4(b + i) : 0;
                xw[i] = in_u ? (int32_t)rt_dsp_even(off2, wa) : 0;
                xw[i + 1] = in_u ? (int32_t)rt_dsp_odd(off2, wa) : 0;
                xw[i + 2] = in_v ? (int32_t)rt_dsp_even(off2, wb) : 0;
                xw[i + 3] = in_v ? (int32_t)rt_dsp_odd(off2, wb) : 0;
            }
        }
    }
}

/* Words the widened path needs: the pixel pair widened (one per patch byte, rounded up to
 * whole groups of 4) and, when Cin is not a multiple of 4, the two int8 patches gathered
 * first (half a word per byte). */
static int32_t widened_words(const conv_ctx *c)
{
    const int32_t f4 = (c->fsize + 3) & ~3;
    return f4 + (c->g.cin % 4 != 0 ? f4 / 2 : 0);
}

/* Windows a and b (every tap inside the input, each filter row one run of the input: one
 * group, dilation_w 1) gathered into two patches f4 bytes apart: the rows' runs copied a word
 * at a time, without the per-tap checks of gather. */
static void gather_inside(const conv_ctx *c, const rt_s8_window *a, const rt_s8_window *b,
                          int32_t f4, int8_t *dst)
{
    const int32_t run = c->g.kw * c->g.cin, step = c->p->dilation_h * c->row;
    const int8_t *xa = a->x, *xb = b->x;
    int32_t ky, i;
    for (ky = 0; ky < c->g.kh; ++ky, xa += step, xb += step, dst += run) {
        for (i = 0; i + 4 <= run; i += 4) {
            const int32_t u = rt_dsp_load4(xa + i), v = rt_dsp_load4(xb + i);
            __builtin_memcpy(dst + i, &u, sizeof u);
            __builtin_memcpy(dst + f4 + i, &v, sizeof v);
        }
        for (; i < run; ++i) {
            dst[i] = xa[i];
            dst[f4 + i] = xb[i];
        }
    }
}

/* Is every tap of window v inside the input? */
static int inside(const conv_ctx *c, const rt_s8_window *v)
{
    return v->ky0 == 0 && v->ky1 == c->g.kh && v->kx0 == 0 && v->kx1 == c->g.kw;
}

/* Windows a and b gathered into two patches of kp bytes (kp >= fsize) at stage and
 * stage + kp, the taps past fsize set to zero, the input zero point (they add nothing). */
static inline __attribute__((always_inline)) void
gather_pair(const conv_ctx *c, const int8_t *img, const rt_s8_window *a, const rt_s8_window *b,
            int32_t kp, int8_t zero, int8_t *stage)
{
    int32_t k = c->fsize;   /* read before the stores, which may alias c */
    if (c->runs && inside(c, a) && inside(c, b)) {
        gather_inside(c, a, b, kp, stage);
    } else {
        gather(c, img, a, 0, stage);
        gather(c, img, b, 0, stage + kp);
    }
    for (; k < kp; ++k) {
        stage[k] = stage[kp + k] = zero;
    }
}

/* The windows of output pixel (*oy, *ox) and, when two, of the next one (b = a otherwise),
 * stepping (*oy, *ox) past them in raster order; returns two. */
static inline __attribute__((always_inline)) int
pixel_pair(const conv_ctx *c, const int8_t *img, int two, int32_t *oy, int32_t *ox,
           rt_s8_window *a, rt_s8_window *b)
{
    rt_s8_window_at(&c->g, c->p, img, *oy, *ox, a);
    if (++*ox == c->g.ow) {
        *ox = 0;
        ++*oy;
    }
    *b = *a;
    if (two) {
        rt_s8_window_at(&c->g, c->p, img, *oy, *ox, b);
        if (++*ox == c->g.ow) {
            *ox = 0;
            ++*oy;
        }
    }
    return two;
}

/* Filters of this many bytes in all, padded to whole words, are copied so (on the stack). */
#define CONV_PAD_BYTES 512

/* The layer's cout filters of fsize taps copied to dst as filters of kp taps, the pad taps 0
 * (kp * cout <= CONV_PAD_BYTES). */
static void pad_filters(const int8_t *w, int32_t cout, int32_t fsize, int32_t kp, int8_t *dst)
{
    int32_t n;
    for (n = 0; n < cout * kp; ++n) {
        dst[n] = n % kp < fsize ? w[n / kp * fsize + n % kp] : 0;
    }
}

/* One group, sums proved in range, xw room for widened_words: output pixels two at a time in
 * raster order (a pair may span two rows; an odd last pixel is its own pair), their patches
 * widened once, then every filter pair over them in one run (rt_dsp_widened_2x2) and the
 * tile stored on the spot. A filter length that is not whole words is padded to them (a copy
 * on the stack, up to CONV_PAD_BYTES in all) or ends in a C tail. */
static RT_DSP_NOINLINE void conv_widened(const conv_ctx *c, const int8_t *in, int8_t *out)
{
    int32_t xw[RT_DSP_WIDE_WORDS];
    const rt_conv_s8_params *p = c->p;
    const int32_t fsize = c->fsize, f4 = (fsize + 3) & ~3, cout = c->g.cout;
    const int full = p->act_min == -128 && p->act_max == 127;
    const int8_t zero = (int8_t)(-p->input_offset);
    int8_t *stage = (int8_t *)(xw + f4);   /* two gathered int8 patches (Cin % 4 != 0) */
    int8_t wpad[CONV_PAD_BYTES];
    const int8_t *wts = c->w;
    int32_t n, words = fsize & ~3, wstep = fsize;
    if (fsize != f4 && cout * f4 <= CONV_PAD_BYTES) {
        /* filters not whole words (a first layer on 3 channels: 27 taps) copied once with
           zeros to whole words, so that no filter pair ends in a tail of single bytes (the
           gathered patches' pad bytes are widened zeros as well) */
        pad_filters(c->w, cout, fsize, f4, wpad);
        wts = wpad;
        words = wstep = f4;
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        const int32_t pixels = c->g.oh * c->g.ow;
        int32_t i, oy = 0, ox = 0, oc, k, two = 1;
        for (i = 0; i < pixels; i += 2, out += two ? 2 * cout : cout) {
            rt_s8_window a, b;
            two = pixel_pair(c, img, i + 1 < pixels, &oy, &ox, &a, &b);
            if (c->g.cin % 4 == 0) {
                widen_taps(c, img, &a, &b, xw);
            } else {
                gather_pair(c, img, &a, &b, f4, zero, stage);
                rt_dsp_widen_pair(stage, stage + f4, f4, rt_dsp_pair(p->input_offset), xw);
            }
            for (oc = 0; oc < cout; oc += 2) {
                const int32_t o1 = cout - oc >= 2 ? oc + 1 : oc;
                const int8_t *w0 = wts + oc * wstep, *w1 = wts + o1 * wstep;
                int32_t acc[4];
                acc[0] = acc[2] = c->bias != NULL ? c->bias[oc] : 0;
                acc[1] = acc[3] = c->bias != NULL ? c->bias[o1] : 0;
                if (words > 0) {
                    rt_dsp_widened_2x2(xw, w0, w1, words, acc);
                }
                for (k = words; k < fsize; ++k) {
                    /* byte k of the last group: word k & 1 of each pixel, halfword k & 2 */
                    const int32_t xa = xw[words + (k & 1)], xb = xw[words + 2 + (k & 1)];
                    const int32_t ua = (k & 2) ? xa >> 16 : (int16_t)xa;
                    const int32_t ub = (k & 2) ? xb >> 16 : (int16_t)xb;
                    acc[0] += ua * w0[k];
                    acc[1] += ua * w1[k];
                    acc[2] += ub * w0[k];
                    acc[3] += ub * w1[k];
                }
                rt_dsp_store_2x2(p, oc, o1, acc, out, two ? out + cout : NULL, full);
            }
        }
    }
}

/* The longest padded patch the pairs' path takes (ResNet-8's 3x3 over 64 channels). */
#define CONV_PAIR_TAPS 576

/* One group (dilation_w 1, or any) whose filters rt_dsp_pw_fits takes over patches of k4
 * taps (the filter length rounded up to a multiple of 4; the pad taps are the input zero
 * point, their weights 0: wts, padded so, k4 bytes a filter): output pixels two at a time in
 * raster order (an odd last pixel is its own pair, stored twice in place), their patches
 * gathered and widened to doubled halfwords once per table of RT_DSP_PW_PAIRS filter pairs,
 * then conv_dsp.h's pairs' loop over every pair of the table, which requantizes and stores
 * as it goes. */
static void conv_pairs(const conv_ctx *c, const int8_t *in, int8_t *out, const int8_t *wts,
                       int32_t k4)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, pixels = c->g.oh * c->g.ow;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    const int8_t zero = (int8_t)(-p->input_offset);
    int8_t stage[2 * CONV_PAIR_TAPS];
    int32_t xw[CONV_PAIR_TAPS];
    rt_dsp_pw_pair t[RT_DSP_PW_PAIRS];
    int32_t oc, n, i;
    for (oc = 0; oc < cout; oc += 2 * RT_DSP_PW_PAIRS) {
        const int32_t pairs = (cout - oc) / 2 < RT_DSP_PW_PAIRS ? (cout - oc) / 2
                                                                 : RT_DSP_PW_PAIRS;
        rt_dsp_pw_table(p, c->bias, oc, pairs, t);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            int8_t *o = out + n * pixels * cout + oc;
            int32_t oy = 0, ox = 0;
            for (i = 0; i < pixels; i += 2, o += 2 * cout) {
                rt_s8_window a, b;
                const int two = pixel_pair(c, img, i + 1 < pixels, &oy, &ox, &a, &b);
                gather_pair(c, img, &a, &b, k4, zero, stage);
                rt_dsp_pw_widen2(stage, stage + k4, k4, off2, xw);
                rt_dsp_pw_pairs(xw, t, wts + oc * k4, k4, pairs, o, two ? cout : 0);
            }
        }
    }
}

/* The longest padded patch the blocks' path takes (a 3x3 filter over 16 channels). */
#define CONV_BLOCK_TAPS 144

/* The patches of output pixels (oy, ox) to (oy, ox + RT_DSP_PX - 1), k4 bytes apart, when they lie
 * in one output row and every tap inside the input, each filter row one run of the input
 * (one group, dilation_w 1): the runs copied straight from window to window, with none of a
 * window's per-pixel arithmetic, the taps past fsize set to zero (the input zero point);
 * returns 0, copying nothing, for any other block. */
static int block_inside(const conv_ctx *c, const int8_t *img, int32_t oy, int32_t ox,
                        int32_t k4, int8_t zero, int8_t *stage)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t iy = oy * p->stride_h - p->pad_h, ix = ox * p->stride_w - p->pad_w;
    const int32_t run = c->g.kw * c->g.cin, ystep = p->dilation_h * c->row;
    const int32_t xstep = p->stride_w * c->g.cin;
    const int8_t *x = img + iy * c->row + ix * c->g.cin;
    int32_t j, ky, k;
    if (!c->runs || ox + RT_DSP_PX > c->g.ow || iy < 0 || ix < 0 ||
        iy + (c->g.kh - 1) * p->dilation_h >= c->g.h ||
        ix + (RT_DSP_PX - 1) * p->stride_w + c->g.kw > c->g.w) {
        return 0;
    }
    for (j = 0; j < RT_DSP_PX; ++j, x += xstep, stage += k4) {
        const int8_t *src = x;
        int8_t *dst = stage;
        for (ky = 0; ky < c->g.kh; ++ky, src += ystep, dst += run) {
            copy_run(dst, src, run);
        }
        for (k = c->fsize; k < k4; ++k) {
            stage[k] = zero;
        }
    }
    return 1;
}

/* conv_pairs for a layer of short patches (k4 <= CONV_BLOCK_TAPS) and at least RT_DSP_PX output
 * pixels an image: the pixels in blocks of RT_DSP_PX in raster order (the last block is the
 * image's last ones, redoing some of the block before it: the same bytes again), their
 * patches gathered and widened once per table of RT_DSP_PX_TABLE filters, then conv_dsp.h's
 * blocks' loop, each filter word split once for the block's pixels. */
static void conv_blocks(const conv_ctx *c, const int8_t *in, int8_t *out, const int8_t *wts,
                        int32_t k4)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, pixels = c->g.oh * c->g.ow;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    const int8_t zero = (int8_t)(-p->input_offset);
    int8_t stage[RT_DSP_PX * CONV_BLOCK_TAPS];
    int32_t xw[RT_DSP_PX * CONV_BLOCK_TAPS / 2];
    rt_dsp_px_filter t[RT_DSP_PX_TABLE];
    int32_t oc, n, i, j;
    for (oc = 0; oc < cout; oc += RT_DSP_PX_TABLE) {
        const int32_t nf = cout - oc < RT_DSP_PX_TABLE ? cout - oc : RT_DSP_PX_TABLE;
        rt_dsp_px_table(p, c->bias, oc, nf, t);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            for (i = 0; i < pixels; i += RT_DSP_PX) {
                const int32_t i0 = i + RT_DSP_PX <= pixels ? i : pixels - RT_DSP_PX;
                int32_t oy = i0 / c->g.ow, ox = i0 % c->g.ow;
                if (!block_inside(c, img, oy, ox, k4, zero, stage)) {
                    for (j = 0; j < RT_DSP_PX; j += 2) {
                        rt_s8_window a, b;
                        pixel_pair(c, img, 1, &oy, &ox, &a, &b);
                        gather_pair(c, img, &a, &b, k4, zero, stage + j * k4);
                    }
                }
                rt_dsp_px_widen(stage, k4, off2, xw);
                rt_dsp_px_filters(xw, t, wts + oc * k4, k4, nf,
                                  out + (n * pixels + i0) * cout + oc, cout);
            }
        }
    }
}

/* The longest padded patch the quads' path takes (a 3x3 filter over 32 channels). */
#define CONV_QUAD_TAPS 288
/* The quads' buffer (RT_DSP_Q_BYTES) carved in turn: four patches (4 * k4 bytes), widened
 * (8 * k4), the filters padded to k4 taps when fsize is not (up to CONV_PAD_BYTES), and the
 * rest a table of widened filter pairs: at 288 taps four pairs (4.7 KB), at 144 taps ten. */

/* The quad of output pixels (oy, ox) to (oy, ox + 3) widened into xq straight from the input
 * when they lie in one output row and every tap inside the input, each filter row one run
 * of whole words (one group, dilation_w 1, kw * Cin a multiple of 4): a run of the four
 * pixels at a time, no gathering; returns 0, widening nothing, for any other quad. */
static int quad_inside(const conv_ctx *c, const int8_t *img, int32_t oy, int32_t ox,
                       int16x2_t off2, int32_t *xq)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t iy = oy * p->stride_h - p->pad_h, ix = ox * p->stride_w - p->pad_w;
    const int32_t run = c->g.kw * c->g.cin, ystep = p->dilation_h * c->row;
    const int32_t xstep = p->stride_w * c->g.cin;
    const int8_t *x = img + iy * c->row + ix * c->g.cin;
    int32_t ky;
    if (!c->runs || run % 4 != 0 || ox + 4 > c->g.ow || iy < 0 || ix < 0 ||
        iy + (c->g.kh - 1) * p->dilation_h >= c->g.h || ix + 3 * p->stride_w + c->g.kw > c->g.w) {
        return 0;
    }
    for (ky = 0; ky < c->g.kh; ++ky, x += ystep, xq += 2 * run) {
        rt_dsp_q_widen(x, x + xstep, x + 2 * xstep, x + 3 * xstep, run, off2, xq);
    }
    return 1;
}

/* Patches whose filter rows are runs of the input but not of whole words (run = Kw * Cin not a
 * multiple of 4: a first layer's 3x3 over 3 channels, 9 bytes a row) go to the quads in an
 * order of their own, so that they are widened straight from the input rows, a word at a time:
 * first each row's whole words (w4 = run & ~3 taps a row), then the rows' last run % 4 taps one
 * after the other, padded to a word with taps of the input zero point and weight 0. The sums
 * are the same products in another order: the filters are copied in that order too
 * (split_filters). */

/* The layer's cout filters of fsize taps copied to dst in the split order, k4 taps each, the
 * pad taps 0 (k4 * cout <= CONV_PAD_BYTES). */
static void split_filters(const conv_ctx *c, int32_t k4, int8_t *dst)
{
    const int32_t run = c->g.kw * c->g.cin, w4 = run & ~3, left = run - w4;
    const int32_t kh = c->g.kh;
    int32_t oc, ky, i;
    for (oc = 0; oc < c->g.cout; ++oc, dst += k4) {
        const int8_t *w = c->w + oc * c->fsize;
        for (i = kh * run; i < k4; ++i) {
            dst[i] = 0;
        }
        for (ky = 0; ky < kh; ++ky, w += run) {
            for (i = 0; i < w4; ++i) {
                dst[ky * w4 + i] = w[i];
            }
            for (i = 0; i < left; ++i) {
                dst[kh * w4 + ky * left + i] = w[w4 + i];
            }
        }
    }
}

/* The most taps the rows' last ones of a patch in the split order come to (Kh * (run % 4)). */
#define CONV_SPLIT_TAIL 16

/* The quad of output pixels from (oy, ox) on (in raster order) widened into xq in the split
 * order (rt_dsp_q_widen's layout): each pixel's rows straight from the input when its every
 * tap is inside it, else from its patch gathered first (stage, k4 bytes a pixel); a row's
 * whole words the four pixels' at a time, their last taps gathered (tail, a row of
 * CONV_SPLIT_TAIL bytes a pixel, whose pad taps the caller has set to the input zero point)
 * and widened after every row's words. */
static void split_quad(const conv_ctx *c, const int8_t *img, int32_t oy, int32_t ox,
                       int32_t k4, int16x2_t off2, int8_t (*tail)[CONV_SPLIT_TAIL],
                       int8_t *stage, int32_t *xq)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t run = c->g.kw * c->g.cin, w4 = run & ~3, left = run - w4;
    const int32_t t4 = (c->g.kh * left + 3) & ~3;
    const int32_t iy = oy * p->stride_h - p->pad_h, ix = ox * p->stride_w - p->pad_w;
    const int32_t xstep = p->stride_w * c->g.cin;
    const int8_t *x[4];
    int32_t pitch[4], j, ky, i;
    if (ox + 4 <= c->g.ow && iy >= 0 && ix >= 0 &&
        iy + (c->g.kh - 1) * p->dilation_h < c->g.h && ix + 3 * p->stride_w + c->g.kw <= c->g.w) {
        /* the quad inside the input, in one output row: a row's words of the four pixels
           widened in one loop, no window worked out */
        const int8_t *r = img + iy * c->row + ix * c->g.cin;
        int8_t *t = &tail[0][0];
        for (ky = 0; ky < c->g.kh; ++ky, r += p->dilation_h * c->row, t += left) {
            int32_t *dst = xq + 2 * ky * w4;
            for (i = 0; i < w4; i += 4, dst += 8) {
                const int32_t a = rt_dsp_load4(r + i), b = rt_dsp_load4(r + xstep + i);
                const int32_t d = rt_dsp_load4(r + 2 * xstep + i);
                const int32_t e = rt_dsp_load4(r + 3 * xstep + i);
                dst[0] = (int32_t)rt_dsp_even(off2, a);
                dst[1] = (int32_t)rt_dsp_even(off2, b);
                dst[2] = (int32_t)rt_dsp_even(off2, d);
                dst[3] = (int32_t)rt_dsp_even(off2, e);
                dst[4] = (int32_t)rt_dsp_odd(off2, a);
                dst[5] = (int32_t)rt_dsp_odd(off2, b);
                dst[6] = (int32_t)rt_dsp_odd(off2, d);
                dst[7] = (int32_t)rt_dsp_odd(off2, e);
            }
            for (i = 0; i < left; ++i) {
                t[i] = r[w4 + i];
                t[CONV_SPLIT_TAIL + i] = r[xstep + w4 + i];
                t[2 * CONV_SPLIT_TAIL + i] = r[2 * xstep + w4 + i];
                t[3 * CONV_SPLIT_TAIL + i] = r[3 * xstep + w4 + i];
            }
        }
    } else {
        for (j = 0; j < 4; ++j) {
            rt_s8_window v;
            rt_s8_window_at(&c->g, p, img, oy, ox, &v);
            if (inside(c, &v)) {
                x[j] = v.x;
                pitch[j] = p->dilation_h * c->row;
            } else {
                gather(c, img, &v, 0, stage + j * k4);
                x[j] = stage + j * k4;
                pitch[j] = run;
            }
            if (++ox == c->g.ow) {
                ox = 0;
                ++oy;
            }
        }
        for (ky = 0; ky < c->g.kh; ++ky) {
            if (w4 > 0) {
                rt_dsp_q_widen(x[0], x[1], x[2], x[3], w4, off2, xq + 2 * ky * w4);
            }
            for (j = 0; j < 4; ++j) {
                for (i = 0; i < left; ++i) {
                    tail[j][ky * left + i] = x[j][w4 + i];
                }
                x[j] += pitch[j];
            }
        }
    }
    xq += 2 * c->g.kh * w4;
    if (t4 == 4) {   /* a 3x3 filter over 3 channels: one word a pixel */
        const int32_t a = rt_dsp_load4(tail[0]), b = rt_dsp_load4(tail[1]);
        const int32_t d = rt_dsp_load4(tail[2]), e = rt_dsp_load4(tail[3]);
        xq[0] = (int32_t)rt_dsp_even(off2, a);
        xq[1] = (int32_t)rt_dsp_even(off2, b);
        xq[2] = (int32_t)rt_dsp_even(off2, d);
        xq[3] = (int32_t)rt_dsp_even(off2, e);
        xq[4] = (int32_t)rt_dsp_odd(off2, a);
        xq[5] = (int32_t)rt_dsp_odd(off2, b);
        xq[6] = (int32_t)rt_dsp_odd(off2, d);
        xq[7] = (int32_t)rt_dsp_odd(off2, e);
    } else {
        rt_dsp_q_widen(tail[0], tail[1], tail[2], tail[3], t4, off2, xq);
    }
}

/* Whether the quads take the layer's filter rows in the split order (rows not of whole
 * words: a copy of the filters in it). */
static int quads_split(const conv_ctx *c, int32_t k4)
{
    return c->runs && c->g.kw * c->g.cin % 4 != 0 && c->g.cout * k4 <= CONV_PAD_BYTES &&
           c->g.kh * (c->g.kw * c->g.cin % 4) <= CONV_SPLIT_TAIL;
}

/* The quads' padded filters' bytes (0: the filters as they are). */
static int32_t quads_pad(const conv_ctx *c, int32_t k4)
{
    return k4 != c->fsize || quads_split(c, k4) ? (c->g.cout * k4 + 3) & ~3 : 0;
}

/* The filter pairs a table of the quads holds. */
static int32_t quads_table(const conv_ctx *c, int32_t k4)
{
    return rt_dsp_q_pairs_a_table(c->g.cout / 2, k4, RT_DSP_Q_BYTES - 12 * k4 - quads_pad(c, k4));
}

/* conv_pairs for patches of k4 <= CONV_QUAD_TAPS taps and at least RT_DSP_Q_PIXELS output
 * pixels an image: filter pairs a table at a time (widened once, conv_dsp.h), output pixels
 * four at a time in raster order inside (the last quad the image's last four, redoing some of
 * the one before it), their patches gathered and widened once per table. Its buffers are its
 * own, off the stack once it returns (noinline), so that no other path's coexist with them. */
static RT_DSP_NOINLINE void conv_quads(const conv_ctx *c, const int8_t *in, int8_t *out,
                                       int32_t k4)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, pixels = c->g.oh * c->g.ow;
    const int split = quads_split(c, k4);
    const int32_t pad = quads_pad(c, k4), most = quads_table(c, k4);
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    const int8_t zero = (int8_t)(-p->input_offset);
    int32_t buf[RT_DSP_Q_BYTES / 4];
    int32_t *const xq = buf, *const wt = buf + 3 * k4 + pad / 4;
    int8_t *const stage = (int8_t *)(buf + 2 * k4), *const wpad = (int8_t *)(buf + 3 * k4);
    int8_t tail[4][CONV_SPLIT_TAIL];   /* split_quad's: the rows' last taps of each pixel */
    const int8_t *wts = c->w;
    int32_t oc, nb, n, i;
    if (split) {
        split_filters(c, k4, wpad);
        wts = wpad;
        /* the pad taps of the rows' last ones: the input zero point, set once */
        fill_run(&tail[0][0], zero, (int32_t)sizeof tail);
    } else if (pad > 0) {
        pad_filters(c->w, cout, c->fsize, k4, wpad);
        wts = wpad;
    }
    for (oc = 0; oc < cout; oc += 2 * nb) {
        nb = (cout - oc) / 2 < most ? (cout - oc) / 2 : most;
        rt_dsp_q_table(p, c->bias, wts, k4, oc, nb, wt);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            for (i = 0; i < pixels; i += 4) {
                const int32_t i0 = i + 4 <= pixels ? i : pixels - 4;
                int32_t oy = i0 / c->g.ow, ox = i0 % c->g.ow;
                if (split) {
                    split_quad(c, img, oy, ox, k4, off2, tail, stage, xq);
                } else if (!quad_inside(c, img, oy, ox, off2, xq)) {
                    rt_s8_window a, b;
                    pixel_pair(c, img, 1, &oy, &ox, &a, &b);
                    gather_pair(c, img, &a, &b, k4, zero, stage);
                    pixel_pair(c, img, 1, &oy, &ox, &a, &b);
                    gather_pair(c, img, &a, &b, k4, zero, stage + 2 * k4);
                    rt_dsp_q_widen(stage, stage + k4, stage + 2 * k4, stage + 3 * k4, k4, off2,
                                   xq);
                }
                rt_dsp_q_pairs(xq, wt, k4, nb, out + (n * pixels + i0) * cout + oc, cout);
            }
        }
    }
}

/* The shortest patch the long patches' path takes: shorter ones (a 3x3 filter over 16
 * channels) run as fast through the quads of conv_dsp.h, whose table then holds many pairs. */
#define CONV_KXK_MIN 148

/* Output pixel (oy, ox)'s patch widened into its lane of a quad, xq (rt_kxk_widen), straight
 * from the input rows, its taps outside the input widened zeros: each filter row one run of
 * the input (one group, dilation_w 1), Cin a multiple of 4. */
static void kxk_window(const conv_ctx *c, const int8_t *img, int32_t oy, int32_t ox,
                       int16x2_t off2, int32_t *xq)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
    const int32_t kw = c->g.kw, cin = c->g.cin, run = kw * cin;
    /* the taps of a row inside the input: kx0 <= kx < kx1 */
    const int32_t kx0 = ix0 < 0 ? -ix0 : 0, kx1 = ix0 + kw > c->g.w ? c->g.w - ix0 : kw;
    int32_t ky;
    for (ky = 0; ky < c->g.kh; ++ky, xq += 2 * run) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        if (iy < 0 || iy >= c->g.h || kx1 <= kx0) {
            rt_kxk_zero(run, xq);
            continue;
        }
        rt_kxk_zero(kx0 * cin, xq);
        rt_kxk_widen(img + iy * c->row + (ix0 + kx0) * cin, (kx1 - kx0) * cin, off2,
                     xq + 2 * kx0 * cin);
        rt_kxk_zero((kw - kx1) * cin, xq + 2 * kx1 * cin);
    }
}

/* One group whose filters rt_dsp_pw_fits takes, of k taps (a multiple of 4, from
 * CONV_KXK_MIN to RT_KXK_TAPS), an even Cout, at least four output pixels an image: the
 * pixels four at a time in raster order (the last quad the image's last four, redoing some of
 * the one before it), their patches widened once per table of RT_KXK_PAIRS filter pairs
 * (straight from the input rows when each filter row is one run of whole words, else
 * gathered first), then every pair of the table over them (conv_kxk.h). Its buffers are its
 * own, off the stack once it returns (noinline). */
static RT_DSP_NOINLINE void conv_kxk(const conv_ctx *c, const int8_t *in, int8_t *out,
                                     int32_t k)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, pixels = c->g.oh * c->g.ow;
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xq[2 * RT_KXK_TAPS];
    int8_t stage[RT_KXK_TAPS];
    rt_kxk_pair t[RT_KXK_PAIRS];
    const int direct = c->runs && c->g.cin % 4 == 0;
    int32_t oc, n, i, j;
    for (oc = 0; oc < cout; oc += 2 * RT_KXK_PAIRS) {
        const int32_t pairs = (cout - oc) / 2 < RT_KXK_PAIRS ? (cout - oc) / 2 : RT_KXK_PAIRS;
        rt_kxk_table(p, c->bias, oc, pairs, t);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            for (i = 0; i < pixels; i += 4) {
                const int32_t i0 = i + 4 <= pixels ? i : pixels - 4;
                int32_t oy = i0 / c->g.ow, ox = i0 % c->g.ow;
                for (j = 0; j < 4; ++j) {
                    if (direct) {
                        kxk_window(c, img, oy, ox, off2, xq + j);
                    } else {
                        rt_s8_window v;
                        rt_s8_window_at(&c->g, p, img, oy, ox, &v);
                        gather(c, img, &v, 0, stage);
                        rt_kxk_widen(stage, k, off2, xq + j);
                    }
                    if (++ox == c->g.ow) {
                        ox = 0;
                        ++oy;
                    }
                }
                rt_kxk_pairs(xq, t, c->w + oc * k, k, pairs, out + (n * pixels + i0) * cout + oc,
                             cout);
            }
        }
    }
}

/* The pairs' and blocks' paths, with the filters padded to k4 taps when fsize is not (a copy
 * on the stack), their buffers off the stack once it returns. */
static RT_DSP_NOINLINE void conv_short(const conv_ctx *c, const int8_t *in, int8_t *out,
                                       int32_t k4, int blocks)
{
    int8_t wpad[CONV_PAD_BYTES];
    const int8_t *wts = c->w;
    if (k4 != c->fsize) {
        pad_filters(c->w, c->g.cout, c->fsize, k4, wpad);
        wts = wpad;
    }
    if (blocks) {
        conv_blocks(c, in, out, wts, k4);
    } else {
        conv_pairs(c, in, out, wts, k4);
    }
}

rt_status rt_conv2d_s8(const rt_scratch *scratch, const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    conv_ctx c;
    int32_t n, need, k4, blocks;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.fsize = c.g.kh * c.g.kw * c.g.cin_g;
    k4 = (c.fsize + 3) & ~3;
    c.cout_g = c.g.cout / c.g.groups;
    c.row = c.g.w * c.g.cin;
    c.runs = c.g.groups == 1 && p->dilation_w == 1;
    blocks = k4 <= CONV_BLOCK_TAPS && c.g.oh * c.g.ow >= RT_DSP_PX;
    if (c.g.groups == 1 && k4 <= CONV_PAIR_TAPS && (blocks || c.g.cout % 2 == 0) &&
        rt_dsp_pw_fits(p, bias, k4, c.g.cout) &&
        (k4 == c.fsize || c.g.cout * k4 <= CONV_PAD_BYTES)) {
        /* filters not a multiple of 4 taps (a first layer's 27) copied once with zeros */
        if (RT_DSP_HAS(RT_DSP_U_CONV_KXK) && c.g.cout % 2 == 0 && k4 == c.fsize &&
            k4 >= CONV_KXK_MIN && k4 <= RT_KXK_TAPS && c.g.oh * c.g.ow >= 4) {
            conv_kxk(&c, in, out, k4);
        } else if (c.g.cout % 2 == 0 && k4 <= CONV_QUAD_TAPS &&
                   c.g.oh * c.g.ow >= RT_DSP_Q_PIXELS &&
                   (!rt_conv_s8_over_input(&c.g, in, out) || quads_table(&c, k4) >= c.g.cout / 2)) {
            /* (over its input, aot/overlap.py: the quads only where one table holds every
               filter, so pixels are written in order; the pairs and blocks hold 64) */
            conv_quads(&c, in, out, k4);
        } else {
            conv_short(&c, in, out, k4, blocks);
        }
        return RT_OK;
    }
    if (c.g.groups == 1 && widened_words(&c) <= RT_DSP_WIDE_WORDS &&
        rt_dsp_layer_in_range(p, bias, c.fsize, c.g.cout)) {
        conv_widened(&c, in, out);
        return RT_OK;
    }
    need = rt_conv_s8_patch_bytes(w_s);
    c.patch = (need > 0 && scratch != NULL && scratch->buf != NULL && scratch->size >= need)
                  ? (int8_t *)scratch->buf : NULL;
    for (n = 0; n < c.g.n; ++n) {
        /* output pixels two at a time in raster order (a pair may span two rows) */
        const int8_t *img = in + n * c.g.h * c.row;
        const int32_t pixels = c.g.oh * c.g.ow;
        int32_t i = 0, oy = 0, ox = 0;
        while (i < pixels) {
            rt_s8_window a, b;
            rt_s8_window_at(&c.g, p, img, oy, ox, &a);
            if (++ox == c.g.ow) {
                ox = 0;
                ++oy;
            }
            if (i + 1 < pixels) {
                rt_s8_window_at(&c.g, p, img, oy, ox, &b);
                if (c.patch != NULL || (a.ky0 == b.ky0 && a.ky1 == b.ky1 && a.kx0 == b.kx0 &&
                                        a.kx1 == b.kx1)) {
                    tile(&c, img, &a, &b, out, out + c.g.cout);
                    out += 2 * c.g.cout;
                    i += 2;
                    if (++ox == c.g.ow) {
                        ox = 0;
                        ++oy;
                    }
                    continue;
                }
            }
            tile(&c, img, &a, NULL, out, NULL);
            out += c.g.cout;
            i += 1;
        }
    }
    return RT_OK;
}
