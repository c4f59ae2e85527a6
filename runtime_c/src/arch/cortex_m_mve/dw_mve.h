/* dw_mve.h (Cortex-M Helium) - what the strategies of rt_depthwise_conv2d_s8 share:
 * the layer's context, a 16-channel pass's output stage and the assembly pieces of its loops,
 * the band's size and the gathered taps' channel records. Private to depthwise_conv_s8.c and
 * its dw_*.h strategies (compiled there as one unit); docs/kernels/helium.md says how they
 * came to be. */
#ifndef RT_MVE_DW_MVE_H
#define RT_MVE_DW_MVE_H

#include "conv_mve.h"

#include <stddef.h>

/* What stays fixed across a layer's pixels. */
typedef struct dw_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int8_t *w;
    const int32_t *bias;
    int32_t mult, row, x_step, y_step;
} dw_ctx;

/* A 16-channel pass's output stage, made once for all its pixels, in the order of the four
 * accumulators' lanes (lane i of vector v is channel oc + ch[4v + i]): the bias, the bias plus
 * the input offset times the channel's sum of all taps (for windows with every tap inside the
 * input), the multipliers and the shift split in two; where vector v's four bytes go
 * (out + at[v], lanes offs apart), the output offset and the activation range (also as
 * bytes, for a DW_QUARTERS pass's sixteen outputs narrowed into one vector, and a DW_PAIRS8
 * pass's two pixels' eight, stored at out + offs8). */
typedef struct dw_pass {
    int32_t bias[16], fold[16], mult[16], right[16], left[16];
    int32_t at[4];
    uint32x4_t offs;
    int32x4_t off, lo, hi;
    int8x16_t lo8, hi8;
    uint8x16_t offs8;
    int32_t any_left;   /* does any channel of the pass shift left? */
    int32_t all_right;  /* does every channel of the pass shift right? */
    int32_t order;      /* the lanes' channels: DW_NATURAL .. DW_PAIRS8 */
    int8_t taps[9 * 16];   /* DW_QUARTERS, DW_PAIRS8: a 3x3 filter's taps, 16 lanes each */
} dw_pass;

/* The accumulators' lanes (lane i of vector v is channel oc + order[4v + i]):
 * - DW_NATURAL: in order (VMLA by a scalar, shared inputs);
 * - DW_EVEN_ODD: the 16-bit widening multiplies' (VMULLB/VMULLT.S16 per eight channels):
 *   (0, 2, 4, 6), (1, 3, 5, 7), (8, ..), (9, ..);
 * - DW_QUARTERS: the 8-bit ones' (VMULLB/VMULLT.S8 over 16 channels, their 16-bit sums
 *   widened by VMOVLB/VMOVLT): (0, 4, 8, 12), (2, 6, ..), (1, 5, ..), (3, 7, ..);
 * - DW_PAIRS8: DW_QUARTERS over two pixels' 8 channels (lane 8 * pixel + channel; a band's
 *   neighbouring columns, stride 1): (0:0, 0:4, 1:0, 1:4), (0:2, ..), (0:1, ..), (0:3, ..). */
#define DW_NATURAL 0
#define DW_EVEN_ODD 1
#define DW_QUARTERS 2
#define DW_PAIRS8 3

#if defined(__OPTIMIZE__)
/* The assembly below reads dw_pass at these byte offsets: bias 0, fold 64, mult 128,
 * right 192, left 256, offs 336, lo 368, hi 384 (off 352), lo8 400, hi8 416, offs8 432; and
 * the packed taps with VLDRW at fixed offsets, so they lie on a word. */
typedef char dw_pass_layout[(offsetof(dw_pass, mult) == 128 && offsetof(dw_pass, right) == 192 &&
                             offsetof(dw_pass, left) == 256 && offsetof(dw_pass, offs) == 336 &&
                             offsetof(dw_pass, off) == 352 && offsetof(dw_pass, lo) == 368 &&
                             offsetof(dw_pass, hi) == 384 && offsetof(dw_pass, lo8) == 400 &&
                             offsetof(dw_pass, hi8) == 416 && offsetof(dw_pass, offs8) == 432 &&
                             offsetof(dw_pass, taps) % 4 == 0) ? 1 : -1];

/* The window's loops: rows (a register, > 0) of cols (memory, > 0) taps; x and w step by xs
 * and ws a tap, by xskip and wskip (memory) a row; lr counts taps (DLS/LE). */
#define DW_ZERO4 \
    "vmov.i32 q0, #0\n\t" \
    "vmov.i32 q1, #0\n\t" \
    "vmov.i32 q2, #0\n\t" \
    "vmov.i32 q3, #0\n\t"
#define DW_ZERO \
    DW_ZERO4 \
    "2:\n\t" \
    "ldr lr, %[cols]\n\t" \
    "dls lr, lr\n\t" \
    "1:\n\t"
#define DW_NEXT \
    "add %[x], %[x], %[xs]\n\t" \
    "add %[w], %[w], %[ws]\n\t" \
    "le lr, 1b\n\t" \
    "ldr lr, %[xskip]\n\t" \
    "add %[x], %[x], lr\n\t" \
    "ldr lr, %[wskip]\n\t" \
    "add %[w], %[w], lr\n\t" \
    "subs %[rows], %[rows], #1\n\t" \
    "bne 2b\n\t"
/* eight channels of a tap, 16-bit lanes: even channels into E, odd into D */
#define DW_HALF(o, OFF, E, D) \
    "vldrb.s16 q4, [%[x], #" o "]\n\t" \
    "vldrb.s16 q5, [%[w], #" o "]\n\t" \
    OFF \
    "vmullb.s16 q6, q4, q5\n\t" \
    "vadd.i32 " E ", " E ", q6\n\t" \
    "vmullt.s16 q6, q4, q5\n\t" \
    "vadd.i32 " D ", " D ", q6\n\t"
#define DW_ADD_OFF "vadd.i16 q4, q4, %[off]\n\t"
/* vector A of the pass (its fold at f + F, left, mult, right at prm + L, M, R): requantized,
 * offset (lr), clamped (q6, q7); q4 and q5 scratch */
#define DW_FOLD(A, F) \
    "vldrw.32 q4, [%[f], #" F "]\n\t" \
    "vadd.i32 " A ", " A ", q4\n\t"
#define DW_LEFT(A, L) \
    "vldrw.32 q4, [%[prm], #" L "]\n\t" \
    "vshl.s32 " A ", " A ", q4\n\t"
/* the multiplier, then the rounding right shift after FIX, the sign fix into q5 (h less one
 * where negative, in the lanes that shift right) */
#define DW_MUL_FIX(A, M, R, FIX) \
    "vldrw.32 q4, [%[prm], #" M "]\n\t" \
    "vqrdmulh.s32 " A ", " A ", q4\n\t" \
    "vldrw.32 q4, [%[prm], #" R "]\n\t" \
    FIX \
    "vqadd.s32 " A ", " A ", q5\n\t" \
    "vrshl.s32 " A ", " A ", q4\n\t"
#define DW_MUL(A, M, R) DW_MUL_FIX(A, M, R, "vand q5, " A ", q4\n\tvshr.s32 q5, q5, #31\n\t")
/* ... where every lane shifts right: the fix is h >> 31, without the mask */
#define DW_MUL_NEG(A, M, R) DW_MUL_FIX(A, M, R, "vshr.s32 q5, " A ", #31\n\t")
/* the output offset (lr) and the activation range (q6, q7) */
#define DW_OUT(A) \
    "vadd.i32 " A ", " A ", lr\n\t" \
    "vmax.s32 " A ", " A ", q6\n\t" \
    "vmin.s32 " A ", " A ", q7\n\t"
#define DW_MUL_OUT(A, M, R) DW_MUL(A, M, R) DW_OUT(A)
#define DW_RQ(A, F, L, M, R) DW_FOLD(A, F) DW_LEFT(A, L) DW_MUL_OUT(A, M, R)
/* the output offset (lr) and the activation range (q6, q7) */
#define DW_RQ_CONSTS \
    "ldr lr, [%[prm], #352]\n\t" \
    "vldrw.32 q6, [%[prm], #368]\n\t" \
    "vldrw.32 q7, [%[prm], #384]\n\t"
#define DW_RQ_ALL \
    DW_RQ_CONSTS \
    DW_RQ("q0", "0", "256", "128", "192") \
    DW_RQ("q1", "16", "272", "144", "208") \
    DW_RQ("q2", "32", "288", "160", "224") \
    DW_RQ("q3", "48", "304", "176", "240")
/* DW_RQ without the left shift (a pass whose channels all shift right or not at all) */
#define DW_RQ_R(A, F, M, R) DW_FOLD(A, F) DW_MUL_OUT(A, M, R)
#define DW_RQ_ALL_OF(RQ) \
    DW_RQ_CONSTS \
    RQ("q0", "0", "128", "192") \
    RQ("q1", "16", "144", "208") \
    RQ("q2", "32", "160", "224") \
    RQ("q3", "48", "176", "240")
#define DW_RQ_ALL_R DW_RQ_ALL_OF(DW_RQ_R)
/* A DW_QUARTERS pass of 16 channels (no left shift): the four vectors requantized by RQ
 * (DW_RQ_MUL, or DW_RQ_MUL_NEG where every channel shifts right), then narrowed with
 * saturation into one vector of the sixteen channels in order, which takes the output
 * offset in 16 bits and the activation range in bytes: saturating to int16 and on to int8
 * before the range is the same as adding and clamping in 32 bits, the offset being a byte
 * and the range within one. (0, 4, 8, 12) with (2, 6, ..) make the even channels' halfwords,
 * (1, 5, ..) with (3, 7, ..) the odd ones'. */
#define DW_RQ_MUL(A, F, M, R) DW_FOLD(A, F) DW_MUL(A, M, R)
#define DW_RQ_MUL_NEG(A, F, M, R) DW_FOLD(A, F) DW_MUL_NEG(A, M, R)
#define DW_RQ_NARROW_TO(RQ, STORE) \
    "ldr lr, [%[prm], #352]\n\t" \
    RQ("q0", "0", "128", "192") \
    RQ("q1", "16", "144", "208") \
    RQ("q2", "32", "160", "224") \
    RQ("q3", "48", "176", "240") \
    "vqmovnb.s32 q0, q0\n\t" \
    "vqmovnt.s32 q0, q1\n\t" \
    "vqmovnb.s32 q2, q2\n\t" \
    "vqmovnt.s32 q2, q3\n\t" \
    "vqadd.s16 q0, q0, lr\n\t" \
    "vqadd.s16 q2, q2, lr\n\t" \
    "vqmovnb.s16 q0, q0\n\t" \
    "vqmovnt.s16 q0, q2\n\t" \
    "vldrw.32 q4, [%[prm], #400]\n\t" \
    "vmax.s8 q0, q0, q4\n\t" \
    "vldrw.32 q4, [%[prm], #416]\n\t" \
    "vmin.s8 q0, q0, q4\n\t" \
    STORE
#define DW_RQ_NARROW(RQ) DW_RQ_NARROW_TO(RQ, "vstrb.8 q0, [%[out]]\n\t")
/* A DW_PAIRS8 pass's sixteen outputs narrowed alike are its two pixels' eight channels in
 * order (lane 8 * pixel + channel): stored a byte a lane at out + offs8 */
#define DW_STORE_PAIRS8 \
    "vldrw.32 q4, [%[prm], #432]\n\t" \
    "vstrb.8 q0, [%[out], q4]\n\t"
/* a full window of rows of three taps, written out (no loop per tap): x steps xs a tap and
 * xrow (memory) after a row's third; w steps ws a tap, the row's end included */
#define DW_TAP16 \
    DW_HALF("0", "", "q0", "q1") DW_HALF("8", "", "q2", "q3")
#define DW_ROWS3_OF(ZERO, TAP) \
    ZERO \
    "2:\n\t" \
    TAP \
    "add %[x], %[x], %[xs]\n\t" \
    "add %[w], %[w], %[ws]\n\t" \
    TAP \
    "add %[x], %[x], %[xs]\n\t" \
    "add %[w], %[w], %[ws]\n\t" \
    TAP \
    "ldr lr, %[xrow]\n\t" \
    "add %[x], %[x], lr\n\t" \
    "add %[w], %[w], %[ws]\n\t" \
    "subs %[rows], %[rows], #1\n\t" \
    "bne 2b\n\t"
#define DW_ROWS3 DW_ROWS3_OF(DW_ZERO4, DW_TAP16)
/* eight channels: taps8_c's half */
#define DW_TAP8 DW_HALF("0", "", "q0", "q1")
#define DW_ROWS3_HALF \
    DW_ROWS3_OF("vmov.i32 q0, #0\n\tvmov.i32 q1, #0\n\t", DW_TAP8)
#define DW_RQ_HALF \
    DW_RQ_CONSTS \
    DW_RQ("q0", "0", "256", "128", "192") \
    DW_RQ("q1", "16", "272", "144", "208")
#define DW_STORE_EVEN_ODD_HALF \
    "vldrw.32 q6, [%[prm], #336]\n\t" \
    "vstrb.32 q0, [%[out], q6]\n\t" \
    "add lr, %[out], #1\n\t" \
    "vstrb.32 q1, [lr, q6]"
/* the widening pass's stores: channels (0, 2, 4, 6), (1, ..), (8, ..), (9, ..) */
#define DW_STORE_EVEN_ODD \
    "vldrw.32 q6, [%[prm], #336]\n\t" \
    "vstrb.32 q0, [%[out], q6]\n\t" \
    "add lr, %[out], #1\n\t" \
    "vstrb.32 q1, [lr, q6]\n\t" \
    "add lr, %[out], #8\n\t" \
    "vstrb.32 q2, [lr, q6]\n\t" \
    "add lr, %[out], #9\n\t" \
    "vstrb.32 q3, [lr, q6]"
#define DW_STORE_IN_ORDER \
    "vstrb.32 q0, [%[out]]\n\t" \
    "vstrb.32 q1, [%[out], #4]\n\t" \
    "vstrb.32 q2, [%[out], #8]\n\t" \
    "vstrb.32 q3, [%[out], #12]"
#define DW_CLOBBERS \
    "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", \
    "d11", "d12", "d13", "d14", "d15"
#endif

/* Vector v of a pass: acc plus fold f, requantized (rt_mve_requant's steps, the shift split),
 * offset, clamped and stored as bytes. */
static inline void pass_out4(const dw_pass *q, int32x4_t acc, const int32_t *f, int32_t v,
                             int8_t *out)
{
    const int32x4_t right = vldrwq_s32(q->right + 4 * v);
    int32x4_t h = vqrdmulhq_s32(vshlq_s32(vaddq_s32(acc, vldrwq_s32(f + 4 * v)),
                                          vldrwq_s32(q->left + 4 * v)),
                                vldrwq_s32(q->mult + 4 * v));
    h = vrshlq_s32(vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, right), 31)), right);
    vstrbq_scatter_offset_s32(out + q->at[v], q->offs,
                              vminq_s32(vmaxq_s32(vaddq_s32(h, q->off), q->lo), q->hi));
}

/* Up to this many 16-channel passes share each output pixel's window (their output stages
 * on the stack, 400 bytes each). */
#define DW_PASSES 4

/* A band: the kh input rows under one output row, cb channels of them a column, columns
 * padded with the input zero point where the windows reach past the input (as whole rows
 * where a row does), so that every window in it is whole. Up to this many bytes, on the
 * stack (the twins build a smaller band, so that layers which do not fit run too). */
#ifndef RT_MVE_DW_BAND_BYTES
#define RT_MVE_DW_BAND_BYTES 2560
#endif

/* The pixels of a span of bw from pixel x0 on of a line of n that lie inside it: [*lo,
 * return). */
static inline int32_t span_inside(int32_t n, int32_t x0, int32_t bw, int32_t *lo)
{
    *lo = x0 >= 0 ? 0 : -x0 < bw ? -x0 : bw;
    return n - x0 < bw ? (n - x0 > *lo ? n - x0 : *lo) : bw;
}

/* The columns of a band from input column x0 on, bw wide, that lie inside the input:
 * [*lo, return). */
static inline int32_t band_inside(const dw_ctx *c, int32_t x0, int32_t bw, int32_t *lo)
{
    return span_inside(c->g.w, x0, bw, lo);
}

/* A pass's output stage (channels oc.., in `order`); width: 16, or 8 (the first two vectors
 * only; DW_PAIRS8 all four). DW_QUARTERS and DW_PAIRS8 (asked for a 3x3 filter of 16 or 8
 * channels) also pack the pass's taps (DW_PAIRS8: each tap's 8 twice), or fall back to
 * DW_EVEN_ODD where a channel shifts left or a tap is -128. */
#if RT_MVE_HAS(RT_MVE_U_DW_BAND)
static void pass_make(const dw_ctx *c, int32_t oc, int32_t order, int32_t width,
                                dw_pass *q)
{
    /* each order's channel a lane (DW_PAIRS8's the two pixels' same channels) */
    static const uint32_t orders[4][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15},
        {0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15},
        {0, 4, 0, 4, 2, 6, 2, 6, 1, 5, 1, 5, 3, 7, 3, 7}};
    /* where each vector's first lane goes, and the channel step between its lanes */
    static const uint8_t at[4][4] = {{0, 4, 8, 12}, {0, 1, 8, 9}, {0, 2, 1, 3}, {0, 2, 1, 3}};
    static const uint8_t step[4] = {1, 2, 4, 4};
    const rt_conv_s8_params *p = c->p;
    const int32_t taps = c->g.kh * c->g.kw, packed = order == DW_QUARTERS || order == DW_PAIRS8;
    const mve_pred16_t these = rt_mve_tail8(width);
    const int32x4_t zero = vdupq_n_s32(0);
    /* channels 8..15 of the sums' loads (none where width is 8) */
    const mve_pred16_t upper = vctp32q(width == 16 ? 4u : 0u);
    int32x4_t s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    int32_t sums[16], any_left = 0, all_right = 1, j, t;
    for (j = 0; j < width; j += 4) {   /* a channel shifting left rules the 8-bit path out */
        any_left |= vmaxvq_s32(0, vldrwq_s32(p->shift + oc + j)) > 0;
        all_right &= vmaxvq_s32(INT32_MIN, vldrwq_s32(p->shift + oc + j)) < 0;
    }
    order = packed && any_left ? DW_EVEN_ODD : order;
    if (packed && order != DW_EVEN_ODD) {   /* the taps packed, their least found once */
        int8x16_t least = vdupq_n_s8(0);
        for (t = 0; t < 9; ++t) {
            const int8x16_t v = vldrbq_z_s8(c->w + t * c->g.cout + oc, these);
            vstrbq_s8(q->taps + 16 * t, v);
            if (width == 8) {
                vstrbq_p_s8(q->taps + 16 * t + 8, v, these);
            }
            least = vminq_s8(least, v);
        }
        order = vminvq_s8(0, least) == -128 ? DW_EVEN_ODD : order;
    }
    for (t = 0; t < taps; ++t) {   /* each channel's sum of taps, four channels a vector */
        const int8_t *wt = c->w + t * c->g.cout + oc;
        s0 = vaddq_s32(s0, vldrbq_s32(wt));
        s1 = vaddq_s32(s1, vldrbq_s32(wt + 4));
        s2 = vaddq_s32(s2, vldrbq_z_s32(wt + 8, upper));
        s3 = vaddq_s32(s3, vldrbq_z_s32(wt + 12, upper));
    }
    vstrwq_s32(sums, s0);
    vstrwq_s32(sums + 4, s1);
    vstrwq_s32(sums + 8, s2);
    vstrwq_s32(sums + 12, s3);
    q->any_left = any_left;
    q->all_right = all_right;
    q->order = order;
    for (j = 0; j < (order == DW_PAIRS8 ? 16 : width); j += 4) {   /* the lanes' channels */
        const uint32x4_t ch = vldrwq_u32(orders[order] + j);
        const int32x4_t sh = vldrwq_gather_shifted_offset_s32(p->shift + oc, ch);
        const int32x4_t b = c->bias != NULL ? vldrwq_gather_shifted_offset_s32(c->bias + oc, ch)
                                            : zero;
        vstrwq_s32(q->bias + j, b);
        vstrwq_s32(q->fold + j, vmlaq_n_s32(b, vldrwq_gather_shifted_offset_s32(sums, ch),
                                            p->input_offset));
        vstrwq_s32(q->mult + j, vldrwq_gather_shifted_offset_s32(p->mult + oc, ch));
        vstrwq_s32(q->right + j, vminq_s32(sh, zero));
        vstrwq_s32(q->left + j, vmaxq_s32(sh, zero));
    }
    for (j = 0; j < 4; ++j) {
        q->at[j] = at[order][j];
    }
    q->offs = vmulq_n_u32(vidupq_n_u32(0u, 1), step[order]);
    if (order == DW_PAIRS8) {   /* pixel 0's channels c and c + 4, then pixel 1's */
        const uint32_t cout = (uint32_t)c->g.cout, offs[4] = {0u, 4u, cout, cout + 4u};
        const uint8x16_t lane = vidupq_n_u8(0u, 1);   /* narrowed: 8 pixel + channel */
        q->offs = vldrwq_u32(offs);
        q->offs8 = vaddq_m_n_u8(lane, lane, (uint8_t)(cout - 8u), vcmphiq_n_u8(lane, 7u));
    }
    q->off = vdupq_n_s32(p->output_offset);
    q->lo = vdupq_n_s32(p->act_min);
    q->hi = vdupq_n_s32(p->act_max);
    q->lo8 = vdupq_n_s8((int8_t)p->act_min);
    q->hi8 = vdupq_n_s8((int8_t)p->act_max);
}
#endif

/* One channel of a plane: its taps (lanes 9-15 zero) and output stage. */
typedef struct dw_gchan {
    int8x16_t w;
    int32_t fold, mult, shift, pad;
} dw_gchan;
/* (DW_G_RUN reads it at these byte offsets) */
typedef char dw_gchan_layout[(offsetof(dw_gchan, fold) == 16 && offsetof(dw_gchan, mult) == 20 &&
                              offsetof(dw_gchan, shift) == 24 && sizeof(dw_gchan) == 32) ? 1 : -1];

/* The assembly's pieces. A group: four pixels of the channel whose taps are in q2, from the
 * windows of pixels 0 and 2 at b0 and b1 (+ o0; pixels 1 and 3 at + o1), their sums moved
 * into Q two lanes a VMOV (q0 the gather's scratch), b0 and b1 then on to the next group. */
#define DW_G_GROUP(Q) \
    "vldrb.u8 q0, [%[b0], %q[o0]]\n\t" \
    "vmladav.s8 %[a0], q0, q2\n\t" \
    "vldrb.u8 q0, [%[b1], %q[o0]]\n\t" \
    "vmladav.s8 %[a1], q0, q2\n\t" \
    "vmov " Q "[2], " Q "[0], %[a1], %[a0]\n\t" \
    "vldrb.u8 q0, [%[b0], %q[o1]]\n\t" \
    "vmladav.s8 %[a0], q0, q2\n\t" \
    "vldrb.u8 q0, [%[b1], %q[o1]]\n\t" \
    "vmladav.s8 %[a1], q0, q2\n\t" \
    "vmov " Q "[3], " Q "[1], %[a1], %[a0]\n\t" \
    "add %[b0], %[b0], %[step]\n\t" \
    "add %[b1], %[b1], %[step]\n\t"
/* Q's sums requantized: plus the fold, then a right shift's steps (the multiplier, h less one
 * where negative (q0), the rounding shift) or the others' (a left shift, if any, before it) */
#define DW_G_RIGHT(Q) \
    "vadd.i32 " Q ", " Q ", %[fold]\n\t" \
    "vqrdmulh.s32 " Q ", " Q ", %[mult]\n\t" \
    "vshr.s32 q0, " Q ", #31\n\t" \
    "vqadd.s32 " Q ", " Q ", q0\n\t" \
    "vrshl.s32 " Q ", %[shift]\n\t"
/* ... without the sign fix, where the clamp makes it change nothing (rt_mve_sheds_fix) */
#define DW_G_RIGHT_BARE(Q) \
    "vadd.i32 " Q ", " Q ", %[fold]\n\t" \
    "vqrdmulh.s32 " Q ", " Q ", %[mult]\n\t" \
    "vrshl.s32 " Q ", %[shift]\n\t"
#define DW_G_LEFT(Q) \
    "vadd.i32 " Q ", " Q ", %[fold]\n\t" \
    "vshl.s32 " Q ", %[shift]\n\t" \
    "vqrdmulh.s32 " Q ", " Q ", %[mult]\n\t"
/* n groups of the channel (memory), each offset, clamped (lo, hi) and scattered (so), out on
 * by ostep a group; L: the loop's label */
#define DW_G_CLAMPED(L, REQ) \
    "ldr lr, %[n]\n\t" \
    "dls lr, lr\n\t" \
    L ":\n\t" \
    DW_G_GROUP("q1") \
    REQ("q1") \
    "vadd.i32 q1, q1, %[off]\n\t" \
    "vmax.s32 q1, q1, %q[lo]\n\t" \
    "vmin.s32 q1, q1, %q[hi]\n\t" \
    "vstrb.32 q1, [%[out], %q[so]]\n\t" \
    "add %[out], %[out], %[ostep]\n\t" \
    "le lr, " L "b\n\t"
/* A pair of groups' sums (q1, q3) requantized, narrowed into one vector of 16-bit lanes,
 * offset there (saturating), narrowed to bytes (the saturation the clamp) and scattered
 * (SO16) from out. */
#define DW_G_PAIR_OUT(REQ, SO16) \
    REQ("q1") \
    REQ("q3") \
    "vqmovnb.s32 q1, q1\n\t" \
    "vqmovnt.s32 q1, q3\n\t" \
    "vqadd.s16 q1, q1, %[off]\n\t" \
    "vqmovnb.s16 q1, q1\n\t" \
    "vstrb.16 q1, [%[out], " SO16 "]\n\t"

/* Where a group's VMOVs put pixels 0..3 (rt_mve_moved), their outputs d apart. */
static inline uint32x4_t gather_offsets(int32_t d)
{
    return rt_mve_moved(0u, (uint32_t)d, 2u * (uint32_t)d, 3u * (uint32_t)d);
}

/* How gathered taps take a layer (takes_gathered; 0: not at all). */
#define DW_G_COLS 1
#define DW_G_ROWS 2
#define DW_G_LINES 3   /* along the columns */

/* How gathered_plane takes a layer (takes_plane), and its band. */
#define DW_P_ROW 64
#define DW_P_ROW2 104
#define DW_P_BYTES 4096   /* two halves of up to 32 rows (maps of up to 30) */
#define DW_P_COLUMNS 1
#define DW_P_BLOCKS 2
#define DW_P_BLOCKS2 3

/* The one-input strategy's filters, patches and padded image. */
#define DW_MAT_TAPS 64
#define DW_MAT_BYTES 3072
#define DW_PAD_BYTES 768

#endif
