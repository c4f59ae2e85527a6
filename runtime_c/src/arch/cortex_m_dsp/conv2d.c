/* conv2d.c (Cortex-M with a single-precision FPU) - rt_conv2d_f32: direct convolution; same
 * contract as src/conv/conv2d.c, whose code this is but for two paths (f32_dsp.h's blocks):
 *
 * - filters 3 taps wide (stride 1 or 2 along the row, dilation 1 along it: the 3x3 layers
 *   of ResNets) go a row at a time in blocks of 4 output channels x 4 pixels: the 16 sums in
 *   s registers, per input channel and filter row one VLDM of the block's 6 (or 9) inputs
 *   and one VLDM of each channel's 3 weights for 48 products; a block with one input in the
 *   padding (at either end of a row) holds a 0 for it instead (row_k3_dsp);
 * - other filters (KWS's 10x4 stem, strided 1x1 shortcuts), at least 4 channels a group: a
 *   chunk of whole output rows has its taps gathered onto the stack, then is the matrix
 *   product of the filters and the gathered taps in blocks of 4 channels x 5 pixels
 *   (conv_gathered).
 *
 * Everything else (the border pixels those leave, channels left over) is the portable code.
 * Accumulation per output is in (c, ky, kx) order, bias last, as there: results are bit for
 * bit the portable kernel's for finite weights (a tap over the padding adds 0 x w where the
 * portable kernel skips it). */
#include "f32_dsp.h"

/* Stack floats for gathered taps (conv_gathered): 4.5 KB. */
#define COL_FLOATS 1152

#if RT_F32_DSP_ASM
/* The portable kernel, included below, with three of its steps taken here (hooks of
 * src/conv/conv2d.c): the blocks of 3-tap rows, a whole row of them, and whole images of
 * other filters gathered. */
static void block4x4_k3s1(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1);
static void block4x4_k3s2(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1);
static int row_k3_ok(const rt_conv_geom *g, int32_t ky0, int32_t ky1);
static void row_k3_dsp(const rt_conv_geom *g, const float *in_g, const float *w0,
                       int32_t fsize, int32_t oy, float *orow, int32_t plane,
                       const float *bias, int32_t ky0, int32_t ky1, int32_t xa, int32_t xb);
static int conv_image(const rt_conv_geom *g, const float *in_n, const float *w,
                      const float *b, float *out_n);
#define RT_CONV2D_K3_BLOCKS 1
#define RT_CONV2D_ROW(g, in_g, w_oc, fsize, oy, orow, plane, bias, ky0, ky1, xa, xb) \
    (row_k3_ok(g, ky0, ky1) ? (row_k3_dsp(g, in_g, w_oc, fsize, oy, orow, plane, bias, ky0, \
                                          ky1, xa, xb), 1) : 0)
#define RT_CONV2D_IMAGE(g, in_n, w, b, out_n) conv_image(g, in_n, w, b, out_n)
#endif

#include "../../conv/conv2d.c"

#if RT_F32_DSP_ASM
/* A 4 x 4 block's sums (acc[4 * channel + pixel]) + the channels' bias, clamped to [lo, hi]
 * as rt_act does, stored as 4 pixels of 4 channel planes (plane floats apart) from o: all in
 * registers, one VSTM a channel. */
#define EACH16(M) M("s0") M("s1") M("s2") M("s3") M("s4") M("s5") M("s6") M("s7") M("s8") \
    M("s9") M("s10") M("s11") M("s12") M("s13") M("s14") M("s15")
static void act_store_4x4(const float *acc, const float *bias, float lo, float hi, float *o,
                          int32_t plane)
{
    const float prm[6] = {bias[0], bias[1], bias[2], bias[3], lo, hi};
    const int32_t plane4 = 4 * plane, hashi = hi != INFINITY;
    __asm__ volatile(
        "vldm %[acc], {s0-s15}\n\t"
        "vldm %[prm], {s16-s19}\n\t"
        "vldr s30, [%[prm], #16]\n\t"
        "vldr s31, [%[prm], #20]\n\t"
        "vadd.f32 s0, s0, s16\n\tvadd.f32 s1, s1, s16\n\t"
        "vadd.f32 s2, s2, s16\n\tvadd.f32 s3, s3, s16\n\t"
        "vadd.f32 s4, s4, s17\n\tvadd.f32 s5, s5, s17\n\t"
        "vadd.f32 s6, s6, s17\n\tvadd.f32 s7, s7, s17\n\t"
        "vadd.f32 s8, s8, s18\n\tvadd.f32 s9, s9, s18\n\t"
        "vadd.f32 s10, s10, s18\n\tvadd.f32 s11, s11, s18\n\t"
        "vadd.f32 s12, s12, s19\n\tvadd.f32 s13, s13, s19\n\t"
        "vadd.f32 s14, s14, s19\n\tvadd.f32 s15, s15, s19\n\t"
        EACH16(RT_F32_DSP_LO)
        "cmp %[hashi], #0\n\t"
        "beq 1f\n\t"
        EACH16(RT_F32_DSP_HI)
        "1:\n\t"
        "vstm %[o], {s0-s3}\n\t"
        "add %[o], %[o], %[plane4]\n\t"
        "vstm %[o], {s4-s7}\n\t"
        "add %[o], %[o], %[plane4]\n\t"
        "vstm %[o], {s8-s11}\n\t"
        "add %[o], %[o], %[plane4]\n\t"
        "vstm %[o], {s12-s15}"
        : [o] "+r"(o)
        : [acc] "r"(acc), [prm] "r"(prm), [plane4] "r"(plane4), [hashi] "r"(hashi)
        : RT_F32_DSP_CLOBBERS);
}

/* The 4 x 4 block of f32_dsp.h's k3 blocks over the inputs at x (step floats a filter row,
 * next more a channel), filter rows [ky0, ky0 + rows): bias, activation, stored as
 * block4x4_k3 stores. */
static void k3_dsp(const rt_conv_geom *g, const float *x, int32_t step, int32_t next,
                   int mode, const float *w0, int32_t fsize, int32_t ky0, int32_t rows,
                   float *o, int32_t plane, const float *bias)
{
    float acc[16];
    const float lo = g->lo, hi = g->hi;
    if (g->sw == 1) {
        rt_f32_dsp_k3s1(x, w0 + 3 * ky0, fsize, g->cin_g, rows, step, next, 3 * (g->kh - rows),
                        mode, acc);
    } else {
        rt_f32_dsp_k3s2(x, w0 + 3 * ky0, fsize, g->cin_g, rows, step, next, 3 * (g->kh - rows),
                        mode, acc);
    }
    act_store_4x4(acc, bias, lo, hi, o, plane);
}

/* block4x4_k3 through f32_dsp.h's block: the same arguments, sums and stores. */
static void block4x4_k3_dsp(const rt_conv_geom *g, const float *in_g, const float *w0,
                            int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                            const float *bias, int32_t ky0, int32_t ky1, int32_t s)
{
    const int32_t rows = ky1 - ky0, step = g->dh * g->w, next = g->h * g->w - rows * step;
    const float *x = in_g + (oy * g->sh - g->ph + ky0 * g->dh) * g->w + ox * s - g->pw;
    k3_dsp(g, x, step, next, 0, w0, fsize, ky0, rows, o, plane, bias);
}

/* Whether row_k3_dsp takes the rows: a k3 filter, a row of at least one block, and some
 * filter rows inside the input. */
static int row_k3_ok(const rt_conv_geom *g, int32_t ky0, int32_t ky1)
{
    return g->kw == 3 && g->dw == 1 && g->sw <= 2 && g->ow >= 4 && ky1 > ky0;
}

/* Output row oy of channels oc..oc+3 for a k3 filter (filter rows [ky0, ky1) inside the
 * input), in blocks of 4 pixels, the last shifted back: a block whose inputs all lie in the
 * row (columns [xa, xb)) or all but its first or last one (a padding of 1) takes
 * f32_dsp.h's block (that input 0: it adds 0 x w where pixel4 skips the tap, the same for
 * finite weights), any other pixel4. */
static void row_k3_dsp(const rt_conv_geom *g, const float *in_g, const float *w0,
                       int32_t fsize, int32_t oy, float *orow, int32_t plane,
                       const float *bias, int32_t ky0, int32_t ky1, int32_t xa, int32_t xb)
{
    const int32_t s = g->sw, len = 3 + 3 * s, rows = ky1 - ky0;
    const int32_t step = g->dh * g->w, next = g->h * g->w - rows * step;
    const float *in_row = in_g + (oy * g->sh - g->ph + ky0 * g->dh) * g->w;
    int32_t x, j;
    for (x = 0; x < g->ow; x += 4) {
        const int32_t x4 = x + 4 <= g->ow ? x : g->ow - 4;
        const int32_t ix0 = x4 * s - g->pw, ix1 = ix0 + len;   /* inputs [ix0, ix1) */
        if (x4 >= xa && x4 + 4 <= xb) {
            k3_dsp(g, in_row + ix0, step, next, 0, w0, fsize, ky0, rows, orow + x4, plane, bias);
        } else if (ix0 == -1 && ix1 <= g->w) {
            k3_dsp(g, in_row, step, next, 1, w0, fsize, ky0, rows, orow + x4, plane, bias);
        } else if (ix0 >= 0 && ix1 == g->w + 1) {
            k3_dsp(g, in_row + ix0, step, next, 2, w0, fsize, ky0, rows, orow + x4, plane,
                   bias);
        } else {
            int32_t ox;
            for (ox = x4; ox < x4 + 4; ++ox) {
                float acc[4];
                pixel4(g, in_g, w0, fsize, oy, ox, acc);
                for (j = 0; j < 4; ++j) {
                    orow[ox + j * plane] = rt_act(acc[j] + bias[j], g->lo, g->hi);
                }
            }
        }
    }
}

static void block4x4_k3s1(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1)
{
    block4x4_k3_dsp(g, in_g, w0, fsize, oy, ox, o, plane, bias, ky0, ky1, 1);
}

static void block4x4_k3s2(const rt_conv_geom *g, const float *in_g, const float *w0,
                          int32_t fsize, int32_t oy, int32_t ox, float *o, int32_t plane,
                          const float *bias, int32_t ky0, int32_t ky1)
{
    block4x4_k3_dsp(g, in_g, w0, fsize, oy, ox, o, plane, bias, ky0, ky1, 2);
}

/* Output rows gathered at a time by conv_gathered, 0 where it does not apply: with the
 * FPU, filters other than the k3 blocks', at least 4 channels a group, and a chunk of
 * whole output rows (of the rows asked for) of at least 5 pixels whose taps fit in
 * COL_FLOATS. */
static int32_t gather_rows(const rt_conv_geom *g)
{
    const int32_t taps = g->cin_g * g->kh * g->kw, asked = g->oy1 - g->oy0;
    int32_t rows;
    if (!RT_F32_DSP_ASM || (g->kw == 3 && g->dw == 1 && g->sw <= 2) || g->cout_g < 4) {
        return 0;
    }
    rows = COL_FLOATS / (taps * g->ow);
    rows = rows < asked ? rows : asked;
    return rows * g->ow >= 5 ? rows : 0;
}

/* col[k * n + j], n = rows * ow: tap k = (c, ky, kx) of output pixel j of output rows
 * [oy0, oy0 + rows) (of one group), 0 over the padding. */
static void gather(const rt_conv_geom *g, const float *in_g, int32_t oy0, int32_t rows,
                   float *col)
{
    int32_t c, ky, kx, r, ox;
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_g + c * g->h * g->w;
        for (ky = 0; ky < g->kh; ++ky) {
            for (kx = 0; kx < g->kw; ++kx) {
                const int32_t xoff = kx * g->dw - g->pw;
                int32_t ox1;
                const int32_t ox0 = tap_range(xoff, g->sw, g->w, g->ow, &ox1);
                for (r = 0; r < rows; ++r, col += g->ow) {
                    const int32_t iy = (oy0 + r) * g->sh - g->ph + ky * g->dh;
                    const float *row;
                    if (iy < 0 || iy >= g->h) {
                        for (ox = 0; ox < g->ow; ++ox) {
                            col[ox] = 0.0f;
                        }
                        continue;
                    }
                    row = ip + iy * g->w;   /* row[ox * sw + xoff], ox0 <= ox < ox1 */
                    for (ox = 0; ox < ox0 && ox < g->ow; ++ox) {
                        col[ox] = 0.0f;
                    }
                    for (; ox < ox1; ++ox) {
                        col[ox] = row[ox * g->sw + xoff];
                    }
                    for (; ox < g->ow; ++ox) {
                        col[ox] = 0.0f;
                    }
                }
            }
        }
    }
}

/* One group of one image, its rows [g->oy0, g->oy1) `rows` at a time: their taps gathered
 * into col, then the matrix product out[Cout_g, pixels] = w[Cout_g, taps] x col[taps, pixels]
 * in f32_dsp.h's blocks of 4 channels x 5 pixels, bias and activation as each block is
 * stored. A ragged end of pixels reuses the last full block shifted back; the last chunk is
 * the rows left (where those hold under 5 pixels, a whole chunk shifted back). Sums in
 * (c, ky, kx) order; a tap over the padding adds 0 x w where the blocks above skip it: the
 * same for finite weights. */
static void conv_gathered(const rt_conv_geom *g, const float *in_g, const float *w_g,
                          const float *b_g, float *out_g, int32_t rows)
{
    float col[COL_FLOATS];
    const int32_t taps = g->cin_g * g->kh * g->kw, plane = g->oplane;
    int32_t oy, oc, px, p0;
    for (oy = g->oy0; oy < g->oy1; oy += rows) {
        /* (a patch of 6 rows in chunks of 5 makes 6 rows, not 10) */
        const int32_t left = g->oy1 - oy, part = left < rows && left * g->ow >= 5;
        const int32_t y0 = left >= rows || part ? oy : g->oy1 - rows, r = part ? left : rows;
        const int32_t n = r * g->ow;
        gather(g, in_g, y0, r, col);
        for (oc = 0; oc < g->cout_g; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout_g ? oc : g->cout_g - 4;
            for (px = 0; px < n; px += 5) {
                float *o;
                p0 = px + 5 <= n ? px : n - 5;
                o = out_g + c0 * plane + (y0 - g->oy0) * g->ow + p0;
                rt_f32_dsp_4x5_act(taps, w_g + c0 * taps, taps, col + p0, n, o, plane,
                                   b_g != NULL ? b_g + c0 : NULL, g->lo, g->hi);
            }
        }
    }
}

/* Image n's groups through conv_gathered, when its filters take it (1), else 0. */
static int conv_image(const rt_conv_geom *g, const float *in_n, const float *w,
                      const float *b, float *out_n)
{
    const int32_t rows = gather_rows(g);
    int32_t grp;
    if (rows <= 0) {
        return 0;
    }
    for (grp = 0; grp < g->groups; ++grp) {
        const int32_t oc = grp * g->cout_g;
        conv_gathered(g, in_n + grp * g->cin_g * g->h * g->w, w + oc * g->cin_g * g->kh * g->kw,
                      b != NULL ? b + oc : NULL, out_n + oc * g->oplane, rows);
    }
    return 1;
}
#endif
