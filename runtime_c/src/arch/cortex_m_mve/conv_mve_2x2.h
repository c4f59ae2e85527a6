/* conv_mve_2x2.h (Cortex-M Helium) - conv_mve.c's 2x2 tiles in assembly (-O2): two pixels by
 * two filters, four VMLADAVAs per sixteen taps, one call over every pixel pair and filter pair
 * of a block. Chosen for the rows the 4x2 tiles do not take (rt_mve_quads_take) and their last
 * rows. */
#ifndef RT_CONV_MVE_2X2_H
#define RT_CONV_MVE_2X2_H

#include "conv_mve_tiles.h"

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
#endif

#endif
