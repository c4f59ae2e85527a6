/* conv2d.c (Cortex-M Helium, float32) - rt_conv2d_f32: direct convolution (aten.convolution,
 * not transposed), NCHW, any kernel, stride, padding, dilation and groups, 1-D as H = 1;
 * same contract as src/conv/conv2d.c.
 *
 * Vectorized along the output rows. A tile is 3 output channels (of one group) x 8 outputs
 * (2 vectors) of one row: its 6 accumulators stay in Q registers over every (input channel,
 * ky, kx) tap, and each tap loads 2 input vectors (plain loads for stride 1, gathers of
 * every s-th column otherwise) and 3 weights (scalars, VFMA.F32 Qd, Qn, Rm) for 6 fused
 * multiply-adds. Taps go kx by kx; under each, the kernel rows inside the input (a range
 * worked out per output row) and the input channels, the longer of the two innermost, with
 * constant pointer steps. A group whose input planes fit in 4 KB with their padding is first
 * copied onto the stack zero-padded (mve_pad_copy): every tile then reads inside the copy
 * without checks. Otherwise, in a tile whose taps reach past the left or right edge of the
 * input, a kx with lanes outside the row loads under a lane predicate (those lanes read 0,
 * as zero padding); the other kx's, and tiles inside, load plainly. A ragged row end reuses
 * the last full tile shifted back, ragged channels the last 3 (recomputing a few outputs,
 * the same bits); rows of fewer than 8 outputs are one tile whose lanes past the row are not
 * stored; groups of 1 or 2 channels fill the tile with one of them again. The bias and the
 * fused activation are applied as a tile is stored. Fused multiply-adds, summed in (kx, ky,
 * channel) order: results differ from the portable kernel's by float rounding. */
#include "f32_mve.h"

/* What the tiles of one output row of 3 channels share. */
typedef struct conv_row {
    const mve_view *v;
    const float *in;    /* the group's first input channel */
    const float *w;     /* the tile's first filter; the others f1, f2 floats further */
    int32_t f1, f2;     /* (0 repeats a channel: a group of 1 or 2 channels) */
    int32_t cin;        /* input channels of the group */
    int32_t iy0;        /* input row of ky = 0 */
    int32_t ky0, ky1;   /* the kernel rows inside the input */
    float *o;           /* the row's first output of the first channel */
    int32_t o1, o2;     /* the others' outputs, o1 and o2 floats further */
    float b[3];         /* the channels' biases */
} conv_row;

/* 3 channels x 2 vectors of the output row, outputs xt .. xt + 7, whose first tap reads
 * input column x0 (then x0 + 4 sw): computed, then stored with the bias and the activation,
 * only na / nb lanes of the vectors if fewer (the row's end). contig: stride 1, plain loads
 * (else gathers). border: some taps reach outside the input row, or lanes past na / nb must
 * not be read; their lanes load under predicates. */
/* One tap of conv_tile: input vectors va, vb times the 3 channels' weights at q (0, f1, f2
 * floats on), into the accumulators a0 .. a5. */
#define CONV_TILE_FMA(va, vb, q) \
    do { \
        const float w0 = mve_weight(q, 0); \
        const float w1 = mve_weight(q, f1), w2 = mve_weight(q, f2); \
        a0 = vfmaq_n_f32(a0, va, w0); \
        a1 = vfmaq_n_f32(a1, vb, w0); \
        a2 = vfmaq_n_f32(a2, va, w1); \
        a3 = vfmaq_n_f32(a3, vb, w1); \
        a4 = vfmaq_n_f32(a4, va, w2); \
        a5 = vfmaq_n_f32(a5, vb, w2); \
    } while (0)

MVE_INLINE void conv_tile(const conv_row *r, int32_t xt, int32_t x0, int32_t na, int32_t nb,
                          int border, const int contig)
{
    const mve_view *v = r->v;
    const int32_t f1 = r->f1, f2 = r->f2, nky = r->ky1 - r->ky0;
    const int32_t lane = contig ? 1 : v->sw; /* floats between lanes */
    const uint32x4_t offs = mve_lane_offsets(lane);
    /* the two inner loops: channels (input step plane, filter step fplane) and kernel rows
       (dh rows, kw); the longer one innermost */
    const int32_t chan_in = r->cin >= nky;
    const int32_t nu = chan_in ? r->cin : nky, nv = chan_in ? nky : r->cin;
    const int32_t su = chan_in ? v->plane : v->dh * v->w;
    const int32_t tu = chan_in ? v->fplane : v->kw;
    const int32_t sv = chan_in ? v->dh * v->w : v->plane;
    const int32_t tv = chan_in ? v->kw : v->fplane;
    /* the first kernel row inside (none: no taps, and no address past the input either) */
    const float *const rb = nky > 0 ? r->in + (r->iy0 + r->ky0 * v->dh) * v->w : r->in;
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    int32_t kx, iu, iv;
    for (kx = 0; kx < v->kw; ++kx) {
        const int32_t x = x0 + kx * v->dw;
        const float *wv = r->w + r->ky0 * v->kw + kx;
        mve_pred16_t pa = 0xFFFF, pb = 0xFFFF;
        if (border) {
            pa = mve_cols(x, v->sw, v->w, na);
            pb = mve_cols(x + 4 * v->sw, v->sw, v->w, nb);
            if ((pa | pb) == 0) {
                continue;
            }
        }
        if (pa == 0xFFFF && pb == 0xFFFF) { /* every lane inside the row */
            const float *rv = rb + x;
            for (iv = 0; iv < nv; ++iv, rv += sv, wv += tv) {
                const float *ip = rv, *q = wv;
                for (iu = 0; iu < nu; ++iu, ip += su, q += tu) {
                    /* b first: GCC then addresses both from ip, without a copy */
                    const float32x4_t vb = mve_load(ip + 4 * lane, contig, offs);
                    const float32x4_t va = mve_load(ip, contig, offs);
                    CONV_TILE_FMA(va, vb, q);
                }
            }
        } else { /* lanes outside the row (or past the outputs) read 0 */
            const int32_t xb = x + 4 * lane;
            const float *rv = rb;
            for (iv = 0; iv < nv; ++iv, rv += sv, wv += tv) {
                const float *ip = rv, *q = wv;
                for (iu = 0; iu < nu; ++iu, ip += su, q += tu) {
                    const float32x4_t va = mve_load_z(mve_at(ip, x), contig, offs, pa);
                    const float32x4_t vb = mve_load_z(mve_at(ip, xb), contig, offs, pb);
                    CONV_TILE_FMA(va, vb, q);
                }
            }
        }
    }
    {
        const int part = na < 4 || nb < 4;
        const mve_pred16_t ma = vctp32q((uint32_t)na), mb = vctp32q((uint32_t)nb);
        const float lo = v->lo, hi = v->hi;
        float *q = r->o + xt;
        /* (a channel repeated stores the same values again) */
        mve_store(q + r->o2, mve_bias_act(a4, r->b[2], lo, hi), part, ma);
        mve_store(q + r->o2 + 4, mve_bias_act(a5, r->b[2], lo, hi), part, mb);
        mve_store(q + r->o1, mve_bias_act(a2, r->b[1], lo, hi), part, ma);
        mve_store(q + r->o1 + 4, mve_bias_act(a3, r->b[1], lo, hi), part, mb);
        mve_store(q, mve_bias_act(a0, r->b[0], lo, hi), part, ma);
        mve_store(q + 4, mve_bias_act(a1, r->b[0], lo, hi), part, mb);
    }
}

/* conv_tile specialized on the stride (1: plain loads; other: gathers), each out of line so
 * that its loops have the core registers to themselves. */
typedef void (*conv_tile_fn)(const conv_row *r, int32_t xt, int32_t x0, int32_t na,
                             int32_t nb, int border);

static MVE_NOINLINE void tile_s1(const conv_row *r, int32_t xt, int32_t x0, int32_t na,
                                 int32_t nb, int border)
{
    conv_tile(r, xt, x0, na, nb, border, 1);
}

static MVE_NOINLINE void tile_sn(const conv_row *r, int32_t xt, int32_t x0, int32_t na,
                                 int32_t nb, int border)
{
    conv_tile(r, xt, x0, na, nb, border, 0);
}

/* Every output row (of [v->oy0, v->oy1)) of 3 channels of one group, c0 and the next two
 * (or c0 again, when the group has fewer): input in_g, filters w_g + c * fsize, biases
 * b_g[c] (or NULL), output planes out_g + c * oplane. Tiles of 8 outputs, the last shifted
 * back; a row of fewer is one tile of as many lanes, which reads past the row's end only if
 * padded (the copy has room there). */
static void conv_rows(const mve_view *v, int padded, const float *in_g, int32_t cin,
                      int32_t cout, int32_t c0, const float *w_g, int32_t fsize,
                      const float *b_g, float *out_g)
{
    const int32_t s = v->sw;
    const int32_t span = (v->kw - 1) * v->dw + 7 * s; /* a full tile's reach past x0 */
    const conv_tile_fn tile = s == 1 ? tile_s1 : tile_sn;
    const int32_t d1 = cout > 1 ? 1 : 0, d2 = cout > 2 ? 2 : d1; /* channels past c0 */
    int32_t oy, x;
    conv_row r;
    r.b[0] = b_g != NULL ? b_g[c0] : 0.0f;
    r.b[1] = b_g != NULL ? b_g[c0 + d1] : 0.0f;
    r.b[2] = b_g != NULL ? b_g[c0 + d2] : 0.0f;
    r.v = v;
    r.in = in_g;
    r.w = w_g + c0 * fsize;
    r.f1 = d1 * fsize;
    r.f2 = d2 * fsize;
    r.o1 = d1 * v->oplane;
    r.o2 = d2 * v->oplane;
    r.cin = cin;
    for (oy = v->oy0; oy < v->oy1; ++oy) {
        r.o = out_g + c0 * v->oplane + (oy - v->oy0) * v->ow;
        r.iy0 = oy * v->sh - v->ph;
        r.ky1 = mve_krows(v, r.iy0, &r.ky0);
        if (v->ow >= 8) {
            for (x = 0; x < v->ow; x += 8) {
                const int32_t xt = x + 8 <= v->ow ? x : v->ow - 8;
                const int32_t x0 = xt * s - v->pw;
                tile(&r, xt, x0, 4, 4, x0 < 0 || x0 + span >= v->w);
            }
        } else {
            const int32_t na = v->ow < 4 ? v->ow : 4;
            tile(&r, 0, -v->pw, na, v->ow - na, !padded);
        }
    }
}

/* Image in_n's rows [g->oy0, g->oy1) of every channel, into out_n (g->oplane floats a
 * channel). A band of rows (rt_conv2d_in_place_f32's) reads the input where it lies: a padded copy
 * of every plane for each band would cost more than its tiles save. */
void rt_conv2d_image_f32(const rt_conv_geom *g, const float *in_n, const float *w,
                         const float *b, float *out_n)
{
    float pad[MVE_PAD_FLOATS];
    const int whole = g->oy0 == 0 && g->oy1 == g->oh;
    int32_t grp, oc, fill = 1;
    for (grp = 0; grp < g->groups; ++grp) {
        const int32_t fsize = g->cin_g * g->kh * g->kw;
        const float *in_g = in_n + grp * g->cin_g * g->h * g->w;
        const float *w_g = w + grp * g->cout_g * fsize;
        const float *b_g = b != NULL ? b + grp * g->cout_g : NULL;
        float *out_g = out_n + grp * g->cout_g * g->oplane;
        mve_view v;
        int padded;
        mve_view_init(&v, g);
        padded = whole && mve_pad_copy(&v, in_g, g->cin_g, pad, fill);
        fill = fill && !padded;
        for (oc = 0; oc < g->cout_g; oc += 3) { /* the last 3 shifted back */
            const int32_t c0 = oc + 3 <= g->cout_g || g->cout_g < 3 ? oc : g->cout_g - 3;
            conv_rows(&v, padded, padded ? pad : in_g, g->cin_g, g->cout_g, c0, w_g, fsize,
                      b_g, out_g);
        }
    }
}

rt_status rt_conv2d_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    for (n = 0; n < g.n; ++n) {
        rt_conv2d_image_f32(&g, in + n * g.cin * g.h * g.w, w, b, out + n * g.cout * g.oplane);
    }
    return RT_OK;
}
