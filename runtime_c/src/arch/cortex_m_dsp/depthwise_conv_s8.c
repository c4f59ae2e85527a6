/* depthwise_conv_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_s8 four channels at a time (the
 * outer loop). A quad's filter taps are widened to halfwords once, pre-scaled so that one
 * SMMLAR requantizes; its input rows are widened once each (offset added, padding as zeros)
 * into a ring on the stack, so every output pixel, border or not, is the same run of taps:
 * one LDRD of inputs, one of filter halfwords and four halfword multiply-accumulates (SMLABB,
 * SMLATT) per tap, a row of output pixels in one written-out loop (rows of up to four taps
 * written out, longer ones a loop) that also requantizes and stores. Images wider than the
 * ring go in column slices. A channel multiplier of 4k (a first layer on one channel, say)
 * reads one input for the four channels. Layers this does not fit (dilation, other
 * multipliers, shifts, sums out of range, clamped activations) and the last Cout % 4 channels
 * take the one-channel loop. A build compiles only the paths its model takes (dsp_variants.h).
 * Same sums, same requantization: bit-exact with int8/depthwise_conv_s8.c. */
#include "dsp_variants.h"
#include "dw_dsp.h"

#define DW_TAPS 48          /* filter taps a quad widens (10x4 and less) */
#define DW_ROWS 12          /* filter rows */
#define DW_RING_WORDS 448   /* the ring of widened input rows: (KH + 1) x padded width x 2 */

/* A quad's constants on the stack: the accumulator's start and four channels'
 * requantization in front of the filter taps (the loop reads them at negative offsets from
 * the taps). Filter halfwords and bias carry the factor 2^pre = 2^(1 + max(shift, 0)), so
 * the sum is x * 2^pre, SMMLAR's input (see rt_dsp_requant); the rounding shift right by e
 * then adds half + out_off * 2^e (c1) and, for e > 0, -1 when the sum is negative (neg). */
typedef struct dw_quad {
    int32_t acc0[4];          /* bias * 2^pre */
    int32_t rq[4][4];         /* neg, c1, mult, e per channel */
    int32_t wq[2 * DW_TAPS];  /* per tap channels 0 and 2 as halfwords, then 1 and 3 */
} dw_quad;

/* What stays fixed across a layer. */
typedef struct dw_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int32_t *bias;
    int32_t mult;             /* channel multiplier */
    int32_t pw;               /* a ring row's columns: the ones the slice's outputs read */
    int32_t pad_w;            /* the slice's padding columns on the left */
    int32_t row, orow;        /* an input row, an output row of the layer (bytes) */
} dw_ctx;

/* Can the quads take the layer: its requantization pre-scaled (rt_dsp_dw_requant_fits), the
 * taps and a ring row of one output column's window (c->pw) fit? */
static int quad_fits(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t taps = c->g.kh * c->g.kw;
    return p->dilation_h == 1 && p->dilation_w == 1 && (c->mult == 1 || c->mult % 4 == 0) &&
           taps <= DW_TAPS && c->g.kh <= DW_ROWS &&
           (c->g.kh + 1) * c->pw * 2 <= DW_RING_WORDS &&
           rt_dsp_dw_requant_fits(p, c->bias, c->g.cout, taps);
}

/* Channels oc..oc+3's constants (see dw_quad). */
static void quad_setup(const dw_ctx *c, const int8_t *w, int32_t oc, dw_quad *q)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t taps = c->g.kh * c->g.kw;
    int32_t j, t, pre[4];
    for (j = 0; j < 4; ++j) {
        const int32_t s = p->shift[oc + j], e = s < 0 ? -s : 0;
        pre[j] = 1 + (s > 0 ? s : 0);
        q->acc0[j] = (c->bias != NULL ? c->bias[oc + j] : 0) * (1 << pre[j]);
        q->rq[j][0] = -(e > 0);
        q->rq[j][1] = ((1 << e) >> 1) + p->output_offset * (1 << e);
        q->rq[j][2] = p->mult[oc + j];
        q->rq[j][3] = e;
    }
    for (t = 0; t < taps; ++t) {   /* channel j: word j & 1, halfword j >> 1 */
        const int8_t *v = w + t * c->g.cout + oc;
        q->wq[2 * t] = (int32_t)((uint16_t)(v[0] * (1 << pre[0])) |
                                 (uint32_t)(v[2] * (1 << pre[2])) << 16);
        q->wq[2 * t + 1] = (int32_t)((uint16_t)(v[1] * (1 << pre[1])) |
                                     (uint32_t)(v[3] * (1 << pre[3])) << 16);
    }
}

/* An input row (channel xo on) widened over the slice's columns: per column the quad's four
 * inputs plus the offset as halfwords, channels 0 and 2 then 1 and 3 (one input four times
 * when the quad shares it). The padding columns keep the zeros the ring started with. */
static void widen_row(const dw_ctx *c, const int8_t *src, int32_t *dst)
{
    const int32_t x_off = c->p->input_offset, cin = c->g.cin, pad = c->pad_w;
    const int16x2_t off2 = rt_dsp_pair(x_off);
    const int32_t *const end = dst + 2 * (c->pw < pad + c->g.w ? c->pw : pad + c->g.w);
    dst += 2 * pad;
    if (dst >= end) {
        return;
    }
    if (c->mult != 1) {
#if defined(__OPTIMIZE__)
        int32_t v, a;
        __asm__ volatile(   /* the byte in bytes 0 and 2, SXTAB16, one STRD: seven a column */
            "1:\n\t"
            "ldrb %[v], [%[src]]\n\t"
            "add %[src], %[src], %[cin]\n\t"
            "orr %[v], %[v], %[v], lsl #16\n\t"
            "sxtab16 %[a], %[off], %[v]\n\t"
            "strd %[a], %[a], [%[dst]], #8\n\t"
            "cmp %[dst], %[end]\n\t"
            "bne 1b"
            : [v] "=&r"(v), [a] "=&r"(a), [src] "+r"(src), [dst] "+r"(dst)
            : [off] "r"(off2), [cin] "r"(cin), [end] "r"(end)
            : "cc", "memory");
#else
        for (; dst < end; dst += 2, src += cin) {
            dst[0] = dst[1] = (int32_t)rt_dsp_pair(*src + x_off);
        }
#endif
    } else {
#if defined(__OPTIMIZE__)
        int32_t v, a, b;
        __asm__ volatile(   /* seven instructions a column */
            "1:\n\t"
            "ldr %[v], [%[src]]\n\t"
            "add %[src], %[src], %[cin]\n\t"
            "sxtab16 %[a], %[off], %[v]\n\t"
            "sxtab16 %[b], %[off], %[v], ror #8\n\t"
            "strd %[a], %[b], [%[dst]], #8\n\t"
            "cmp %[dst], %[end]\n\t"
            "bne 1b"
            : [v] "=&r"(v), [a] "=&r"(a), [b] "=&r"(b), [src] "+r"(src), [dst] "+r"(dst)
            : [off] "r"(off2), [cin] "r"(cin), [end] "r"(end)
            : "cc", "memory");
#else
        for (; dst < end; dst += 2, src += cin) {
            const int32_t v = rt_dsp_load4(src);
            dst[0] = (int32_t)rt_dsp_even(off2, v);
            dst[1] = (int32_t)rt_dsp_odd(off2, v);
        }
#endif
    }
}

/* One channel's requantization as the written-out loop does it: SMMLAR adds c1. */
#if !defined(__OPTIMIZE__)
static int32_t quad_rq(const int32_t *rq, int32_t acc)
{
    const int32_t t = (rq[0] & (acc >> 31)) + rq[1];
    return rt_dsp_sat8((t + rt_dsp_smmulr(acc, rq[2])) >> rq[3]);
}
#endif

/* A row of n output pixels of one quad: rows[] the tap rows' widened inputs (NULL after the
 * last), pixel i reading columns from i * step on; outputs at o, o + cout, ... */
static RT_DSP_NOINLINE RT_DSP_ADR_ALIGNED void quad_row(
    const dw_quad *q, int32_t *const *rows, int32_t kw, int32_t step, int32_t cout, int32_t n,
    int8_t *o)
{
#if defined(__OPTIMIZE__)
    const int32_t *wb = q->wq;
    int32_t a0, a1, a2, a3, t0, t1, t2, t3, k, po = 0, entry = 0;
    const int32_t *x, *wp;
    int32_t *const *rp;
    step *= 8;
#define DW_TAP \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t" \
    "ldrd %[t2], %[t3], [%[wp]], #8\n\t" \
    "smlabb %[a0], %[t0], %[t2], %[a0]\n\t" \
    "smlatt %[a2], %[t0], %[t2], %[a2]\n\t" \
    "smlabb %[a1], %[t1], %[t3], %[a1]\n\t" \
    "smlatt %[a3], %[t1], %[t3], %[a3]\n\t"
#define DW_RQ(a, at) \
    "ldrd %[t0], %[t1], [%[wp], #" #at "]\n\t"    /* neg, c1 */ \
    "and %[t0], %[t0], %[" a "], asr #31\n\t" \
    "add %[t0], %[t0], %[t1]\n\t" \
    "ldrd %[t1], %[t2], [%[wp], #" #at " + 8]\n\t"   /* mult, e */ \
    "smmlar %[" a "], %[" a "], %[t1], %[t0]\n\t" \
    "asr %[" a "], %[" a "], %[t2]\n\t" \
    "ssat %[" a "], #8, %[" a "]\n\t"
    __asm__ volatile(
        /* where a row of kw taps starts: 4 - kw taps into the written-out four (each 24
           bytes), or the loop for wider filters */
        "ldr %[t0], %[kw]\n\t"
        "adr.w %[k], 3f\n\t"
        "cmp %[t0], #4\n\t"
        "bgt 6f\n\t"
        "adr.w %[k], 5f\n\t"
        "rsb %[t0], %[t0], #4\n\t"
        "add %[t0], %[t0], %[t0], lsl #1\n\t"
        "add %[k], %[k], %[t0], lsl #3\n\t"
        "6:\n\t"
        "orr %[k], %[k], #1\n\t"
        "str %[k], %[entry]\n\t"
        "1:\n\t"
        "ldr %[wp], %[wb]\n\t"
        "ldrd %[a0], %[a1], [%[wp], #-80]\n\t"
        "ldrd %[a2], %[a3], [%[wp], #-72]\n\t"
        "ldr %[rp], %[rows]\n\t"
        "ldr %[k], %[entry]\n\t"
        "b 2f\n\t"
        "3:\n\t"
        "ldr %[k], %[kw]\n\t"
        "7:\n\t"
        DW_TAP
        "subs %[k], %[k], #1\n\t"
        "bne 7b\n\t"
        "ldr %[k], %[entry]\n\t"
        "b 2f\n\t"
        "5:\n\t"
        DW_TAP DW_TAP DW_TAP DW_TAP
        /* the next tap row (the taps fall through to it): its inputs, or on to the
           requantization after the last */
        "2:\n\t"
        "ldr %[x], [%[rp]], #4\n\t"
        "cbz %[x], 4f\n\t"
        "add %[x], %[x], %[po]\n\t"
        "bx %[k]\n\t"
        "4:\n\t"
        "ldr %[wp], %[wb]\n\t"
        DW_RQ("a0", -64) DW_RQ("a1", -48) DW_RQ("a2", -32) DW_RQ("a3", -16)
        "ldr %[x], %[o]\n\t"
        "strb %[a0], [%[x]]\n\t"
        "strb %[a1], [%[x], #1]\n\t"
        "strb %[a2], [%[x], #2]\n\t"
        "strb %[a3], [%[x], #3]\n\t"
        "ldr %[k], %[cout]\n\t"
        "add %[x], %[x], %[k]\n\t"
        "str %[x], %[o]\n\t"
        "ldr %[k], %[step]\n\t"
        "add %[po], %[po], %[k]\n\t"
        "ldr %[k], %[n]\n\t"
        "subs %[k], %[k], #1\n\t"
        "str %[k], %[n]\n\t"
        "bne 1b"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [t0] "=&r"(t0),
          [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [k] "=&r"(k), [x] "=&l"(x),
          [wp] "=&r"(wp), [rp] "=&r"(rp), [po] "+r"(po), [o] "+m"(o), [n] "+m"(n),
          [entry] "+m"(entry)
        : [wb] "m"(wb), [rows] "m"(rows), [kw] "m"(kw), [step] "m"(step), [cout] "m"(cout)
        : "cc", "memory");
#undef DW_TAP
#undef DW_RQ
#else
    int32_t i, j;
    for (i = 0; i < n; ++i, o += cout) {
        int32_t acc[4], *const *rp;
        const int32_t *wp = q->wq;
        for (j = 0; j < 4; ++j) {
            acc[j] = q->acc0[j];
        }
        for (rp = rows; *rp != NULL; ++rp) {
            const int32_t *x = *rp + 2 * i * step;
            for (j = 0; j < kw; ++j, x += 2, wp += 2) {
                acc[0] = __smlabb(x[0], wp[0], acc[0]);
                acc[2] = __smlatt(x[0], wp[0], acc[2]);
                acc[1] = __smlabb(x[1], wp[1], acc[1]);
                acc[3] = __smlatt(x[1], wp[1], acc[3]);
            }
        }
        for (j = 0; j < 4; ++j) {
            o[j] = (int8_t)quad_rq(q->rq[j], acc[j]);
        }
    }
#endif
}

/* Channels oc..oc+3 of every output pixel of the slice c. The ring holds KH widened input
 * rows (row iy in slot iy % KH, widened when an output row first reads it) and a row of
 * zeros for the padding rows; it is all zeros to start with. */
static RT_DSP_NOINLINE void quad_channels(const dw_ctx *c, const int8_t *in, const int8_t *w,
                                          int32_t oc, int8_t *out, int32_t *ring)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t kh = c->g.kh, h = c->g.h, oh = c->g.oh, row = c->row, orow = c->orow;
    const int32_t sh = p->stride_h, slot = 2 * c->pw;
    const int32_t xo = c->mult == 1 ? oc : oc / c->mult;   /* the input channel read */
    int32_t *const zero = ring + kh * slot;
    int32_t *rows[DW_ROWS + 1];
    int32_t n, oy, ky;
    dw_quad q;
    quad_setup(c, w, oc, &q);
    rows[kh] = NULL;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * h * row + xo;
        int32_t top = -p->pad_h;   /* the rows above it are widened */
        for (oy = 0; oy < oh; ++oy, out += orow) {
            const int32_t iy0 = oy * sh - p->pad_h;
            int32_t iy = top > iy0 ? top : iy0, s;
            for (top = iy0 + kh; iy < top; ++iy) {
                if (iy >= 0 && iy < h) {
                    widen_row(c, img + iy * row, ring + iy % kh * slot);
                }
            }
            s = iy0 % kh;   /* the slot of row iy0 + ky */
            s += s < 0 ? kh : 0;
            for (ky = 0; ky < kh; ++ky, s = s + 1 == kh ? 0 : s + 1) {
                iy = iy0 + ky;
                rows[ky] = iy >= 0 && iy < h ? ring + s * slot : zero;
            }
            quad_row(&q, rows, c->g.kw, p->stride_w, c->g.cout, c->g.ow, out + oc);
        }
    }
}

/* ---- a shared input: an even channel multiplier (a first layer on one channel, KWS's 10x4
 * stem) ----
 * The multiplier's channels all read the same input channel: a small matrix product. Output
 * pixels' windows are widened into patches (offset added, padding as zeros, taps in pairs
 * along the filter rows, an odd row's last pair ending in a zero tap), four pixels a quad;
 * channel pairs' taps are paired the same way, pre-scaled as the quads' are. A tile is four
 * pixels by two channels: per pair of taps three loads and eight SMLAD, the tap loop written
 * out four pairs at a time (entered part way in when the pairs are not a multiple of four:
 * patches and taps carry that many pairs of padding in front). */

#define DWM_PAIRS 32     /* tap pairs a filter may have (padded to a multiple of four) */
#define DWM_WORDS 2048   /* patch words a block of pixel quads takes (stack, 8 KB) */

/* A channel pair's constants: bias * 2^pre of both, their requantization (neg, c1, mult, e
 * as dw_quad has them), then per tap pair the two channels' taps. */
typedef struct dwm_pair {
    int32_t cst[10];
    int32_t wq[2 * DWM_PAIRS];
} dwm_pair;

static int32_t dwm_kp(const dw_ctx *c)   /* tap pairs, padded to four */
{
    return (c->g.kh * ((c->g.kw + 1) / 2) + 3) & ~3;
}

static int dwm_fits(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    return p->dilation_h == 1 && p->dilation_w == 1 && c->mult % 2 == 0 &&
           dwm_kp(c) <= DWM_PAIRS &&
           rt_dsp_dw_requant_fits(p, c->bias, c->g.cout, c->g.kh * c->g.kw);
}

/* A halfword pair: lo in the low half. */
static inline int32_t dwm_pack(int32_t lo, int32_t hi)
{
    return (int32_t)((uint32_t)(uint16_t)lo | (uint32_t)hi << 16);
}

/* Channels oc, oc + 1's constants and taps (front: pairs of padding ahead of them). */
static void dwm_setup(const dw_ctx *c, const int8_t *w, int32_t oc, int32_t front,
                      dwm_pair *q)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t taps = c->g.kh * c->g.kw, kw = c->g.kw, cout = c->g.cout;
    int32_t j, t, kx;
    for (j = 0; j < 2; ++j) {
        const int32_t s = p->shift[oc + j], e = s < 0 ? -s : 0, pre = 1 + (s > 0 ? s : 0);
        const int8_t *v = w + oc + j;
        int32_t *d = q->wq + 2 * front + j;
        q->cst[j] = (c->bias != NULL ? c->bias[oc + j] : 0) * (1 << pre);
        q->cst[2 + 4 * j] = -(e > 0);
        q->cst[3 + 4 * j] = ((1 << e) >> 1) + p->output_offset * (1 << e);
        q->cst[4 + 4 * j] = p->mult[oc + j];
        q->cst[5 + 4 * j] = e;
        for (t = 0; t < taps; t += kw) {
            for (kx = 0; kx < kw; kx += 2, d += 2) {
                *d = dwm_pack(v[(t + kx) * cout] * (1 << pre),
                              kx + 1 < kw ? v[(t + kx + 1) * cout] * (1 << pre) : 0);
            }
        }
    }
}

/* The patches of cnt output pixels from pixel p0 on (raster order over the batch) of input
 * channel ic: pixel i's tap pair j at word (i / 4) * 4 * kp + 4 * (front + j) + i % 4; the
 * quad's missing pixels all zeros. */
static void dwm_patches(const dw_ctx *c, const int8_t *in, int32_t ic, int32_t p0, int32_t cnt,
                        int32_t kp, int32_t front, int32_t *buf)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t kh = c->g.kh, kw = c->g.kw, h = c->g.h, w = c->g.w, cin = c->g.cin;
    const int32_t x_off = p->input_offset, ow = c->g.ow, oh = c->g.oh;
    const int32_t all = (cnt + 3) & ~3, pairs = kp - front;
    int32_t ox = p0 % ow, oy = p0 / ow % oh, n = p0 / (ow * oh), i, ky, kx;
    for (i = 0; i < all; ++i) {
        int32_t *d = buf + (i / 4) * 4 * kp + 4 * front + i % 4;
        if (i >= cnt) {
            for (ky = 0; ky < pairs; ++ky, d += 4) {
                *d = 0;
            }
            continue;
        }
        {
            const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
            const int8_t *img = in + (n * h * w) * cin + ic;
            if (iy0 >= 0 && iy0 + kh <= h && ix0 >= 0 && ix0 + kw <= w && kw % 2 == 0) {
                /* the window inside the input: no tap is padding */
                const int8_t *r = img + (iy0 * w + ix0) * cin;
                for (ky = 0; ky < kh; ++ky, r += w * cin) {
                    for (kx = 0; kx < kw; kx += 2, d += 4) {
                        *d = dwm_pack(r[kx * cin] + x_off, r[(kx + 1) * cin] + x_off);
                    }
                }
            } else {
                for (ky = 0; ky < kh; ++ky) {
                    const int32_t iy = iy0 + ky;
                    const int8_t *r = img + iy * w * cin;
                    for (kx = 0; kx < kw; kx += 2, d += 4) {
                        const int32_t ix = ix0 + kx;
                        int32_t lo = 0, hi = 0;
                        if (iy >= 0 && iy < h) {
                            lo = ix >= 0 && ix < w ? r[ix * cin] + x_off : 0;
                            hi = kx + 1 < kw && ix + 1 >= 0 && ix + 1 < w
                                     ? r[(ix + 1) * cin] + x_off : 0;
                        }
                        *d = dwm_pack(lo, hi);
                    }
                }
            }
        }
        if (++ox == ow) {
            ox = 0;
            if (++oy == oh) {
                oy = 0;
                ++n;
            }
        }
    }
}

/* quads tiles of channel pair q on the patches from px on (kp tap pairs each, the first front
 * of them padding): pixel i of a quad to o + i * ostep, channels at o and o + 1. */
static RT_DSP_NOINLINE RT_DSP_ADR_ALIGNED void dwm_tiles(const dwm_pair *q, const int32_t *px,
                                                         int32_t quads, int32_t kp,
                                                         int32_t front, int8_t *o,
                                                         int32_t ostep)
{
#if defined(__OPTIMIZE__)
    const int32_t *const pend = px + 4 * kp * quads, *const wq = q->wq;
    const int32_t *const cst = q->cst;
    const int32_t pstride = 16 * kp, eoff = 56 * front;
    int32_t a0, a1, a2, a3, a4, a5, a6, a7, w0, w1, x, pw, t, entry = 0;
    /* tap pair j of the four written out: fourteen 32-bit instructions (56 bytes) */
#define DWM_KP(j) \
    "ldr.w %[w0], [%[pw], #" #j " * 8]\n\t" \
    "ldr.w %[w1], [%[pw], #" #j " * 8 + 4]\n\t" \
    "ldr.w %[x], [%[px], #" #j " * 16]\n\t" \
    "smlad %[a0], %[x], %[w0], %[a0]\n\t" \
    "smlad %[a1], %[x], %[w1], %[a1]\n\t" \
    "ldr.w %[x], [%[px], #" #j " * 16 + 4]\n\t" \
    "smlad %[a2], %[x], %[w0], %[a2]\n\t" \
    "smlad %[a3], %[x], %[w1], %[a3]\n\t" \
    "ldr.w %[x], [%[px], #" #j " * 16 + 8]\n\t" \
    "smlad %[a4], %[x], %[w0], %[a4]\n\t" \
    "smlad %[a5], %[x], %[w1], %[a5]\n\t" \
    "ldr.w %[x], [%[px], #" #j " * 16 + 12]\n\t" \
    "smlad %[a6], %[x], %[w0], %[a6]\n\t" \
    "smlad %[a7], %[x], %[w1], %[a7]\n\t"
#define DWM_RQ(a) RT_DSP_RQ_ASM(#a, "t", "w0", "w1", "x", "pw")
    __asm__ volatile(
        "ldr %[x], %[eoff]\n\t"
        "adr.w %[t], 3f\n\t"
        "add %[t], %[t], %[x]\n\t"
        "orr %[t], %[t], #1\n\t"
        "str %[t], %[entry]\n\t"
        "0:\n\t"
        "ldr %[t], %[cst]\n\t"
        "ldrd %[a0], %[a1], [%[t]]\n\t"
        "mov %[a2], %[a0]\n\t"
        "mov %[a3], %[a1]\n\t"
        "mov %[a4], %[a0]\n\t"
        "mov %[a5], %[a1]\n\t"
        "mov %[a6], %[a0]\n\t"
        "mov %[a7], %[a1]\n\t"
        "ldr %[pw], %[wq]\n\t"
        "ldr %[t], %[pstride]\n\t"
        "ldr %[x], %[entry]\n\t"
        "add %[t], %[px], %[t]\n\t"
        "bx %[x]\n\t"
        "3:\n\t"
        DWM_KP(0) DWM_KP(1) DWM_KP(2) DWM_KP(3)
        "add %[px], %[px], #64\n\t"
        "add %[pw], %[pw], #32\n\t"
        "cmp %[px], %[t]\n\t"
        "bne 3b\n\t"
        /* channel 0's requantization (pixels' a0, a2, a4, a6), then channel 1's */
        "ldr %[t], %[cst]\n\t"
        "ldr %[w0], [%[t], #8]\n\t"
        "ldr %[w1], [%[t], #12]\n\t"
        "ldr %[x], [%[t], #16]\n\t"
        "ldr %[pw], [%[t], #20]\n\t"
        DWM_RQ(a0) DWM_RQ(a2) DWM_RQ(a4) DWM_RQ(a6)
        "ldr %[t], %[cst]\n\t"
        "ldr %[w0], [%[t], #24]\n\t"
        "ldr %[w1], [%[t], #28]\n\t"
        "ldr %[x], [%[t], #32]\n\t"
        "ldr %[pw], [%[t], #36]\n\t"
        DWM_RQ(a1) DWM_RQ(a3) DWM_RQ(a5) DWM_RQ(a7)
        /* the quad's four pixels, two channels each */
        "ldr %[t], %[o]\n\t"
        "ldr %[x], %[ostep]\n\t"
        "add %[w0], %[t], %[x]\n\t"
        "strb %[a0], [%[t]]\n\t"
        "strb %[a1], [%[t], #1]\n\t"
        "add %[w1], %[w0], %[x]\n\t"
        "strb %[a2], [%[w0]]\n\t"
        "strb %[a3], [%[w0], #1]\n\t"
        "add %[t], %[w1], %[x]\n\t"
        "strb %[a4], [%[w1]]\n\t"
        "strb %[a5], [%[w1], #1]\n\t"
        "add %[w0], %[t], %[x]\n\t"
        "strb %[a6], [%[t]]\n\t"
        "strb %[a7], [%[t], #1]\n\t"
        "str %[w0], %[o]\n\t"
        "ldr %[t], %[pend]\n\t"
        "cmp %[px], %[t]\n\t"
        "bne 0b"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [a4] "=&r"(a4),
          [a5] "=&r"(a5), [a6] "=&r"(a6), [a7] "=&r"(a7), [w0] "=&r"(w0), [w1] "=&r"(w1),
          [x] "=&r"(x), [pw] "=&r"(pw), [t] "=&r"(t), [px] "+r"(px), [o] "+m"(o),
          [entry] "+m"(entry)
        : [cst] "m"(cst), [wq] "m"(wq), [pstride] "m"(pstride), [eoff] "m"(eoff),
          [pend] "m"(pend), [ostep] "m"(ostep)
        : "cc", "memory");
#undef DWM_KP
#undef DWM_RQ
#else
    int32_t i, s, j, k;
    for (i = 0; i < quads; ++i, px += 4 * kp) {
        for (s = 0; s < 4; ++s, o += ostep) {
            for (j = 0; j < 2; ++j) {
                const int32_t *rq = q->cst + 2 + 4 * j;
                int32_t acc = q->cst[j], v;
                for (k = front; k < kp; ++k) {
                    acc = __smlad(px[4 * k + s], q->wq[2 * k + j], acc);
                }
                v = rt_dsp_smmulr(acc, rq[2]) + rq[1] + (rq[0] & (acc >> 31));
                o[j] = rt_dsp_sat8(v >> rq[3]);
            }
        }
    }
#endif
}

/* The layer by the tiles: per input channel, blocks of pixel quads' patches, each run
 * through every channel pair of the channel's multiplier. */
static RT_DSP_NOINLINE void dwm_layer(const dw_ctx *c, const int8_t *in, const int8_t *w,
                                      int8_t *out)
{
    const int32_t kp = dwm_kp(c), front = kp - c->g.kh * ((c->g.kw + 1) / 2);
    const int32_t cout = c->g.cout, pixels = c->g.n * c->g.oh * c->g.ow;
    const int32_t block = DWM_WORDS / (4 * kp) * 4;   /* pixels a block */
    int32_t patches[DWM_WORDS];
    dwm_pair q;
    int32_t ic, p0, oc, i;
    for (ic = 0; ic < c->g.cin; ++ic) {
        for (p0 = 0; p0 < pixels; p0 += block) {
            const int32_t cnt = pixels - p0 < block ? pixels - p0 : block, whole = cnt / 4;
            dwm_patches(c, in, ic, p0, cnt, kp, front, patches);
            for (oc = ic * c->mult; oc < (ic + 1) * c->mult; oc += 2) {
                int8_t *o = out + p0 * cout + oc;
                dwm_setup(c, w, oc, front, &q);
                if (whole > 0) {
                    dwm_tiles(&q, patches, whole, kp, front, o, cout);
                }
                if (cnt > 4 * whole) {   /* the last pixels: a tile into a scratch */
                    int8_t last[8];
                    dwm_tiles(&q, patches + 4 * kp * whole, 1, kp, front, last, 2);
                    for (i = 0; i < cnt - 4 * whole; ++i) {
                        o[(4 * whole + i) * cout] = last[2 * i];
                        o[(4 * whole + i) * cout + 1] = last[2 * i + 1];
                    }
                }
            }
        }
    }
}

/* Channel oc of every output pixel, one at a time (the layers and channels the quads do not
 * take). */
static void one_channel(const dw_ctx *c, const int8_t *in, const int8_t *w, int32_t oc,
                        int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t row = c->g.w * c->g.cin;
    int32_t n, oy, ox;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                int32_t acc;
                rt_s8_window_at(&c->g, p, img, oy, ox, &v);
                acc = rt_s8_dw_sum(v.x + oc / c->mult,
                                   w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc,
                                   v.ky1 - v.ky0, v.kx1 - v.kx0, p->dilation_w * c->g.cin,
                                   p->dilation_h * row, c->g.cout, c->g.kw * c->g.cout,
                                   p->input_offset);
                out[oc] = rt_s8_clamp(rt_requantize((c->bias != NULL ? c->bias[oc] : 0) + acc,
                                                    p->mult[oc], p->shift[oc]) +
                                      p->output_offset, p->act_min, p->act_max);
            }
        }
    }
}

rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    dw_ctx c;
    int32_t oc = 0;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    /* 3x3 layers the planes take (on small maps too: VWW's 3x3 planes of 256 channels cost
       less flat than in quads) */
    if (rt_conv_s8_is_dw3x3(&c.g, p) && rt_dsp_dw3_takes(&c.g, p, bias)) {
        return rt_depthwise_conv2d_3x3_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    c.p = p;
    c.bias = bias;
    c.mult = c.g.cin > 0 ? c.g.cout / c.g.cin : 1;
    c.row = c.g.w * c.g.cin;
    c.orow = c.g.ow * c.g.cout;
    c.pw = DW_RING_WORDS / (2 * (c.g.kh + 1));   /* columns a ring row holds */
    c.pw = c.pw < c.g.kw ? c.g.kw : c.pw;
    if (RT_DSP_HAS(RT_DSP_U_DW_PAIRS) && dwm_fits(&c)) {
        dwm_layer(&c, in, w, out);
        return RT_OK;
    }
    if (RT_DSP_HAS(RT_DSP_U_DW_QUADS) && quad_fits(&c)) {
        /* column slices of at most cw output columns, each a layer of its own whose input
           starts at its first column (padding then only at its edges) */
        const int32_t cw = (c.pw - c.g.kw) / p->stride_w + 1, ow = c.g.ow, iw = c.g.w;
        int32_t ox;
        for (ox = 0; ox < ow; ox += cw) {
            const int32_t cx0 = ox * p->stride_w - p->pad_w, x0 = cx0 > 0 ? cx0 : 0;
            int32_t ring[DW_RING_WORDS];
            int32_t i;
            c.g.ow = ow - ox < cw ? ow - ox : cw;
            c.g.w = iw - x0;
            c.pad_w = x0 - cx0;
            c.pw = (c.g.ow - 1) * p->stride_w + c.g.kw;
            for (i = 0; i < (c.g.kh + 1) * 2 * c.pw; ++i) {
                ring[i] = 0;
            }
            for (oc = 0; oc + 4 <= c.g.cout; oc += 4) {
                quad_channels(&c, in + x0 * c.g.cin, w, oc, out + ox * c.g.cout, ring);
            }
        }
        c.g.ow = ow;
        c.g.w = iw;
    }
    for (; oc < c.g.cout; ++oc) {
        one_channel(&c, in, w, oc, out);
    }
    return RT_OK;
}
