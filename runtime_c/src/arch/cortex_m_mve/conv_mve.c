/* conv_mve.c (Cortex-M Helium) - the matrix product of conv_mve.h, under the Helium
 * convolutions (conv_s8.c, conv_1x1_s8.c and, for a layer on one input channel,
 * depthwise_conv_s8.c): rows of k int8 taps (a pointwise layer's input pixels, or gathered
 * patches) times every filter of a block, requantized and stored.
 *
 * Everything a filter pair needs besides its taps is made once per block (rt_mve_pairs_make):
 * the bias plus the input offset times the filter's sum (the sums four filters a loop), and
 * the requantization, as vectors laid out like a tile's four sums. Then, at -O2, one assembly
 * call takes every group of rows across all the block's filter pairs:
 * - 4x2 tiles (rt_mve_quads) for rows of 8, 16, 32, 48, 64 or 128 taps where no filter shifts
 *   left (256 where the output stage saturates: rt_mve_saturates): four pixels by a filter
 *   pair, the sums in the eight even registers, every load at a fixed offset (the first also
 *   stepping the filters on to the next pair), 14 instructions per 128 MACs, and the pair's
 *   output stage loaded once for two vectors of four sums, which narrow into one vector of
 *   16-bit lanes stored by one scatter; rows of 8 to 128 taps whose stage saturates take
 *   the loops the other way round (rt_mve_quads_down: a pair's quads down the rows, its stage
 *   in registers). Short first-layer filters are padded to such lengths.
 * - 2x2 tiles (rt_mve_tiles_asm) for the rest and the last rows: two pixels by two filters,
 *   four VMLADAVAs per sixteen taps: the first sixteen taps (or 32, leaving an even count),
 *   then two turns of sixteen a low-overhead loop (WLS/LE), a predicated turn for a tail;
 *   128 taps written out at fixed offsets.
 * A tile's sums are moved into a vector two lanes a VMOV (QEMU and LLVM's assembler differ on
 * which lane takes the first register, so the outputs' offsets are moved by the same
 * instructions: rt_mve_out_make), requantized there (the sign fix without its mask where
 * every filter shifts right, none where the clamp makes it change nothing: rt_mve_sheds_fix)
 * and scattered. A lone last row goes by four filters at a time (rt_mve_row_1x4) where the
 * block is whole fours, else round again with the one before it; a lone last filter, and -O0,
 * take the same steps in C. Integer sums in another order are the same sums, and the
 * requantization is rt_mve_requant's: bit-exact with the portable kernels.
 *
 * A first layer's patches (rt_mve_gathered) are one byte gather a vector where a patch lies
 * within 255 bytes (KWS's 10x4 stem, ResNet-8's 3x3x3), column-major where its rows lie
 * further apart (VWW's 3x3x3 over rows of 288 bytes: each output row's three input rows
 * scattered into columns of nine bytes once, then its patches read by the 4x2 tiles where they
 * lie, 18 bytes apart, or, elsewhere, each two vector copies, where one took three predicated
 * row copies), else copied run by run. */
#include "conv_mve.h"

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

/* Whether a block's 4x2 tiles may take the saturating output stage without the sign fix: no
 * filter shifts left (shifts: rt_mve_pairs_make's flags), the activation range is all of int8
 * and starts at the output offset (rt_mve_sheds_fix: a zero point of -128). */
static inline int32_t rt_mve_saturates(int32_t shifts, const rt_mve_out *o)
{
    return !(shifts & RT_MVE_ANY_LEFT) && o->full && o->relu;
}

/* Whether rt_mve_quads takes rows of k taps from x by filters from w (128 and 256 taps: both
 * word-aligned; 256 only where the output stage saturates: `rq`, VWW's last pointwise layer as
 * trained models quantize it). */
static inline int32_t rt_mve_quads_take(int32_t k, const int8_t *x, const int8_t *w, int32_t rq)
{
    return k == 8 || k == 16 || k == 32 || k == 48 || k == 64 ||
           ((k == 128 || (k == 256 && rq)) && (((uintptr_t)x | (uintptr_t)w) & 3u) == 0u);
}

#if defined(__OPTIMIZE__)
/* The assembly loop's pieces. Operands: the sums a00 a01 a10 a11 (even registers, "Te"),
 * pointers x0 x1 w0 w1, prm (the pair's parameters), out, kf (the taps in whole vectors);
 * lr counts turns; q0-q3 are scratch, offs/off/lo/hi the layer's output vectors. */
#define RT_MVE_FIRST_TURN \
    "vldrb.8 q0, [%[x0]], #16\n\t" \
    "vldrb.8 q1, [%[w0]], #16\n\t" \
    "vldrb.8 q2, [%[w1]], #16\n\t" \
    "vmladav.s8 %[a00], q0, q1\n\t" \
    "vldrb.8 q3, [%[x1]], #16\n\t" \
    "vmladav.s8 %[a01], q0, q2\n\t" \
    "vmladav.s8 %[a10], q3, q1\n\t" \
    "vmladav.s8 %[a11], q3, q2\n\t"
/* sixteen more taps into the sums */
#define RT_MVE_TURN \
    "vldrb.8 q0, [%[x0]], #16\n\t" \
    "vldrb.8 q1, [%[w0]], #16\n\t" \
    "vldrb.8 q2, [%[w1]], #16\n\t" \
    "vmlava.s8 %[a00], q0, q1\n\t" \
    "vldrb.8 q3, [%[x1]], #16\n\t" \
    "vmlava.s8 %[a01], q0, q2\n\t" \
    "vmlava.s8 %[a10], q3, q1\n\t" \
    "vmlava.s8 %[a11], q3, q2\n\t"
/* k = 128 (MobileNets' 128 channels; no loop): every load at a fixed offset, X bytes past
 * x0, x1, w0 and w1 (an offset reaches 127 bytes), so that only the filters move on */
#define RT_MVE_AT128_TURN(OP, X) \
    "vldrb.8 q0, [%[x0], #" X "]\n\t" \
    "vldrb.8 q1, [%[w0], #" X "]\n\t" \
    "vldrb.8 q2, [%[w1], #" X "]\n\t" \
    OP " %[a00], q0, q1\n\t" \
    "vldrb.8 q3, [%[x1], #" X "]\n\t" \
    OP " %[a01], q0, q2\n\t" \
    OP " %[a10], q3, q1\n\t" \
    OP " %[a11], q3, q2\n\t"
#define RT_MVE_AT128 \
    RT_MVE_AT128_TURN("vmladav.s8", "0") RT_MVE_AT128_TURN("vmlava.s8", "16") \
    RT_MVE_AT128_TURN("vmlava.s8", "32") RT_MVE_AT128_TURN("vmlava.s8", "48") \
    RT_MVE_AT128_TURN("vmlava.s8", "64") RT_MVE_AT128_TURN("vmlava.s8", "80") \
    RT_MVE_AT128_TURN("vmlava.s8", "96") RT_MVE_AT128_TURN("vmlava.s8", "112")
#define RT_MVE_NEXT_AT128 \
    "add %[w0], %[w0], #256\n\t" \
    "add %[w1], %[w1], #256\n\t"
/* the whole vectors after the first one or two: `turns` loops of two (WLS/LE) */
#define RT_MVE_TURNS \
    "ldr lr, %[turns]\n\t" \
    "wls lr, lr, 2f\n\t" \
    "1:\n\t" \
    RT_MVE_TURN \
    RT_MVE_TURN \
    "le lr, 1b\n\t" \
    "2:\n\t"
/* the tail: the lanes past k load as zero (the predicate set once, before the loop) */
#define RT_MVE_TAIL_TURN \
    "vpstttt\n\t" \
    "vldrbt.8 q0, [%[x0]]\n\t" \
    "vldrbt.8 q1, [%[w0]]\n\t" \
    "vldrbt.8 q2, [%[w1]]\n\t" \
    "vldrbt.8 q3, [%[x1]]\n\t" \
    "vmlava.s8 %[a00], q0, q1\n\t" \
    "vmlava.s8 %[a01], q0, q2\n\t" \
    "vmlava.s8 %[a10], q3, q1\n\t" \
    "vmlava.s8 %[a11], q3, q2\n\t"
/* fewer than 16 taps: the one, predicated, turn sets the sums */
#define RT_MVE_TAIL_ONLY \
    "vpstttt\n\t" \
    "vldrbt.8 q0, [%[x0]]\n\t" \
    "vldrbt.8 q1, [%[w0]]\n\t" \
    "vldrbt.8 q2, [%[w1]]\n\t" \
    "vldrbt.8 q3, [%[x1]]\n\t" \
    "vmladav.s8 %[a00], q0, q1\n\t" \
    "vmladav.s8 %[a01], q0, q2\n\t" \
    "vmladav.s8 %[a10], q3, q1\n\t" \
    "vmladav.s8 %[a11], q3, q2\n\t"
/* Two pixels' sums by a filter pair (aX0 aX1, aY0 aY1) into vector Q, two lanes a VMOV, pixel
 * Y's first: the lanes rt_mve_out_make's `moved` and `offs16` follow. */
#define RT_MVE_MOVE_SUMS(Q, X, Y) \
    "vmov " Q "[2], " Q "[0], %[a" Y "0], %[a" X "0]\n\t" \
    "vmov " Q "[3], " Q "[1], %[a" Y "1], %[a" X "1]\n\t"
/* a 2x2 tile's sums into q0, plus the folds */
#define RT_MVE_SUMS_IN \
    RT_MVE_MOVE_SUMS("q0", "0", "1") \
    "vldrw.32 q1, [%[prm]], #16\n\t" \
    "vadd.i32 q0, q0, q1\n\t"
#define RT_MVE_LEFT \
    "vldrw.32 q1, [%[prm], #32]\n\t" \
    "vshl.s32 q0, q0, q1\n\t"
/* the multiplier (h in q0), then the right shift's vector in q1 */
#define RT_MVE_MULTIPLY \
    "vldrw.32 q1, [%[prm]], #16\n\t" \
    "vqrdmulh.s32 q0, q0, q1\n\t" \
    "vldrw.32 q1, [%[prm]], #32\n\t"
/* h less one where negative (q2: the fix), shifted right rounding, offset, clamped, stored;
 * on to the next filter pair's outputs and the pixels' first taps */
#define RT_MVE_ROUND_STORE \
    "vqadd.s32 q0, q0, q2\n\t" \
    "vrshl.s32 q0, q0, q1\n\t" \
    "vadd.i32 q0, q0, %q[off]\n\t" \
    "vmax.s32 q0, q0, %q[lo]\n\t" \
    "vmin.s32 q0, q0, %q[hi]\n\t" \
    "vstrb.32 q0, [%[out], %q[offs]]\n\t" \
    "add %[out], %[out], #2\n\t"
/* the sign fix only in lanes that shift right */
#define RT_MVE_REQUANT_STORE \
    RT_MVE_MULTIPLY \
    "vand q2, q0, q1\n\t" \
    "vshr.s32 q2, q2, #31\n\t" \
    RT_MVE_ROUND_STORE
/* where every lane shifts right: the sign fix is h >> 31 */
#define RT_MVE_REQUANT_STORE_RIGHT \
    RT_MVE_MULTIPLY \
    "vshr.s32 q2, q0, #31\n\t" \
    RT_MVE_ROUND_STORE
/* the pixels back to their first taps (the whole vectors' loads moved them on by kf) */
#define RT_MVE_X_BACK \
    "sub %[x0], %[x0], %[kf]\n\t" \
    "sub %[x1], %[x1], %[kf]\n\t"
/* whole vectors: the next pair starts where the second filter ended */
#define RT_MVE_NEXT_WHOLE \
    RT_MVE_X_BACK \
    "mov %[w0], %[w1]\n\t" \
    "add %[w1], %[w1], %[kf]\n\t"
/* fewer than 16 taps (the pixels never moved): both filters move on by adj = 2k - kf */
#define RT_MVE_NEXT_SHORT \
    "ldr lr, %[adj]\n\t" \
    "add %[w0], %[w0], lr\n\t" \
    "add %[w1], %[w1], lr\n\t"
/* whole vectors and a tail */
#define RT_MVE_NEXT_TAIL RT_MVE_X_BACK RT_MVE_NEXT_SHORT
#define RT_MVE_LOOP_END \
    "cmp %[w0], %[wend]\n\t" \
    "bne 3b"
/* the tail's predicate, once: rem = k - kf = (adj - kf) / 2 lanes */
#define RT_MVE_TAIL_PREDICATE \
    "ldr lr, %[adj]\n\t" \
    "sub lr, lr, %[kf]\n\t" \
    "lsr lr, lr, #1\n\t" \
    "vctp.8 lr\n\t"
/* the next pixel pair (npx pairs in all): x0 and x1 on by xstep, out by ostep, the block's
 * first filter pair and parameters again */
#define RT_MVE_PIXELS_END \
    "\n\t" \
    "ldr lr, %[xstep]\n\t" \
    "add %[x0], %[x0], lr\n\t" \
    "add %[x1], %[x1], lr\n\t" \
    "ldr lr, %[ostep]\n\t" \
    "add %[out], %[out], lr\n\t" \
    "ldr %[prm], %[qbeg]\n\t" \
    "ldr %[w0], %[wbeg]\n\t" \
    "ldr lr, %[adj]\n\t" \
    "add lr, lr, %[kf]\n\t" \
    "add %[w1], %[w0], lr, lsr #1\n\t" \
    "ldr lr, %[npx]\n\t" \
    "subs lr, lr, #1\n\t" \
    "str lr, %[npx]\n\t" \
    "bne 4b"
#define RT_MVE_OPERANDS \
    : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), \
      [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1), [prm] "+r"(q), \
      [out] "+r"(out), [npx] "+m"(npx) \
    : [kf] "r"(kf), [turns] "m"(turns), [adj] "m"(adj), [wend] "r"(wend), \
      [xstep] "m"(xstep), [ostep] "m"(ostep), [qbeg] "m"(qbeg), [wbeg] "m"(w), \
      [offs] "w"(o->moved), [off] "w"(o->off), [lo] "w"(o->lo), [hi] "w"(o->hi) \
    : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"

/* One shape of the tile loop: PRE once, then per tile MAC, the sums in, REQ, NEXT. */
#define RT_MVE_TILES(PRE, MAC, REQ, NEXT) \
    __asm__ volatile(PRE "4:\n\t3:\n\t" MAC RT_MVE_SUMS_IN REQ NEXT RT_MVE_LOOP_END \
                     RT_MVE_PIXELS_END RT_MVE_OPERANDS)
/* ... with the output stage the block's shifts need */
#define RT_MVE_TILES_BY_SHIFTS(PRE, MAC, NEXT) \
    if (shifts & RT_MVE_ANY_LEFT) { \
        RT_MVE_TILES(PRE, MAC, RT_MVE_LEFT RT_MVE_REQUANT_STORE, NEXT); \
    } else if (shifts & RT_MVE_ALL_RIGHT) { \
        RT_MVE_TILES(PRE, MAC, RT_MVE_REQUANT_STORE_RIGHT, NEXT); \
    } else { \
        RT_MVE_TILES(PRE, MAC, RT_MVE_REQUANT_STORE, NEXT); \
    }

/* npx pixel pairs, the first x0 and x1, each xstep bytes on from the last and its outputs
 * ostep bytes on, by `pairs` whole filter pairs from w (k > 0 taps), in assembly: the first
 * one or two whole vectors straight, the rest in loops of two (an even count left), then
 * the predicated tail. shifts: rt_mve_pairs_make's flags. */
static RT_DSP_NOINLINE void rt_mve_tiles_asm(const int8_t *x0, const int8_t *x1, int32_t npx,
                                             int32_t xstep, int32_t ostep, const int8_t *w,
                                             int32_t k, int32_t pairs, int32_t shifts,
                                             const rt_mve_pair *q, const rt_mve_out *o,
                                             int8_t *out)
{
    const int32_t kf = k & ~15, rem = k & 15, odd = (kf >> 4) & 1;
    const int32_t turns = ((kf >> 4) - 1) >> 1, adj = 2 * k - kf;
    const int8_t *w0 = w, *w1 = w + k, *wend = w + 2 * k * pairs;
    const rt_mve_pair *qbeg = q;
    int32_t a00, a01, a10, a11;
    if (kf == 0) {
        RT_MVE_TILES_BY_SHIFTS(RT_MVE_TAIL_PREDICATE, RT_MVE_TAIL_ONLY, RT_MVE_NEXT_SHORT)
    } else if (k == 128 && !(shifts & RT_MVE_ANY_LEFT)) {
        if (shifts & RT_MVE_ALL_RIGHT) {
            RT_MVE_TILES("", RT_MVE_AT128, RT_MVE_REQUANT_STORE_RIGHT, RT_MVE_NEXT_AT128);
        } else {
            RT_MVE_TILES("", RT_MVE_AT128, RT_MVE_REQUANT_STORE, RT_MVE_NEXT_AT128);
        }
    } else if (rem == 0 && odd) {
        RT_MVE_TILES_BY_SHIFTS("", RT_MVE_FIRST_TURN RT_MVE_TURNS, RT_MVE_NEXT_WHOLE)
    } else if (rem == 0) {
        RT_MVE_TILES_BY_SHIFTS("", RT_MVE_FIRST_TURN RT_MVE_TURN RT_MVE_TURNS,
                               RT_MVE_NEXT_WHOLE)
    } else if (odd) {
        RT_MVE_TILES_BY_SHIFTS(RT_MVE_TAIL_PREDICATE,
                               RT_MVE_FIRST_TURN RT_MVE_TURNS RT_MVE_TAIL_TURN,
                               RT_MVE_NEXT_TAIL)
    } else {
        RT_MVE_TILES_BY_SHIFTS(RT_MVE_TAIL_PREDICATE,
                               RT_MVE_FIRST_TURN RT_MVE_TURN RT_MVE_TURNS RT_MVE_TAIL_TURN,
                               RT_MVE_NEXT_TAIL)
    }
    (void)a00;
    (void)a01;
    (void)a10;
    (void)a11;
}

/* 4x2 tiles for rows of k = 8 to 256 taps (rt_mve_quads_take: MobileNets' channels, KWS's
 * padded stem): four pixels (x0 and x0 + k, x2 and x2 + k) by a filter pair (w0 and w0 + k), every
 * load at a fixed offset: 14 instructions per 128 MACs, against 16 for two 2x2 tiles, and
 * the pair's output stage loaded once for two vectors of four sums (pixels 0 and 1; 2 and
 * 3). Sums in the eight even registers, so the pointers and the loop end take the rest. The
 * two requantized vectors are narrowed with saturation into one of 16-bit lanes, which takes
 * the output offset and the activation range there (as a 16-channel depthwise pass does) and
 * one scattered store of its eight bytes (rt_mve_out's offs16: offsets to 3 cout + 1, so
 * layers of up to 21,844 channels). A turn is sixteen taps at X, the second pixel's and
 * filter's at X1 = X + k. */
#define RT_MVE_Q_TURN_LD(LD, OP, WA, WB, X, X1) \
    LD " q0, " WA "\n\t" \
    LD " q1, " WB "\n\t" \
    LD " q2, [%[x0], #" X "]\n\t" \
    LD " q3, [%[x0], #" X1 "]\n\t" \
    OP " %[a00], q2, q0\n\t" \
    OP " %[a01], q2, q1\n\t" \
    OP " %[a10], q3, q0\n\t" \
    OP " %[a11], q3, q1\n\t" \
    LD " q2, [%[x2], #" X "]\n\t" \
    LD " q3, [%[x2], #" X1 "]\n\t" \
    OP " %[a20], q2, q0\n\t" \
    OP " %[a21], q2, q1\n\t" \
    OP " %[a30], q3, q0\n\t" \
    OP " %[a31], q3, q1\n\t"
/* The filter pair's taps: the first turn's first load steps w0 on to the next pair (K2 = 2k
 * bytes), so the loads after it reach back (WX = X - K2, WX1 = X1 - K2). */
#define RT_MVE_Q_W(W) "[%[w0], #" W "]"
#define RT_MVE_Q_FIRST(LD, K2, WX1, X1) \
    RT_MVE_Q_TURN_LD(LD, "vmladav.s8", "[%[w0]], #" K2, RT_MVE_Q_W(WX1), "0", X1)
#define RT_MVE_Q_NEXT(LD, WX, WX1, X, X1) \
    RT_MVE_Q_TURN_LD(LD, "vmlava.s8", RT_MVE_Q_W(WX), RT_MVE_Q_W(WX1), X, X1)
/* rows of 16, 32, 48 or 64 taps: their turns, the first one setting the sums */
#define RT_MVE_Q_MAC16 RT_MVE_Q_FIRST("vldrb.8", "32", "-16", "16")
#define RT_MVE_Q_MAC32 \
    RT_MVE_Q_FIRST("vldrb.8", "64", "-32", "32") \
    RT_MVE_Q_NEXT("vldrb.8", "-48", "-16", "16", "48")
#define RT_MVE_Q_MAC48 \
    RT_MVE_Q_FIRST("vldrb.8", "96", "-48", "48") \
    RT_MVE_Q_NEXT("vldrb.8", "-80", "-32", "16", "64") \
    RT_MVE_Q_NEXT("vldrb.8", "-64", "-16", "32", "80")
#define RT_MVE_Q_MAC64 /* (VLDRB steps at most 127 bytes: the two filters' loads step 64) */ \
    RT_MVE_Q_TURN_LD("vldrb.8", "vmladav.s8", "[%[w0]], #64", "[%[w0]], #64", "0", "64") \
    RT_MVE_Q_NEXT("vldrb.8", "-112", "-48", "16", "80") \
    RT_MVE_Q_NEXT("vldrb.8", "-96", "-32", "32", "96") \
    RT_MVE_Q_NEXT("vldrb.8", "-80", "-16", "48", "112")
/* k = 128 (MobileNets' 128 channels): the second pixel's and filter's taps lie 128 to 255
 * bytes on, past VLDRB's 127-byte offsets, so the turns load with VLDRW, whose offsets reach
 * 508 bytes and whose addresses must be word-aligned: rt_mve_quads_take checks the rows and
 * filters are (the arena and the weights are aligned to 16) */
#define RT_MVE_Q_MAC128 \
    RT_MVE_Q_FIRST("vldrw.32", "256", "-128", "128") \
    RT_MVE_Q_NEXT("vldrw.32", "-240", "-112", "16", "144") \
    RT_MVE_Q_NEXT("vldrw.32", "-224", "-96", "32", "160") \
    RT_MVE_Q_NEXT("vldrw.32", "-208", "-80", "48", "176") \
    RT_MVE_Q_NEXT("vldrw.32", "-192", "-64", "64", "192") \
    RT_MVE_Q_NEXT("vldrw.32", "-176", "-48", "80", "208") \
    RT_MVE_Q_NEXT("vldrw.32", "-160", "-32", "96", "224") \
    RT_MVE_Q_NEXT("vldrw.32", "-144", "-16", "112", "240")
/* k = 256 (VWW's last pointwise layer): VLDRW at offsets up to 496, the filters moved on to
 * the next pair by an ADD (512 bytes, past a VLDRW's step) */
#define RT_MVE_Q_AT256(OP, X, X1) \
    RT_MVE_Q_TURN_LD("vldrw.32", OP, RT_MVE_Q_W(X), RT_MVE_Q_W(X1), X, X1)
#define RT_MVE_Q_MAC256 \
    RT_MVE_Q_AT256("vmladav.s8", "0", "256") RT_MVE_Q_AT256("vmlava.s8", "16", "272") \
    RT_MVE_Q_AT256("vmlava.s8", "32", "288") RT_MVE_Q_AT256("vmlava.s8", "48", "304") \
    RT_MVE_Q_AT256("vmlava.s8", "64", "320") RT_MVE_Q_AT256("vmlava.s8", "80", "336") \
    RT_MVE_Q_AT256("vmlava.s8", "96", "352") RT_MVE_Q_AT256("vmlava.s8", "112", "368") \
    RT_MVE_Q_AT256("vmlava.s8", "128", "384") RT_MVE_Q_AT256("vmlava.s8", "144", "400") \
    RT_MVE_Q_AT256("vmlava.s8", "160", "416") RT_MVE_Q_AT256("vmlava.s8", "176", "432") \
    RT_MVE_Q_AT256("vmlava.s8", "192", "448") RT_MVE_Q_AT256("vmlava.s8", "208", "464") \
    RT_MVE_Q_AT256("vmlava.s8", "224", "480") RT_MVE_Q_AT256("vmlava.s8", "240", "496") \
    "add %[w0], %[w0], #512\n\t"
/* the sign fix of both vectors: FIX(A, T) adds A's lanes' (made in T; q2: the shifts), or,
 * where the clamp makes it change nothing (rt_mve_sheds_fix), is left out */
#define RT_MVE_Q_FIX_MASK(A, T) \
    "vand " T ", " A ", q2\n\tvshr.s32 " T ", " T ", #31\n\tvqadd.s32 " A ", " A ", " T "\n\t"
#define RT_MVE_Q_FIX_RIGHT(A, T) "vshr.s32 " T ", " A ", #31\n\tvqadd.s32 " A ", " A ", " T "\n\t"
#define RT_MVE_Q_FIX_NONE(A, T) ""
/* k = 8: one predicated turn (the predicate set once, before the loop) */
#define RT_MVE_Q_PRED8 \
    "movs %[a00], #8\n\t" \
    "vctp.8 %[a00]\n\t"
#define RT_MVE_Q_TURN8 \
    "vpstttt\n\t" \
    "vldrbt.8 q0, [%[w0]], #16\n\t" \
    "vldrbt.8 q1, [%[w0], #-8]\n\t" \
    "vldrbt.8 q2, [%[x0]]\n\t" \
    "vldrbt.8 q3, [%[x0], #8]\n\t" \
    "vmladav.s8 %[a00], q2, q0\n\t" \
    "vmladav.s8 %[a01], q2, q1\n\t" \
    "vmladav.s8 %[a10], q3, q0\n\t" \
    "vmladav.s8 %[a11], q3, q1\n\t" \
    "vpstt\n\t" \
    "vldrbt.8 q2, [%[x2]]\n\t" \
    "vldrbt.8 q3, [%[x2], #8]\n\t" \
    "vmladav.s8 %[a20], q2, q0\n\t" \
    "vmladav.s8 %[a21], q2, q1\n\t" \
    "vmladav.s8 %[a30], q3, q0\n\t" \
    "vmladav.s8 %[a31], q3, q1\n\t"
/* the 16-bit outputs clamped to the activation range, or (where it is all of int8) narrowed
 * to bytes with saturation (the clamp; the scatter stores each lane's low byte) */
#define RT_MVE_Q_CLAMP "vmax.s16 q0, q0, %q[lo]\n\tvmin.s16 q0, q0, %q[hi]\n\t"
#define RT_MVE_Q_SATURATE "vqmovnb.s16 q0, q0\n\t"
/* A tile's output stage: its eight sums moved into two vectors, requantized (FIX the sign
 * fix), narrowed, offset and clamped (CLAMP), scattered; out on to the next pair's. */
#define RT_MVE_Q_OUT(FIX, CLAMP) \
        RT_MVE_MOVE_SUMS("q0", "0", "1") \
        RT_MVE_MOVE_SUMS("q1", "2", "3") \
        "vldrw.32 q2, [%[prm]], #16\n\t" \
        "vadd.i32 q0, q0, q2\n\t" \
        "vadd.i32 q1, q1, q2\n\t" \
        "vldrw.32 q2, [%[prm]], #16\n\t" \
        "vqrdmulh.s32 q0, q0, q2\n\t" \
        "vqrdmulh.s32 q1, q1, q2\n\t" \
        "vldrw.32 q2, [%[prm]], #32\n\t" \
        FIX("q0", "q3") \
        FIX("q1", "q3") \
        "vrshl.s32 q0, q0, q2\n\t" \
        "vrshl.s32 q1, q1, q2\n\t" \
        "vqmovnb.s32 q0, q0\n\t" \
        "vqmovnt.s32 q0, q1\n\t" \
        "vqadd.s16 q0, q0, %q[off]\n\t" \
        CLAMP \
        "vstrb.16 q0, [%[out], %q[offs]]\n\t" \
        "add %[out], %[out], #2\n\t"
/* the next pair (3: its loop) */
#define RT_MVE_Q_NEXT_PAIR \
        "cmp %[w0], %[wend]\n\t" \
        "bne 3b\n\t"
/* the next quad (4: its loop, nq of them): the outputs on by ostep, the block's first pair
 * again */
#define RT_MVE_Q_NEXT_QUAD \
        "ldr %[a00], %[ostep]\n\t" \
        "add %[out], %[out], %[a00]\n\t" \
        "ldr %[prm], %[qbeg]\n\t" \
        "ldr %[w0], %[wbeg]\n\t" \
        "ldr %[a00], %[nq]\n\t" \
        "subs %[a00], %[a00], #1\n\t" \
        "str %[a00], %[nq]\n\t" \
        "bne 4b"
/* the tiles' sums, outputs of the assembly the C never reads */
#define RT_MVE_Q_SUMS_UNUSED \
    (void)a00; \
    (void)a01; \
    (void)a10; \
    (void)a11; \
    (void)a20; \
    (void)a21; \
    (void)a30; \
    (void)a31
/* the quads' loop: PRE once, then MAC the taps (w0 stepping to the next pair), FIX the sign
 * fix, CLAMP the outputs; x0 and x2 on by xstep a quad */
#define RT_MVE_QUADS(PRE, MAC, FIX, CLAMP) \
    __asm__ volatile( \
        PRE \
        "4:\n\t3:\n\t" \
        MAC \
        RT_MVE_Q_OUT(FIX, CLAMP) \
        RT_MVE_Q_NEXT_PAIR \
        "ldr %[a00], %[xstep]\n\t" \
        "add %[x0], %[x0], %[a00]\n\t" \
        "add %[x2], %[x2], %[a00]\n\t" \
        RT_MVE_Q_NEXT_QUAD \
        : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), \
          [a20] "=&Te"(a20), [a21] "=&Te"(a21), [a30] "=&Te"(a30), [a31] "=&Te"(a31), \
          [x0] "+r"(x0), [x2] "+r"(x2), [w0] "+r"(w0), [prm] "+r"(q), [out] "+r"(out), \
          [nq] "+m"(nq) \
        : [wend] "r"(wend), [xstep] "m"(xstep), [ostep] "m"(ostep), [qbeg] "m"(qbeg), \
          [wbeg] "m"(w), [offs] "w"(o->offs16), [off] "w"(o->off16), [lo] "w"(o->lo16), \
          [hi] "w"(o->hi16) \
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7")

/* ... with the saturating output stage (rt_mve_saturates: no sign fix) */
#define RT_MVE_QUADS_SATURATED(MAC) RT_MVE_QUADS("", MAC, RT_MVE_Q_FIX_NONE, RT_MVE_Q_SATURATE)
/* ... with the clamping output stage the block's shifts need (none shifts left; where the stage
 * saturates, rt_mve_saturates, the rows go down, rt_mve_quads_down, or take RT_MVE_Q_SATURATE
 * without the sign fix) */
#define RT_MVE_QUADS_CLAMPED(PRE, MAC) \
    if (shifts & RT_MVE_ALL_RIGHT) { \
        RT_MVE_QUADS(PRE, MAC, RT_MVE_Q_FIX_RIGHT, RT_MVE_Q_CLAMP); \
    } else { \
        RT_MVE_QUADS(PRE, MAC, RT_MVE_Q_FIX_MASK, RT_MVE_Q_CLAMP); \
    }

/* Rows of 8, 16, 32, 64 or 128 taps (MobileNets' and KWS's pointwise layers) where the output
 * stage saturates without the sign fix (rt_mve_saturates): the 4x2 tiles with their loops the
 * other way round, a filter pair's quads down the rows, so that the pair's output stage stays
 * in q4 (folds), q5 (multipliers) and q6 (right shifts), loaded once a pair rather than once a
 * tile, and the quads' loop costs three instructions (the pixels step in a load, the outputs
 * by ostep, the test against the end); a quad's loads at fixed offsets from x0 (one or two
 * stepping it) and the pair's from w0. Eight taps: a quad's four rows are two vectors of two
 * pixels, and each filter two vectors, its taps in the low lanes and zeros above, and the
 * other way round ([w|0] takes a vector's first pixel, [0|w] its second), laid out before the
 * loop. */
#define RT_MVE_D_LD(LD, Q, AT) LD " " Q ", " AT "\n\t"
#define RT_MVE_D_MAC(OP, A, B, X) \
    OP " %[" A "], " X ", q0\n\t" \
    OP " %[" B "], " X ", q1\n\t"
/* sixteen taps of two pixels (their sums A0 A1 and B0 B1 by filters q0 and q1) from XA, XB */
#define RT_MVE_D_TWO(LD, OP, XA, XB, A0, A1, B0, B1) \
    RT_MVE_D_LD(LD, "q2", XA) \
    RT_MVE_D_LD(LD, "q3", XB) \
    RT_MVE_D_MAC(OP, A0, A1, "q2") \
    RT_MVE_D_MAC(OP, B0, B1, "q3")
#define RT_MVE_D_W(LD, W0, W1) \
    RT_MVE_D_LD(LD, "q0", "[%[w0], #" W0 "]") \
    RT_MVE_D_LD(LD, "q1", "[%[w0], #" W1 "]")
#define RT_MVE_D_MAC8 \
    RT_MVE_D_LD("vldrb.8", "q2", "[%[x0], #16]") \
    RT_MVE_D_LD("vldrb.8", "q3", "[%[x0]], #32") \
    RT_MVE_D_W("vldrb.8", "0", "16") \
    RT_MVE_D_MAC("vmladav.s8", "a00", "a10", "q3") \
    RT_MVE_D_MAC("vmladav.s8", "a20", "a30", "q2") \
    RT_MVE_D_W("vldrb.8", "32", "48") \
    RT_MVE_D_MAC("vmladav.s8", "a01", "a11", "q3") \
    RT_MVE_D_MAC("vmladav.s8", "a21", "a31", "q2")
#define RT_MVE_D_MAC16 \
    RT_MVE_D_W("vldrb.8", "0", "16") \
    RT_MVE_D_TWO("vldrb.8", "vmladav.s8", "[%[x0], #16]", "[%[x0], #32]", "a10", "a11", "a20", \
                 "a21") \
    RT_MVE_D_TWO("vldrb.8", "vmladav.s8", "[%[x0], #48]", "[%[x0]], #64", "a30", "a31", "a00", \
                 "a01")
/* (x0 steps 128 bytes a quad, past a VLDRB's 127: 80 in the first turn, 48 in the second) */
#define RT_MVE_D_MAC32 \
    RT_MVE_D_W("vldrb.8", "0", "32") \
    RT_MVE_D_TWO("vldrb.8", "vmladav.s8", "[%[x0], #32]", "[%[x0], #64]", "a10", "a11", "a20", \
                 "a21") \
    RT_MVE_D_TWO("vldrb.8", "vmladav.s8", "[%[x0], #96]", "[%[x0]], #80", "a30", "a31", "a00", \
                 "a01") \
    RT_MVE_D_W("vldrb.8", "16", "48") \
    RT_MVE_D_TWO("vldrb.8", "vmlava.s8", "[%[x0], #-64]", "[%[x0], #-32]", "a00", "a01", "a10", \
                 "a11") \
    RT_MVE_D_TWO("vldrb.8", "vmlava.s8", "[%[x0], #32]", "[%[x0]], #48", "a30", "a31", "a20", \
                 "a21")
/* 64 and 128 taps (KWS's and MobileNets' channels): rows and filters word-aligned, every load a
 * VLDRW (offsets to 508 bytes, steps to 508); a turn's sixteen taps W0, W1 of the filters and
 * X0..X3 of the four pixels (sums a0j..a3j). The pixels step in the first turn: pixel 0's load
 * by a quad's 256 bytes (64 taps), or pixels 0's and 2's by 256 each (128 taps), the other
 * loads reaching back. */
#define RT_MVE_D_X(N) "[%[x0], #" N "]"
#define RT_MVE_D_WTURN(OP, W0, W1, X0, X1, X2, X3) \
    RT_MVE_D_W("vldrw.32", W0, W1) \
    RT_MVE_D_TWO("vldrw.32", OP, X0, X1, "a00", "a01", "a10", "a11") \
    RT_MVE_D_TWO("vldrw.32", OP, X2, X3, "a20", "a21", "a30", "a31")
/* a later turn: taps T of the filters, and of the pixels (back from x0, which the first turn
 * stepped by a quad, 4 K bytes) */
#define RT_MVE_D_AT(T, BACK) "[%[x0], #" T " - " BACK "]"
#define RT_MVE_D_LATER(K, T) \
    RT_MVE_D_WTURN("vmlava.s8", T, K " + " T, RT_MVE_D_AT(T, "4 * " K), \
                   RT_MVE_D_AT(T, "3 * " K), RT_MVE_D_AT(T, "2 * " K), RT_MVE_D_AT(T, K))
#define RT_MVE_D_MAC64 \
    RT_MVE_D_WTURN("vmladav.s8", "0", "64", "[%[x0]], #256", RT_MVE_D_X("-192"), \
                   RT_MVE_D_X("-128"), RT_MVE_D_X("-64")) \
    RT_MVE_D_LATER("64", "16") RT_MVE_D_LATER("64", "32") RT_MVE_D_LATER("64", "48")
#define RT_MVE_D_MAC128 \
    RT_MVE_D_WTURN("vmladav.s8", "0", "128", "[%[x0]], #256", RT_MVE_D_X("-128"), \
                   "[%[x0]], #256", RT_MVE_D_X("-128")) \
    RT_MVE_D_LATER("128", "16") RT_MVE_D_LATER("128", "32") RT_MVE_D_LATER("128", "48") \
    RT_MVE_D_LATER("128", "64") RT_MVE_D_LATER("128", "80") RT_MVE_D_LATER("128", "96") \
    RT_MVE_D_LATER("128", "112")
/* the pairs' loop (1), each its output stage into q4-q6, then its quads (2) by MAC, the pair's
 * taps WSTEP bytes */
#define RT_MVE_DOWN(MAC, WSTEP) \
    __asm__ volatile( \
        "1:\n\t" \
        "ldr %[a00], %[prm]\n\t" \
        "vldrw.32 q4, [%[a00]]\n\t" \
        "vldrw.32 q5, [%[a00], #16]\n\t" \
        "vldrw.32 q6, [%[a00], #32]\n\t" \
        "add %[a00], %[a00], #64\n\t" \
        "str %[a00], %[prm]\n\t" \
        "ldr %[x0], %[xbeg]\n\t" \
        "2:\n\t" \
        MAC \
        RT_MVE_MOVE_SUMS("q0", "0", "1") \
        RT_MVE_MOVE_SUMS("q1", "2", "3") \
        "vadd.i32 q0, q0, q4\n\t" \
        "vadd.i32 q1, q1, q4\n\t" \
        "vqrdmulh.s32 q0, q0, q5\n\t" \
        "vqrdmulh.s32 q1, q1, q5\n\t" \
        "vrshl.s32 q0, q0, q6\n\t" \
        "vrshl.s32 q1, q1, q6\n\t" \
        "vqmovnb.s32 q0, q0\n\t" \
        "vqmovnt.s32 q0, q1\n\t" \
        "vqadd.s16 q0, q0, %[off]\n\t" \
        "vqmovnb.s16 q0, q0\n\t" \
        "vstrb.16 q0, [%[out], %q[offs]]\n\t" \
        "add %[out], %[out], %[ostep]\n\t" \
        "cmp %[x0], %[xend]\n\t" \
        "bne 2b\n\t" \
        "ldr %[a00], %[oback]\n\t" \
        "sub %[out], %[out], %[a00]\n\t" \
        "add %[w0], %[w0], #" WSTEP "\n\t" \
        "ldr %[a00], %[wend]\n\t" \
        "cmp %[w0], %[a00]\n\t" \
        "bne 1b" \
        : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), \
          [a20] "=&Te"(a20), [a21] "=&Te"(a21), [a30] "=&Te"(a30), [a31] "=&Te"(a31), \
          [x0] "=&r"(x0), [w0] "+r"(w0), [out] "+r"(out), [prm] "+m"(q) \
        : [xend] "r"(xend), [ostep] "r"(ostep), [off] "r"(off), [xbeg] "m"(x), \
          [oback] "m"(oback), [wend] "m"(wend), [offs] "w"(o->offs16) \
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", \
          "d11", "d12", "d13")

/* nq > 0 quads of rows of k = 8, 16, 32, 64 or 128 taps from x (contiguous; for 64 and 128,
 * x and w word-aligned; outputs cout apart from out) by `pairs` filter pairs from w, the stage
 * rt_mve_saturates' */
static RT_DSP_NOINLINE void rt_mve_quads_down(const int8_t *x, int32_t nq, const int8_t *w,
                                              int32_t k, int32_t cout, int32_t pairs,
                                              const rt_mve_pair *q, const rt_mve_out *o,
                                              int8_t *out)
{
    int8_t halves[RT_MVE_BLOCK_PAIRS * 64];
    const int8_t *x0, *w0 = w, *wend = w + 2 * k * pairs, *xend = x + 4 * k * nq;
    const int32_t ostep = 4 * cout, oback = nq * ostep - 2, off = vgetq_lane_s16(o->off16, 0);
    int32_t a00, a01, a10, a11, a20, a21, a30, a31, j;
    if (k == 16) {
        RT_MVE_DOWN(RT_MVE_D_MAC16, "32");
    } else if (k == 32) {
        RT_MVE_DOWN(RT_MVE_D_MAC32, "64");
    } else if (k == 64) {
        RT_MVE_DOWN(RT_MVE_D_MAC64, "128");
    } else if (k == 128) {
        RT_MVE_DOWN(RT_MVE_D_MAC128, "256");
    } else {
        const mve_pred16_t lo = 0x00FFu, hi = 0xFF00u;
        /* [0|w]: lanes 8-15 gather taps 0-7 (the low lanes' offsets wrap, but are off) */
        const uint8x16_t up = vsubq_n_u8(vidupq_n_u8(0u, 1), 8u);
        for (j = 0; j < 2 * pairs; ++j, w += 8) {
            vstrbq_s8(halves + 32 * j, vldrbq_z_s8(w, lo));
            vstrbq_s8(halves + 32 * j + 16, vldrbq_gather_offset_z_s8(w, up, hi));
        }
        w0 = halves;
        wend = halves + 64 * pairs;
        RT_MVE_DOWN(RT_MVE_D_MAC8, "64");
    }
    (void)x0;
    RT_MVE_Q_SUMS_UNUSED;
}

/* rows of 32 taps 18 bytes apart (VWW's stem: column-major patches, rt_mve_cols_gathered, at
 * stride 2 over columns of nine bytes, read where they lie) */
#define RT_MVE_Q_MAC32_AT18 \
    RT_MVE_Q_FIRST("vldrb.8", "64", "-32", "18") \
    RT_MVE_Q_NEXT("vldrb.8", "-48", "-16", "16", "34")

/* nq > 0 quads of rows of k taps (rt_mve_quads_take) from x (row i at x + pitch i, its outputs
 * cout apart from out) by `pairs` filter pairs from w, no filter shifting left (shifts:
 * rt_mve_pairs_make's). The pitch is k, or (k = 32, where the stage saturates) 18. */
static RT_DSP_NOINLINE void rt_mve_quads(const int8_t *x, int32_t nq, const int8_t *w,
                                         int32_t k, int32_t pitch, int32_t cout, int32_t pairs,
                                         int32_t shifts, const rt_mve_pair *q,
                                         const rt_mve_out *o, int8_t *out)
{
    const int8_t *x0 = x, *x2 = x + 2 * pitch, *w0 = w, *wend = w + 2 * k * pairs;
    const int32_t xstep = 4 * pitch, ostep = 4 * cout - 2 * pairs;
    const rt_mve_pair *qbeg = q;
    const int32_t sat = rt_mve_saturates(shifts, o);
    const int32_t aligned = (((uintptr_t)x | (uintptr_t)w) & 3u) == 0u;
    int32_t a00, a01, a10, a11, a20, a21, a30, a31;
    if (pitch != k) {   /* (the stage saturates: rt_mve_cols_gathered's direct) */
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC32_AT18);
    } else if (k == 256) {   /* (rt_mve_quads_take: the stage saturates) */
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC256);
    } else if (sat && k == 48) {
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC48);
    } else if (sat && k == 64 && !aligned) {
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC64);
    } else if (sat) {   /* 8, 16, 32 taps; 64 and 128 word-aligned (rt_mve_quads_take: 128) */
        rt_mve_quads_down(x, nq, w, k, cout, pairs, q, o, out);
    } else if (k == 128) {
        RT_MVE_QUADS_CLAMPED("", RT_MVE_Q_MAC128)
    } else if (k == 64) {
        RT_MVE_QUADS_CLAMPED("", RT_MVE_Q_MAC64)
    } else if (k == 48) {
        RT_MVE_QUADS_CLAMPED("", RT_MVE_Q_MAC48)
    } else if (k == 32) {
        RT_MVE_QUADS_CLAMPED("", RT_MVE_Q_MAC32)
    } else if (k == 16) {
        RT_MVE_QUADS_CLAMPED("", RT_MVE_Q_MAC16)
    } else {
        RT_MVE_QUADS_CLAMPED(RT_MVE_Q_PRED8, RT_MVE_Q_TURN8)
    }
    RT_MVE_Q_SUMS_UNUSED;
}
#endif

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
static RT_MVE_INLINE void rows(const int8_t *x, int32_t n, const int8_t *w, int32_t k,
                               int32_t cout, int32_t count, int32_t shifts,
                               const rt_mve_pair *q, const rt_mve_out *o, int8_t *out)
{
    int32_t from = 0;
#if defined(__OPTIMIZE__)
    if (rt_mve_quads_take(k, x, w, rt_mve_saturates(shifts, o)) && n >= 4 &&
        !(count & 1) && !(shifts & RT_MVE_ANY_LEFT) &&
        cout <= 21844) {   /* the narrowed store's 16-bit offsets reach 3 cout + 1 */
        /* a lone last row goes with the one before it (the same bits stored again) */
        const int32_t nq = n >> 2, rest = n - 4 * nq;
        rt_mve_quads(x, nq, w, k, k, cout, count >> 1, shifts, q, o, out);
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
}

void rt_mve_rows(const int8_t *x, int32_t n, const int8_t *w, int32_t k, int32_t cout,
                 int32_t count, int32_t shifts, const rt_mve_pair *q, const rt_mve_out *o,
                 int8_t *out)
{
    rows(x, n, w, k, cout, count, shifts, q, o, out);
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
static RT_DSP_NOINLINE void rt_mve_cols_gathered(const rt_conv_s8_geom *g,
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
                rt_mve_quads(cols, ow >> 2, w, k, xstep, cout, count >> 1, shifts, q, o, orow);
                ox = ow & ~3;
            }
#else
            (void)direct;   /* (-O0: every patch copied) */
#endif
            for (; ox < ow; ox += batch) {
                const int32_t m = ow - ox < batch ? ow - ox : batch;
                rt_mve_cols_patches(cols, ox, m, xstep, nv, k, patch);
                rt_mve_rows(patch, m, w, k, cout, count, shifts, q, o, orow + ox * cout);
            }
        }
    }
}

void rt_mve_gathered(const rt_conv_s8_geom *g, const rt_conv_s8_params *p, const int8_t *in,
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
    if (cols != NULL) {
        rt_mve_cols_gathered(g, p, in, w, k, batch, count, shifts, q, &o, patch, cols,
                             cols_room, out + oc);
        return;
    }
    if (k != g->kh * g->kw * g->cin) {
        rt_mve_fill(patch, vdupq_n_s8(0), room);
    }
    for (n = 0; n < g->n; ++n) {
        const int8_t *img = in + n * g->h * g->w * g->cin;
        int8_t *on = out + n * pixels * cout + oc;
        for (i = 0; i < pixels; i += batch) {
            const int32_t m = pixels - i < batch ? pixels - i : batch;
            rt_mve_gather_batch(g, p, img, i / g->ow, i % g->ow, m, k, offs, nv, patch);
            rows(patch, m, w, k, cout, count, shifts, q, &o, on + i * cout);
        }
    }
}
