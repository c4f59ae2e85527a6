/* dw_plane.h (Cortex-M Helium) - depthwise by gathered taps a whole padded plane at a time
 * (-O2 only): one assembly call takes every line of a channel. Chosen by takes_plane
 * (depthwise_conv_s8.c): the activation range all of int8, the same stride down as along,
 * a tall map of four or five columns at stride 1 (KWS's 25x5), or a small map of two, four or
 * six columns and an even count of rows in 2x2 blocks at stride 1 or 2 (VWW's 6x6). */
#ifndef RT_MVE_DW_PLANE_H
#define RT_MVE_DW_PLANE_H

#include "dw_mve.h"

/* Whole planes, where the activation range is all of int8 and the stride 1 (or, in 2x2
 * blocks, 2): a plane's whole padded input in one band, so that one assembly call takes every
 * line of a channel (the ring's lines cost KWS a call and a band fill a line and plane):
 * - a tall map of four or five columns (KWS's 25x5, DW_P_COLUMNS): the lines its columns, a
 *   group four rows down one, then its last rows along the rows;
 * - a small map of two, four or six columns and an even count of rows (VWW's 6x6,
 *   DW_P_BLOCKS): the lines pairs of columns, a group a 2x2 block of pixels (a 6x6 map nine
 *   groups, where down its columns it took twelve: the last four rows again); so too at
 *   stride 2 (VWW's 12x12 to 6x6, DW_P_BLOCKS2), over rows of up to 13 pixels.
 * The band holds two halves, channels 0-7 and 8-15 of every pixel, a row of up to eight
 * pixels 64 bytes (DW_P_ROW; at stride 2 of 13, 104 bytes, DW_P_ROW2), so that a window's
 * taps (a row's pitch ky + 8 kx) and those of the pixel below (or, at stride 2, beside) lie
 * within the gather's 255 bytes. Each input pixel's sixteen channels are one load and two
 * 8-byte stores (VSTM of its D registers). */

#if defined(__OPTIMIZE__)
/* What the assembly reads (at these byte offsets): the window's taps o0, the pixel below's
 * o1 and the pixel beside's r1; where a pair of groups' outputs go (so16), one group's down a
 * column (so) and along a row (rso); a line's pairs of groups (n), whether an odd group
 * follows, the lines (lines), the steps from a line's last group to the next line's first
 * (lstep; lostep for the outputs) and past an odd group's outputs (ostep1); the rows left
 * over (rows), the steps to the first (rb, ro), whether a row takes a last group (tail: five
 * columns, the last four again), cout, the steps on to the next row (rstep, rostep); the
 * steps back from a channel's end to the next one's start (bback, oback); the half's end. */
typedef struct dw_plan {
    uint8x16_t o0, o1, r1;
    uint16x8_t so16;
    uint32x4_t so, rso;
    int32_t n, odd, lines, lstep, lostep, ostep1;
    int32_t rows, rb, ro, tail, cout, rstep, rostep;
    int32_t bback, oback;
    const dw_gchan *chend;
} dw_plan;
typedef char dw_plan_layout[(offsetof(dw_plan, o1) == 16 && offsetof(dw_plan, r1) == 32 &&
                             offsetof(dw_plan, so16) == 48 && offsetof(dw_plan, so) == 64 &&
                             offsetof(dw_plan, rso) == 80 && offsetof(dw_plan, n) == 96 &&
                             offsetof(dw_plan, ostep1) == 116 && offsetof(dw_plan, rows) == 120 &&
                             offsetof(dw_plan, rostep) == 144 && offsetof(dw_plan, bback) == 148 &&
                             offsetof(dw_plan, chend) == 156) ? 1 : -1];

/* One group of the channel in q2: pixels 0 and 2 at b0 and b1 (+ q4), 1 and 3 at + O1;
 * b0 and b1 then STEP bytes on. */
#define DW_P_GROUP(Q, O1, STEP) \
    "vldrb.u8 q0, [%[b0], q4]\n\t" \
    "vmladav.s8 %[a0], q0, q2\n\t" \
    "vldrb.u8 q0, [%[b1], q4]\n\t" \
    "vmladav.s8 %[a1], q0, q2\n\t" \
    "vmov " Q "[2], " Q "[0], %[a1], %[a0]\n\t" \
    "vldrb.u8 q0, [%[b0], " O1 "]\n\t" \
    "vmladav.s8 %[a0], q0, q2\n\t" \
    "vldrb.u8 q0, [%[b1], " O1 "]\n\t" \
    "vmladav.s8 %[a1], q0, q2\n\t" \
    "vmov " Q "[3], " Q "[1], %[a1], %[a0]\n\t" \
    "add %[b0], %[b0], #" STEP "\n\t" \
    "add %[b1], %[b1], #" STEP "\n\t"
/* one group on its own, narrowed twice (the clamp) and scattered (q7) at out */
#define DW_P_SINGLE(REQ, O1, STEP) \
    DW_P_GROUP("q1", O1, STEP) \
    REQ("q1") \
    "vadd.i32 q1, q1, %[off]\n\t" \
    "vqmovnb.s32 q1, q1\n\t" \
    "vqmovnb.s16 q1, q1\n\t" \
    "vstrb.32 q1, [%[out], q7]\n\t"
/* a channel's lines (LN), each its pairs of groups down the column (L, E: the loop and its
 * end), ODD (an odd group, or nothing: chosen once a layer, not tested a line), then on to the
 * next line; a group STEP bytes below the last, pixel 2 B1 bytes below pixel 0 */
#define DW_P_LINES(REQ, LN, L, E, ODD, STEP, B1) \
    LN ":\n\t" \
    "ldr lr, [%[k], #96]\n\t" \
    "wls lr, lr, " E "f\n\t" \
    L ":\n\t" \
    DW_P_GROUP("q1", "q5", STEP) \
    DW_P_GROUP("q3", "q5", STEP) \
    DW_G_PAIR_OUT(REQ, "q6") \
    "add %[out], %[out], %[ostep]\n\t" \
    "le lr, " L "b\n\t" \
    E ":\n\t" \
    ODD \
    "ldr %[a0], [%[k], #108]\n\t" \
    "add %[b0], %[b0], %[a0]\n\t" \
    "add %[b1], %[b0], #" B1 "\n\t" \
    "ldr %[a0], [%[k], #112]\n\t" \
    "add %[out], %[out], %[a0]\n\t" \
    "subs %[ln], %[ln], #1\n\t" \
    "bne " LN "b\n\t"
#define DW_P_ODD(REQ, STEP) \
    DW_P_SINGLE(REQ, "q5", STEP) \
    "ldr %[a0], [%[k], #116]\n\t" \
    "add %[out], %[out], %[a0]\n\t"
/* then the rows left over (R: a row; T: past its last group; X: past them all), a group
 * along the row and, in five columns, the last four pixels again (back three) */
#define DW_P_ROWS(REQ, R, T, X) \
    "ldr %[ln], [%[k], #120]\n\t" \
    "cmp %[ln], #0\n\t" \
    "beq " X "f\n\t" \
    "vldrw.32 q5, [%[k], #32]\n\t" \
    "vldrw.32 q7, [%[k], #80]\n\t" \
    "ldr %[a0], [%[k], #124]\n\t" \
    "add %[b0], %[b0], %[a0]\n\t" \
    "ldr %[a0], [%[k], #128]\n\t" \
    "add %[out], %[out], %[a0]\n\t" \
    R ":\n\t" \
    "add %[b1], %[b0], #16\n\t" \
    DW_P_SINGLE(REQ, "q5", "32") \
    "ldr %[a0], [%[k], #132]\n\t" \
    "cmp %[a0], #0\n\t" \
    "beq " T "f\n\t" \
    "sub %[b0], %[b0], #24\n\t" \
    "sub %[b1], %[b1], #24\n\t" \
    "ldr %[a0], [%[k], #136]\n\t" \
    "add %[out], %[out], %[a0]\n\t" \
    DW_P_SINGLE(REQ, "q5", "32") \
    T ":\n\t" \
    "ldr %[a0], [%[k], #140]\n\t" \
    "add %[b0], %[b0], %[a0]\n\t" \
    "ldr %[a0], [%[k], #144]\n\t" \
    "add %[out], %[out], %[a0]\n\t" \
    "subs %[ln], %[ln], #1\n\t" \
    "bne " R "b\n\t" \
    X ":\n\t"

/* The assembly of plane_run: RIGHT the right shifts' output stage (DW_G_RIGHT, or
 * DW_G_RIGHT_BARE), ODD_LEFT and ODD_RIGHT a line's odd group or nothing, ROWS_LEFT and
 * ROWS_RIGHT the rows left over or nothing, STEP and B1 DW_P_LINES'. */
#define DW_P_RUN(RIGHT, ODD_LEFT, ODD_RIGHT, ROWS_LEFT, ROWS_RIGHT, STEP, B1) \
    __asm__ volatile("vldrw.32 q4, [%[k]]\n\t" \
                     "vldrw.32 q6, [%[k], #48]\n\t" \
                     "2:\n\t" \
                     "vldrw.32 q2, [%[ch]], #32\n\t" \
                     "ldr %[fold], [%[ch], #-16]\n\t" \
                     "ldr %[mult], [%[ch], #-12]\n\t" \
                     "ldr %[shift], [%[ch], #-8]\n\t" \
                     "vldrw.32 q5, [%[k], #16]\n\t" \
                     "vldrw.32 q7, [%[k], #64]\n\t" \
                     "ldr %[ln], [%[k], #104]\n\t" \
                     "add %[b1], %[b0], #" B1 "\n\t" \
                     "cmp %[shift], #0\n\t" \
                     "blt 3f\n\t" \
                     DW_P_LINES(DW_G_LEFT, "10", "11", "12", ODD_LEFT, STEP, B1) \
                     ROWS_LEFT \
                     "b 4f\n\t" \
                     "3:\n\t" \
                     DW_P_LINES(RIGHT, "20", "21", "22", ODD_RIGHT, STEP, B1) \
                     ROWS_RIGHT \
                     "4:\n\t" \
                     "ldr %[a0], [%[k], #148]\n\t" \
                     "sub %[b0], %[b0], %[a0]\n\t" \
                     "ldr %[a0], [%[k], #152]\n\t" \
                     "sub %[out], %[out], %[a0]\n\t" \
                     "ldr %[a0], [%[k], #156]\n\t" \
                     "cmp %[ch], %[a0]\n\t" \
                     "bne 2b" \
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [fold] "=&r"(fold), \
                       [mult] "=&r"(mult), [shift] "=&r"(shift), [ln] "=&r"(ln), \
                       [b1] "=&r"(b1), [b0] "+r"(b0), [out] "+r"(out), [ch] "+r"(ch) \
                     : [k] "r"(k), [off] "r"(off), [ostep] "r"(ostep) \
                     : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", \
                       "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15")

/* plane_run's loops, each a mode (DW_P_COLUMNS, DW_P_BLOCKS, DW_P_BLOCKS2), with a line's odd
 * group or not, RIGHT the right shifts' output stage */
#define DW_P_BLOCKS_ODD(RIGHT) \
    DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "128"), DW_P_ODD(RIGHT, "128"), "", "", "128", "64")
#define DW_P_BLOCKS_EVEN(RIGHT) DW_P_RUN(RIGHT, "", "", "", "", "128", "64")
/* (DW_P_BLOCKS2: four rows of 104 bytes a group) */
#define DW_P_BLOCKS2_ODD(RIGHT) \
    DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "416"), DW_P_ODD(RIGHT, "416"), "", "", "416", "208")
#define DW_P_BLOCKS2_EVEN(RIGHT) DW_P_RUN(RIGHT, "", "", "", "", "416", "208")
#define DW_P_COLUMNS_ODD(RIGHT) \
    DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "256"), DW_P_ODD(RIGHT, "256"), \
             DW_P_ROWS(DW_G_LEFT, "14", "15", "16"), DW_P_ROWS(RIGHT, "24", "25", "26"), \
             "256", "128")
#define DW_P_COLUMNS_EVEN(RIGHT) \
    DW_P_RUN(RIGHT, "", "", DW_P_ROWS(DW_G_LEFT, "14", "15", "16"), \
             DW_P_ROWS(RIGHT, "24", "25", "26"), "256", "128")

/* Whether a line of a plane of oh rows ends in an odd group (mode: takes_plane's): groups
 * of two rows (DW_P_BLOCKS, DW_P_BLOCKS2) or four (DW_P_COLUMNS), in pairs. */
static inline int32_t plane_odd(int32_t oh, int32_t mode)
{
    return (mode == DW_P_COLUMNS ? oh >> 2 : oh >> 1) & 1;
}

/* The loop plane_run takes for the layer (mode: takes_plane's): its number (the index of its
 * RT_MVE_U_DW_PLANE_AT bit, which the dispatch checks is compiled, mve_variants.h); the
 * output stage without the sign fix where the range starts at the output offset (the range is
 * all of int8: takes_plane). */
static inline int32_t plane_loop(const dw_ctx *c, int32_t mode)
{
    return RT_MVE_DW_PLANE_AT(mode, plane_odd(c->g.oh, mode),
                              rt_mve_sheds_fix(c->p->output_offset, -128));
}

/* The channels ch..k->chend-1 of one half (the first's window at b0, the next channel's one
 * byte on; outputs likewise from out, a pair of groups' ostep on from the last): each
 * channel's taps into q2, its output stage into registers, its lines (and, DW_P_COLUMNS, its
 * rows) by its shift's output stage; `loop` plane_loop's. The band's steps are constants of
 * the assembly: a column's group four rows down (DW_P_COLUMNS) or a block's two
 * (DW_P_BLOCKS). */
typedef char dw_p_steps[DW_P_ROW == 64 && DW_P_ROW2 == 104 ? 1 : -1];
static RT_DSP_NOINLINE void plane_run(const dw_plan *k, const dw_gchan *ch, const int8_t *b0,
                                      int32_t off, int32_t ostep, int8_t *out, int32_t loop)
{
    int32_t a0, a1, fold, mult, shift, ln;
    const int8_t *b1;
    /* each loop compiled where the build asks for it (the dispatch checked this one is) */
#define DW_P_CASE(MODE, ODD, BARE, LOOP, RIGHT) \
    case RT_MVE_DW_PLANE_AT(MODE, ODD, BARE): \
        LOOP(RIGHT); \
        break;
    switch (loop) {
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS, 1, 1))
    DW_P_CASE(DW_P_BLOCKS, 1, 1, DW_P_BLOCKS_ODD, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS, 0, 1))
    DW_P_CASE(DW_P_BLOCKS, 0, 1, DW_P_BLOCKS_EVEN, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS2, 1, 1))
    DW_P_CASE(DW_P_BLOCKS2, 1, 1, DW_P_BLOCKS2_ODD, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS2, 0, 1))
    DW_P_CASE(DW_P_BLOCKS2, 0, 1, DW_P_BLOCKS2_EVEN, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_COLUMNS, 1, 1))
    DW_P_CASE(DW_P_COLUMNS, 1, 1, DW_P_COLUMNS_ODD, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_COLUMNS, 0, 1))
    DW_P_CASE(DW_P_COLUMNS, 0, 1, DW_P_COLUMNS_EVEN, DW_G_RIGHT_BARE)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS, 1, 0))
    DW_P_CASE(DW_P_BLOCKS, 1, 0, DW_P_BLOCKS_ODD, DW_G_RIGHT)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS, 0, 0))
    DW_P_CASE(DW_P_BLOCKS, 0, 0, DW_P_BLOCKS_EVEN, DW_G_RIGHT)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS2, 1, 0))
    DW_P_CASE(DW_P_BLOCKS2, 1, 0, DW_P_BLOCKS2_ODD, DW_G_RIGHT)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_BLOCKS2, 0, 0))
    DW_P_CASE(DW_P_BLOCKS2, 0, 0, DW_P_BLOCKS2_EVEN, DW_G_RIGHT)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_COLUMNS, 1, 0))
    DW_P_CASE(DW_P_COLUMNS, 1, 0, DW_P_COLUMNS_ODD, DW_G_RIGHT)
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_PLANE(DW_P_COLUMNS, 0, 0))
    DW_P_CASE(DW_P_COLUMNS, 0, 0, DW_P_COLUMNS_EVEN, DW_G_RIGHT)
#endif
    default:
        break;
    }
#undef DW_P_CASE
    (void)a0;
    (void)a1;
    (void)fold;
    (void)mult;
    (void)shift;
    (void)b1;
    (void)ln;
    (void)k;   /* (read by the loops alone, as are these) */
    (void)ch;
    (void)b0;
    (void)off;
    (void)ostep;
    (void)out;
}

/* plane_fill's loop: PRE once, LOAD a pixel */
#define DW_P_FILL(PRE, LOAD) \
    __asm__ volatile(PRE \
                     "1:\n\t" \
                     "dls lr, %[n]\n\t" \
                     "2:\n\t" \
                     LOAD \
                     "add %[s], %[s], %[cin]\n\t" \
                     "vstmia %[a]!, {d0}\n\t" \
                     "vstmia %[b]!, {d1}\n\t" \
                     "le lr, 2b\n\t" \
                     "add %[s], %[s], %[sskip]\n\t" \
                     "add %[a], %[a], %[skip]\n\t" \
                     "add %[b], %[b], %[skip]\n\t" \
                     "subs %[rows], %[rows], #1\n\t" \
                     "bne 1b" \
                     : [s] "+r"(src), [a] "+r"(a), [b] "+r"(b), [rows] "+r"(rows) \
                     : [cw] "r"(cw), [n] "r"(cols), [cin] "r"(cin), [sskip] "r"(sskip), \
                       [skip] "r"(skip) \
                     : "cc", "memory", "lr", "d0", "d1")

/* Channels oc..oc+cw-1 of the input inside the band (its rows [y0, y0 + rows) and columns
 * [x0, x0 + cols), span_inside's; rows rp bytes apart) into both halves (the lanes past cw
 * zero). */
static void plane_fill(const dw_ctx *c, const int8_t *img, int32_t oc, int32_t cw,
                       int32_t y0, int32_t rows, int32_t x0, int32_t cols, int8_t *band,
                       int32_t half, int32_t rp)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin = c->g.cin;
    const int8_t *src = img + (y0 - p->pad_h) * c->row + (x0 - p->pad_w) * cin + oc;
    int8_t *a = band + y0 * rp + x0 * 8, *b = a + half;
    const int32_t sskip = c->row - cols * cin, skip = rp - cols * 8;
    if (rows <= 0 || cols <= 0) {
        return;
    }
    /* the rows, each its pixels a DLS/LE loop (a part plane's loads predicated to its cw
       channels) */
    if (cw == 16) {
        DW_P_FILL("", "vldrb.8 q0, [%[s]]\n\t");
    } else {
        DW_P_FILL("vctp.8 %[cw]\n\t", "vpst\n\tvldrbt.8 q0, [%[s]]\n\t");
    }
}

/* The layer (takes_plane' mode), plane after plane: the band's padding filled once, then each
 * plane's taps and output stages, its input, and one plane_run a half. */
static RT_DSP_NOINLINE void gathered_plane(const dw_ctx *c, const int8_t *in, int8_t *out,
                                           int32_t mode)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin = c->g.cin, cout = c->g.cout, oh = c->g.oh, ow = c->g.ow;
    const int32_t s = p->stride_h, rp = mode == DW_P_BLOCKS2 ? DW_P_ROW2 : DW_P_ROW;
    const int32_t d = ow * cout, half = ((oh - 1) * s + 3) * rp;
    uint8_t taps[16];
    int8_t band[DW_P_BYTES];
    dw_gchan ch[16];
    dw_plan k;
    const int32_t loop = plane_loop(c, mode);
    int32_t n, oc, y0, x0, ostep, t;   /* the band's rows and columns inside the input: from y0,
                                           x0 */
    const int32_t y1 = span_inside(c->g.h, -p->pad_h, (oh - 1) * s + 3, &y0);
    const int32_t x1 = span_inside(c->g.w, -p->pad_w, (ow - 1) * s + 3, &x0);
    for (t = 0; t < 16; ++t) {   /* tap (ky, kx) at rp ky + 8 kx, the lanes past 9 none */
        taps[t] = (uint8_t)(t < 9 ? (t / 3) * rp + (t % 3) * 8 : 0);
    }
    k.o0 = vldrbq_u8(taps);
    k.r1 = vaddq_n_u8(k.o0, 8);
    k.cout = cout;
    if (mode != DW_P_COLUMNS) {   /* lines of two columns, a group two rows */
        const int32_t groups = oh >> 1;
        k.o1 = vaddq_n_u8(k.o0, (uint8_t)(8 * s));   /* pixel 1 beside pixel 0, 2 and 3 below */
        k.so = rt_mve_moved(0u, (uint32_t)cout, (uint32_t)d, (uint32_t)(d + cout));
        k.so16 = rt_mve_offs16(k.so, 2u * (uint32_t)d);
        k.rso = k.so;
        k.n = groups >> 1;
        k.odd = plane_odd(oh, mode);
        k.lines = ow >> 1;
        k.lstep = 16 * s - groups * 2 * s * rp;
        k.lostep = 2 * cout - groups * 2 * d;
        k.ostep1 = 2 * d;
        k.rows = k.rb = k.ro = k.tail = k.rstep = k.rostep = 0;
        k.bback = ow * 8 * s - 1;   /* past the lines, two columns each */
        k.oback = ow * cout - 1;
        ostep = 4 * d;
    } else {   /* the columns, a group four rows; the rows left over along the rows */
        const int32_t rest = oh & 3, groups = oh >> 2, r0 = oh - rest, tail = ow == 5;
        k.o1 = vaddq_n_u8(k.o0, DW_P_ROW);
        k.so = gather_offsets(d);
        k.so16 = rt_mve_offs16(k.so, 4u * (uint32_t)d);
        k.rso = gather_offsets(cout);
        k.n = groups >> 1;
        k.odd = plane_odd(oh, mode);
        k.lines = ow;
        k.lstep = 8 - groups * 4 * DW_P_ROW;
        k.lostep = cout - groups * 4 * d;
        k.ostep1 = 4 * d;
        k.rows = rest;
        k.rb = r0 * DW_P_ROW - ow * 8;
        k.ro = r0 * d - ow * cout;
        k.tail = tail;
        k.rstep = DW_P_ROW - (tail ? 40 : 32);
        k.rostep = d - (tail ? cout : 0);
        k.bback = (rest > 0 ? oh * DW_P_ROW : ow * 8) - 1;
        k.oback = (rest > 0 ? oh * d : ow * cout) - 1;
        ostep = 8 * d;
    }
    rt_mve_fill(band, vdupq_n_s8((int8_t)(-p->input_offset)), 2 * half);
    for (oc = 0; oc < cin; oc += 16) {
        const int32_t cw = cin - oc < 16 ? cin - oc : 16;
        gather_chans(c, oc, cw, ch);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            int8_t *on = out + n * oh * d;
            plane_fill(c, img, oc, cw, y0, y1 - y0, x0, x1 - x0, band, half, rp);
            k.chend = ch + (cw < 8 ? cw : 8);
            plane_run(&k, ch, band, p->output_offset, ostep, on + oc, loop);
            if (cw > 8) {
                k.chend = ch + cw;
                plane_run(&k, ch + 8, band + half, p->output_offset, ostep, on + oc + 8,
                          loop);
            }
        }
    }
}
#endif

#endif
