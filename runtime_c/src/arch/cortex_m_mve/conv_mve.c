/* conv_mve.c (Cortex-M Helium) - the matrix product of conv_mve.h, under the Helium
 * convolutions (conv_s8.c, conv_1x1_s8.c and, for a layer on one input channel,
 * dw_one_input.h): rows of k int8 taps (a pointwise layer's input pixels, or gathered
 * patches) times every filter of a block, requantized and stored. Each block's filter pairs'
 * output stages are made once (rt_mve_pairs_make); then `rows` chooses the tiles: 4x2
 * (conv_mve_4x2.h) where rt_mve_quads_take takes the rows and no filter shifts left, 2x2
 * (conv_mve_2x2.h) for the rest, a lone last row by four filters (rt_mve_row_1x4), a lone
 * last filter and -O0 in C. A first layer's patches are gathered here (rt_mve_gathered): one
 * byte gather a vector, column-major, or copied run by run. Bit-exact with the portable
 * kernels; why and the figures: docs/kernels/helium.md. */
#include "conv_mve_tiles.h"

/* The sum of n taps from w (kf of them in whole vectors, the rest under tail). */
static inline int32_t rt_mve_taps_sum(const int8_t *w, int32_t kf, int32_t n,
                                      mve_pred16_t tail)
{
    int32_t sum = 0, i;
    for (i = 0; i < kf; i += 16) {
        sum = vaddvaq_s8(sum, vldrbq_s8(w + i));
    }
    return kf < n ? vaddvaq_s8(sum, vldrbq_z_s8(w + kf, tail)) : sum;
}

/* Each of count filters' sums of taps (k each, from w) times the input offset, plus its bias,
 * into fold: the sums (where k is a multiple of 16, at -O2) four filters a loop in assembly,
 * each load stepping its filter's pointer (a filter a loop costs VWW 30 K instructions more,
 * the C loop of four 15 K), the other filters one at a time; then the folds four filters a
 * step. */
static RT_DSP_NOINLINE void rt_mve_folds(const rt_conv_s8_params *p, const int8_t *w,
                                         const int32_t *bias, int32_t k, int32_t count,
                                         int32_t *fold)
{
    const int32_t kf = k & ~15;
    const mve_pred16_t tail = rt_mve_tail8(k - kf);
    int32_t j = 0;
#if defined(__OPTIMIZE__)
    if (kf == k && k > 0 && count >= 4) {
        const int8_t *w1, *w2, *w3;
        int32_t *f = fold, s0, s1, s2, s3;
        const int32_t *fend = fold + (count & ~3);
        __asm__ volatile("1:\n\t"
                         "add %[w1], %[w0], %[k]\n\t"
                         "add %[w2], %[w1], %[k]\n\t"
                         "add %[w3], %[w2], %[k]\n\t"
                         "mov %[s0], #0\n\t"
                         "mov %[s1], #0\n\t"
                         "mov %[s2], #0\n\t"
                         "mov %[s3], #0\n\t"
                         "dls lr, %[n]\n\t"
                         "2:\n\t"
                         "vldrb.8 q0, [%[w0]], #16\n\t"
                         "vldrb.8 q1, [%[w1]], #16\n\t"
                         "vaddva.s8 %[s0], q0\n\t"
                         "vldrb.8 q0, [%[w2]], #16\n\t"
                         "vaddva.s8 %[s1], q1\n\t"
                         "vldrb.8 q1, [%[w3]], #16\n\t"
                         "vaddva.s8 %[s2], q0\n\t"
                         "vaddva.s8 %[s3], q1\n\t"
                         "le lr, 2b\n\t"
                         "strd %[s0], %[s1], [%[f]], #8\n\t"
                         "strd %[s2], %[s3], [%[f]], #8\n\t"
                         "mov %[w0], %[w3]\n\t"
                         "cmp %[f], %[fend]\n\t"
                         "bne 1b"
                         : [s0] "=&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2), [s3] "=&Te"(s3),
                           [w0] "+r"(w), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3),
                           [f] "+r"(f)
                         : [k] "r"(k), [n] "r"(k >> 4), [fend] "r"(fend)
                         : "cc", "memory", "lr", "d0", "d1", "d2", "d3");
        j = count & ~3;
    }
#endif
    for (; j < count; ++j, w += k) {
        fold[j] = rt_mve_taps_sum(w, kf, k, tail);
    }
    for (j = 0; j < count; j += 4) {
        const mve_pred16_t these = vctp32q((uint32_t)(count - j));
        const int32x4_t b = bias != NULL ? vldrwq_z_s32(bias + j, these) : vdupq_n_s32(0);
        vstrwq_p_s32(fold + j, vmlaq_n_s32(b, vldrwq_z_s32(fold + j, these), p->input_offset),
                     these);
    }
}

int32_t rt_mve_pairs_make(const rt_conv_s8_params *p, const int8_t *w, const int32_t *bias,
                          int32_t k, int32_t oc, int32_t count, rt_mve_pair *q)
{
    /* a pair's lanes (f0, f1, f0, f1) as word offsets from f0 */
    static const uint32_t two[4] = {0u, 1u, 0u, 1u};
    const int32x4_t zero = vdupq_n_s32(0);
    const uint32x4_t pair = vldrwq_u32(two);
    const int32_t *mult = p->mult + oc, *shift = p->shift + oc;
    int32_t fold[2 * RT_MVE_BLOCK_PAIRS];
    int32_t j, most = INT32_MIN;
    rt_mve_folds(p, w, bias != NULL ? bias + oc : NULL, k, count, fold);
    for (j = 0; j < count; j += 4) {   /* the greatest shift */
        const mve_pred16_t these = vctp32q((uint32_t)(count - j));
        most = vmaxvq_p_s32(most, vldrwq_z_s32(shift + j, these), these);
    }
    j = 0;
#if defined(__OPTIMIZE__)
    if (count >= 2) {   /* the whole pairs: three gathers and four stores each */
        const int32_t *fp = fold, *mp = mult, *sp = shift;
        __asm__ volatile("dls lr, %[n]\n\t"
                         "1:\n\t"
                         "vldrw.u32 q0, [%[sp], %q[pair], uxtw #2]\n\t"
                         "vldrw.u32 q1, [%[fp], %q[pair], uxtw #2]\n\t"
                         "vldrw.u32 q2, [%[mp], %q[pair], uxtw #2]\n\t"
                         "add %[sp], %[sp], #8\n\t"
                         "add %[fp], %[fp], #8\n\t"
                         "add %[mp], %[mp], #8\n\t"
                         "vstrw.32 q1, [%[q]], #16\n\t"
                         "vmin.s32 q1, q0, %q[zero]\n\t"
                         "vstrw.32 q2, [%[q]], #16\n\t"
                         "vmax.s32 q0, q0, %q[zero]\n\t"
                         "vstrw.32 q1, [%[q]], #16\n\t"
                         "vstrw.32 q0, [%[q]], #16\n\t"
                         "le lr, 1b"
                         : [q] "+r"(q), [fp] "+r"(fp), [mp] "+r"(mp), [sp] "+r"(sp)
                         : [n] "r"(count >> 1), [pair] "w"(pair), [zero] "w"(zero)
                         : "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5");
        j = count & ~1;
    }
#endif
    for (; j < count; j += 2, ++q) {   /* (an odd last filter a pair of itself) */
        const uint32x4_t lanes = j + 1 < count ? pair : vdupq_n_u32(0u);
        const int32x4_t sh = vldrwq_gather_shifted_offset_s32(shift + j, lanes);
        vstrwq_s32(q->fold, vldrwq_gather_shifted_offset_s32(fold + j, lanes));
        vstrwq_s32(q->mult, vldrwq_gather_shifted_offset_s32(mult + j, lanes));
        vstrwq_s32(q->right, vminq_s32(sh, zero));
        vstrwq_s32(q->left, vmaxq_s32(sh, zero));
    }
    return (most > 0 ? RT_MVE_ANY_LEFT : 0) | (most < 0 ? RT_MVE_ALL_RIGHT : 0);
}

/* a = (x0.w0, x0.w1, x1.w0, x1.w1) over n taps, without the offset (predicated tail). */
static inline int32x4_t rt_mve_mac_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0,
                                       const int8_t *w1, int32_t n)
{
    int32_t a[4] = {0, 0, 0, 0}, i;
    for (i = 0; i < n; i += 16) {
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const int8x16_t va = vldrbq_z_s8(x0 + i, p), vb = vldrbq_z_s8(x1 + i, p);
        const int8x16_t fa = vldrbq_z_s8(w0 + i, p), fb = vldrbq_z_s8(w1 + i, p);
        a[0] = vmladavaq_s8(a[0], va, fa);
        a[1] = vmladavaq_s8(a[1], va, fb);
        a[2] = vmladavaq_s8(a[2], vb, fa);
        a[3] = vmladavaq_s8(a[3], vb, fb);
    }
    return vldrwq_s32(a);
}

/* Four sums plus their folds, requantized (rt_mve_requant's steps, with the shift split),
 * offset and clamped; a tile's output stage (rt_mve_tile_out) scatters them to the lanes asked
 * for. */
static inline int32x4_t rt_mve_pair_requant(int32x4_t acc, int32x4_t fold, int32x4_t left,
                                            int32x4_t mult, int32x4_t right,
                                            const rt_mve_out *o)
{
    int32x4_t h = vqrdmulhq_s32(vshlq_s32(vaddq_s32(acc, fold), left), mult);
    if (!o->relu) {
        h = vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, right), 31));
    }
    h = vrshlq_s32(h, right);
    return vminq_s32(vmaxq_s32(vaddq_s32(h, o->off), o->lo), o->hi);
}

static inline void rt_mve_tile_out(int32x4_t acc, const rt_mve_pair *q, const rt_mve_out *o,
                                   int8_t *out, mve_pred16_t lanes)
{
    vstrbq_scatter_offset_p_s32(out, o->offs,
                                rt_mve_pair_requant(acc, vldrwq_s32(q->fold),
                                                    vldrwq_s32(q->left), vldrwq_s32(q->mult),
                                                    vldrwq_s32(q->right), o),
                                lanes);
}

/* Tiles in C: pixels x0 and x1 (x1 == x0: one pixel, two = 0) by `pairs` filter pairs from
 * w (filters of k taps, pair j at w + 2jk; the last pair a lone filter when lone), outputs
 * from out (filter oc of pixel 0). */
static RT_DSP_NOINLINE void rt_mve_tiles_c(const int8_t *x0, const int8_t *x1, int32_t two,
                                           const int8_t *w, int32_t k, int32_t pairs,
                                           int32_t lone, const rt_mve_pair *q,
                                           const rt_mve_out *o, int8_t *out)
{
    int32_t j;
    for (j = 0; j < pairs; ++j, ++q, w += 2 * k, out += 2) {
        const int32_t one = lone && j == pairs - 1;
        const mve_pred16_t lanes = (mve_pred16_t)(0x000Fu | (one ? 0u : 0x00F0u) |
                                                  (two ? 0x0F00u | (one ? 0u : 0xF000u) : 0u));
        rt_mve_tile_out(rt_mve_mac_2x2(x0, x1, w, one ? w : w + k, k), q, o, out, lanes);
    }
}

/* The tiles in assembly, a file each, compiled here: with their bodies in this file gcc knows
 * what memory they touch, and keeps the callers' values in registers across the calls (as
 * separate files, rt_mve_gathered's prologue took other registers and more loads). */
#include "conv_mve_2x2.h"
#include "conv_mve_4x2.h"

#if defined(__OPTIMIZE__)
/* A lone last row x by every filter of the block (count a multiple of four), four filters a
 * step: one load of the row's taps for four filters' (nine instructions per 64 MACs, where a
 * 2x2 tile with the row before it takes eight per 32 that count), the four sums requantized in
 * one vector (the filters' parameters gathered from their pairs) and stored as four bytes. */
static RT_DSP_NOINLINE void rt_mve_row_1x4(const int8_t *x, const int8_t *w, int32_t k,
                                           int32_t count, const rt_mve_pair *q,
                                           const rt_mve_out *o, int8_t *out)
{
    /* filters f..f+3 of pairs q, q + 1: words 0, 1, 16, 17 from a pair's first */
    static const uint32_t lanes[4] = {0u, 1u, 16u, 17u};
    const uint32x4_t at = vldrwq_u32(lanes);
    const int32_t kf = k & ~15;
    const mve_pred16_t tail = rt_mve_tail8(k - kf);
    int32_t f, i;
    for (f = 0; f < count; f += 4, w += 4 * k, q += 2) {
        const int8_t *w1 = w + k, *w2 = w + 2 * k, *w3 = w + 3 * k;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        int32x4_t h;
        for (i = 0; i < kf; i += 16) {
            const int8x16_t xv = vldrbq_s8(x + i);
            a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w + i));
            a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1 + i));
            a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2 + i));
            a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3 + i));
        }
        if (kf < k) {
            const int8x16_t xv = vldrbq_z_s8(x + kf, tail);
            a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w + kf, tail));
            a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + kf, tail));
            a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + kf, tail));
            a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + kf, tail));
        }
        h = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);
        vstrbq_s32(out + f, rt_mve_pair_requant(h, vldrwq_gather_shifted_offset_s32(q->fold, at),
                                                vldrwq_gather_shifted_offset_s32(q->left, at),
                                                vldrwq_gather_shifted_offset_s32(q->mult, at),
                                                vldrwq_gather_shifted_offset_s32(q->right, at),
                                                o));
    }
}

#endif

/* Pixels x0 and x1 (two = 0: x0 alone) by the filters of one block: `count` filters from w
 * (k taps each), their parameters q (rt_mve_pairs_make), outputs from out (the block's first
 * filter, pixel 0). Whole pairs of two pixels go to the assembly loop when it can take them. */
static inline void rt_mve_block(const int8_t *x0, const int8_t *x1, int32_t two,
                                const int8_t *w, int32_t k, int32_t count, int32_t shifts,
                                const rt_mve_pair *q, const rt_mve_out *o, int8_t *out)
{
    const int32_t pairs = (count + 1) >> 1;
    int32_t done = 0;
#if defined(__OPTIMIZE__)
    if (two && k > 0 && count >= 2) {
        done = count >> 1;
        rt_mve_tiles_asm(x0, x1, 1, 0, 0, w, k, done, shifts, q, o, out);
    }
#else
    (void)shifts;
#endif
    if (done < pairs) {
        rt_mve_tiles_c(x0, two ? x1 : x0, two, w + 2 * done * k, k, pairs - done, count & 1,
                       q + done, o, out + 2 * done);
    }
}

/* Pixels rows: n rows of k taps from x (row i at x + i * k), their outputs from out (filter
 * oc of row 0; row i at out + i * cout), by the block's `count` filters from w. Whole pairs
 * of rows by whole pairs of filters in one assembly call; an odd last row in another, paired
 * with the row before it (whose outputs are stored again, the same bits: out must not
 * overlap x); then the lone last filter in C (-O0: everything, a pair of rows at a time). */
static RT_MVE_INLINE void rt_mve_row_pairs(const int8_t *x, int32_t n, const int8_t *w,
                                           int32_t k, int32_t cout, int32_t count,
                                           int32_t shifts, const rt_mve_pair *q,
                                           const rt_mve_out *o, int8_t *out)
{
    int32_t i = 0;
#if defined(__OPTIMIZE__)
    const int32_t pairs = count >> 1, wide = 2 * pairs;
    if (n >= 2 && pairs > 0) {
        rt_mve_tiles_asm(x, x + k, n >> 1, 2 * k, 2 * cout - wide, w, k, pairs, shifts, q, o,
                         out);
        for (; (count & 1) && i + 1 < n; i += 2) {
            rt_mve_tiles_c(x + i * k, x + (i + 1) * k, 1, w + wide * k, k, 1, 1, q + pairs, o,
                           out + i * cout + wide);
        }
        if (n & 1) {   /* the last row again with the one before (the same bits stored) */
            rt_mve_tiles_asm(x + (n - 2) * k, x + (n - 1) * k, 1, 0, 0, w, k, pairs, shifts,
                             q, o, out + (n - 2) * cout);
            if (count & 1) {
                rt_mve_tiles_c(x + (n - 1) * k, x + (n - 1) * k, 0, w + wide * k, k, 1, 1,
                               q + pairs, o, out + (n - 1) * cout + wide);
            }
        }
        return;
    }
#endif
    for (; i < n; i += 2) {
        rt_mve_block(x + i * k, x + (i + 1) * k, i + 1 < n, w, k, count, shifts, q, o,
                     out + i * cout);
    }
}

/* rt_mve_rows, inlined (with rt_mve_row_pairs) where the patches are gathered: ResNet-8
 * gathers many small batches, and the calls cost it 11 K instructions */
static RT_MVE_INLINE rt_status rows(const int8_t *x, int32_t n, const int8_t *w, int32_t k,
                                    int32_t cout, int32_t count, int32_t shifts,
                                    const rt_mve_pair *q, const rt_mve_out *o, int8_t *out)
{
    int32_t from = 0;
#if defined(__OPTIMIZE__)
    if (rt_mve_quads_fit(k, x, w, cout, count, shifts, o) && n >= 4) {
        /* a lone last row goes with the one before it (the same bits stored again) */
        const int32_t nq = n >> 2, rest = n - 4 * nq;
        if (!rt_mve_quads(x, nq, w, k, k, cout, count >> 1, shifts, q, o, out)) {
            return RT_ERR_PARAM;   /* (its loop left out of the build: mve_variants.h) */
        }
        from = rest == 0 ? n : rest == 1 ? n - 2 : 4 * nq;
        if (rest == 1 && !(count & 3)) {   /* a lone last row, four filters at a time */
            rt_mve_row_1x4(x + (n - 1) * k, w, k, count, q, o, out + (n - 1) * cout);
            from = n;
        }
    }
#endif
    if (from < n) {
        rt_mve_row_pairs(x + from * k, n - from, w, k, cout, count, shifts, q, o,
                         out + from * cout);
    }
    return RT_OK;
}

rt_status rt_mve_rows(const int8_t *x, int32_t n, const int8_t *w, int32_t k, int32_t cout,
                      int32_t count, int32_t shifts, const rt_mve_pair *q, const rt_mve_out *o,
                      int8_t *out)
{
    return rows(x, n, w, k, cout, count, shifts, q, o, out);
}

/* Output pixel (oy, ox)'s patch (one group of g->cin channels) as one row laid out like an
 * OHWI filter, taps outside the input holding the input zero point (which adds nothing).
 * Without dilation along a row, a filter row is one run of the input between two fills. */
static RT_DSP_NOINLINE void rt_mve_gather(const rt_conv_s8_geom *g,
                                          const rt_conv_s8_params *p, const int8_t *img,
                                          int32_t oy, int32_t ox, int8_t *dst)
{
    const int8x16_t zero = vdupq_n_s8((int8_t)(-p->input_offset));
    const int32_t cin = g->cin, run = g->kw * cin, row = g->w * cin;
    const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
    int32_t ky, kx, kx0 = 0, kx1 = g->kw;
    if (p->dilation_w == 1) {   /* the taps inside: [kx0, kx1) */
        kx0 = ix0 < 0 ? (-ix0 < g->kw ? -ix0 : g->kw) : 0;
        kx1 = g->w - ix0 < g->kw ? g->w - ix0 : g->kw;
        kx1 = kx1 < kx0 ? kx0 : kx1;
    }
    for (ky = 0; ky < g->kh; ++ky, dst += run) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        const int8_t *src = img + iy * row;
        if (iy < 0 || iy >= g->h) {
            rt_mve_fill(dst, zero, run);
        } else if (p->dilation_w == 1) {
            if (kx0 > 0) {
                rt_mve_fill(dst, zero, kx0 * cin);
            }
            if (kx1 > kx0) {
                rt_mve_copy(dst + kx0 * cin, src + (ix0 + kx0) * cin, (kx1 - kx0) * cin);
            }
            if (kx1 < g->kw) {
                rt_mve_fill(dst + kx1 * cin, zero, (g->kw - kx1) * cin);
            }
        } else {
            for (kx = 0; kx < g->kw; ++kx) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                if (ix < 0 || ix >= g->w) {
                    rt_mve_fill(dst + kx * cin, zero, cin);
                } else {
                    rt_mve_copy(dst + kx * cin, src + ix * cin, cin);
                }
            }
        }
    }
}

/* The output pixels whose every tap lies inside the input along one axis: [*lo, return),
 * for an input of n, padding pad, stride s, a filter spanning `span` inputs. */
static inline int32_t rt_mve_inside(int32_t n, int32_t pad, int32_t s, int32_t span,
                                    int32_t *lo)
{
    *lo = (pad + s - 1) / s;
    return n + pad - span >= 0 ? (n + pad - span) / s + 1 : 0;
}

/* The patches of m pixels from the one at x (taps within a byte gather's reach: nv vectors of
 * offs, taps of them, the lanes past them zero), k bytes apart from dst: a gather a vector,
 * the pixels xstep apart; where `width` > 0, rows of width pixels, the next row's first
 * ystep on from the last pixel's step, the first row from pixel ox of it. */
static RT_DSP_NOINLINE void rt_mve_patches(const int8_t *x, int32_t m, int32_t xstep,
                                           int32_t width, int32_t ystep, int32_t ox,
                                           const uint8_t *offs, int32_t nv, int32_t taps,
                                           int32_t k, int8_t *dst)
{
    const mve_pred16_t last = vctp8q((uint32_t)(taps - 16 * (nv - 1)));
    int32_t j;
    for (j = 0; j < m; ++j, x += xstep, dst += k) {
        int32_t v;
        for (v = 0; v < nv - 1; ++v) {
            vstrbq_u8((uint8_t *)dst + 16 * v,
                      vldrbq_gather_offset_u8((const uint8_t *)x, vldrbq_u8(offs + 16 * v)));
        }
        vstrbq_u8((uint8_t *)dst + 16 * v,
                  vldrbq_gather_offset_z_u8((const uint8_t *)x, vldrbq_u8(offs + 16 * v), last));
        if (++ox == width) {
            ox = 0;
            x += ystep;
        }
    }
}

/* The patches of m output pixels from (oy, ox) on in raster order, pixel j's at dst + j k
 * (k at least KH * KW * Cin; bytes past a patch are left as they are). Pixels whose taps all
 * lie inside the input (no dilation along rows), a row's run of them at a time, copy their KH
 * runs of KW * Cin bytes, whole vectors and a predicated tail, from an offset that steps
 * along with the pixels (rt_mve_copy's steps, with the tail's predicate made once a batch:
 * calling rt_mve_copy per run costs ResNet-8 43 K instructions on the M55; runs shorter than
 * a vector, a first layer's 3x3x3, one predicated load and store each, under one VPSTT, the
 * rows a DLS/LE loop at -O2), or where nv > 0 one byte gather of offs a vector of taps
 * (rt_mve_patches; every pixel in one call where there is no padding); any other takes
 * rt_mve_gather. Out of line: inlined, it crowds its callers' registers. */
static RT_DSP_NOINLINE void rt_mve_gather_batch(const rt_conv_s8_geom *g,
                                                const rt_conv_s8_params *p, const int8_t *img,
                                                int32_t oy, int32_t ox, int32_t m, int32_t k,
                                                const uint8_t *offs, int32_t nv, int8_t *dst)
{
    const int32_t cin = g->cin, run = g->kw * cin, row = g->w * cin;
    const int32_t step = p->dilation_h * row, whole = run & ~15, xstep = p->stride_w * cin;
    const mve_pred16_t tail = rt_mve_tail8(run - whole);
    int32_t x_lo = 0, y_lo, j, ky, i;
    if (nv > 0 && p->pad_h == 0 && p->pad_w == 0) {   /* every pixel inside, one call */
        rt_mve_patches(img + oy * p->stride_h * row + ox * xstep, m, xstep, g->ow,
                       p->stride_h * row - g->ow * xstep, ox, offs, nv, g->kh * run, k, dst);
        return;
    }
    const int32_t x_hi = p->dilation_w != 1 ? 0 : rt_mve_inside(g->w, p->pad_w, p->stride_w,
                                                                  g->kw, &x_lo);
    const int32_t y_hi = rt_mve_inside(g->h, p->pad_h, p->stride_h,
                                       (g->kh - 1) * p->dilation_h + 1, &y_lo);
    /* the offset in img of pixel (oy, ox)'s first tap (only used for pixels inside) */
    int32_t at = (oy * p->stride_h - p->pad_h) * row + (ox * p->stride_w - p->pad_w) * cin;
    int32_t n;
    for (j = 0; j < m; j += n, ox += n, at += n * xstep, dst += n * k) {
        if (ox == g->ow) {
            ox = 0;
            ++oy;
            at = (oy * p->stride_h - p->pad_h) * row - p->pad_w * cin;
        }
        if (oy < y_lo || oy >= y_hi || ox < x_lo || ox >= x_hi) {
            rt_mve_gather(g, p, img, oy, ox, dst);
            n = 1;
            continue;
        }
        /* the n pixels from ox on that lie inside, in one go */
        n = x_hi - ox < m - j ? x_hi - ox : m - j;
        if (nv > 0) {
            rt_mve_patches(img + at, n, xstep, 0, 0, 0, offs, nv, g->kh * run, k, dst);
        } else if (whole == 0) {   /* runs shorter than a vector (a first layer's 3x3x3) */
            const int8_t *px = img + at;
            for (i = 0; i < n; ++i, px += xstep) {
                const int8_t *s = px;
                int8_t *d = dst + i * k;
#if defined(__OPTIMIZE__)
                /* one predicate for a load and its store (VPSTT), the rows a DLS/LE loop */
                __asm__ volatile("vctp.8 %[run]\n\t"
                                 "dls lr, %[rows]\n\t"
                                 "1:\n\t"
                                 "vpstt\n\t"
                                 "vldrbt.8 q0, [%[s]]\n\t"
                                 "vstrbt.8 q0, [%[d]]\n\t"
                                 "add %[s], %[s], %[step]\n\t"
                                 "add %[d], %[d], %[run]\n\t"
                                 "le lr, 1b"
                                 : [s] "+r"(s), [d] "+r"(d)
                                 : [rows] "r"(g->kh), [run] "r"(run), [step] "r"(step)
                                 : "cc", "memory", "lr", "d0", "d1");
#else
                for (ky = 0; ky < g->kh; ++ky, s += step, d += run) {
                    vstrbq_p_s8(d, vldrbq_z_s8(s, tail), tail);
                }
#endif
            }
        } else {
            int32_t t;
            for (t = 0; t < n; ++t) {
                const int8_t *s = img + at + t * xstep;
                int8_t *d = dst + t * k;
                for (ky = 0; ky < g->kh; ++ky, s += step, d += run) {
                    for (i = 0; i < whole; i += 16) {
                        vstrbq_s8(d + i, vldrbq_s8(s + i));
                    }
                    if (whole < run) {
                        vstrbq_p_s8(d + whole, vldrbq_z_s8(s + whole, tail), tail);
                    }
                }
            }
        }
    }
}

/* Where a patch's taps lie from its first (in the patch's order, the lanes past its last
 * zero), for patches of rows shorter than a vector, without dilation along a row, that lie
 * within a byte gather's reach (255 bytes) and fit their k: vectors of offsets into offs, how
 * many returned (0: not so; KWS's 10x4 stem, ResNet-8's 3x3x3). */
static int32_t rt_mve_patch_offsets(const rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                                    int32_t k, uint8_t *offs)
{
    const int32_t run = g->kw * g->cin, step = p->dilation_h * g->w * g->cin;
    const int32_t nv = (g->kh * run + 15) >> 4;
    int32_t ky, i, t = 0;
    if (p->dilation_w != 1 || run >= 16 || (g->kh - 1) * step + run > 256 || 16 * nv > k ||
        nv > 4) {
        return 0;
    }
    for (ky = 0; ky < g->kh; ++ky) {
        for (i = 0; i < run; ++i) {
            offs[t++] = (uint8_t)(ky * step + i);
        }
    }
    for (; t < 16 * nv; ++t) {
        offs[t] = 0;
    }
    return nv;
}

int32_t rt_mve_cols_bytes(const rt_conv_s8_geom *g, const rt_conv_s8_params *p, int32_t k)
{
    const int32_t cin = g->cin, cc = g->kh * cin, taps = g->kw * cc;
    const int32_t ncols = (g->ow - 1) * p->stride_w + g->kw, step = g->w * cin;
    if (g->groups != 1 || p->dilation_h != 1 || p->dilation_w != 1 || k > 64 ||
        taps >= k || g->kw * cin >= 16 || cin > 16 ||
        (g->kh - 1) * step + g->kw * cin <= 256 ||             /* a byte gather reaches */
        (15 / cin) * cc + 15 % cin >= 256) {                    /* the scatter's offsets */
        return 0;
    }
    return ncols * cc + 32;
}

void rt_mve_cols_filters(const rt_conv_s8_geom *g, const int8_t *w, int32_t count, int32_t kp,
                         int8_t *dst)
{
    const int32_t cin = g->cin, k = g->kh * g->kw * cin;
    const mve_pred16_t t = rt_mve_tail8(cin);
    int32_t j, ky, kx;
    for (j = 0; j < count; ++j, w += k, dst += kp) {
        for (ky = 0; ky < g->kh; ++ky) {
            for (kx = 0; kx < g->kw; ++kx) {
                vstrbq_p_s8(dst + (kx * g->kh + ky) * cin,
                            vldrbq_z_s8(w + (ky * g->kw + kx) * cin, t), t);
            }
        }
        rt_mve_fill(dst + k, vdupq_n_s8(0), kp - k);
    }
}

/* n bytes of whole pixels from src into their columns' slots from d: sixteen bytes a step,
 * scattered by sc (lane i: pixel i / cin's channel i % cin, cc bytes a pixel), each step on by
 * the whole pixels it holds (lanes bytes; the lanes past them store the next pixel's first
 * bytes, as the next step does again), unpredicated but for the last; or, where src is NULL,
 * the zero point v alike. */
static inline void rt_mve_cols_scatter(int8_t *d, const int8_t *src, int8x16_t v, int32_t n,
                                       uint8x16_t sc, int32_t lanes, int32_t dstep)
{
    int32_t i;
    if (src == NULL) {
        for (i = 0; i + 16 <= n; i += lanes, d += dstep) {
            vstrbq_scatter_offset_s8(d, sc, v);
        }
    } else {   /* (a pointer that steps: an index cost VWW 5 K instructions) */
        const int8_t *s = src;
        if (n >= 16) {
            const int8_t *last = src + (n - 16);
            for (; s <= last; s += lanes, d += dstep) {
                vstrbq_scatter_offset_s8(d, sc, vldrbq_s8(s));
            }
        }
        i = (int32_t)(s - src);
    }
    if (i < n) {
        const mve_pred16_t t = rt_mve_tail8(n - i);
        vstrbq_scatter_offset_p_s8(d, sc, src != NULL ? vldrbq_z_s8(src + i, t) : v, t);
    }
}

#if RT_MVE_HAS(RT_MVE_U_COLS)
/* Column-major patches' buffer for output row oy (image img): each input row under it into
 * its slot of every column, or the zero point where the row lies outside; the columns outside
 * the input hold it already. */
static RT_DSP_NOINLINE void rt_mve_cols_row(const rt_conv_s8_geom *g,
                                            const rt_conv_s8_params *p, const int8_t *img,
                                            int32_t oy, uint8x16_t sc, int8_t *cols)
{
    const int32_t cin = g->cin, cc = g->kh * cin, ppv = 16 / cin, lanes = ppv * cin;
    const int32_t ncols = (g->ow - 1) * p->stride_w + g->kw, row = g->w * cin;
    const int8x16_t zero = vdupq_n_s8((int8_t)(-p->input_offset));
    /* the columns inside the input: [lo, hi) */
    const int32_t lo = p->pad_w < ncols ? p->pad_w : ncols;
    const int32_t hi = p->pad_w + g->w < ncols ? p->pad_w + g->w : ncols;
    int32_t ky;
    for (ky = 0; ky < g->kh; ++ky) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky;
        if (iy < 0 || iy >= g->h) {
            rt_mve_cols_scatter(cols + ky * cin, NULL, zero, ncols * cin, sc, lanes, ppv * cc);
        } else if (hi > lo) {
            rt_mve_cols_scatter(cols + ky * cin + lo * cc, img + iy * row, zero,
                                (hi - lo) * cin, sc, lanes, ppv * cc);
        }
    }
}

/* Pixels ox..ox+m-1's patches from the columns: kw columns of cc bytes from column ox * stride,
 * nv whole vectors each (the bytes past the patch multiply the filters' zeros), k apart. */
static RT_DSP_NOINLINE void rt_mve_cols_patches(const int8_t *cols, int32_t ox, int32_t m,
                                                int32_t xstep, int32_t nv, int32_t k,
                                                int8_t *dst)
{
    const int8_t *s = cols + ox * xstep;
    int32_t j, v;
#if defined(__OPTIMIZE__)
    if (nv == 2 && m > 0) {   /* VWW's 27 taps: a DLS/LE loop of seven instructions */
        __asm__ volatile("dls lr, %[m]\n\t"
                         "1:\n\t"
                         "vldrb.8 q0, [%[s]]\n\t"
                         "vldrb.8 q1, [%[s], #16]\n\t"
                         "add %[s], %[s], %[xs]\n\t"
                         "vstrb.8 q0, [%[d]]\n\t"
                         "vstrb.8 q1, [%[d], #16]\n\t"
                         "add %[d], %[d], %[k]\n\t"
                         "le lr, 1b"
                         : [s] "+r"(s), [d] "+r"(dst)
                         : [m] "r"(m), [xs] "r"(xstep), [k] "r"(k)
                         : "memory", "lr", "d0", "d1", "d2", "d3");
        return;
    }
#endif
    for (j = 0; j < m; ++j, s += xstep, dst += k) {
        for (v = 0; v < nv; ++v) {
            vstrbq_s8(dst + 16 * v, vldrbq_s8(s + 16 * v));
        }
    }
}


/* rt_mve_gathered's column-major patches: a row's columns, then its pixels a batch at a time
 * (rt_mve_rows out of line, so that the gathered loop keeps its registers). */
static RT_DSP_NOINLINE rt_status rt_mve_cols_gathered(const rt_conv_s8_geom *g,
                                                 const rt_conv_s8_params *p, const int8_t *in,
                                                 const int8_t *w, int32_t k, int32_t batch,
                                                 int32_t count, int32_t shifts,
                                                 const rt_mve_pair *q, const rt_mve_out *o,
                                                 int8_t *patch, int8_t *cols, int32_t cols_room,
                                                 int8_t *out)
{
    const int32_t cin = g->cin, cout = g->cout, ow = g->ow, cc = g->kh * cin;
    const int32_t nv = (g->kh * g->kw * cin + 15) >> 4, xstep = p->stride_w * cc;
    /* rows of 32 taps 18 bytes apart (VWW's) go to the 4x2 tiles as they lie */
    const int32_t direct = k == 32 && xstep == 18 && ow >= 4 && !(count & 1) &&
                           rt_mve_saturates(shifts, o) && cout <= 21844;
    uint8_t sc[16];
    int32_t i, n, oy, ox;
    for (i = 0; i < 16; ++i) {   /* lane i: pixel i / cin's channel i % cin */
        sc[i] = (uint8_t)((i / cin) * cc + i % cin);
    }
    rt_mve_fill(cols, vdupq_n_s8((int8_t)(-p->input_offset)), cols_room);
    for (n = 0; n < g->n; ++n) {
        const int8_t *img = in + n * g->h * g->w * cin;
        for (oy = 0; oy < g->oh; ++oy) {
            int8_t *orow = out + ((n * g->oh + oy) * ow) * cout;
            rt_mve_cols_row(g, p, img, oy, vldrbq_u8(sc), cols);
            ox = 0;
#if defined(__OPTIMIZE__)
            if (direct) {   /* whole quads of the row straight from the columns */
                if (!rt_mve_quads(cols, ow >> 2, w, k, xstep, cout, count >> 1, shifts, q, o,
                                  orow)) {
                    return RT_ERR_PARAM;   /* (its loop left out of the build) */
                }
                ox = ow & ~3;
            }
#else
            (void)direct;   /* (-O0: every patch copied) */
#endif
            for (; ox < ow; ox += batch) {
                const int32_t m = ow - ox < batch ? ow - ox : batch;
                rt_mve_cols_patches(cols, ox, m, xstep, nv, k, patch);
                RT_TRY(rt_mve_rows(patch, m, w, k, cout, count, shifts, q, o,
                                   orow + ox * cout));
            }
        }
    }
    return RT_OK;
}

#endif

rt_status rt_mve_gathered(const rt_conv_s8_geom *g, const rt_conv_s8_params *p, const int8_t *in,
                     const int8_t *w, int32_t k, const int32_t *bias, int32_t oc, int32_t count,
                     int8_t *patch, int32_t room, int8_t *cols, int32_t cols_room,
                     rt_mve_pair *q, int8_t *out)
{
    const int32_t cout = g->cout, pixels = g->oh * g->ow;
    const int32_t fit = room / k;   /* whole quads where the 4x2 tiles take the rows */
    const rt_mve_out o = rt_mve_out_make(p, cout);
    const int32_t shifts = rt_mve_pairs_make(p, w, bias, k, oc, count, q);
    const int32_t batch = fit >= 4 && rt_mve_quads_take(k, patch, w, rt_mve_saturates(shifts, &o))
                              ? fit & ~3
                              : fit & ~1;
    uint8_t offs[64];
    const int32_t nv = rt_mve_patch_offsets(g, p, k, offs);
    int32_t n, i;
#if RT_MVE_HAS(RT_MVE_U_COLS)
    if (cols != NULL) {
        return rt_mve_cols_gathered(g, p, in, w, k, batch, count, shifts, q, &o, patch, cols,
                                    cols_room, out + oc);
    }
#else
    if (cols != NULL) {
        return RT_ERR_PARAM;   /* (column-major patches left out of the build) */
    }
    (void)cols_room;
#endif
    if (k != g->kh * g->kw * g->cin) {
        rt_mve_fill(patch, vdupq_n_s8(0), room);
    }
    for (n = 0; n < g->n; ++n) {
        const int8_t *img = in + n * g->h * g->w * g->cin;
        int8_t *on = out + n * pixels * cout + oc;
        for (i = 0; i < pixels; i += batch) {
            const int32_t m = pixels - i < batch ? pixels - i : batch;
            rt_mve_gather_batch(g, p, img, i / g->ow, i % g->ow, m, k, offs, nv, patch);
            RT_TRY(rows(patch, m, w, k, cout, count, shifts, q, &o, on + i * cout));
        }
    }
    return RT_OK;
}
