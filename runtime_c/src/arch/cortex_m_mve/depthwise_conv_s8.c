/* depthwise_conv_s8.c (Cortex-M Helium) - rt_depthwise_conv2d_s8.
 * - One input channel (a first layer) with 16 to 64 taps: a convolution, so the gathered
 *   matrix product of conv_mve.c takes it, its filters transposed a block at a time (a
 *   small image padded first, so that its patches are straight copies).
 * - 3x3 at a multiplier of 1, where it costs less (gather_takes; KWS, most of VWW; -O2):
 *   gathered taps, each output's nine one byte gather and one VMLADAV, four pixels of a
 *   channel requantized together, down the columns (gathered_cols) or along lines
 *   (gathered_lines: the rows, or a tall map's columns); a tall map of four or five columns
 *   at stride 1 (KWS's 25x5) a whole padded plane at a time, every line and last row of a
 *   channel in one assembly call (gathered_plane); so too a small map of two, four or six
 *   columns and an even count of rows at stride 1 or 2 (VWW's 6x6 ones), four pixels a 2x2
 *   block.
 * - A channel multiplier of 1 (MobileNets, KWS): bands. An output row's input rows are copied
 *   onto the stack, up to 64 channels, a plane of 16 channels a column per pass, padded with
 *   the input zero point where its windows reach past the input, so every window is whole
 *   and the input offset goes into the fold (bias + x_off * sum of the taps). Down the rows
 *   at stride 1, where whole rows fit and every pass multiplies 8-bit (KWS, VWW), the band
 *   is a ring of kh rows: each row reads in one input row and moves none (ring_row), the
 *   window's rows taken round the ring. One assembly loop a pass then makes the row's
 *   pixels (each pixel's taps, output stage and stores, then on to the next; the 8-bit
 *   passes below all in one call, pass after pass):
 *   - 3x3 filters (no tap -128, no left shift; KWS, VWW): 8-bit products (VMULLB/VMULLT.S8,
 *     even and odd channels), two taps' summed in 16 bits, then widened into four int32
 *     accumulators (VMOVLB/VMOVLT): 19 vector instructions per two taps of 16 channels
 *     (and where every channel of the pass shifts right, the sign fix without its mask);
 *   - others: inputs and taps load widened to 16 bits and VMULLB/VMULLT.S16 multiply even
 *     and odd channels into the accumulators, 12 vector instructions a tap (rows of three
 *     taps written out, no left shift where the pass has none).
 *   Eight channels left take a half-width pass; where 16 channels of a whole row do not
 *   fit, runs of fewer pixels.
 * - A channel multiplier of 16k, or windows too big for a band: sixteen channels a pass, up
 *   to four passes sharing each output pixel's window, a pixel per call (taps16, taps16_c;
 *   with a multiple of 16 every channel of the pass reads one input, VMLA by a scalar).
 *   -O0 runs the same steps in C. Other channels take the older 8-channel loop or the
 *   portable one, one at a time.
 * Up to about 7.3 KB of stack (a band's 2.5 KB and five passes' output stages and packed
 * taps, 6.1 KB; a gathered band and its 16 channels' taps and output stages, 3.1 KB (a tall
 * map's, with the band of its last rows, 3.8 KB; a whole plane's band 4.8 KB); the
 * one-channel path's 64 filters padded to 48 taps, patches, their constants and padded
 * image, 7.3 KB). Bit-exact with int8/depthwise_conv_s8.c. */
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

/* Four lanes of output: bias, requantization and clamp (rt_mve_requant), stored as bytes. */
static inline void out4(const dw_ctx *c, int32x4_t acc, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    if (c->bias != NULL) {
        acc = vaddq_s32(acc, vldrwq_s32(c->bias + oc));
    }
    vstrbq_s32(out + oc, rt_mve_requant(acc, vldrwq_s32(p->mult + oc), vldrwq_s32(p->shift + oc),
                                        p->output_offset, p->act_min, p->act_max));
}

/* Channels oc..oc+7 of one output pixel, over a rows x cols window from input x and filter w
 * at its first tap (channel oc): consecutive inputs (shared 0) or one input for all
 * (shared 1). Two vectors a pass leave the Q registers room for the loop (four spill);
 * out of line, so that its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps8(const dw_ctx *c, const int8_t *x, const int8_t *w,
                                  int32_t rows, int32_t cols, int32_t shared, int32_t oc,
                                  int8_t *out)
{
    const int32_t x_off = c->p->input_offset, x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0;
    int32_t ky, kx;
    if (shared) {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int32_t v = (int32_t)*x + x_off;
                a0 = vmlaq_n_s32(a0, vldrbq_s32(w), v);
                a1 = vmlaq_n_s32(a1, vldrbq_s32(w + 4), v);
            }
        }
    } else {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                a0 = vaddq_s32(a0, vmulq_s32(vaddq_n_s32(vldrbq_s32(x), x_off),
                                             vldrbq_s32(w)));
                a1 = vaddq_s32(a1, vmulq_s32(vaddq_n_s32(vldrbq_s32(x + 4), x_off),
                                             vldrbq_s32(w + 4)));
            }
        }
    }
    out4(c, a0, oc, out);
    out4(c, a1, oc + 4, out);
}

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

/* A pass's output stage (channels oc.., in `order`); width: 16, or 8 (the first two vectors
 * only; DW_PAIRS8 all four). DW_QUARTERS and DW_PAIRS8 (asked for a 3x3 filter of 16 or 8
 * channels) also pack the pass's taps (DW_PAIRS8: each tap's 8 twice), or fall back to
 * DW_EVEN_ODD where a channel shifts left or a tap is -128. */
static void pass_make(const dw_ctx *c, int32_t oc, int32_t order, int32_t width, dw_pass *q)
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

/* Channels oc..oc+15 of one output pixel with a channel multiplier of 1 (consecutive
 * inputs), over a rows x cols window from input x and filter w at its first tap. Inputs and
 * taps load widened to 16 bits (VLDRB.S16); VMULLB/VMULLT multiply the even and the odd
 * lanes into 32-bit products: four accumulators hold channels (0, 2, .., 6), (1, 3, .., 7),
 * (8, .., 14), (9, .., 15). A window with every tap inside leaves the input offset to the
 * pass's fold (sum (x + x_off) * w = sum x * w + x_off * sum w): 12 vector instructions a tap
 * for 16 channels; others add it to the inputs (it then fits 16 bits). Out of line, so that
 * its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16_c(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                     const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    const int16_t x_off = (int16_t)c->p->input_offset;
    const int32_t x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    const int32_t full = rows == c->g.kh && cols == c->g.kw;
    const int32_t *f = full ? q->fold : q->bias;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0, e1 = e0, o1 = e0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t off = x_off;
        if (full) {
            __asm__ volatile(DW_ZERO DW_TAP16 DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD
                             : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows)
                             : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(off), [f] "r"(f),
                               [prm] "r"(q), [out] "r"(out), [cols] "m"(cols),
                               [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                             : DW_CLOBBERS);
        } else {
            __asm__ volatile(DW_ZERO DW_HALF("0", DW_ADD_OFF, "q0", "q1")
                             DW_HALF("8", DW_ADD_OFF, "q2", "q3")
                             DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD
                             : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows)
                             : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(off), [f] "r"(f),
                               [prm] "r"(q), [out] "r"(out), [cols] "m"(cols),
                               [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                             : DW_CLOBBERS);
        }
        return;
    }
#endif
    if (full) {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int16x8_t xl = vldrbq_s16(x), xh = vldrbq_s16(x + 8);
                const int16x8_t wl = vldrbq_s16(w), wh = vldrbq_s16(w + 8);
                e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
                o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
                e1 = vaddq_s32(e1, vmullbq_int_s16(xh, wh));
                o1 = vaddq_s32(o1, vmulltq_int_s16(xh, wh));
            }
        }
    } else {
        for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
            for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
                const int16x8_t xl = vaddq_n_s16(vldrbq_s16(x), x_off);
                const int16x8_t xh = vaddq_n_s16(vldrbq_s16(x + 8), x_off);
                const int16x8_t wl = vldrbq_s16(w), wh = vldrbq_s16(w + 8);
                e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
                o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
                e1 = vaddq_s32(e1, vmullbq_int_s16(xh, wh));
                o1 = vaddq_s32(o1, vmulltq_int_s16(xh, wh));
            }
        }
    }
    pass_out4(q, e0, f, 0, out);
    pass_out4(q, o0, f, 1, out);
    pass_out4(q, e1, f, 2, out);
    pass_out4(q, o1, f, 3, out);
}

/* Channels oc..oc+15 of one output pixel whose channels all read one input (a channel
 * multiplier of 16k), taken as a scalar plus the offset, VMLA by it, four int32 lanes a
 * vector. Out of line, so that its loop keeps its pointers in registers. */
static RT_DSP_NOINLINE void taps16(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                   const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    const int32_t x_off = c->p->input_offset, x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t *f = q->bias;
        int32_t t;
        __asm__ volatile(DW_ZERO
                         "ldrsb %[t], [%[x]]\n\t"
                         "add %[t], %[t], %[off]\n\t"
                         "vldrb.s32 q4, [%[w]]\n\t"
                         "vmla.s32 q0, q4, %[t]\n\t"
                         "vldrb.s32 q5, [%[w], #4]\n\t"
                         "vmla.s32 q1, q5, %[t]\n\t"
                         "vldrb.s32 q4, [%[w], #8]\n\t"
                         "vmla.s32 q2, q4, %[t]\n\t"
                         "vldrb.s32 q5, [%[w], #12]\n\t"
                         "vmla.s32 q3, q5, %[t]\n\t"
                         DW_NEXT DW_RQ_ALL DW_STORE_IN_ORDER
                         : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows), [t] "=&r"(t)
                         : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(x_off), [f] "r"(f),
                           [prm] "r"(q), [out] "l"(out), [cols] "m"(cols),
                           [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                         : DW_CLOBBERS);
        return;
    }
#endif
    for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
        for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
            const int32_t v = (int32_t)*x + x_off;
            a0 = vmlaq_n_s32(a0, vldrbq_s32(w), v);
            a1 = vmlaq_n_s32(a1, vldrbq_s32(w + 4), v);
            a2 = vmlaq_n_s32(a2, vldrbq_s32(w + 8), v);
            a3 = vmlaq_n_s32(a3, vldrbq_s32(w + 12), v);
        }
    }
    pass_out4(q, a0, q->bias, 0, out);
    pass_out4(q, a1, q->bias, 1, out);
    pass_out4(q, a2, q->bias, 2, out);
    pass_out4(q, a3, q->bias, 3, out);
}

/* Channels oc..oc+7 of one output pixel with a channel multiplier of 1: taps16_c's first
 * half (channels (0, 2, 4, 6) and (1, 3, 5, 7)), q made for 8 channels. */
static RT_DSP_NOINLINE void taps8_c(const dw_ctx *c, const dw_pass *q, const int8_t *x,
                                    const int8_t *w, int32_t rows, int32_t cols, int8_t *out)
{
    const int16_t x_off = (int16_t)c->p->input_offset;
    const int32_t x_step = c->x_step, w_step = c->g.cout;
    const int32_t x_skip = c->y_step - cols * x_step, w_skip = (c->g.kw - cols) * w_step;
    const int32_t full = rows == c->g.kh && cols == c->g.kw;
    const int32_t *f = full ? q->fold : q->bias;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0;
    int32_t ky, kx;
#if defined(__OPTIMIZE__)
    if (rows > 0 && cols > 0) {
        const int32_t off = x_off;
        if (full) {
            __asm__ volatile(DW_ZERO DW_HALF("0", "", "q0", "q1") DW_NEXT DW_RQ_HALF
                             DW_STORE_EVEN_ODD_HALF
                             : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows)
                             : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(off), [f] "r"(f),
                               [prm] "r"(q), [out] "r"(out), [cols] "m"(cols),
                               [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                             : DW_CLOBBERS);
        } else {
            __asm__ volatile(DW_ZERO DW_HALF("0", DW_ADD_OFF, "q0", "q1") DW_NEXT DW_RQ_HALF
                             DW_STORE_EVEN_ODD_HALF
                             : [x] "+l"(x), [w] "+l"(w), [rows] "+r"(rows)
                             : [xs] "r"(x_step), [ws] "r"(w_step), [off] "r"(off), [f] "r"(f),
                               [prm] "r"(q), [out] "r"(out), [cols] "m"(cols),
                               [xskip] "m"(x_skip), [wskip] "m"(w_skip)
                             : DW_CLOBBERS);
        }
        return;
    }
#endif
    for (ky = 0; ky < rows; ++ky, x += x_skip, w += w_skip) {
        for (kx = 0; kx < cols; ++kx, x += x_step, w += w_step) {
            const int16x8_t xl = vaddq_n_s16(vldrbq_s16(x), full ? 0 : x_off);
            const int16x8_t wl = vldrbq_s16(w);
            e0 = vaddq_s32(e0, vmullbq_int_s16(xl, wl));
            o0 = vaddq_s32(o0, vmulltq_int_s16(xl, wl));
        }
    }
    pass_out4(q, e0, f, 0, out);
    pass_out4(q, o0, f, 1, out);
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

#if defined(__OPTIMIZE__)
/* A band's run: each pixel's filter rows from `rows` (memory) down, then the next pixel
 * (x on by xback, w back to w0, out on by cout), n pixels. */
#define DW_RUN_START \
    "5:\n\t" \
    "ldr %[rows], %[kh]\n\t"
#define DW_RUN_NEXT \
    "\n\t" \
    "add %[out], %[out], %[ws]\n\t" \
    "ldr lr, %[xback]\n\t" \
    "add %[x], %[x], lr\n\t" \
    "ldr %[w], %[w0]\n\t" \
    "subs %[n], %[n], #1\n\t" \
    "bne 5b"
#define DW_RQ_HALF_R \
    DW_RQ_CONSTS \
    DW_RQ_R("q0", "0", "128", "192") \
    DW_RQ_R("q1", "16", "144", "208")
#define DW_RUN(BODY) \
    __asm__ volatile(DW_RUN_START BODY DW_RUN_NEXT \
                     : [x] "+l"(x), [w] "+l"(w), [rows] "=&r"(rows), [out] "+r"(out), \
                       [n] "+r"(n) \
                     : [xs] "r"(xs), [ws] "r"(ws), [f] "r"(q->fold), [prm] "r"(q), \
                       [kh] "m"(kh), [xback] "m"(xback), [w0] "m"(w0), [xrow] "m"(xrow), \
                       [cols] "m"(kw), [xskip] "m"(xskip), [wskip] "m"(wskip) \
                     : DW_CLOBBERS)

/* DW_QUARTERS, a 3x3 filter over a band plane of 16 channels a column (x steps 16 a tap and
 * xrow, a register, after a row's third; the packed taps 16 a tap). Two taps' 8-bit products
 * (VMULLB/VMULLT.S8, even channels in q6, odd in q7) add up in 16 bits: no tap is -128, so
 * each product is at most 128 * 127 in size and two of them fit. Tap A of a pair sets them;
 * tap B adds to them, its input loaded twice (the first copy takes its even product). */
#define DW_PAIR_A(S, T) \
    "vldrb.8 q4, [%[x]], #" S "\n\t" \
    "vldrw.32 q5, [%[w], #" T "]\n\t" \
    "vmullb.s8 q6, q4, q5\n\t" \
    "vmullt.s8 q7, q4, q5\n\t"
#define DW_PAIR_B(S, T) \
    "vldrb.8 q4, [%[x]]\n\t" \
    "vldrw.32 q5, [%[w], #" T "]\n\t" \
    "vmullb.s8 q4, q4, q5\n\t" \
    "vadd.i16 q6, q6, q4\n\t" \
    "vldrb.8 q4, [%[x]], #" S "\n\t" \
    "vmullt.s8 q4, q4, q5\n\t" \
    "vadd.i16 q7, q7, q4\n\t"
/* the 16-bit sums widened into the accumulators' quarters: set, or added */
#define DW_WIDEN_SET \
    "vmovlb.s16 q0, q6\n\t" \
    "vmovlt.s16 q1, q6\n\t" \
    "vmovlb.s16 q2, q7\n\t" \
    "vmovlt.s16 q3, q7\n\t"
#define DW_WIDEN_ADD \
    "vmovlb.s16 q4, q6\n\t" \
    "vadd.i32 q0, q0, q4\n\t" \
    "vmovlt.s16 q4, q6\n\t" \
    "vadd.i32 q1, q1, q4\n\t" \
    "vmovlb.s16 q4, q7\n\t" \
    "vadd.i32 q2, q2, q4\n\t" \
    "vmovlt.s16 q4, q7\n\t" \
    "vadd.i32 q3, q3, q4\n\t"
#define DW_NEXT_ROW(R) "add %[x], %[x], %[" R "]\n\t"
/* taps (0, 1), (2, 3), (4, 5), (6, 7) and 8, x stepping S a tap (16: DW_QUARTERS' columns;
 * 8: DW_PAIRS8's, whose 16 bytes are two neighbouring columns); the rows end after taps 2
 * and 5, where x steps by the operands R1 and R2 (a ring's rows are not evenly apart) */
#define DW_PAIRS_3X3(S, R1, R2) \
    DW_PAIR_A(S, "0") DW_PAIR_B(S, "16") DW_WIDEN_SET \
    DW_PAIR_A(S, "32") DW_NEXT_ROW(R1) DW_PAIR_B(S, "48") DW_WIDEN_ADD \
    DW_PAIR_A(S, "64") DW_PAIR_B(S, "80") DW_NEXT_ROW(R2) DW_WIDEN_ADD \
    DW_PAIR_A(S, "96") DW_PAIR_B(S, "112") DW_WIDEN_ADD \
    DW_PAIR_A(S, "128") DW_WIDEN_ADD
/* the next pixel (or pair): out on by ws, x by back, the taps from their start */
#define DW_PAIRS_NEXT \
    "add %[out], %[out], %[ws]\n\t" \
    "add %[x], %[x], %[back]\n\t" \
    "subs %[n], %[n], #1\n\t" \
    "bne 5b"
/* n pairs of pixels of a DW_PAIRS8 pass, the output stage and stores OUT */
#define DW_PAIRS_RUN(OUT) \
    __asm__ volatile("5:\n\t" DW_PAIRS_3X3("8", "xrow", "xrow") OUT DW_PAIRS_NEXT \
                     : [x] "+r"(x), [out] "+r"(out), [n] "+r"(n) \
                     : [xrow] "r"(next), [ws] "r"(step), [f] "r"(q->fold), [prm] "r"(q), \
                       [w] "r"(q->taps), [back] "r"(back) \
                     : DW_CLOBBERS)
/* n pixels of every pass of a band, each DW_QUARTERS: per pass, its n pixels (from its plane's
 * first window at x and its outputs at out), then x on by pnext to the next plane's and out
 * by onext to its channels, the next pass's output stage and taps (q an array) */
#define DW_PASSES_RUN(OUT) \
    __asm__ volatile("6:\n\t" \
                     "ldr %[n], %[k]\n\t" \
                     "add %[w], %[prm], %[taps]\n\t" \
                     "add %[f], %[prm], %[fold]\n\t" \
                     "5:\n\t" DW_PAIRS_3X3("16", "xrow", "xrow2") OUT DW_PAIRS_NEXT "\n\t" \
                     "ldr lr, %[pnext]\n\t" \
                     "add %[x], %[x], lr\n\t" \
                     "ldr lr, %[onext]\n\t" \
                     "add %[out], %[out], lr\n\t" \
                     "add %[prm], %[prm], %[size]\n\t" \
                     "ldr lr, %[np]\n\t" \
                     "subs lr, lr, #1\n\t" \
                     "str lr, %[np]\n\t" \
                     "bne 6b" \
                     : [x] "+r"(x), [w] "=&r"(t), [out] "+r"(out), [n] "=&r"(n), \
                       [f] "=&r"(f), [prm] "+r"(q), [np] "+m"(passes) \
                     : [xrow] "r"(next), [xrow2] "r"(next2), [ws] "r"(step), [back] "r"(back), \
                       [k] "m"(k), \
                       [pnext] "m"(pnext), [onext] "m"(onext), \
                       [taps] "i"(offsetof(dw_pass, taps)), [fold] "i"(offsetof(dw_pass, fold)), \
                       [size] "i"(sizeof(dw_pass)) \
                     : DW_CLOBBERS)
#endif

#if !defined(__OPTIMIZE__)
/* One output pixel of a DW_QUARTERS pass, or two of a DW_PAIRS8 one, in C (the assembly's
 * steps, for -O0): x the window's first tap in a band plane (16 bytes a tap, or 8), rows
 * bc->y_step apart. */
static RT_DSP_NOINLINE void taps_pairs_c(const dw_ctx *bc, const dw_pass *q, const int8_t *x,
                                         int8_t *out)
{
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    int16x8_t e = vdupq_n_s16(0), o = e;
    int32_t t;
    for (t = 0; t < 9; ++t) {
        const int8x16_t xv = vldrbq_s8(x + t / 3 * bc->y_step + t % 3 * bc->x_step);
        const int8x16_t wv = vldrbq_s8(q->taps + 16 * t);
        e = t % 2 == 0 ? vmullbq_int_s8(xv, wv) : vaddq_s16(e, vmullbq_int_s8(xv, wv));
        o = t % 2 == 0 ? vmulltq_int_s8(xv, wv) : vaddq_s16(o, vmulltq_int_s8(xv, wv));
        if (t % 2 == 1 || t == 8) {
            a0 = vaddq_s32(a0, vmovlbq_s16(e));
            a1 = vaddq_s32(a1, vmovltq_s16(e));
            a2 = vaddq_s32(a2, vmovlbq_s16(o));
            a3 = vaddq_s32(a3, vmovltq_s16(o));
        }
    }
    pass_out4(q, a0, q->fold, 0, out);
    pass_out4(q, a1, q->fold, 1, out);
    pass_out4(q, a2, q->fold, 2, out);
    pass_out4(q, a3, q->fold, 3, out);
}
#endif

#if defined(__OPTIMIZE__)
/* `passes` DW_QUARTERS passes q over a band (run()'s, their planes `plane` bytes apart from x,
 * a plane of 16 channels a column; a window's second row d1 bytes on from its first, its
 * third d2 on from its second) in one assembly call: k pixels each, the first pixel's outputs
 * of pass j at out + 16 j. */
static RT_DSP_NOINLINE void run_quarters(const dw_ctx *bc, const dw_pass *q, int32_t passes,
                                         const int8_t *x, int32_t plane, int32_t d1, int32_t d2,
                                         int32_t k, int32_t xpix, int8_t *out)
{
    const int32_t step = bc->g.cout;
    const int32_t back = xpix - d1 - d2 - 48, next = d1 - 48, next2 = d2 - 48;
    const int32_t pnext = plane - k * xpix, onext = 16 - k * step;
    int32_t all_right = 1, j, n;
    const int8_t *t;
    const int32_t *f;
    for (j = 0; j < passes; ++j) {
        all_right &= q[j].all_right;
    }
    if (all_right) {
        DW_PASSES_RUN(DW_RQ_NARROW(DW_RQ_MUL_NEG));
    } else {
        DW_PASSES_RUN(DW_RQ_NARROW(DW_RQ_MUL));
    }
    (void)t;
    (void)f;
    (void)n;
}
#endif

/* n > 0 output pixels of a band (its layout in bc: x_step, y_step), `width` channels each
 * (16, or 8 with q made for 8; DW_PAIRS8: an even n): the first pixel's window at x and its
 * outputs at out, each next pixel's xpix bytes on and its outputs cout bytes on; the filter
 * at w (tap 0, the first channel). Every window is whole, so the pass's fold takes the input
 * offset. -O2: one assembly loop over the pixels (taps, output stage, stores); -O0: the same
 * steps in C a pixel (or a pair). */
static RT_DSP_NOINLINE void run(const dw_ctx *bc, const dw_pass *q, int32_t width,
                                const int8_t *x, const int8_t *w, int32_t n, int32_t xpix,
                                int8_t *out)
{
    const int32_t kh = bc->g.kh, kw = bc->g.kw;
#if defined(__OPTIMIZE__)
    const int32_t xs = bc->x_step, ws = bc->g.cout, xback = xpix - kh * bc->y_step;
    const int32_t xrow = bc->y_step - 2 * xs, xskip = bc->y_step - kw * xs, wskip = 0;
    const int8_t *w0 = w;
    int32_t rows;
    if (q->order == DW_QUARTERS) {   /* run_quarters' loop, one pass */
        run_quarters(bc, q, 1, x, 0, bc->y_step, bc->y_step, n, xpix, out);
    } else if (q->order == DW_PAIRS8) {
        /* n / 2 pairs of pixels, a tap 8 bytes on, each pair's outputs 2 cout on */
        const int32_t back = 2 * xpix - 2 * bc->y_step - 24, next = bc->y_step - 24;
        const int32_t step = 2 * ws;
        n /= 2;
        if (q->all_right) {
            DW_PAIRS_RUN(DW_RQ_NARROW_TO(DW_RQ_MUL_NEG, DW_STORE_PAIRS8));
        } else {
            DW_PAIRS_RUN(DW_RQ_NARROW_TO(DW_RQ_MUL, DW_STORE_PAIRS8));
        }
    } else if (width == 16 && kw == 3 && !q->any_left) {
        DW_RUN(DW_ROWS3 DW_RQ_ALL_R DW_STORE_EVEN_ODD);
    } else if (width == 16) {
        DW_RUN(DW_ZERO DW_TAP16 DW_NEXT DW_RQ_ALL DW_STORE_EVEN_ODD);
    } else if (kw == 3 && !q->any_left) {
        DW_RUN(DW_ROWS3_HALF DW_RQ_HALF_R DW_STORE_EVEN_ODD_HALF);
    } else {
        DW_RUN(DW_ZERO DW_TAP8 DW_NEXT DW_RQ_HALF DW_STORE_EVEN_ODD_HALF);
    }
#else
    if (q->order == DW_PAIRS8) {
        for (; n > 0; n -= 2, x += 2 * xpix, out += 2 * bc->g.cout) {
            taps_pairs_c(bc, q, x, out);
        }
    }
    for (; n > 0; --n, x += xpix, out += bc->g.cout) {
        if (q->order == DW_QUARTERS) {
            taps_pairs_c(bc, q, x, out);
        } else if (width == 16) {
            taps16_c(bc, q, x, w, kh, kw, out);
        } else {
            taps8_c(bc, q, x, w, kh, kw, out);
        }
    }
#endif
}

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

/* The band of output row oy (image img) from input column x0 on, bw columns wide: channels
 * oc..oc+16*passes-1 (and 8 more where half) of the kh input rows its windows read (dilated
 * rows taken, the rest skipped), a plane a pass (16 channels a column; then the half pass's,
 * 8 a column), the zero point where a column or a row lies outside the input. Where `kept`,
 * the band holds output row oy - 1's (stride and dilation 1 down the rows): its rows move up
 * one and only the last is read in. */
static void band_fill(const dw_ctx *c, const int8_t *img, int32_t oy, int32_t x0, int32_t oc,
                      int32_t passes, int32_t half, int32_t bw, int32_t kept, int8_t *band)
{
    const rt_conv_s8_params *p = c->p;
    const int8x16_t zero = vdupq_n_s8((int8_t)(-p->input_offset));
    const mve_pred16_t eight = rt_mve_tail8(8);
    const int32_t cin = c->g.cin, kh = c->g.kh, plane = kh * bw * 16;
    int32_t i0;
    const int32_t i1 = band_inside(c, x0, bw, &i0);   /* the columns inside: [i0, i1) */
    int32_t ky = 0, i, j;
    if (kept) {
        for (j = 0; j < passes + (half != 0); ++j) {
            const int32_t width = j < passes ? 16 : 8;
            int8_t *d = band + j * plane;
            rt_mve_copy(d, d + bw * width, (kh - 1) * bw * width);   /* forward: safe */
        }
        ky = kh - 1;
    }
    for (; ky < kh; ++ky) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dilation_h;
        const int32_t in = iy >= 0 && iy < c->g.h && i1 > i0;
        const int32_t lo = in ? i0 : bw, hi = in ? i1 : bw;
        const int8_t *src = in ? img + (iy * c->g.w + x0 + i0) * cin + oc : img;
        for (j = 0; j < passes + (half != 0); ++j, src += 16) {
            const int32_t width = j < passes ? 16 : 8;
            int8_t *d = band + j * plane + ky * bw * width;
            const int8_t *s = src;
            if (width == cin) {   /* one plane, every channel: the input's row as it is */
                rt_mve_fill(d, zero, lo * width);
                rt_mve_copy(d + lo * width, s, (hi - lo) * width);
                rt_mve_fill(d + hi * width, zero, (bw - hi) * width);
            } else if (width == 16) {   /* a column a vector: maps are a few columns wide */
                for (i = 0; i < lo; ++i, d += 16) {
                    vstrbq_s8(d, zero);
                }
                for (; i < hi; ++i, s += cin, d += 16) {
                    vstrbq_s8(d, vldrbq_s8(s));
                }
                for (; i < bw; ++i, d += 16) {
                    vstrbq_s8(d, zero);
                }
            } else {
                for (i = 0; i < lo; ++i, d += 8) {
                    vstrbq_p_s8(d, zero, eight);
                }
                for (; i < hi; ++i, s += cin, d += 8) {
                    vstrbq_p_s8(d, vldrbq_z_s8(s, eight), eight);
                }
                for (; i < bw; ++i, d += 8) {
                    vstrbq_p_s8(d, zero, eight);
                }
            }
        }
    }
}

/* Ring bands: whole output rows at stride and dilation 1 down the rows, of 3x3 passes that
 * all multiply 8-bit (run_quarters, at -O2). Each plane holds its kh band rows as a ring:
 * input row iy goes to slot (iy + pad_h) % kh, so output row oy's window rows are the slots
 * from oy % kh on, round the ring (run_quarters takes the two steps between them). Each
 * output row after the first reads in one input row, a store a column, where a band would
 * move its rows up one first. */
#if defined(__OPTIMIZE__)

/* Input row iy (image img) into slot `slot` of every plane of a ring band (bw columns, the
 * columns [lo, hi) inside the input, the first at input column x0): its columns inside, and
 * where `full` (the ring's first rows) or the row lies outside the input, the rest as the
 * input zero point (later rows find it there). */
static void ring_row(const dw_ctx *c, const int8_t *img, int32_t iy, int32_t slot, int32_t full,
                     int32_t oc, int32_t planes, int32_t bw, int32_t lo, int32_t hi,
                     int32_t x0, int8_t *band)
{
    const int32_t rowb = bw * 16, plane = c->g.kh * rowb, cin = c->g.cin;
    const int8x16_t zero = vdupq_n_s8((int8_t)(-c->p->input_offset));
    int8_t *d = band + slot * rowb;
    int32_t i, j;
    if (iy < 0 || iy >= c->g.h || hi <= lo) {
        for (j = 0; j < planes; ++j, d += plane) {
            rt_mve_fill(d, zero, rowb);
        }
        return;
    }
    img += (iy * c->g.w + x0 + lo) * cin + oc;
    for (j = 0; j < planes; ++j, d += plane, img += 16) {
        const int8_t *src = img;
        int8_t *dst = d + lo * 16;
        if (full) {
            rt_mve_fill(d, zero, lo * 16);
            rt_mve_fill(d + hi * 16, zero, (bw - hi) * 16);
        }
        for (i = lo; i < hi; ++i, src += cin, dst += 16) {
            vstrbq_s8(dst, vldrbq_s8(src));
        }
    }
}

/* Image img's output rows for channels oc..oc+16*passes-1 (q: their passes, every one
 * DW_QUARTERS) through a ring band, outputs from out (the image's channel oc). */
static void ringed(const dw_ctx *c, const int8_t *img, int32_t oc, int32_t passes,
                   const dw_pass *q, int8_t *band, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t kh = c->g.kh, ow = c->g.ow, cout = c->g.cout;
    const int32_t bw = (ow - 1) * p->stride_w + (c->g.kw - 1) * p->dilation_w + 1;
    const int32_t rowb = bw * 16, x0 = -p->pad_w;
    int32_t lo;
    const int32_t hi = band_inside(c, x0, bw, &lo);
    dw_ctx bc = *c;
    int32_t oy, ky;
    bc.x_step = p->dilation_w * 16;
    bc.y_step = rowb;
    for (ky = 0; ky < kh; ++ky) {
        ring_row(c, img, ky - p->pad_h, ky, 1, oc, passes, bw, lo, hi, x0, band);
    }
    for (oy = 0; oy < c->g.oh; ++oy, out += ow * cout) {
        const int32_t s0 = oy % kh;   /* the window's first slot; kh is 3 */
        if (oy > 0) {
            ring_row(c, img, oy - p->pad_h + kh - 1, (oy + kh - 1) % kh, 0, oc, passes, bw, lo,
                     hi, x0, band);
        }
        run_quarters(&bc, q, passes, band + s0 * rowb, kh * rowb, s0 == 2 ? -2 * rowb : rowb,
                     s0 == 1 ? -2 * rowb : rowb, ow, p->stride_w * 16, out);
    }
}

/* Gathered taps: a 3x3 layer with a channel multiplier of 1 and a stride of 1 or 2 along its
 * rows. Each output is one channel's nine taps, so one byte gather (VLDRB.U8 at 16 offsets)
 * loads them into a vector and one VMLADAV.S8 against the channel's taps (lanes 9-15 zero)
 * sums them: two instructions for nine MACs, where run_quarters' 8-bit products take about
 * five. Four pixels of one channel make a vector of sums (a group), requantized with the
 * channel's parameters as scalars (VADD, VQRDMULH, VRSHL by a register) and scattered: 23
 * instructions for four outputs. Where the activation range is all of int8, the narrowing's
 * saturation clamps, and two groups narrow into one vector stored by one scatter: 41 for
 * eight, 37 where the range starts at the output offset (the sign fix left out:
 * rt_mve_sheds_fix). About 20 more a channel and run of groups. The band holds one plane of
 * 16 channels (fewer in the last), a pixel at a time, so that a window's taps and the next
 * pixel's lie within the gather's byte offsets (255; a channel's taps from a base of its own):
 * - down the columns (stride 1 down; gathered_cols): the six input rows of four output
 *   rows, 16 bytes apart, a column 96 bytes (a window's taps within 224 of its first, the
 *   pixel below 16 on), as many columns as the band holds; a group is one column's four
 *   pixels, the run the band's columns. VWW's maps at stride 1.
 * - along lines (gathered_lines): a ring of three input lines (slot il mod 3 holding line
 *   il), a pixel 48 bytes (the taps within 128, the next pixel at stride 2 within 224); a
 *   group is four pixels along the line, the run the line. The lines are the rows where
 *   they are wide enough (VWW's 24- and 12-pixel layers at stride 2), or the columns of a
 *   tall and narrow map (KWS's 25x5: runs of 24 pixels rather than columns of four rows,
 *   the last row along the rows).
 * Four pixels are two offset vectors (pixels 0 and 1) from two bases (pixels 0 and 2). A last
 * group of fewer than four rows or pixels is the last four again (the same bits stored
 * twice), in the same call where the groups go in pairs. At -O2 only, like the rings; taps
 * of -128 and left shifts are fine (32-bit sums; a channel's shift picks its output
 * stage). */

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

/* Whether gathered taps can take the layer at all: a 3x3 filter at a multiplier of 1, no
 * dilation, a stride of 1 or 2 along its rows. */
static int32_t gather_fits(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    return c->mult == 1 && c->g.kh == 3 && c->g.kw == 3 && p->dilation_h == 1 &&
           p->dilation_w == 1 && (p->stride_w == 1 || p->stride_w == 2);
}

/* Which way gathered taps take the layer (DW_G_LINES, DW_G_COLS, DW_G_ROWS; 0: not at all),
 * as measured on the zoo's layers against run_quarters (M55, instructions an output):
 * - along the columns of tall and narrow maps (16 rows or more, 7 columns or fewer) where the
 *   activation range is all of int8: KWS's 25x5x64 8.0, against 8.7 down its columns and
 *   10.0 in run_quarters; at stride 1 on four or five columns a whole plane at a time
 *   (plane_takes, gathered_plane): 6.7;
 * - down the columns at stride 1 down, on maps of four rows or more where the activation
 *   range is all of int8 (pairs of groups): VWW's 48x48x8 6.6, 24x24x32 6.0, 12x12x64 6.6
 *   and 6x6x128 10.6 against 10.3, 9.2, 9.8 and 11.0 (the 6x6 maps now go to
 *   gathered_plane's 2x2 blocks: 8.1). With a clamp (a group at a time)
 *   only on eight rows or more and planes of 16 channels: the last four rows again cost a
 *   6x6 map 11.6, and 8 channels fill their band dearly.
 * - else along the rows where they cost less than run_quarters' 9 or so an output: 23 a
 *   group of four and 25 a row, against 8 an output (rows of 12, 15, 16 and 18 on; VWW's
 *   24x24x16 and 12x12x32 at stride 2, 7.7 and 9.5 against 11.4 and 12.5). */
#define DW_G_COLS 1
#define DW_G_ROWS 2
#define DW_G_LINES 3   /* along the columns */
static int32_t gather_takes(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t ow = c->g.ow, oh = c->g.oh, bw = (ow - 1) * p->stride_w + 3;
    const int32_t full = rt_mve_full_range(p);
    if (!gather_fits(c)) {
        return 0;
    }
    if (full && oh >= 16 && ow <= 7 && (p->stride_h == 1 || p->stride_h == 2) &&
        ((oh - 1) * p->stride_h + 3) * 48 <= RT_MVE_DW_BAND_BYTES) {
        return DW_G_LINES;
    }
    if (p->stride_h == 1 && ow >= 3 && (full ? oh >= 4 : oh >= 8 && c->g.cin >= 16) &&
        3 * 96 <= RT_MVE_DW_BAND_BYTES) {
        return DW_G_COLS;
    }
    return ow >= 4 && 23 * ((ow + 3) >> 2) + 25 < 8 * ow && bw * 48 <= RT_MVE_DW_BAND_BYTES
               ? DW_G_ROWS
               : 0;
}

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

static void gather_chans(const dw_ctx *c, int32_t oc, int32_t cw, dw_gchan *ch)
{
    if (cw == 16) {   /* a whole plane: no predicates */
        gather_chans_of(c, oc, 16, ch);
    } else {
        gather_chans_of(c, oc, cw, ch);
    }
}

/* Where a group's VMOVs put pixels 0..3 (rt_mve_moved), their outputs d apart. */
static uint32x4_t gather_offsets(int32_t d)
{
    return rt_mve_moved(0u, (uint32_t)d, 2u * (uint32_t)d, 3u * (uint32_t)d);
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
 * point already). Inlined into its callers (gathered_rows, gathered_columns), so that the
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

/* Whole planes, where the activation range is all of int8 and the stride 1 (or, in 2x2
 * blocks, 2): a plane's whole padded input in one band, so that one assembly call takes every
 * line of a channel (gathered_plane; the ring's lines cost KWS a call and a band fill a line
 * and plane):
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
#define DW_P_ROW 64
#define DW_P_ROW2 104
#define DW_P_BYTES 4096   /* two halves of up to 32 rows (maps of up to 30) */
#define DW_P_COLUMNS 1
#define DW_P_BLOCKS 2
#define DW_P_BLOCKS2 3

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

/* plane_run's modes, RIGHT the right shifts' output stage */
#define DW_P_MODES(RIGHT) \
    if (mode == DW_P_BLOCKS && k->odd) { \
        DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "128"), DW_P_ODD(RIGHT, "128"), "", "", "128", \
                 "64"); \
    } else if (mode == DW_P_BLOCKS) { \
        DW_P_RUN(RIGHT, "", "", "", "", "128", "64"); \
    } else if (mode == DW_P_BLOCKS2 && k->odd) {   /* four rows of 104 bytes a group */ \
        DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "416"), DW_P_ODD(RIGHT, "416"), "", "", "416", \
                 "208"); \
    } else if (mode == DW_P_BLOCKS2) { \
        DW_P_RUN(RIGHT, "", "", "", "", "416", "208"); \
    } else if (k->odd) { \
        DW_P_RUN(RIGHT, DW_P_ODD(DW_G_LEFT, "256"), DW_P_ODD(RIGHT, "256"), \
                 DW_P_ROWS(DW_G_LEFT, "14", "15", "16"), DW_P_ROWS(RIGHT, "24", "25", "26"), \
                 "256", "128"); \
    } else { \
        DW_P_RUN(RIGHT, "", "", DW_P_ROWS(DW_G_LEFT, "14", "15", "16"), \
                 DW_P_ROWS(RIGHT, "24", "25", "26"), "256", "128"); \
    }

/* The channels ch..k->chend-1 of one half (the first's window at b0, the next channel's one
 * byte on; outputs likewise from out, a pair of groups' ostep on from the last): each
 * channel's taps into q2, its output stage into registers, its lines (and, DW_P_COLUMNS, its
 * rows) by its shift's output stage. The band's steps are constants of the assembly: a
 * column's group four rows down (DW_P_COLUMNS) or a block's two (DW_P_BLOCKS). */
typedef char dw_p_steps[DW_P_ROW == 64 && DW_P_ROW2 == 104 ? 1 : -1];
static RT_DSP_NOINLINE void plane_run(const dw_plan *k, const dw_gchan *ch, const int8_t *b0,
                                      int32_t off, int32_t ostep, int8_t *out, int32_t mode)
{
    int32_t a0, a1, fold, mult, shift, ln;
    const int8_t *b1;
    if (rt_mve_sheds_fix(off, -128)) {   /* (the range is all of int8: plane_takes) */
        DW_P_MODES(DW_G_RIGHT_BARE)
    } else {
        DW_P_MODES(DW_G_RIGHT)
    }
    (void)a0;
    (void)a1;
    (void)fold;
    (void)mult;
    (void)shift;
    (void)b1;
    (void)ln;
}

/* How gathered_plane takes the layer (DW_P_COLUMNS, DW_P_BLOCKS, DW_P_BLOCKS2; 0: not at
 * all): gathered taps (gather_fits) at the same stride down as along (1, or 2 in blocks), the
 * activation range all of int8, the padded plane within the band and the outputs' offsets
 * within 16 bits. */
static int32_t plane_takes(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t oh = c->g.oh, ow = c->g.ow, s = p->stride_h;
    const int32_t blocks = (ow == 2 || ow == 4 || ow == 6) && (oh & 1) == 0;
    if (!gather_fits(c) || p->stride_w != s || !rt_mve_full_range(p) ||
        7 * ow * c->g.cout > 65535) {
        return 0;
    }
    if (s == 2) {
        return blocks && 2 * (2 * oh + 1) * DW_P_ROW2 <= DW_P_BYTES ? DW_P_BLOCKS2 : 0;
    }
    if (2 * (oh + 2) * DW_P_ROW > DW_P_BYTES) {
        return 0;
    }
    if ((ow == 4 || ow == 5) && oh >= 8) {
        return DW_P_COLUMNS;
    }
    return blocks ? DW_P_BLOCKS : 0;
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

/* The layer (plane_takes' mode), plane after plane: the band's padding filled once, then each
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
        k.odd = groups & 1;
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
        k.odd = groups & 1;
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
            plane_run(&k, ch, band, p->output_offset, ostep, on + oc, mode);
            if (cw > 8) {
                k.chend = ch + cw;
                plane_run(&k, ch + 8, band + half, p->output_offset, ostep, on + oc + 8, mode);
            }
        }
    }
}
#endif

/* How many output pixels of a row one band of cb channels holds (at most ow; 0: not one). */
static int32_t band_pixels(const dw_ctx *c, int32_t span, int32_t cb)
{
    const int32_t cols = RT_MVE_DW_BAND_BYTES / (c->g.kh * cb);
    const int32_t m = cols < span ? 0 : (cols - span) / c->p->stride_w + 1;
    return m < c->g.ow ? m : c->g.ow;
}

/* A channel multiplier of 1: channels 0..oc-1 (oc returned, a multiple of 8; 0 where not even
 * one pixel's band of 8 channels fits), a band of up to DW_PASSES 16-channel passes (an
 * 8-channel half pass last) at a time: whole output rows where the band of 16 channels holds
 * one, else runs of as many pixels as it holds. Each run's band is filled once, then run once
 * per pass. */
static RT_DSP_NOINLINE int32_t banded(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cout = c->g.cout, ow = c->g.ow, chans = cout & ~7;
    const int32_t span = (c->g.kw - 1) * p->dilation_w + 1;
    const int32_t pairs = c->g.kh == 3 && c->g.kw == 3 && p->dilation_w == 1;
    const int32_t down1 = p->stride_h == 1 && p->dilation_h == 1;   /* bands overlap */
    int8_t band[RT_MVE_DW_BAND_BYTES];
    dw_pass q[DW_PASSES + 1];
    dw_ctx bc = *c;
    int32_t oc, cb, m, passes, quarters, ring, j, n, oy, ox;
    for (oc = 0; oc < chans; oc += cb) {
        /* a plane of 16 channels (of 8 where only 8 are left or 16 do not fit), two to
           four planes where whole rows of them fit */
        cb = chans - oc < 16 || band_pixels(c, span, 16) == 0 ? 8 : 16;
        m = band_pixels(c, span, cb);
        if (m == 0) {
            return oc;
        }
        while (m == ow && cb < 16 * DW_PASSES && cb + 16 <= chans - oc &&
               band_pixels(c, span, cb + 16) == ow) {
            cb += 16;
        }
        if (m == ow && cb < 16 * DW_PASSES && cb == chans - oc - 8 &&
            band_pixels(c, span, cb + 8) == ow) {
            cb += 8;   /* the last 8 with the rest: a half pass */
        }
        passes = cb >> 4;
        for (j = 0; j < passes; ++j) {
            pass_make(c, oc + 16 * j, pairs ? DW_QUARTERS : DW_EVEN_ODD, 16, &q[j]);
        }
        /* -O2: the leading 16-channel passes that multiply 8-bit, in one call a run */
        quarters = 0;
#if defined(__OPTIMIZE__)
        while (quarters < passes && q[quarters].order == DW_QUARTERS) {
            ++quarters;
        }
#endif
        if (cb & 8) {   /* and the odd last pixel's, where pixels go in pairs (their
                           narrowed outputs stored at byte offsets up to cout + 7) */
            pass_make(c, oc + 16 * passes,
                      pairs && p->stride_w == 1 && cout <= 248 ? DW_PAIRS8 : DW_EVEN_ODD, 8,
                      &q[passes]);
            pass_make(c, oc + 16 * passes, DW_EVEN_ODD, 8, &q[passes + 1]);
        }
        ring = m == ow && down1 && quarters == passes && !(cb & 8);
        for (n = 0; n < c->g.n; ++n) {
            const int8_t *img = in + n * c->g.h * c->row;
            if (ring) {   /* (-O2 only: -O0 runs no quarters) */
#if defined(__OPTIMIZE__)
                ringed(c, img, oc, passes, q, band, out + n * c->g.oh * ow * cout + oc);
#endif
                continue;
            }
            for (oy = 0; oy < c->g.oh; ++oy) {
                for (ox = 0; ox < ow; ox += m) {
                    const int32_t k = ow - ox < m ? ow - ox : m;
                    const int32_t bw = (k - 1) * p->stride_w + span;
                    int8_t *o = out + ((n * c->g.oh + oy) * ow + ox) * cout + oc;
                    int8_t *plane = band + quarters * c->g.kh * bw * 16;
                    band_fill(c, img, oy, ox * p->stride_w - p->pad_w, oc, passes, cb & 8, bw,
                              oy > 0 && k == ow && down1, band);
#if defined(__OPTIMIZE__)
                    if (quarters > 0) {
                        bc.x_step = p->dilation_w * 16;
                        bc.y_step = bw * 16;
                        run_quarters(&bc, q, quarters, band, c->g.kh * bw * 16, bw * 16,
                                     bw * 16, k, p->stride_w * 16, o);
                    }
#endif
                    for (j = quarters; j < passes + ((cb & 8) != 0); ++j) {
                        const int32_t width = j < passes ? 16 : 8, xpix = p->stride_w * width;
                        const int32_t two = q[j].order == DW_PAIRS8 ? k & ~1 : k;
                        bc.x_step = p->dilation_w * width;
                        bc.y_step = bw * width;
                        if (two > 0) {
                            run(&bc, &q[j], width, plane, c->w + oc + 16 * j, two, xpix,
                                o + 16 * j);
                        }
                        if (two < k) {
                            run(&bc, &q[j + 1], width, plane + two * xpix, c->w + oc + 16 * j,
                                k - two, xpix, o + two * cout + 16 * j);
                        }
                        plane += c->g.kh * bw * width;
                    }
                }
            }
        }
    }
    return chans;
}

/* Channels oc..oc+16*passes-1 of every output pixel, 16 at a time (taps16_c, taps16), the
 * window worked out once per pixel. */
static void passes16(const dw_ctx *c, const int8_t *in, int32_t oc, int32_t passes,
                     int8_t *out)
{
    const int32_t shared = c->mult != 1;
    dw_pass q[DW_PASSES];
    int32_t n, oy, ox, j;
    for (j = 0; j < passes; ++j) {
        pass_make(c, oc + 16 * j, shared ? DW_NATURAL : DW_EVEN_ODD, 16, &q[j]);
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                const int8_t *vw;
                int32_t rows, cols;
                rt_s8_window_at(&c->g, c->p, img, oy, ox, &v);
                vw = c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc;
                rows = v.ky1 - v.ky0;
                cols = v.kx1 - v.kx0;
                for (j = 0; j < passes; ++j) {
                    const int32_t o = oc + 16 * j;
                    if (shared) {
                        taps16(c, &q[j], v.x + o / c->mult, vw + 16 * j, rows, cols, out + o);
                    } else {
                        taps16_c(c, &q[j], v.x + o, vw + 16 * j, rows, cols, out + o);
                    }
                }
            }
        }
    }
}

/* Channels oc..oc+7 of every output pixel (taps8_c with a multiplier of 1, else taps8). */
static RT_DSP_NOINLINE void pass8(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const int32_t shared = c->mult != 1;
    dw_pass q;
    int32_t n, oy, ox;
    if (!shared) {
        pass_make(c, oc, DW_EVEN_ODD, 8, &q);
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                const int8_t *vw;
                rt_s8_window_at(&c->g, c->p, img, oy, ox, &v);
                vw = c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc;
                if (shared) {
                    taps8(c, v.x + oc / c->mult, vw, v.ky1 - v.ky0, v.kx1 - v.kx0, 1, oc, out);
                } else {
                    taps8_c(c, &q, v.x + oc, vw, v.ky1 - v.ky0, v.kx1 - v.kx0, out + oc);
                }
            }
        }
    }
}

/* Channel oc of every output pixel, one at a time. */
static RT_DSP_NOINLINE void one_channel(const dw_ctx *c, const int8_t *in, int32_t oc, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    int32_t n, oy, ox;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * c->row;
        for (oy = 0; oy < c->g.oh; ++oy) {
            for (ox = 0; ox < c->g.ow; ++ox, out += c->g.cout) {
                rt_s8_window v;
                int32_t acc;
                rt_s8_window_at(&c->g, p, img, oy, ox, &v);
                acc = rt_s8_dw_sum(v.x + oc / c->mult,
                                   c->w + (v.ky0 * c->g.kw + v.kx0) * c->g.cout + oc,
                                   v.ky1 - v.ky0, v.kx1 - v.kx0, c->x_step, c->y_step,
                                   c->g.cout, c->g.kw * c->g.cout, p->input_offset);
                out[oc] = rt_dsp_out((c->bias != NULL ? c->bias[oc] : 0) + acc, p->mult[oc],
                                     p->shift[oc], p->output_offset, p->act_min, p->act_max);
            }
        }
    }
}

/* One input channel (a first layer, say) with 16 to DW_MAT_TAPS taps: a convolution on one
 * channel, so the gathered matrix product of conv_mve.c takes it. Its filters are transposed
 * a block of up to 64 at a time (each channel's taps one row) onto the stack, so that KWS's
 * 64 filters are one block and its patches are gathered once; the taps are padded with zeros
 * to a multiple of 16 (KWS's 40 to 48) for the 4x2 tiles of conv_mve.c. An image of up to
 * DW_PAD_BYTES with its padding (KWS's 49x10 stem input) is first copied padded with the
 * zero point, so that every patch is a straight copy of its rows (most of KWS's windows
 * reach past the input: gathered one by one, they cost more than the products). */
#define DW_MAT_TAPS 64
#define DW_MAT_BYTES 3072
#define DW_PAD_BYTES 768

/* Image img (one channel) into dst, ph rows of pw, from row -pad_h and column -pad_w on:
 * the zero point outside the input. */
static void pad_image(const dw_ctx *c, const int8_t *img, int32_t ph, int32_t pw, int8_t *dst)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t left = p->pad_w < pw ? p->pad_w : pw;
    const int32_t inside = c->g.w < pw - left ? c->g.w : pw - left;
    const int32_t r1 = c->g.h + p->pad_h < ph ? c->g.h + p->pad_h : ph;
    int32_t r;
    rt_mve_fill(dst, vdupq_n_s8((int8_t)(-p->input_offset)), ph * pw);   /* the padding */
    for (r = p->pad_h; r < r1 && inside > 0; ++r) {   /* then the rows inside */
        rt_mve_copy(dst + r * pw + left, img + (r - p->pad_h) * c->g.w, inside);
    }
}

static void one_input(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t k = c->g.kh * c->g.kw, cout = c->g.cout, kp = rt_mve_padded_taps(k);
    const int32_t fit = DW_MAT_BYTES / kp & ~1, block = fit < 64 ? fit : 64;
    const int32_t ph = (c->g.oh - 1) * p->stride_h + (c->g.kh - 1) * p->dilation_h + 1;
    const int32_t pw = (c->g.ow - 1) * p->stride_w + (c->g.kw - 1) * p->dilation_w + 1;
    int8_t wt[DW_MAT_BYTES], patch[8 * DW_MAT_TAPS], padded[DW_PAD_BYTES];
    rt_mve_pair q[32];
    rt_conv_s8_geom g = c->g;
    rt_conv_s8_params pp = *p;
    const uint16x8_t rows = vmulq_n_u16(vidupq_n_u16(0u, 1), (uint16_t)kp);
    int32_t oc, j, t, n;
    g.n = 1;
    g.h = ph;
    g.w = pw;
    pp.pad_h = pp.pad_w = 0;
    for (oc = 0; oc < cout; oc += block) {
        const int32_t count = cout - oc < block ? cout - oc : block;
        for (t = 0; t < kp; ++t) {   /* tap t of eight filters a vector, scattered kp apart */
            for (j = 0; j + 8 <= count; j += 8) {   /* whole eights: no predicate */
                const int16x8_t v = t < k ? vldrbq_s16(c->w + t * cout + oc + j)
                                          : vdupq_n_s16(0);
                vstrbq_scatter_offset_s16(wt + j * kp + t, rows, v);
            }
            if (j < count) {
                const mve_pred16_t lanes = vctp16q((uint32_t)(count - j));
                const int16x8_t v = t < k ? vldrbq_z_s16(c->w + t * cout + oc + j, lanes)
                                          : vdupq_n_s16(0);
                vstrbq_scatter_offset_p_s16(wt + j * kp + t, rows, v, lanes);
            }
        }
        if (ph * pw > DW_PAD_BYTES) {
            rt_mve_gathered(&c->g, p, in, wt, kp, c->bias, oc, count, patch,
                            (int32_t)sizeof patch, NULL, 0, q, out);
            continue;
        }
        for (n = 0; n < c->g.n; ++n) {
            pad_image(c, in + n * c->g.h * c->g.w, ph, pw, padded);
            rt_mve_gathered(&g, &pp, padded, wt, kp, c->bias, oc, count, patch,
                            (int32_t)sizeof patch, NULL, 0, q,
                            out + n * c->g.oh * c->g.ow * cout);
        }
    }
}

rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p,
                                 const rt_shape *in_s, const int8_t *in,
                                 const rt_shape *w_s, const int8_t *w,
                                 const rt_shape *b_s, const int32_t *bias,
                                 const rt_shape *out_s, int8_t *out)
{
    dw_ctx c;
    int32_t oc = 0;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.mult = c.g.cin > 0 ? c.g.cout / c.g.cin : 1;
    c.row = c.g.w * c.g.cin;
    c.x_step = p->dilation_w * c.g.cin;
    c.y_step = p->dilation_h * c.row;
    if (c.g.cin == 1 && c.g.kh * c.g.kw >= 16 && c.g.kh * c.g.kw <= DW_MAT_TAPS) {
        one_input(&c, in, out);
        return RT_OK;
    }
#if defined(__OPTIMIZE__)
    const int32_t plane = plane_takes(&c);
    if (plane != 0) {
        gathered_plane(&c, in, out, plane);
        return RT_OK;
    }
    switch (gather_takes(&c)) {
    case DW_G_COLS:
        gathered_cols(&c, in, out);
        return RT_OK;
    case DW_G_ROWS:
        gathered_rows(&c, in, out);
        return RT_OK;
    case DW_G_LINES:
        gathered_columns(&c, in, out);
        return RT_OK;
    default:
        break;
    }
#endif
    if (c.mult == 1) {
        oc = banded(&c, in, out);
    }
    if (c.mult == 1 || c.mult % 16 == 0) {
        while (oc + 16 <= c.g.cout) {
            const int32_t left = (c.g.cout - oc) / 16;
            const int32_t passes = left < DW_PASSES ? left : DW_PASSES;
            passes16(&c, in, oc, passes, out);
            oc += 16 * passes;
        }
    }
    if (c.mult == 1 || c.mult % 8 == 0) {
        for (; oc + 8 <= c.g.cout; oc += 8) {
            pass8(&c, in, oc, out);
        }
    }
    for (; oc < c.g.cout; ++oc) {
        one_channel(&c, in, oc, out);
    }
    return RT_OK;
}
