/* conv_mve_tiles.h (Cortex-M Helium) - what conv_mve.c's matrix product shares with its
 * assembly tiles (conv_mve_2x2.h, conv_mve_4x2.h): which rows the 4x2 tiles take, and how a
 * tile's sums move into a vector. Private to this folder. */
#ifndef RT_CONV_MVE_TILES_H
#define RT_CONV_MVE_TILES_H

#include "conv_mve.h"

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

/* Whether rows of k taps from x by a block of `count` filters from w (shifts: its flags; o the
 * layer's output stage; cout the outputs' pitch) take the 4x2 tiles, four rows or more of
 * them: no filter shifts left, whole pairs, and the narrowed store's 16-bit offsets reach
 * 3 cout + 1. */
static inline int32_t rt_mve_quads_fit(int32_t k, const int8_t *x, const int8_t *w,
                                       int32_t cout, int32_t count, int32_t shifts,
                                       const rt_mve_out *o)
{
    return rt_mve_quads_take(k, x, w, rt_mve_saturates(shifts, o)) && !(count & 1) &&
           !(shifts & RT_MVE_ANY_LEFT) && cout <= 21844;
}

/* Which loop rt_mve_quads runs for rows of k taps `pitch` apart (k, or 18 where the stage
 * saturates: rt_mve_cols_gathered's direct), the stage saturating (rt_mve_saturates) or not,
 * rows and filters word-aligned or not, the block's shifts (rt_mve_pairs_make's flags): an
 * RT_MVE_Q_V_* number (mve_variants.h; aot/codegen/mve_variants.py mirrors it). */
static inline int32_t rt_mve_quads_variant(int32_t k, int32_t pitch, int32_t sat,
                                           int32_t aligned, int32_t shifts)
{
    static const int8_t down[9] = {-1, RT_MVE_Q_V_DOWN16, RT_MVE_Q_V_DOWN32, -1,
                                   RT_MVE_Q_V_DOWN64, -1, -1, -1, RT_MVE_Q_V_DOWN128};
    if (pitch != k) {
        return RT_MVE_Q_V_AT18;
    }
    if (k == 256) {
        return RT_MVE_Q_V_256;
    }
    if (sat && k == 48) {
        return RT_MVE_Q_V_SAT48;
    }
    if (sat && k == 64 && !aligned) {
        return RT_MVE_Q_V_SAT64;
    }
    if (sat) {   /* 8, 16, 32 taps; 64 and 128 word-aligned (rt_mve_quads_take: 128) */
        return k == 8 ? RT_MVE_Q_V_DOWN8 : down[k >> 4];
    }
    return (k == 128 ? RT_MVE_Q_V_CLAMP128 : k == 64 ? RT_MVE_Q_V_CLAMP64 :
            k == 48 ? RT_MVE_Q_V_CLAMP48 : k == 32 ? RT_MVE_Q_V_CLAMP32 :
            k == 16 ? RT_MVE_Q_V_CLAMP16 : RT_MVE_Q_V_CLAMP8) +
           ((shifts & RT_MVE_ALL_RIGHT) != 0);
}

/* Two pixels' sums by a filter pair (aX0 aX1, aY0 aY1) into vector Q, two lanes a VMOV, pixel
 * Y's first: the lanes rt_mve_out_make's `moved` and `offs16` follow. */
#define RT_MVE_MOVE_SUMS(Q, X, Y) \
    "vmov " Q "[2], " Q "[0], %[a" Y "0], %[a" X "0]\n\t" \
    "vmov " Q "[3], " Q "[1], %[a" Y "1], %[a" X "1]\n\t"


#endif
