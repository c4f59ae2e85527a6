/* dw_gathered.h (Cortex-M Helium) - depthwise by gathered taps, 3x3 at a multiplier of 1,
 * stride 1 or 2 along the rows (-O2 only): each output's nine taps one byte gather (VLDRB.U8)
 * and one VMLADAV.S8, four pixels of a channel requantized together and scattered. Down the
 * columns (gathered_cols), along the rows, or along a tall map's columns
 * (gathered_rows, _columns), as takes_gathered (depthwise_conv_s8.c) chooses. */
#ifndef RT_MVE_DW_GATHERED_H
#define RT_MVE_DW_GATHERED_H

#include "dw_mve.h"

#if defined(__OPTIMIZE__)

/* Channels oc..oc+cw-1's taps and output stages: each tap's channels load as 16-bit lanes,
 * eight at a time, and scatter into the channels' tap vectors (32 bytes apart), their sums
 * kept in 16 bits (nine taps of at most 128). */
static RT_MVE_INLINE void gather_chans_of(const dw_ctx *c, int32_t oc, int32_t cw,
                                           dw_gchan *ch)
{
    const rt_conv_s8_params *p = c->p;
    const mve_pred16_t lo8 = vctp16q((uint32_t)(cw < 8 ? cw : 8));
    const mve_pred16_t hi8 = vctp16q((uint32_t)(cw > 8 ? cw - 8 : 0));
    const uint16x8_t at = vmulq_n_u16(vidupq_n_u16(0u, 1), (uint16_t)sizeof(dw_gchan));
    const uint32x4_t at32 = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)sizeof(dw_gchan));
    int16x8_t s0 = vdupq_n_s16(0), s1 = s0;
    int16_t sums[16];
    int32_t j, t;
    for (j = 0; j < cw; ++j) {
        ch[j].w = vdupq_n_s8(0);
    }
    for (t = 0; t < 9; ++t) {
        const int8_t *wt = c->w + t * c->g.cout + oc;
        const int16x8_t v0 = vldrbq_z_s16(wt, lo8), v1 = vldrbq_z_s16(wt + 8, hi8);
        vstrbq_scatter_offset_p_s16((int8_t *)ch + t, at, v0, lo8);
        vstrbq_scatter_offset_p_s16((int8_t *)(ch + 8) + t, at, v1, hi8);
        s0 = vaddq_s16(s0, v0);
        s1 = vaddq_s16(s1, v1);
    }
    vstrhq_s16(sums, s0);
    vstrhq_s16(sums + 8, s1);
    for (j = 0; j < cw; j += 4) {   /* four channels' output stages a step, scattered */
        const mve_pred16_t these = vctp32q((uint32_t)(cw - j));
        const int32x4_t b = c->bias != NULL ? vldrwq_z_s32(c->bias + oc + j, these)
                                            : vdupq_n_s32(0);
        int32_t *f = &ch[j].fold;
        vstrwq_scatter_offset_p_s32(f, at32, vmlaq_n_s32(b, vldrhq_z_s32(sums + j, these),
                                                         p->input_offset), these);
        vstrwq_scatter_offset_p_s32(f + 1, at32, vldrwq_z_s32(p->mult + oc + j, these), these);
        vstrwq_scatter_offset_p_s32(f + 2, at32, vldrwq_z_s32(p->shift + oc + j, these), these);
    }
}

#if RT_MVE_HAS(RT_MVE_U_DW_PLANES | RT_MVE_U_DW_G_COLS | RT_MVE_U_DW_G_ROWS | \
               RT_MVE_U_DW_G_LINES)
static RT_DSP_NOINLINE void gather_chans(const dw_ctx *c, int32_t oc, int32_t cw,
                                                   dw_gchan *ch)
{
    if (cw == 16) {   /* a whole plane: no predicates */
        gather_chans_of(c, oc, 16, ch);
    } else {
        gather_chans_of(c, oc, cw, ch);
    }
}
#endif

/* Where the activation range is all of int8 (KWS's, VWW's: a ReLU in the zero point), the
 * clamp is the narrowing's saturation: n2 pairs of groups (memory), their two vectors of sums
 * narrowed into one of 16-bit lanes (VQMOVNB/VQMOVNT), offset there (saturating), narrowed to
 * bytes and scattered (so16), out on by ostep (two groups); then (odd, memory: bit 0) the odd
 * group on its own, and (bit 1) a last group that ends where the line does: b0 and b1 back
 * tailb bytes, out on tailo, the pixels it shares with the group before made again (the same
 * bits). Both bits go to the flags at once (LSLS #31: bit 0 the sign, bit 1 the carry; none
 * of the group's instructions sets them), after a test for neither. L, E, O, T: the labels
 * of the loop, its end, the odd group's end and the last group's end. */
#define DW_G_PAIRS(L, E, O, T, REQ) \
    "ldr lr, %[n]\n\t" \
    "wls lr, lr, " E "f\n\t" \
    L ":\n\t" \
    DW_G_GROUP("q1") \
    DW_G_GROUP("q3") \
    DW_G_PAIR_OUT(REQ, "%q[so16]") \
    "add %[out], %[out], %[ostep]\n\t" \
    "le lr, " L "b\n\t" \
    E ":\n\t" \
    "ldr %[a0], %[odd]\n\t" \
    "cmp %[a0], #0\n\t" \
    "beq " T "f\n\t" \
    "lsls %[a0], %[a0], #31\n\t" \
    "bpl " O "f\n\t" \
    DW_G_SINGLE(REQ) \
    O ":\n\t" \
    "bcc " T "f\n\t" \
    "ldr %[a0], %[tailb]\n\t" \
    "sub %[b0], %[b0], %[a0]\n\t" \
    "sub %[b1], %[b1], %[a0]\n\t" \
    "ldr %[a0], %[tailo]\n\t" \
    "add %[out], %[out], %[a0]\n\t" \
    DW_G_SINGLE(REQ) \
    T ":\n\t"
/* one group on its own: narrowed twice (the clamp) and scattered (so) at out */
#define DW_G_SINGLE(REQ) \
    DW_G_GROUP("q1") \
    REQ("q1") \
    "vadd.i32 q1, q1, %[off]\n\t" \
    "vqmovnb.s32 q1, q1\n\t" \
    "vqmovnb.s16 q1, q1\n\t" \
    "vstrb.32 q1, [%[out], %q[so]]\n\t"
/* The channels' loop (cw of them, ch on): each channel's taps into q2 and its output stage
 * into registers, its groups by RIGHT or LEFT (as its shift is), then b0, b1 and out back to
 * the first group and on one channel (bback, b1off: pixel 2 from pixel 0, oback); the
 * variadic arguments: the Q operands of RIGHT and LEFT besides o0, o1 and so. */
#define DW_G_RUN(RIGHT, LEFT, Q3, ...) \
    __asm__ volatile("2:\n\t" \
                     "vldrw.32 q2, [%[ch]], #32\n\t" \
                     "ldr %[fold], [%[ch], #-16]\n\t" \
                     "ldr %[mult], [%[ch], #-12]\n\t" \
                     "ldr %[shift], [%[ch], #-8]\n\t" \
                     "cmp %[shift], #0\n\t" \
                     "blt 3f\n\t" \
                     LEFT \
                     "b 4f\n\t" \
                     "3:\n\t" \
                     RIGHT \
                     "4:\n\t" \
                     "ldr %[a0], %[bback]\n\t" \
                     "sub %[b0], %[b0], %[a0]\n\t" \
                     "ldr %[a0], %[b1off]\n\t" \
                     "add %[b1], %[b0], %[a0]\n\t" \
                     "ldr %[a0], %[oback]\n\t" \
                     "sub %[out], %[out], %[a0]\n\t" \
                     "subs %[cw], %[cw], #1\n\t" \
                     "bne 2b" \
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [fold] "=&r"(fold), \
                       [mult] "=&r"(mult), [shift] "=&r"(shift), [b0] "+r"(b0), \
                       [b1] "+r"(b1), [out] "+r"(out), [ch] "+r"(ch), [cw] "+r"(cw) \
                     : [n] "m"(n), [odd] "m"(odd), [bback] "m"(bback), [b1off] "m"(b1off), \
                       [oback] "m"(oback), [tailb] "m"(tailb), [tailo] "m"(tailo), \
                       [step] "r"(step), [off] "r"(off), \
                       [ostep] "r"(ostep), [o0] "w"(o0), [o1] "w"(o1), [so] "w"(so), \
                       __VA_ARGS__ \
                     : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5" Q3)
/* Q3: whether the loops take q3 too (DW_G_PAIRS) */
#define DW_G_Q3 , "d6", "d7"
#define DW_G_NO_Q3

#if RT_MVE_HAS(RT_MVE_U_DW_G_COLS | RT_MVE_U_DW_G_ROWS | RT_MVE_U_DW_G_LINES)
/* Where a group's pixels lie in a band (the modes' pixel 2 from pixel 0 in bytes, pixel 1
 * from pixel 0 in offsets, the next group in bytes): along a row at stride 1 or 2, or down a
 * column with the next group 1 or 2 columns on. */
#define DW_G_ROW1 0
#define DW_G_ROW2 1
#define DW_G_COL1 2
#define DW_G_COL2 3
static const int16_t dw_g_b1[4] = {96, 192, 32, 32}, dw_g_o1[4] = {48, 96, 16, 16};
static const int16_t dw_g_step[4] = {192, 384, 96, 192};

/* n > 0 groups of four pixels (`mode`) of channels ch[0..cw-1] (cw > 0), pixel 0's window
 * of the first at b0 (the next channel's one byte on), outputs from out (the next channel's
 * one byte on, the next group's ostep), lanes so apart (gather_offsets); full: the
 * activation range is all of int8 (else lo, hi; a full range from the output offset, a ReLU's,
 * takes the right shifts without the sign fix). back > 0 (full only): a last group after them,
 * back pixels before where the next would start. */
static RT_DSP_NOINLINE void gather_groups(const dw_gchan *ch, int32_t cw, const int8_t *b0,
                                          int32_t mode, int32_t n, int32_t back,
                                          uint8x16_t o0, uint32x4_t so, int32_t full,
                                          int32x4_t lo, int32x4_t hi, int32_t off,
                                          int32_t ostep, int8_t *out)
{
    const int32_t step = dw_g_step[mode], b1off = dw_g_b1[mode];
    const int8_t *b1 = b0 + b1off;
    const uint8x16_t o1 = vaddq_n_u8(o0, (uint8_t)dw_g_o1[mode]);
    int32_t a0, a1, fold, mult, shift;
    if (full) {   /* pairs of groups: their two groups' outputs ostep apart */
        const uint16x8_t so16 = rt_mve_offs16(so, (uint32_t)ostep);
        const int32_t odd = (n & 1) | (back > 0 ? 2 : 0), tailb = back * (step / 4);
        const int32_t tailo = back > 0 ? (n & 1) * ostep - back * (ostep / 4) : 0;
        const int32_t bback = n * step + (back > 0 ? step - tailb : 0) - 1;
        const int32_t oback = (n & ~1) * ostep + tailo - 1;
        n >>= 1;
        ostep *= 2;
        if (rt_mve_sheds_fix(off, -128)) {
            DW_G_RUN(DW_G_PAIRS("1", "6", "7", "10", DW_G_RIGHT_BARE),
                     DW_G_PAIRS("5", "8", "9", "11", DW_G_LEFT), DW_G_Q3, [so16] "w"(so16));
        } else {
            DW_G_RUN(DW_G_PAIRS("1", "6", "7", "10", DW_G_RIGHT),
                     DW_G_PAIRS("5", "8", "9", "11", DW_G_LEFT), DW_G_Q3, [so16] "w"(so16));
        }
    } else {
        const int32_t odd = 0, tailb = 0, tailo = 0, bback = n * step - 1;
        const int32_t oback = n * ostep - 1;
        DW_G_RUN(DW_G_CLAMPED("1", DW_G_RIGHT), DW_G_CLAMPED("5", DW_G_LEFT), DW_G_NO_Q3,
                 [lo] "w"(lo), [hi] "w"(hi));
    }
    (void)a0;
    (void)a1;
    (void)fold;
    (void)mult;
    (void)shift;
}

/* Input lines il..il+rows-1 (image img; nl of them, xl bytes apart, their pixels xa) into
 * a band's rows from d on, 16 bytes apart, their pixels cs bytes apart (bw of them, [lo, hi)
 * inside the input from pixel x0 of the line): channels oc..oc+cw-1, or the zero point where
 * a line lies outside; where `full` (d the band, each of its columns holding all its rows),
 * the pixels outside [lo, hi) too (else they hold it already). A line is an input row
 * (xl = c->row, xa = cin) or, for a map taken transposed, an input column (xl = cin,
 * xa = c->row). Inlined, so that cs is a constant (the stores step on by it). */
static RT_MVE_INLINE void gather_rows(const dw_ctx *c, const int8_t *img, int32_t il,
                                      int32_t rows, int32_t nl, int32_t xl, int32_t xa,
                                      int8_t *d, int32_t oc, int32_t cw, int32_t lo, int32_t hi,
                                      int32_t bw, int32_t x0, int32_t cs, int32_t full)
{
    const int8x16_t zero = vdupq_n_s8((int8_t)(-c->p->input_offset));
    const mve_pred16_t these = rt_mve_tail8(cw);
    const int32_t at = (x0 + lo) * xa + oc;
    int32_t r, i;
    if (full) {
        rt_mve_fill(d, zero, lo * cs);
        rt_mve_fill(d + hi * cs, zero, (bw - hi) * cs);
    }
    for (d += lo * cs, r = 0; r < rows && hi > lo; ++r, ++il, d += 16) {
        int8_t *to = d;
        if (il < 0 || il >= nl) {
            for (i = lo; i < hi; ++i, to += cs) {
                vstrbq_s8(to, zero);
            }
        } else if (cw == 16 || il < nl - 1) {   /* (a part plane's lanes past its channels
                                                   load the next pixel's) */
            const int8_t *src = img + il * xl + at;
            for (i = lo; i < hi; ++i, to += cs, src += xa) {
                vstrbq_s8(to, vldrbq_s8(src));
            }
        } else {   /* the last line: the loads stop at the channels, the image's end */
            const int8_t *src = img + il * xl + at;
            for (i = lo; i < hi; ++i, to += cs, src += xa) {
                vstrbq_s8(to, vldrbq_z_s8(src, these));
            }
        }
    }
}

/* Down the columns (DW_G_COLS): four output rows at a time, a band of as many columns as fit
 * at a time. */
#if RT_MVE_HAS(RT_MVE_U_DW_G_COLS)
static RT_DSP_NOINLINE void gathered_cols(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    /* tap (ky, kx) at 96 kx + 16 ky */
    static const uint8_t taps[16] = {0, 96, 192, 16, 112, 208, 32, 128, 224};
    const rt_conv_s8_params *p = c->p;
    const int32_t cin = c->g.cin, cout = c->g.cout, oh = c->g.oh, ow = c->g.ow;
    const int32_t s = p->stride_w, most = (RT_MVE_DW_BAND_BYTES / 96 - 3) / s + 1;
    const int32_t m = most < ow ? most : ow, mode = s == 1 ? DW_G_COL1 : DW_G_COL2;
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const int32_t full = rt_mve_full_range(p);
    const uint32x4_t so = gather_offsets(ow * cout);
    const uint8x16_t o0 = vldrbq_u8(taps);
    int8_t band[RT_MVE_DW_BAND_BYTES];
    dw_gchan ch[16];
    int32_t oc, n, oy, ox;
    for (oc = 0; oc < cin; oc += 16) {
        const int32_t cw = cin - oc < 16 ? cin - oc : 16;
        gather_chans(c, oc, cw, ch);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            for (oy = 0; oy < oh; oy += 4) {
                const int32_t y = oy + 4 <= oh ? oy : oh - 4;   /* the last four rows again */
                for (ox = 0; ox < ow; ox += m) {
                    const int32_t k = ow - ox < m ? ow - ox : m, bw = (k - 1) * s + 3;
                    const int32_t x0 = ox * s - p->pad_w;
                    int32_t lo_c;
                    const int32_t hi_c = band_inside(c, x0, bw, &lo_c);
                    gather_rows(c, img, y - p->pad_h, 6, c->g.h, c->row, cin, band, oc, cw, lo_c,
                                hi_c, bw, x0, 96, 1);
                    gather_groups(ch, cw, band, mode, k, 0, o0, so, full, lo, hi,
                                  p->output_offset, cout,
                                  out + ((n * oh + y) * ow + ox) * cout + oc);
                }
            }
        }
    }
}
#endif

#if RT_MVE_HAS(RT_MVE_U_DW_G_ROWS | RT_MVE_U_DW_G_LINES)
/* A window's taps in a ring band (gathered_lines) whose tap row (or column, transposed) k
 * lies in slot (s + k) mod 3, for s = 0, 1, 2: tap (k, t) 48 t + 16 slot, in lane 3 k + t
 * along rows and 3 t + k along columns (dw_g_ring[columns][s]). */
static const uint8_t dw_g_ring[2][3][16] = {
    {{0, 48, 96, 16, 64, 112, 32, 80, 128},
     {16, 64, 112, 32, 80, 128, 0, 48, 96},
     {32, 80, 128, 0, 48, 96, 16, 64, 112}},
    {{0, 16, 32, 48, 64, 80, 96, 112, 128},
     {16, 32, 0, 64, 80, 48, 112, 128, 96},
     {32, 0, 16, 80, 48, 64, 128, 96, 112}},
};

/* Along lines (DW_G_ROWS: the output rows; DW_G_LINES: the output columns, the map taken
 * transposed): lines from..to-1 of a plane (channels oc..oc+cw-1, ch their taps and output
 * stages), a line at a time through a ring band of three input lines, each input line read
 * in once (slot il mod 3 holds line il; the band's pixels outside the input hold the zero
 * point already). Inlined into its callers (gathered_rows, _columns), so that the
 * steps are known. */
static RT_MVE_INLINE void gathered_lines(const dw_ctx *c, const int8_t *in, int8_t *out,
                                         int32_t columns, int32_t from, int32_t to,
                                         int32_t along, int32_t oc, int32_t cw,
                                         const dw_gchan *ch, int8_t *band)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin = c->g.cin, cout = c->g.cout, row = c->row, ow = c->g.ow;
    /* along a line: the outputs made (from its first), stride, padding, input pixels and
       their steps in and out; across: the lines' (lines from..to-1 made) */
    const int32_t s = columns ? p->stride_h : p->stride_w;
    const int32_t pad = columns ? p->pad_h : p->pad_w, na = columns ? c->g.h : c->g.w;
    const int32_t xa = columns ? row : cin, oa = columns ? ow * cout : cout;
    const int32_t sl = columns ? p->stride_w : p->stride_h;
    const int32_t padl = columns ? p->pad_w : p->pad_h, nl = columns ? c->g.w : c->g.h;
    const int32_t xl = columns ? cin : row, ol = columns ? cout : ow * cout;
    const int32_t bw = (along - 1) * s + 3, x0 = -pad, groups = along >> 2;
    const int32_t mode = s == 1 ? DW_G_ROW1 : DW_G_ROW2;
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const int32_t full = rt_mve_full_range(p);
    /* a line's last pixels: a last group in the same call (full), or a call of their own */
    const int32_t back = (along & 3) != 0 ? 4 - (along & 3) : 0;
    const uint32x4_t so = gather_offsets(oa);
    const int32_t first = from * sl - padl, slot0 = ((first % 3) + 3) % 3;
    int32_t n, l, lo_c;
    const int32_t hi_c = span_inside(na, x0, bw, &lo_c);
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * row;
        int8_t *oline = out + n * c->g.oh * ow * cout + oc + from * ol;
        int32_t next = first, s_next = slot0, s0 = slot0;   /* the next line to read, its
                                                               slot, line il0's slot */
        for (l = from; l < to; ++l, oline += ol) {
            const int32_t il0 = l * sl - padl;
            uint8x16_t o0;
            for (; next <= il0 + 2; ++next, s_next = s_next == 2 ? 0 : s_next + 1) {
                if (next >= il0) {
                    gather_rows(c, img, next, 1, nl, xl, xa, band + 16 * s_next, oc, cw, lo_c,
                                hi_c, bw, x0, 48, 0);
                }
            }
            o0 = vldrbq_u8(dw_g_ring[columns][s0]);
            s0 += sl;
            s0 -= s0 >= 3 ? 3 : 0;
            gather_groups(ch, cw, band, mode, groups, full ? back : 0, o0, so, full, lo, hi,
                          p->output_offset, 4 * oa, oline);
            if (back > 0 && !full) {   /* the last four pixels again */
                gather_groups(ch, cw, band + (along - 4) * 48 * s, mode, 1, 0, o0, so, full, lo,
                              hi, p->output_offset, 4 * oa, oline + (along - 4) * oa);
            }
        }
    }
}

/* A ring band's pixels, bw of them, all the zero point. */
static inline void gather_band(const dw_ctx *c, int8_t *band, int32_t bw)
{
    rt_mve_fill(band, vdupq_n_s8((int8_t)(-c->p->input_offset)), bw * 48);
}

#if RT_MVE_HAS(RT_MVE_U_DW_G_ROWS)
/* Along the rows, plane after plane. */
static RT_DSP_NOINLINE void gathered_rows(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const int32_t cin = c->g.cin;
    int8_t band[RT_MVE_DW_BAND_BYTES];
    dw_gchan ch[16];
    int32_t oc;
    gather_band(c, band, (c->g.ow - 1) * c->p->stride_w + 3);
    for (oc = 0; oc < cin; oc += 16) {
        const int32_t cw = cin - oc < 16 ? cin - oc : 16;
        gather_chans(c, oc, cw, ch);
        gathered_lines(c, in, out, 0, 0, c->g.oh, c->g.ow, oc, cw, ch, band);
    }
}
#endif

#if RT_MVE_HAS(RT_MVE_U_DW_G_LINES)
/* Along the columns, whole groups of four rows; the rows left over along the rows where they
 * hold a group (a column's last group, one new pixel of four at KWS's 25 rows, cost its
 * channel 38 instructions; along the last row the channel takes about 75 for all five), each
 * plane's channels made once for both, in a band of their own (a row of at most 7 pixels at
 * stride 2 is 15 input pixels). */
static RT_DSP_NOINLINE void gathered_columns(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const int32_t cin = c->g.cin, oh = c->g.oh, rest = c->g.ow >= 4 ? oh & 3 : 0;
    int8_t band[RT_MVE_DW_BAND_BYTES], ends[15 * 48];
    dw_gchan ch[16];
    int32_t oc;
    gather_band(c, band, (oh - rest - 1) * c->p->stride_h + 3);
    if (rest > 0) {
        gather_band(c, ends, (c->g.ow - 1) * c->p->stride_w + 3);
    }
    for (oc = 0; oc < cin; oc += 16) {
        const int32_t cw = cin - oc < 16 ? cin - oc : 16;
        gather_chans(c, oc, cw, ch);
        gathered_lines(c, in, out, 1, 0, c->g.ow, oh - rest, oc, cw, ch, band);
        if (rest > 0) {
            gathered_lines(c, in, out, 0, oh - rest, oh, c->g.ow, oc, cw, ch, ends);
        }
    }
}
#endif
#endif /* rows or lines */
#endif /* any gathered taps */
#endif

#endif
