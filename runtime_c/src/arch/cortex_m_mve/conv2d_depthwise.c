/* conv2d_depthwise.c (Cortex-M Helium, float32) - rt_conv2d_depthwise_f32: depthwise
 * convolution (groups == Cin, Cout = Cin * multiplier, any kernel, stride, padding and
 * dilation); same contract as src/conv/conv2d_depthwise.c.
 *
 * Each output channel is a stencil over one input channel. An input channel that fits in
 * 4 KB with its padding is first copied onto the stack zero-padded (mve_pad_copy), once for
 * all its output channels. With stride 1 the copy is then one long row (flat24): tiles of
 * 24 consecutive positions (6 vectors, 6 Q-register accumulators) take each tap (ky, kx) as
 * one weight (a scalar, VFMA.F32 Qd, Qn, Rm) and 6 plain loads at constant offsets, with no
 * checks and no lanes lost to narrow rows; the positions past each row's end are computed
 * and dropped as the outputs are stored with the bias and the activation. Otherwise the
 * stencil is vectorized along the output rows: a tile is 3 output rows x 8 outputs (2
 * vectors), 6 accumulators; each tap loads one weight for 6 input vectors (plain loads for
 * stride 1, gathers of every s-th column otherwise). Rows whose kernel rows all lie inside
 * the input go 3 at a time, the others (top and bottom padding, without a copy) one at a
 * time, with their kernel rows inside worked out once (the tile computes it thrice). In a
 * tile whose taps reach past the left or right edge of an input not copied, a kx with lanes
 * outside the row loads under a lane predicate (those lanes read 0, as zero padding); the
 * other kx's, and tiles inside, load plainly. A ragged end (columns or rows) reuses the last
 * full tile shifted back, recomputing a few outputs (the same bits); rows of fewer than 8
 * outputs are one tile whose lanes past the row are not stored. The bias and the fused
 * activation are applied as a tile is stored. Fused multiply-adds, taps in (kx, ky) order
 * (flat: (ky, kx)): results differ from the portable kernel's by float rounding. */
#include "f32_mve.h"

/* What the tiles of 3 output rows of one channel share. */
typedef struct dw_rows {
    const mve_view *v;
    const float *in;    /* the input channel */
    const float *w;     /* its filter */
    int32_t iy0;        /* input row of the first row's ky = 0 */
    int32_t ky0, ky1;   /* the kernel rows inside the input (of every row) */
    int32_t rs;         /* input floats from one row's taps to the next row's (0: one row) */
    float *o;           /* the first row's first output */
    int32_t ors;        /* output floats from one row to the next (0: one row) */
    float bias;
} dw_rows;

/* 3 output rows (or one row 3 times) x 2 vectors, outputs xt .. xt + 7 of each, whose first
 * tap reads input column x0 (then x0 + 4 sw). Computed, then stored with the bias and the
 * activation, only na / nb lanes of the vectors if fewer (the row's end). contig: stride 1,
 * plain loads (else gathers). border: some taps reach outside the input row, or lanes past
 * na / nb must not be read; their lanes load under predicates. */
MVE_INLINE void dw_tile(const dw_rows *r, int32_t xt, int32_t x0, int32_t na, int32_t nb,
                        int border, const int contig)
{
    const mve_view *v = r->v;
    const int32_t lane = contig ? 1 : v->sw; /* floats between lanes */
    const uint32x4_t offs = mve_lane_offsets(lane);
    const int32_t rs = r->rs;                /* floats between the tile's rows */
    const int32_t su = v->dh * v->w;         /* from one ky to the next */
    const int32_t ky0 = r->ky0, ky1 = r->ky1;
    /* the first kernel row inside (none: no taps, and no address past the input either) */
    const float *const rb = ky1 > ky0 ? r->in + (r->iy0 + ky0 * v->dh) * v->w : r->in;
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    int32_t kx, ky;
    for (kx = 0; kx < v->kw; ++kx) {
        const int32_t x = x0 + kx * v->dw;
        const float *q = r->w + ky0 * v->kw + kx;
        mve_pred16_t pa = 0xFFFF, pb = 0xFFFF;
        if (border) {
            pa = mve_cols(x, v->sw, v->w, na);
            pb = mve_cols(x + 4 * v->sw, v->sw, v->w, nb);
            if ((pa | pb) == 0) {
                continue;
            }
        }
        if (pa == 0xFFFF && pb == 0xFFFF) { /* every lane inside the row */
            const float *ip = rb + x;
            for (ky = ky0; ky < ky1; ++ky, ip += su, q += v->kw) {
                const float wv = mve_weight(q, 0);
                a1 = vfmaq_n_f32(a1, mve_load(ip + 4 * lane, contig, offs), wv);
                a0 = vfmaq_n_f32(a0, mve_load(ip, contig, offs), wv);
                a3 = vfmaq_n_f32(a3, mve_load(ip + rs + 4 * lane, contig, offs), wv);
                a2 = vfmaq_n_f32(a2, mve_load(ip + rs, contig, offs), wv);
                a5 = vfmaq_n_f32(a5, mve_load(ip + 2 * rs + 4 * lane, contig, offs), wv);
                a4 = vfmaq_n_f32(a4, mve_load(ip + 2 * rs, contig, offs), wv);
            }
        } else { /* lanes outside the row (or past the outputs) read 0 */
            const int32_t xb = x + 4 * lane;
            const float *ip = rb;
            for (ky = ky0; ky < ky1; ++ky, ip += su, q += v->kw) {
                const float wv = mve_weight(q, 0);
                /* the loads under one predicate together: it is set once */
                a0 = vfmaq_n_f32(a0, mve_load_z(mve_at(ip, x), contig, offs, pa), wv);
                a2 = vfmaq_n_f32(a2, mve_load_z(mve_at(ip + rs, x), contig, offs, pa), wv);
                a4 = vfmaq_n_f32(a4, mve_load_z(mve_at(ip + 2 * rs, x), contig, offs, pa), wv);
                a1 = vfmaq_n_f32(a1, mve_load_z(mve_at(ip, xb), contig, offs, pb), wv);
                a3 = vfmaq_n_f32(a3, mve_load_z(mve_at(ip + rs, xb), contig, offs, pb), wv);
                a5 = vfmaq_n_f32(a5, mve_load_z(mve_at(ip + 2 * rs, xb), contig, offs, pb), wv);
            }
        }
    }
    {
        const int part = na < 4 || nb < 4;
        const mve_pred16_t ma = vctp32q((uint32_t)na), mb = vctp32q((uint32_t)nb);
        const float lo = v->lo, hi = v->hi, b = r->bias;
        float *q = r->o + xt;
        /* (one row 3 times stores the same values again) */
        mve_store(q + 2 * r->ors, mve_bias_act(a4, b, lo, hi), part, ma);
        mve_store(q + 2 * r->ors + 4, mve_bias_act(a5, b, lo, hi), part, mb);
        mve_store(q + r->ors, mve_bias_act(a2, b, lo, hi), part, ma);
        mve_store(q + r->ors + 4, mve_bias_act(a3, b, lo, hi), part, mb);
        mve_store(q, mve_bias_act(a0, b, lo, hi), part, ma);
        mve_store(q + 4, mve_bias_act(a1, b, lo, hi), part, mb);
    }
}

/* dw_tile specialized on the stride (1: plain loads; other: gathers), each out of line so
 * that its loops have the core registers to themselves. */
typedef void (*dw_tile_fn)(const dw_rows *r, int32_t xt, int32_t x0, int32_t na, int32_t nb,
                           int border);

static MVE_NOINLINE void tile_s1(const dw_rows *r, int32_t xt, int32_t x0, int32_t na,
                                 int32_t nb, int border)
{
    dw_tile(r, xt, x0, na, nb, border, 1);
}

static MVE_NOINLINE void tile_sn(const dw_rows *r, int32_t xt, int32_t x0, int32_t na,
                                 int32_t nb, int border)
{
    dw_tile(r, xt, x0, na, nb, border, 0);
}

/* Output rows oy .. oy + 2 of one channel (rows 3: all their kernel rows inside the input),
 * or row oy alone (rows 1), every column: tiles of 8 outputs, the last shifted back; a row
 * of fewer is one tile of as many lanes, which reads past the row's end only if padded (the
 * copy has room there). */
static void dw_row(dw_rows *r, int padded, int32_t rows, int32_t oy, float *o)
{
    const mve_view *v = r->v;
    const int32_t s = v->sw;
    const int32_t span = (v->kw - 1) * v->dw + 7 * s; /* a full tile's reach past x0 */
    const dw_tile_fn tile = s == 1 ? tile_s1 : tile_sn;
    int32_t x;
    r->iy0 = oy * v->sh - v->ph;
    r->ky1 = mve_krows(v, r->iy0, &r->ky0);
    r->rs = rows > 1 ? v->sh * v->w : 0;
    r->ors = rows > 1 ? v->ow : 0;
    r->o = o + oy * v->ow;
    if (v->ow >= 8) {
        for (x = 0; x < v->ow; x += 8) {
            const int32_t xt = x + 8 <= v->ow ? x : v->ow - 8;
            const int32_t x0 = xt * s - v->pw;
            tile(r, xt, x0, 4, 4, x0 < 0 || x0 + span >= v->w);
        }
    } else {
        const int32_t na = v->ow < 4 ? v->ow : 4;
        tile(r, 0, -v->pw, na, v->ow - na, !padded);
    }
}

/* One output channel, every row: rows whose kernel rows all lie inside the input three at
 * a time, the others one at a time. */
static void dw_plane(const mve_view *v, int padded, const float *in_c, const float *wc,
                     float bias, float *o)
{
    const int32_t span = (v->kh - 1) * v->dh;
    /* rows whose kernel rows are all inside: [y0, y1) */
    const int32_t y0 = (v->ph + v->sh - 1) / v->sh;
    const int32_t last = v->h - 1 + v->ph - span; /* the last oy * sh inside */
    int32_t y1 = last >= 0 ? last / v->sh + 1 : 0;
    int32_t y;
    dw_rows r;
    r.v = v;
    r.in = in_c;
    r.w = wc;
    r.bias = bias;
    y1 = y1 < v->oh ? y1 : v->oh;
    if (y1 - y0 < 3) {
        y1 = y0; /* too few for a tile of 3 rows: every row one at a time */
    }
    for (y = 0; y < v->oh; ++y) {
        if (y == y0 && y1 > y0) {
            for (; y < y1; y += 3) {
                dw_row(&r, padded, 3, y + 3 <= y1 ? y : y1 - 3, o);
            }
            y = y1 - 1;
            continue;
        }
        dw_row(&r, padded, 1, y, o);
    }
}

/* Taps of a filter the flat tiles take (7 x 7 and under, or as many in another shape). */
#define FLAT_TAPS 64

/* The flat tiles: with stride 1, output (oy, ox) of a padded plane (no padding left, rows w
 * apart) reads input oy * w + ox + off[t], tap t = (ky, kx) at off[t] = ky * dh * w + kx *
 * dw. So the plane, read as one long row, is a 1-D convolution of kh * kw taps, computed at
 * every p = oy * w + ox (the ox past ow are wasted, and read past the row's end into the
 * next one, or into the copy's slack). 24 consecutive p (6 vectors) a tile: each tap loads
 * its offset and weight and 6 input vectors at constant offsets, for 6 fused multiply-adds.
 * The sums go to vbuf (p), from which dw_flat stores the outputs with the bias and the
 * activation. */
static MVE_NOINLINE void flat24(const float *src, const int32_t *off, const float *wc,
                                int32_t taps, float *dst)
{
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    int32_t t;
    for (t = 0; t < taps; ++t) {
        const float *ip = src + off[t];
        const float wv = mve_weight(wc, t);
        /* the last first: GCC then addresses them all from ip, without a copy */
        a5 = vfmaq_n_f32(a5, vld1q_f32(ip + 20), wv);
        a4 = vfmaq_n_f32(a4, vld1q_f32(ip + 16), wv);
        a3 = vfmaq_n_f32(a3, vld1q_f32(ip + 12), wv);
        a2 = vfmaq_n_f32(a2, vld1q_f32(ip + 8), wv);
        a1 = vfmaq_n_f32(a1, vld1q_f32(ip + 4), wv);
        a0 = vfmaq_n_f32(a0, vld1q_f32(ip), wv);
    }
    vst1q_f32(dst, a0);
    vst1q_f32(dst + 4, a1);
    vst1q_f32(dst + 8, a2);
    vst1q_f32(dst + 12, a3);
    vst1q_f32(dst + 16, a4);
    vst1q_f32(dst + 20, a5);
}

/* One output channel by flat tiles (stride 1), from the padded plane in_c (v: its view)
 * with tap offsets off; vbuf takes max(n, 24) sums, n = (oh - 1) * w + ow. */
static void dw_flat(const mve_view *v, const float *in_c, const int32_t *off, const float *wc,
                    float bias, float *vbuf, float *o)
{
    /* fields read once: GCC assumes the stores below may change *v */
    const int32_t w = v->w, oh = v->oh, ow = v->ow, taps = v->kh * v->kw;
    const int32_t n = (oh - 1) * w + ow;
    const float lo = v->lo, hi = v->hi;
    int32_t p, oy, x;
    for (p = 0; p < n; p += 24) {
        const int32_t q = p + 24 <= n || n < 24 ? p : n - 24; /* the last shifted back */
        flat24(in_c + q, off, wc, taps, vbuf + q);
    }
    for (oy = 0; oy < oh; ++oy, o += ow) {
        const float *row = vbuf + oy * w;
        if (ow < 4) {
            const mve_pred16_t m = vctp32q((uint32_t)ow);
            vstrwq_p_f32(o, mve_bias_act(vldrwq_z_f32(row, m), bias, lo, hi), m);
            continue;
        }
        for (x = 0; x < ow; x += 4) { /* the last 4 shifted back */
            const int32_t xx = x + 4 <= ow ? x : ow - 4;
            vst1q_f32(o + xx, mve_bias_act(vld1q_f32(row + xx), bias, lo, hi));
        }
    }
}

rt_status rt_conv2d_depthwise_staged_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS,
                                         float *stage, int32_t group)
{
    rt_conv_geom g;
    rt_dw_stage staged, home;
    float pad[MVE_PAD_FLOATS];
    int32_t off[FLAT_TAPS];
    int32_t n, c, oc, fill = 1;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(g.cin_g == 1, RT_ERR_PARAM);
    staged = rt_dw_stage_of(&g, out, stage, group);
    home = rt_dw_stage_of(&g, out, NULL, 1);
    for (n = 0; n < g.n; ++n) {
        for (c = 0; c < g.cin; ++c) {
            const float *in_c = in + (n * g.cin + c) * g.h * g.w;
            const rt_dw_stage *st;
            mve_view v;
            int padded, flat;
            mve_view_init(&v, &g);
            padded = mve_pad_copy(&v, in_c, 1, pad, fill);
            fill = fill && !padded;
            /* an input plane copied is read for the last time: with one output plane, that
               goes straight home, over it (every plane, of one shape, is copied or none) */
            st = padded && g.cout_g == 1 ? &home : &staged;
            /* flat tiles: stride 1, and room after the copy for their sums */
            flat = padded && v.sw == 1 && v.sh == 1 && v.fplane <= FLAT_TAPS &&
                   2 * v.plane + 8 + 2 * MVE_PAD_SLACK <= MVE_PAD_FLOATS;
            if (flat && c == 0 && n == 0) {
                int32_t ky, kx;
                for (ky = 0; ky < v.kh; ++ky) {
                    for (kx = 0; kx < v.kw; ++kx) {
                        off[ky * v.kw + kx] = ky * v.dh * v.w + kx * v.dw;
                    }
                }
            }
            for (oc = c * g.cout_g; oc < (c + 1) * g.cout_g; ++oc) {
                float *o = rt_dw_stage_plane(st, n * g.cout + oc);
                if (flat) {
                    dw_flat(&v, pad, off, w + oc * v.fplane, b != NULL ? b[oc] : 0.0f,
                            pad + v.plane + 8 + MVE_PAD_SLACK, o);
                } else {
                    dw_plane(&v, padded, padded ? pad : in_c, w + oc * v.fplane,
                             b != NULL ? b[oc] : 0.0f, o);
                }
                rt_dw_stage_done(st, n * g.cout + oc);
            }
        }
    }
    return RT_OK;
}

rt_status rt_conv2d_depthwise_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    return rt_conv2d_depthwise_staged_f32(p, in_s, in, w_s, w, b_s, b, out_s, out, NULL, 1);
}
