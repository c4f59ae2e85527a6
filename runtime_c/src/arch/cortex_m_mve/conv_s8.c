/* conv_s8.c (Cortex-M Helium) - rt_conv2d_s8. One group with up to RT_MVE_PATCH_MAX taps per
 * filter (every real layer): output pixels in raster order, as many as 1.5 KB holds, their
 * patches gathered into one contiguous row each (taps outside the input as the input zero
 * point, which adds nothing), then the matrix product of conv_mve.c over them: 2x2 tiles,
 * four VMLADAVAs per sixteen taps, a predicated turn for a tail, the output stage made once
 * per block of 64 filters. About 4.6 KB of stack here (the patches, a block's parameters and a
 * first layer's column-major patches' columns, conv_mve.h), 5.5 KB with the matrix product's.
 * Other layers (groups, longer filters) take 2x2 tiles straight from the input: a filter row
 * of taps is one contiguous run in the NHWC input and the OHWI filter, four VMLADAVAs and two
 * VADDVAs (the filters' sums, which carry the input offset) per sixteen taps; taps outside
 * the input are skipped, as in the portable kernel. The scratch stays unused. Bit-exact with
 * int8/conv_s8.c. */
#include "conv_mve.h"

/* The longest filter (KH * KW * Cin) the gathered path takes. */
#define RT_MVE_PATCH_MAX 768
/* The bytes of column-major patches' columns (VWW's stem: 97 columns of 9 bytes) */
#define RT_MVE_COLS_MAX 1024

/* A 2x2 tile's outputs: lanes (pixel a: filter oc, o1; pixel b: filter oc, o1), the bias in,
 * requantized in one vector (rt_mve_requant) and scattered as bytes to out[oc], out[oc + 1],
 * out[cout + oc], out[cout + oc + 1]. A lane is stored only for a second filter that exists
 * (o1 > oc) and a second pixel that exists (two). */
static void store_tile(const rt_conv_s8_params *p, const int32_t *acc, int32_t oc, int32_t o1,
                       int32_t two, int32_t cout, int8_t *out)
{
    const uint32_t offs[4] = {0u, 1u, (uint32_t)cout, (uint32_t)cout + 1u};
    const int32_t m[4] = {p->mult[oc], p->mult[o1], p->mult[oc], p->mult[o1]};
    const int32_t s[4] = {p->shift[oc], p->shift[o1], p->shift[oc], p->shift[o1]};
    const mve_pred16_t lanes = (mve_pred16_t)(0x000Fu | (o1 > oc ? 0x00F0u : 0u) |
                                              (two ? 0x0F00u | (o1 > oc ? 0xF000u : 0u) : 0u));
    const int32x4_t r = rt_mve_requant(vldrwq_s32(acc), vldrwq_s32(m), vldrwq_s32(s),
                                       p->output_offset, p->act_min, p->act_max);
    vstrbq_scatter_offset_p_s32(out + oc, vldrwq_u32(offs), r, lanes);
}

/* One step of run_2x2: sixteen taps of pixels xa, xb by filters wa, wb into a00 .. a11, and
 * the filters' sums into s0, s1. */
#define RUN_2X2_STEP(xa, xb, wa, wb) \
    do { \
        a00 = vmladavaq_s8(a00, xa, wa); \
        a01 = vmladavaq_s8(a01, xa, wb); \
        a10 = vmladavaq_s8(a10, xb, wa); \
        a11 = vmladavaq_s8(a11, xb, wb); \
        s0 = vaddvaq_s8(s0, wa); \
        s1 = vaddvaq_s8(s1, wb); \
    } while (0)

/* a[0] += x0.w0, a[1] += x0.w1, a[2] += x1.w0, a[3] += x1.w1 over one run of n taps,
 * x + x_off. Zeroed lanes multiply and add as zero, so only the loads need the predicate. */
static void run_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                    int32_t n, int32_t x_off, int32_t *a)
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0, s0 = 0, s1 = 0, i = 0;
    for (; i + 16 <= n; i += 16) {   /* whole vectors, no predication */
        const int8x16_t xa = vldrbq_s8(x0 + i), xb = vldrbq_s8(x1 + i);
        const int8x16_t wa = vldrbq_s8(w0 + i), wb = vldrbq_s8(w1 + i);
        RUN_2X2_STEP(xa, xb, wa, wb);
    }
    if (i < n) {                     /* the tail: lanes past n load as zero */
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const int8x16_t xa = vldrbq_z_s8(x0 + i, p), xb = vldrbq_z_s8(x1 + i, p);
        const int8x16_t wa = vldrbq_z_s8(w0 + i, p), wb = vldrbq_z_s8(w1 + i, p);
        RUN_2X2_STEP(xa, xb, wa, wb);
    }
    a[0] += a00 + x_off * s0;
    a[1] += a01 + x_off * s1;
    a[2] += a10 + x_off * s0;
    a[3] += a11 + x_off * s1;
}

/* One pixel: a[0] += x.w0, a[1] += x.w1. */
static void run_1x2(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
                    int32_t x_off, int32_t *a)
{
    int32_t a0 = 0, a1 = 0, s0 = 0, s1 = 0, i;
    for (i = 0; i < n; i += 16) {
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const int8x16_t xv = vldrbq_z_s8(x + i, p);
        const int8x16_t wa = vldrbq_z_s8(w0 + i, p), wb = vldrbq_z_s8(w1 + i, p);
        a0 = vmladavaq_s8(a0, xv, wa);
        a1 = vmladavaq_s8(a1, xv, wb);
        s0 = vaddvaq_s8(s0, wa);
        s1 = vaddvaq_s8(s1, wb);
    }
    a[0] += a0 + x_off * s0;
    a[1] += a1 + x_off * s1;
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
} conv_ctx;

/* Filters w0, w1 (of the group starting at input channel c0) over window a and, when b is not
 * NULL, window b, which has the same taps. */
static void taps(const conv_ctx *c, const rt_s8_window *a, const rt_s8_window *b,
                 int32_t c0, const int8_t *w0, const int8_t *w1, int32_t *acc)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin_g = c->g.cin_g, x_off = p->input_offset;
    const int32_t y_step = p->dilation_h * c->row, x_step = p->dilation_w * c->g.cin;
    const int32_t cols = a->kx1 - a->kx0;
    const int8_t *xa = a->x + c0, *xb = b != NULL ? b->x + c0 : NULL;
    int32_t ky, kx, wk = (a->ky0 * c->g.kw + a->kx0) * cin_g;
    for (ky = a->ky0; ky < a->ky1; ++ky) {
        /* one run of the whole row, or one per tap */
        const int32_t n = c->runs ? cols * cin_g : cin_g, runs = c->runs ? 1 : cols;
        for (kx = 0; kx < runs; ++kx) {
            const int32_t xo = kx * x_step, wo = wk + kx * cin_g;
            if (xb != NULL) {
                run_2x2(xa + xo, xb + xo, w0 + wo, w1 + wo, n, x_off, acc);
            } else {
                run_1x2(xa + xo, w0 + wo, w1 + wo, n, x_off, acc);
            }
        }
        xa += y_step;
        xb = xb != NULL ? xb + y_step : NULL;
        wk += c->g.kw * cin_g;
    }
}

/* Output pixel a and, when b is not NULL, pixel b: every filter. */
static void tile(const conv_ctx *c, const rt_s8_window *a, const rt_s8_window *b,
                 int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    int32_t grp, oc;
    for (grp = 0; grp < c->g.groups; ++grp) {
        const int32_t c0 = grp * c->g.cin_g, end = (grp + 1) * c->cout_g;
        for (oc = grp * c->cout_g; oc < end; oc += 2) {
            /* two filters of the group, or the last one twice */
            const int32_t o1 = end - oc >= 2 ? oc + 1 : oc;
            int32_t acc[4];
            acc[0] = acc[2] = c->bias != NULL ? c->bias[oc] : 0;
            acc[1] = acc[3] = c->bias != NULL ? c->bias[o1] : 0;
            taps(c, a, b, c0, c->w + oc * c->fsize, c->w + o1 * c->fsize, acc);
            store_tile(p, acc, oc, o1, b != NULL, c->g.cout, out);
        }
    }
}

/* One group, up to RT_MVE_PATCH_MAX taps a filter: the gathered matrix product of
 * conv_mve.c, a block of filters at a time. Short filters (a first layer's 3x3x3) are copied
 * padded with zeros to a multiple of 16 taps into the end of the patch buffer (where they
 * take at most half of it), so that the 4x2 tiles take them (conv_mve.c); where their
 * patches are column-major (rt_mve_cols_bytes; VWW's stem), with their taps in that order. */
static rt_status conv_gathered(const conv_ctx *c, const int8_t *in, int8_t *out)
{
    int8_t patch[2 * RT_MVE_PATCH_MAX], cols[RT_MVE_COLS_MAX];
    rt_mve_pair q[RT_MVE_BLOCK_PAIRS];
    const int32_t k = c->fsize, kp = rt_mve_padded_taps(k);
    const int32_t cb = rt_mve_cols_bytes(&c->g, c->p, kp);
    const int32_t by_cols = cb > 0 && cb <= (int32_t)sizeof cols;
    int32_t oc, j;
    for (oc = 0; oc < c->g.cout; oc += 2 * RT_MVE_BLOCK_PAIRS) {
        const int32_t left = c->g.cout - oc;
        const int32_t count = left < 2 * RT_MVE_BLOCK_PAIRS ? left : 2 * RT_MVE_BLOCK_PAIRS;
        const int8_t *w = c->w + oc * k;
        int32_t room = (int32_t)sizeof patch, wk = k;
        if (kp != k && count * kp <= room / 2) {
            int8_t *wp = patch + room - count * kp;
            if (by_cols) {
                rt_mve_cols_filters(&c->g, w, count, kp, wp);
            }
            for (j = 0; j < count && !by_cols; ++j) {
                rt_mve_copy(wp + j * kp, w + j * k, k);
                rt_mve_fill(wp + j * kp + k, vdupq_n_s8(0), kp - k);
            }
            room -= count * kp;
            w = wp;
            wk = kp;
        }
        RT_TRY(rt_mve_gathered(&c->g, c->p, in, w, wk, c->bias, oc, count, patch, room,
                               by_cols && wk == kp ? cols : NULL, cb, q, out));
    }
    return RT_OK;
}

rt_status rt_conv2d_s8(const rt_scratch *scratch, const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    conv_ctx c;
    int32_t n;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.fsize = c.g.kh * c.g.kw * c.g.cin_g;
    c.cout_g = c.g.cout / c.g.groups;
    c.row = c.g.w * c.g.cin;
    c.runs = c.g.groups == 1 && p->dilation_w == 1;
    if (c.g.groups == 1 && c.fsize <= RT_MVE_PATCH_MAX) {
        return conv_gathered(&c, in, out);
    }
    for (n = 0; n < c.g.n; ++n) {
        /* output pixels two at a time in raster order (a pair may span two rows) */
        const int8_t *img = in + n * c.g.h * c.row;
        const int32_t pixels = c.g.oh * c.g.ow;
        int32_t i = 0, oy = 0, ox = 0;
        while (i < pixels) {
            rt_s8_window a, b;
            int32_t two = 0;
            rt_s8_window_at(&c.g, p, img, oy, ox, &a);
            if (++ox == c.g.ow) {
                ox = 0;
                ++oy;
            }
            if (i + 1 < pixels) {
                rt_s8_window_at(&c.g, p, img, oy, ox, &b);
                two = a.ky0 == b.ky0 && a.ky1 == b.ky1 && a.kx0 == b.kx0 && a.kx1 == b.kx1;
            }
            tile(&c, &a, two ? &b : NULL, out);
            out += (1 + two) * c.g.cout;
            i += 1 + two;
            if (two && ++ox == c.g.ow) {
                ox = 0;
                ++oy;
            }
        }
    }
    return RT_OK;
}
