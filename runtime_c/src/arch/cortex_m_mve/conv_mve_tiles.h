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

/* Two pixels' sums by a filter pair (aX0 aX1, aY0 aY1) into vector Q, two lanes a VMOV, pixel
 * Y's first: the lanes rt_mve_out_make's `moved` and `offs16` follow. */
#define RT_MVE_MOVE_SUMS(Q, X, Y) \
    "vmov " Q "[2], " Q "[0], %[a" Y "0], %[a" X "0]\n\t" \
    "vmov " Q "[3], " Q "[1], %[a" Y "1], %[a" X "1]\n\t"


#endif
