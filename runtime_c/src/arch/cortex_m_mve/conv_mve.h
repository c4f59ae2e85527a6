/* conv_mve.h - the matrix product under the Helium convolutions (conv_s8.c, conv_1x1_s8.c
 * and, for a layer on one input channel, depthwise_conv_s8.c of this folder), made in
 * conv_mve.c: rows of k int8 taps (a pointwise layer's input pixels, or gathered patches)
 * times every filter of a block, requantized and stored. One copy of its assembly serves
 * all three (each carried its own, 10 KB of code a copy). */
#ifndef RT_CONV_MVE_H
#define RT_CONV_MVE_H

#include "mve_variants.h"
#include "s8_mve.h"
#include "../../int8/conv_s8.h"

/* Filter pairs a block holds (its parameters take 64 bytes a pair, on the stack). */
#define RT_MVE_BLOCK_PAIRS 32

/* One filter pair's output stage, each vector in a tile's lanes (pixel 0: filters oc, o1;
 * pixel 1: filters oc, o1). The assembly loop reads them in this order. */
typedef struct rt_mve_pair {
    int32_t fold[4];    /* bias + input offset * the filter's sum of taps */
    int32_t mult[4];
    int32_t right[4];   /* min(shift, 0) */
    int32_t left[4];    /* max(shift, 0) */
} rt_mve_pair;

/* What every tile of a layer shares: where its four outputs go (out[oc], out[oc + 1],
 * out[cout + oc], out[cout + oc + 1]) as the C steps' lanes hold them (offs) and as the
 * assembly's two-lane VMOVs put them (moved), the output offset and the activation range;
 * for a 4x2 tile's eight outputs narrowed into 16-bit lanes (its two vectors' lanes taking
 * turns, the second's pixels 2 cout on), their offsets, output offset and range in 16 bits;
 * whether the range is all of int8, and whether it starts at the output offset. */
typedef struct rt_mve_out {
    uint32x4_t offs, moved;
    int32x4_t off, lo, hi;
    uint16x8_t offs16;
    int16x8_t off16, lo16, hi16;
    int32_t full;   /* the activation range is all of int8 */
    int32_t relu;   /* the range starts at the output offset (rt_mve_sheds_fix) */
} rt_mve_out;

/* The assembly moves four sums into a vector two at a time: VMOV Q[2], Q[0], Ra, Rb with
 * the third's in Ra and the first's in Rb, then Q[3], Q[1] likewise (the fourth's, the
 * second's). QEMU puts Ra in lane 0, while LLVM's assembler documents lane 2 (the Arm ARM's
 * syntax order). So the sums' output offsets v0..v3 are moved by the same two instructions,
 * and each lane's offset follows its sum whichever lane the CPU picks. */
static inline uint32x4_t rt_mve_moved(uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3)
{
    uint32x4_t v;
    __asm__("vmov %q[v][2], %q[v][0], %[v2], %[v0]\n\t"
            "vmov %q[v][3], %q[v][1], %[v3], %[v1]"
            : [v] "=&w"(v)
            : [v0] "r"(v0), [v1] "r"(v1), [v2] "r"(v2), [v3] "r"(v3));
    return v;
}

/* Two vectors' outputs (offsets a, and a + d for the second) as the 16-bit lanes they narrow
 * into (VQMOVNB, VQMOVNT: the two vectors' lanes taking turns). */
static inline uint16x8_t rt_mve_offs16(uint32x4_t a, uint32_t d)
{
    return vmovntq_u32(vmovnbq_u32(vdupq_n_u16(0), a), vaddq_n_u32(a, d));
}

/* Whether a layer's activation range is all of int8 (then a saturating narrow to bytes is its
 * clamp). */
static inline int32_t rt_mve_full_range(const rt_conv_s8_params *p)
{
    return p->act_min == -128 && p->act_max == 127;
}

static inline rt_mve_out rt_mve_out_make(const rt_conv_s8_params *p, int32_t cout)
{
    const uint32_t offs[4] = {0u, 1u, (uint32_t)cout, (uint32_t)cout + 1u};
    rt_mve_out o;
    o.offs = vldrwq_u32(offs);
    /* a tile's sums: pixel 1's in the moves' Ra (the two lanes of a move always take the same
       filter, so the filter pair's parameters fit either way) */
    o.moved = rt_mve_moved(offs[0], offs[1], offs[2], offs[3]);
    o.offs16 = rt_mve_offs16(o.moved, 2u * (uint32_t)cout);
    o.off16 = vdupq_n_s16((int16_t)p->output_offset);
    o.lo16 = vdupq_n_s16((int16_t)p->act_min);
    o.hi16 = vdupq_n_s16((int16_t)p->act_max);
    o.off = vdupq_n_s32(p->output_offset);
    o.lo = vdupq_n_s32(p->act_min);
    o.hi = vdupq_n_s32(p->act_max);
    o.full = rt_mve_full_range(p);
    o.relu = rt_mve_sheds_fix(p->output_offset, p->act_min);
    return o;
}

/* What rt_mve_pairs_make tells of a block's shifts: some filter shifts left; every filter
 * shifts right (then the rounding's sign fix needs no mask). */
#define RT_MVE_ANY_LEFT 1
#define RT_MVE_ALL_RIGHT 2

/* The parameters of filters oc .. oc + count - 1 in pairs (an odd last filter is a pair
 * of itself), w their taps (k a filter, filter oc first). Returns the RT_MVE_* flags of
 * their shifts. */
int32_t rt_mve_pairs_make(const rt_conv_s8_params *p, const int8_t *w, const int32_t *bias,
                          int32_t k, int32_t oc, int32_t count, rt_mve_pair *q);

/* n rows of k taps from x (row i at x + i k) by a block of `count` filters from w (k taps
 * each; q and shifts from rt_mve_pairs_make, o from rt_mve_out_make), requantized into out
 * (row i's filter 0 at out + i cout; out must not overlap x): 4x2 tiles where they take the
 * rows, then 2x2 ones (at -O2; -O0 runs the same steps in C). RT_ERR_PARAM (before the
 * block's outputs) where the 4x2 tiles' loop it takes is left out of the build
 * (mve_variants.h), else RT_OK. */
rt_status rt_mve_rows(const int8_t *x, int32_t n, const int8_t *w, int32_t k, int32_t cout,
                 int32_t count, int32_t shifts, const rt_mve_pair *q, const rt_mve_out *o,
                 int8_t *out);

/* Filters oc .. oc + count - 1 (w: their rows of k >= KH * KW * Cin taps, any past the
 * filter's own zero; patch room for `room` bytes, at least two rows; q for (count + 1) / 2
 * pairs) over every output pixel of a one-group layer: as many pixels as the patch holds, in
 * raster order, gathered (a row each, k bytes apart), then their matrix product by the block
 * (rt_mve_rows). Rows padded to 32 or 48 taps take the 4x2 tiles; the patch is zeroed
 * first, so that the bytes past each gathered patch are zeros times zeros. Where cols is not
 * NULL (cols_room >= rt_mve_cols_bytes > 0), the patches are column-major instead, and the
 * filters w laid out to match (rt_mve_cols_filters). RT_ERR_PARAM (before the block's outputs)
 * where a variant it takes is left out of the build (mve_variants.h), else RT_OK. */
rt_status rt_mve_gathered(const rt_conv_s8_geom *g, const rt_conv_s8_params *p, const int8_t *in,
                     const int8_t *w, int32_t k, const int32_t *bias, int32_t oc, int32_t count,
                     int8_t *patch, int32_t room, int8_t *cols, int32_t cols_room,
                     rt_mve_pair *q, int8_t *out);

/* Column-major patches, for a first layer whose filter rows lie too far apart in the input for
 * one byte gather (VWW's 3x3x3 over rows of 288 bytes; each patch took three predicated
 * copies): an output row's KH input rows interleaved a column at a time (an input column's
 * KH * Cin bytes together, the zero point outside the input), so that each pixel's patch is
 * one run of KW columns, its taps in (kx, ky, c) order, copied two vectors at a time (or,
 * VWW's rows of 32 taps 18 bytes apart, read where they lie by the 4x2 tiles). The bytes the
 * buffer of columns takes for a layer padded to k taps (0: not such a layer). */
int32_t rt_mve_cols_bytes(const rt_conv_s8_geom *g, const rt_conv_s8_params *p, int32_t k);

/* count filters of KH * KW * Cin taps from w, their taps in (kx, ky, c) order and padded with
 * zeros to kp, into dst. */
void rt_mve_cols_filters(const rt_conv_s8_geom *g, const int8_t *w, int32_t count, int32_t kp,
                         int8_t *dst);

/* n bytes from src to dst: whole vectors, then one predicated. */
static inline void rt_mve_copy(int8_t *dst, const int8_t *src, int32_t n)
{
    for (; n >= 16; n -= 16, dst += 16, src += 16) {
        vstrbq_s8(dst, vldrbq_s8(src));
    }
    if (n > 0) {
        const mve_pred16_t t = rt_mve_tail8(n);
        vstrbq_p_s8(dst, vldrbq_z_s8(src, t), t);
    }
}

/* n bytes of v at dst. */
static inline void rt_mve_fill(int8_t *dst, int8x16_t v, int32_t n)
{
    for (; n >= 16; n -= 16, dst += 16) {
        vstrbq_s8(dst, v);
    }
    if (n > 0) {
        vstrbq_p_s8(dst, v, rt_mve_tail8(n));
    }
}

/* The length to pad rows of k taps to for the tiles' fixed-offset loops (16, 32, 48 or 64),
 * or k where it is one already or longer. */
static inline int32_t rt_mve_padded_taps(int32_t k)
{
    const int32_t kp = (k + 15) & ~15;
    return kp <= 64 ? kp : k;
}

#endif /* RT_CONV_MVE_H */
