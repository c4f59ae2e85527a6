/* conv_mve_4x2.h (Cortex-M Helium) - conv_mve.c's 4x2 tiles in assembly (-O2): four pixels
 * by a filter pair, for rows of 8 to 256 taps (rt_mve_quads_take) where no filter shifts
 * left; down the rows a filter pair at a time (rt_mve_quads_down) where the output stage
 * saturates. */
#ifndef RT_CONV_MVE_4X2_H
#define RT_CONV_MVE_4X2_H

#include "conv_mve_tiles.h"

#if defined(__OPTIMIZE__)
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
/* (the clamping output stage the block's shifts need, where none shifts left and the stage does
 * not saturate: RT_MVE_Q_FIX_RIGHT where every filter shifts right, else RT_MVE_Q_FIX_MASK,
 * then RT_MVE_Q_CLAMP; rt_mve_quads' cases) */

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

#define RT_MVE_U_DOWN \
    (RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN8) | RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN16) | \
     RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN32) | RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN64) | \
     RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN128))
#if RT_MVE_HAS(RT_MVE_U_DOWN)
/* nq > 0 quads of rows of k = 8, 16, 32, 64 or 128 taps from x (contiguous; for 64 and 128,
 * x and w word-aligned; outputs cout apart from out) by `pairs` filter pairs from w, the stage
 * rt_mve_saturates'. Returns 0, having run nothing, where k's loop is left out of the build
 * (mve_variants.h), else 1. */
static RT_DSP_NOINLINE int32_t rt_mve_quads_down(const int8_t *x, int32_t nq, const int8_t *w,
                                                     int32_t k, int32_t cout, int32_t pairs,
                                                     const rt_mve_pair *q, const rt_mve_out *o,
                                                     int8_t *out)
{
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN8))
    int8_t halves[RT_MVE_BLOCK_PAIRS * 64];
#endif
    const int8_t *x0, *w0 = w, *wend = w + 2 * k * pairs, *xend = x + 4 * k * nq;
    const int32_t ostep = 4 * cout, oback = nq * ostep - 2, off = vgetq_lane_s16(o->off16, 0);
    int32_t a00, a01, a10, a11, a20, a21, a30, a31;
    if (0) {
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN16))
    } else if (k == 16) {
        RT_MVE_DOWN(RT_MVE_D_MAC16, "32");
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN32))
    } else if (k == 32) {
        RT_MVE_DOWN(RT_MVE_D_MAC32, "64");
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN64))
    } else if (k == 64) {
        RT_MVE_DOWN(RT_MVE_D_MAC64, "128");
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN128))
    } else if (k == 128) {
        RT_MVE_DOWN(RT_MVE_D_MAC128, "256");
#endif
    } else if (k != 8 || !RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN8))) {
        return 0;   /* a loop this build left out (mve_variants.h): nothing run */
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_DOWN8))
    } else {
        const mve_pred16_t lo = 0x00FFu, hi = 0xFF00u;
        /* [0|w]: lanes 8-15 gather taps 0-7 (the low lanes' offsets wrap, but are off) */
        const uint8x16_t up = vsubq_n_u8(vidupq_n_u8(0u, 1), 8u);
        int32_t j;
        for (j = 0; j < 2 * pairs; ++j, w += 8) {
            vstrbq_s8(halves + 32 * j, vldrbq_z_s8(w, lo));
            vstrbq_s8(halves + 32 * j + 16, vldrbq_gather_offset_z_s8(w, up, hi));
        }
        w0 = halves;
        wend = halves + 64 * pairs;
        RT_MVE_DOWN(RT_MVE_D_MAC8, "64");
#endif
    }
    (void)x0;
    RT_MVE_Q_SUMS_UNUSED;
    return 1;
}
#endif

/* rows of 32 taps 18 bytes apart (VWW's stem: column-major patches, rt_mve_cols_gathered, at
 * stride 2 over columns of nine bytes, read where they lie) */
#define RT_MVE_Q_MAC32_AT18 \
    RT_MVE_Q_FIRST("vldrb.8", "64", "-32", "18") \
    RT_MVE_Q_NEXT("vldrb.8", "-48", "-16", "16", "34")

/* nq > 0 quads of rows of k taps (rt_mve_quads_take) from x (row i at x + pitch i, its outputs
 * cout apart from out) by `pairs` filter pairs from w, no filter shifting left (shifts:
 * rt_mve_pairs_make's). The pitch is k, or (k = 32, where the stage saturates) 18. Returns 0,
 * having run nothing, where its loop (rt_mve_quads_variant's) is left out of the build
 * (mve_variants.h), else 1. */
static RT_DSP_NOINLINE int32_t rt_mve_quads(const int8_t *x, int32_t nq, const int8_t *w,
                                            int32_t k, int32_t pitch, int32_t cout,
                                            int32_t pairs, int32_t shifts, const rt_mve_pair *q,
                                            const rt_mve_out *o, int8_t *out)
{
    const int8_t *x0 = x, *x2 = x + 2 * pitch, *w0 = w, *wend = w + 2 * k * pairs;
    const int32_t xstep = 4 * pitch, ostep = 4 * cout - 2 * pairs;
    const rt_mve_pair *qbeg = q;
    const int32_t sat = rt_mve_saturates(shifts, o);
    const int32_t aligned = (((uintptr_t)x | (uintptr_t)w) & 3u) == 0u;
    int32_t a00, a01, a10, a11, a20, a21, a30, a31;
    int32_t v = rt_mve_quads_variant(k, pitch, sat, aligned, shifts);
    /* (opaque to gcc: at -O1, a build of one loop alone had gcc take k and the pointers as
       the tests that chose it left them, which left its assembly too few registers) */
    __asm__("" : "+r"(v));
    /* each loop compiled where the build asks for it (mve_variants.h) */
    switch (v) {
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_AT18))
    case RT_MVE_Q_V_AT18:   /* (the stage saturates: rt_mve_cols_gathered's direct) */
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC32_AT18);
        break;
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_256))
    case RT_MVE_Q_V_256:   /* (rt_mve_quads_take: the stage saturates) */
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC256);
        break;
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_SAT48))
    case RT_MVE_Q_V_SAT48:
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC48);
        break;
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_SAT64))
    case RT_MVE_Q_V_SAT64:
        RT_MVE_QUADS_SATURATED(RT_MVE_Q_MAC64);
        break;
#endif
#if RT_MVE_HAS(RT_MVE_U_DOWN)
    case RT_MVE_Q_V_DOWN8:
    case RT_MVE_Q_V_DOWN16:
    case RT_MVE_Q_V_DOWN32:
    case RT_MVE_Q_V_DOWN64:
    case RT_MVE_Q_V_DOWN128:   /* (down checks each k's loop is compiled) */
        if (!rt_mve_quads_down(x, nq, w, k, cout, pairs, q, o, out)) {
            return 0;
        }
        break;
#endif
#define RT_MVE_Q_CASE(V, PRE, MAC) \
    case V: \
        RT_MVE_QUADS(PRE, MAC, RT_MVE_Q_FIX_MASK, RT_MVE_Q_CLAMP); \
        break;
#define RT_MVE_Q_CASE_RIGHT(V, PRE, MAC) \
    case V + 1: \
        RT_MVE_QUADS(PRE, MAC, RT_MVE_Q_FIX_RIGHT, RT_MVE_Q_CLAMP); \
        break;
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP128))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP128, "", RT_MVE_Q_MAC128)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP128 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP128, "", RT_MVE_Q_MAC128)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP64))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP64, "", RT_MVE_Q_MAC64)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP64 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP64, "", RT_MVE_Q_MAC64)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP48))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP48, "", RT_MVE_Q_MAC48)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP48 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP48, "", RT_MVE_Q_MAC48)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP32))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP32, "", RT_MVE_Q_MAC32)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP32 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP32, "", RT_MVE_Q_MAC32)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP16))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP16, "", RT_MVE_Q_MAC16)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP16 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP16, "", RT_MVE_Q_MAC16)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP8))
    RT_MVE_Q_CASE(RT_MVE_Q_V_CLAMP8, RT_MVE_Q_PRED8, RT_MVE_Q_TURN8)
#endif
#if RT_MVE_HAS(RT_MVE_U_QUAD(RT_MVE_Q_V_CLAMP8 + 1))
    RT_MVE_Q_CASE_RIGHT(RT_MVE_Q_V_CLAMP8, RT_MVE_Q_PRED8, RT_MVE_Q_TURN8)
#endif
#undef RT_MVE_Q_CASE
#undef RT_MVE_Q_CASE_RIGHT
    default:   /* a loop this build left out (mve_variants.h): nothing run */
        return 0;
    }
    (void)x0;   /* (used by the loops alone, as are these) */
    (void)x2;
    (void)w0;
    (void)wend;
    (void)xstep;
    (void)ostep;
    (void)qbeg;
    (void)nq;
    (void)out;
    RT_MVE_Q_SUMS_UNUSED;
    return 1;
}
#endif

#endif
