/* conv2d_depthwise.c (Cortex-M with a single-precision FPU) - rt_conv2d_depthwise_f32; same
 * contract as src/conv/conv2d_depthwise.c, whose code this is but for two steps (its hooks):
 *
 * - RT_DW_IMAGE: 3x3 filters at one stride (1 or 2) and padding (0 or 1) both ways, rows of
 *   3 outputs or more (VWW's, MobileNet's): each plane in bands of zero-padded input rows on
 *   the stack (2 KB), a band's output rows in one loop of blocks of 8, 6, 4 or 3 outputs
 *   (dw_image);
 * - RT_DW_W5_ROWS: 3x3 filters over rows of 5 (KWS's 25x5 maps) at stride 1: the output rows
 *   whose filter rows all lie inside the input in one written-out loop.
 *
 * Both keep the 9 weights in s registers, zero a block's sums with one VLDM, load each input
 * row of a block with one VLDM for its products (a VMUL and a VADD each: f32_tiles.h), and
 * add the bias and clamp in registers before one VSTM. The same sums in the same (ky, kx)
 * order as the portable kernel (a tap over the padding adds 0 * w, nothing for finite
 * weights): bit for bit its results. */
#include "f32_dsp.h"

#include <stddef.h>

#if RT_F32_DSP_ASM
/* One input row's 5 values (row pointer r, advanced past them) times a filter row (va, vb,
 * vc) into the 5 sums s0-s4: output j takes inputs j - 1, j, j + 1 (those inside), in kx
 * order (f32_tiles.h: each product a VMUL into s13-s15 or an input done with, then a VADD). */
#define RT_DW_W5_TAPS(r, va, vb, vc) RT_F32_DW_W5(r, va, vb, vc)

/* The rows from output row oy on whose three filter rows are inside the input (stride 1):
 * all of them, written at o; returns how many (0: none here). x: input row oy - ph. */
static int32_t dw_w5_rows(const rt_conv_geom *g, const float *x, const float *w, float bias,
                          float *o, int32_t oy)
{
    int32_t rows = g->h - 2 * g->dh - (oy - g->ph);   /* iy0 = oy - ph runs to h - 2 dh - 1 */
    const float *x1 = x + 5 * g->dh, *x2 = x1 + 5 * g->dh;
    const int32_t hashi = g->hi != INFINITY;
    const float prm[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, bias, g->lo, g->hi}; /* zeros, s29-s31 */
    int32_t n;
    if (g->sh != 1) {
        return 0;
    }
    rows = rows < g->oh - oy ? rows : g->oh - oy;
    if (rows <= 0) {
        return 0;
    }
    n = rows;
    __asm__ volatile(
        "vldm %[w], {s16-s24}\n\t"
        "vldr s29, [%[prm], #20]\n\t"
        "vldr s30, [%[prm], #24]\n\t"
        "vldr s31, [%[prm], #28]\n\t"
        "1:\n\t"
        "vldm %[prm], {s0-s4}\n\t"
        RT_DW_W5_TAPS("%[x0]", "s16", "s17", "s18")
        RT_DW_W5_TAPS("%[x1]", "s19", "s20", "s21")
        RT_DW_W5_TAPS("%[x2]", "s22", "s23", "s24")
        "vadd.f32 s0, s0, s29\n\t"
        "vadd.f32 s1, s1, s29\n\t"
        "vadd.f32 s2, s2, s29\n\t"
        "vadd.f32 s3, s3, s29\n\t"
        "vadd.f32 s4, s4, s29\n\t"
        RT_F32_DSP_LO("s0") RT_F32_DSP_LO("s1") RT_F32_DSP_LO("s2") RT_F32_DSP_LO("s3")
        RT_F32_DSP_LO("s4")
        "cmp %[hashi], #0\n\t"
        "beq 2f\n\t"
        RT_F32_DSP_HI("s0") RT_F32_DSP_HI("s1") RT_F32_DSP_HI("s2") RT_F32_DSP_HI("s3")
        RT_F32_DSP_HI("s4")
        "2:\n\t"
        "vstmia %[o]!, {s0-s4}\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b"
        : [x0] "+r"(x), [x1] "+r"(x1), [x2] "+r"(x2), [o] "+r"(o), [n] "+r"(n)
        : [w] "r"(w), [prm] "r"(prm), [hashi] "r"(hashi)
        : RT_F32_DSP_CLOBBERS);
    return rows;
}

#define RT_DW_W5_ROWS(g, x, w, bias, o, oy) dw_w5_rows(g, x, w, bias, o, oy)

/* Whole-image path: the input plane in bands of zero-padded rows on the stack (dw_image). */
#define DW_BUF_FLOATS 512

/* What a band's asm loop reads (dw_band): zeros for the sums first (one VLDM from the
 * struct's own address), then byte offsets and counts at fixed places. */
typedef struct dw_band {
    float zero[8];      /*  0 */
    const float *w;     /* 32: the channel's 9 weights */
    float bias, lo, hi; /* 36 */
    int32_t wrow;       /* 48: bytes from one padded input row to the next */
    int32_t rstep;      /* 52: bytes from an output row's first input row to the next one's */
    int32_t nb;         /* 56: blocks a row */
    int32_t rows;       /* 60: output rows left (counted down) */
    int32_t oskip;      /* 64: bytes from the end of a row's blocks to the next output row */
    int32_t hashi;      /* 68: hi is finite */
} dw_band;
typedef char dw_band_offsets[offsetof(dw_band, w) == 32 && offsetof(dw_band, wrow) == 48 &&
                             offsetof(dw_band, hashi) == 68 ? 1 : -1];

/* One filter row (weights a, b, c) of a block of W sums at stride s: one VLDM of the
 * (W - 1) s + 3 inputs after the sums' registers (row pointer r, then advanced W s floats),
 * then sum j takes inputs s j, s j + 1, s j + 2 in kx order (f32_tiles.h: each product a
 * VMUL into a free register or an input done with, then a VADD, the VMULs one ahead). */
#define DW_ROW_S1W8(r, a, b, c) RT_F32_DW_S1W8(r, a, b, c)
#define DW_ROW_S1W6(r, a, b, c) RT_F32_DW_S1W6(r, a, b, c)
#define DW_ROW_S1W4(r, a, b, c) RT_F32_DW_S1W4(r, a, b, c)
#define DW_ROW_S1W3(r, a, b, c) RT_F32_DW_S1W3(r, a, b, c)
#define DW_ROW_S2W6(r, a, b, c) RT_F32_DW_S2W6(r, a, b, c)
#define DW_ROW_S2W4(r, a, b, c) RT_F32_DW_S2W4(r, a, b, c)
#define DW_ROW_S2W3(r, a, b, c) RT_F32_DW_S2W3(r, a, b, c)

/* Bias (s29) and the low clamp (s30) of sum j; the high clamp (s31). */
#define DW_LO(j) "vadd.f32 s" #j ", s" #j ", s29\n\t" RT_F32_DSP_LO("s" #j)
#define DW_HI(j) RT_F32_DSP_HI("s" #j)
#define DW_EACH3(M) M(0) M(1) M(2)
#define DW_EACH4(M) DW_EACH3(M) M(3)
#define DW_EACH6(M) DW_EACH4(M) M(4) M(5)
#define DW_EACH8(M) DW_EACH6(M) M(6) M(7)

/* A band's output rows (q->rows of them, inputs from the padded rows at xr on) in q->nb
 * blocks of W sums (registers "s0-sLAST") each, at one stride (ROW): weights s20-s28, bias,
 * lo and hi s29-s31; per row three row pointers, per block the sums zeroed by one VLDM,
 * three ROWs, bias and clamps in registers and one VSTM. */
#define DW_BAND(name, SUMS, ROW, EACH)                                                       \
    static void name(const float *xr, float *o, dw_band *q)                                 \
    {                                                                                        \
        const float *x0, *x1, *x2;                                                           \
        int32_t k, t;                                                                        \
        __asm__ volatile("ldr %[t], [%[q], #32]\n\t"                                         \
                         "vldm %[t], {s20-s28}\n\t"                                          \
                         "add %[t], %[q], #36\n\t"                                           \
                         "vldm %[t], {s29-s31}\n\t"                                          \
                         "1:\n\t"                                                            \
                         "ldr %[t], [%[q], #48]\n\t"                                         \
                         "mov %[x0], %[xr]\n\t"                                              \
                         "add %[x1], %[xr], %[t]\n\t"                                        \
                         "add %[x2], %[x1], %[t]\n\t"                                        \
                         "ldr %[k], [%[q], #56]\n\t"                                         \
                         "ldr %[t], [%[q], #68]\n\t"                                         \
                         "2:\n\t"                                                            \
                         "vldm %[q], {" SUMS "}\n\t"                                         \
                         ROW("%[x0]", 20, 21, 22)                                            \
                         ROW("%[x1]", 23, 24, 25)                                            \
                         ROW("%[x2]", 26, 27, 28)                                            \
                         EACH(DW_LO)                                                         \
                         "cmp %[t], #0\n\t"                                                  \
                         "beq 3f\n\t"                                                        \
                         EACH(DW_HI)                                                         \
                         "3:\n\t"                                                            \
                         "vstmia %[o]!, {" SUMS "}\n\t"                                      \
                         "subs %[k], %[k], #1\n\t"                                           \
                         "bne 2b\n\t"                                                        \
                         "ldr %[t], [%[q], #64]\n\t"                                         \
                         "add %[o], %[o], %[t]\n\t"                                          \
                         "ldr %[t], [%[q], #52]\n\t"                                         \
                         "add %[xr], %[xr], %[t]\n\t"                                        \
                         "ldr %[t], [%[q], #60]\n\t"                                         \
                         "subs %[t], %[t], #1\n\t"                                           \
                         "str %[t], [%[q], #60]\n\t"                                         \
                         "bne 1b"                                                            \
                         : [xr] "+r"(xr), [o] "+r"(o), [x0] "=&r"(x0), [x1] "=&r"(x1),        \
                           [x2] "=&r"(x2), [k] "=&r"(k), [t] "=&r"(t)                        \
                         : [q] "r"(q)                                                        \
                         : RT_F32_DSP_CLOBBERS);                                             \
    }

DW_BAND(dw_band_s1w8, "s0-s7", DW_ROW_S1W8, DW_EACH8)
DW_BAND(dw_band_s1w6, "s0-s5", DW_ROW_S1W6, DW_EACH6)
DW_BAND(dw_band_s1w4, "s0-s3", DW_ROW_S1W4, DW_EACH4)
DW_BAND(dw_band_s1w3, "s0-s2", DW_ROW_S1W3, DW_EACH3)
DW_BAND(dw_band_s2w6, "s0-s5", DW_ROW_S2W6, DW_EACH6)
DW_BAND(dw_band_s2w4, "s0-s3", DW_ROW_S2W4, DW_EACH4)
DW_BAND(dw_band_s2w3, "s0-s2", DW_ROW_S2W3, DW_EACH3)

typedef void (*dw_band_fn)(const float *xr, float *o, dw_band *q);

/* The block width for rows of ow outputs at stride s: the one of least estimated work
 * (per block about 14 instructions an output and 12 more; a row not a multiple of the
 * width has its last block shifted back over the one before), 0 under 3 outputs. */
static int32_t dw_width(int32_t ow, int32_t s)
{
    static const int32_t widths[4] = {8, 6, 4, 3};
    int32_t i, best = 0, best_cost = 0;
    for (i = s == 1 ? 0 : 1; i < 4; ++i) {
        const int32_t wd = widths[i], cost = (ow + wd - 1) / wd * (14 * wd + 12);
        if (wd <= ow && (best == 0 || cost < best_cost)) {
            best = wd;
            best_cost = cost;
        }
    }
    return best;
}

static dw_band_fn dw_band_for(int32_t s, int32_t wd)
{
    if (s == 1) {
        return wd == 8 ? dw_band_s1w8 : wd == 6 ? dw_band_s1w6 : wd == 4 ? dw_band_s1w4
                                                                         : dw_band_s1w3;
    }
    return wd == 6 ? dw_band_s2w6 : wd == 4 ? dw_band_s2w4 : dw_band_s2w3;
}

/* rows rows of n floats from src (one after the other) to dst, dst's rows wp floats apart:
 * per row eight floats a VLDM/VSTM pair, then 4, 2 and 1 as n has them. */
static void dw_copy_rows(float *dst, const float *src, int32_t rows, int32_t n, int32_t wp)
{
    const int32_t skip = 4 * (wp - n);
    int32_t t;
    __asm__ volatile(
        "1:\n\t"
        "lsrs %[t], %[n], #3\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "vldmia %[s]!, {s0-s7}\n\t"
        "vstmia %[d]!, {s0-s7}\n\t"
        "subs %[t], %[t], #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "tst %[n], #4\n\t"
        "beq 4f\n\t"
        "vldmia %[s]!, {s0-s3}\n\t"
        "vstmia %[d]!, {s0-s3}\n\t"
        "4:\n\t"
        "tst %[n], #2\n\t"
        "beq 5f\n\t"
        "vldmia %[s]!, {s0-s1}\n\t"
        "vstmia %[d]!, {s0-s1}\n\t"
        "5:\n\t"
        "tst %[n], #1\n\t"
        "beq 6f\n\t"
        "vldmia %[s]!, {s0}\n\t"
        "vstmia %[d]!, {s0}\n\t"
        "6:\n\t"
        "add %[d], %[d], %[skip]\n\t"
        "subs %[rows], %[rows], #1\n\t"
        "bne 1b"
        : [s] "+r"(src), [d] "+r"(dst), [rows] "+r"(rows), [t] "=&r"(t)
        : [n] "r"(n), [skip] "r"(skip)
        : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "memory", "cc");
}

/* 3x3 filters, dilation 1, the same stride (1 or 2) and padding (0 or 1) both ways, rows of
 * at least 3 outputs (VWW's and MobileNet's layers; KWS's rows of 5 have their own path):
 * each channel's plane in bands of zero-padded input rows on the stack (DW_BUF_FLOATS; the
 * pad columns zeroed once, and the pad rows too where one band holds the plane: nothing
 * writes them then), every
 * band's output rows in one dw_band loop of blocks of the width dw_width picks, and where a
 * row is not a multiple of it, one more loop for the last block shifted back. Taps over the
 * padding add 0 * w (nothing, for finite weights), in (ky, kx) order: the portable kernel's
 * sums. 1 if it took the layer. */
static int dw_image(const rt_conv_geom *g, const float *in, const float *w, const float *b,
                    const rt_dw_stage *st)
{
    float buf[DW_BUF_FLOATS];
    const int32_t s = g->sw, wp = g->w + 2 * g->pw, wd = dw_width(g->ow, s);
    const int32_t per_band = (DW_BUF_FLOATS / wp - 3) / s + 1, tail = g->ow % (wd > 0 ? wd : 1);
    const int one_band = per_band >= g->oh;
    dw_band q;
    dw_band_fn fn;
    int32_t n, oc, oy, r, k;
    if (g->kh != 3 || g->kw != 3 || g->dh != 1 || g->dw != 1 || g->sh != s || s > 2 ||
        g->ph != g->pw || g->pw > 1 || 3 * wp > DW_BUF_FLOATS || wd == 0 ||
        (g->w == 5 && s == 1 && g->pw == 1)) {   /* KWS's rows of 5: RT_DW_W5_ROWS */
        return 0;
    }
    fn = dw_band_for(s, wd);
    for (k = 0; k < 8; ++k) {
        q.zero[k] = 0.0f;
    }
    for (k = 0; k < DW_BUF_FLOATS; ++k) {
        buf[k] = 0.0f;
    }
    q.lo = g->lo;
    q.hi = g->hi;
    q.hashi = g->hi != INFINITY;
    q.wrow = 4 * wp;
    q.rstep = 4 * s * wp;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->cout; ++oc) {
            const float *in_c = in + (n * g->cin + oc / g->cout_g) * g->h * g->w;
            float *o = rt_dw_stage_plane(st, n * g->cout + oc);
            q.w = w + oc * 9;
            q.bias = b != NULL ? b[oc] : 0.0f;
            for (oy = 0; oy < g->oh; oy += per_band) {
                const int32_t rows = g->oh - oy < per_band ? g->oh - oy : per_band;
                const int32_t iy0 = oy * s - g->ph, span = (rows - 1) * s + 3;
                const int32_t ra = iy0 < 0 ? -iy0 : 0;   /* band rows [ra, rb) are inside */
                const int32_t rb = g->h - iy0 < span ? g->h - iy0 : span;
                for (r = 0; r < span && !one_band; ++r) {   /* rows over the padding: 0 */
                    for (k = 0; k < g->w && (r < ra || r >= rb); ++k) {
                        buf[r * wp + g->pw + k] = 0.0f;
                    }
                }
                if (rb > ra) {
                    dw_copy_rows(buf + ra * wp + g->pw, in_c + (iy0 + ra) * g->w, rb - ra,
                                 g->w, wp);
                }
                q.rows = rows;
                q.nb = g->ow / wd;
                q.oskip = 4 * tail;
                fn(buf, o + oy * g->ow, &q);
                if (tail != 0) {
                    q.rows = rows;
                    q.nb = 1;
                    q.oskip = 4 * (g->ow - wd);
                    fn(buf + (g->ow - wd) * s, o + oy * g->ow + g->ow - wd, &q);
                }
            }
            rt_dw_stage_done(st, n * g->cout + oc);
        }
    }
    return 1;
}

#define RT_DW_IMAGE(g, in, w, b, st) dw_image(g, in, w, b, st)
#endif

#include "../../conv/conv2d_depthwise.c"
