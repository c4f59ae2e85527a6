/* fc_row_s8.c (Cortex-M DSP) - rt_s8_fc_row: one input row of rt_fully_connected_s8. The
 * row's taps, all but k % 4 (none past 2 * RT_DSP_WIDE_WORDS), are widened once to halfwords
 * with the input offset (on the stack), taps 0, 2 then 1, 3 of every four, the order SXTB16
 * splits a filter word into. With symmetric weights, k a multiple of 4 and four outputs or
 * more (every real layer), at -O1 and up, one asm block (fc_blocks) runs four outputs at a
 * time over the widened row (a per-tensor requantization spread over a chunk's constants, a
 * narrower activation clamped after: fc_fast): the sums
 * start at the biases, sixteen taps a turn in runs of loads (24 cycles per 16 multiply-
 * accumulates on the M4, the first turn entered part way for k % 16), then each sum is
 * requantized in registers (SMMULR, the rounding shift, SSAT) and the four stored: about 85
 * cycles a block besides the taps. It gives up on a shift outside [-16, -1] or a sum past
 * 2^30 (the Q flag, which SMLAD and QADD set). The outputs it leaves (a ragged end, or all
 * of them when it gives up, does not apply or is not compiled: dsp_variants.h) go one at a
 * time (fc_wide): two SMLADs per filter word over the widened row, the filter offset added
 * by SXTAB16, the taps past it one by one, and the portable requantization. Bit-exact with
 * int8/fc_row_s8.c. */
#include "conv_dsp.h"
#include "dsp_variants.h"

/* Outputs from..cout - 1, one at a time: over the first kw taps (a multiple of 4) the widened
 * row xw, two SMLADs per filter word (its halves plus the filter offset, by SXTAB16), then
 * taps kw..k - 1 from x, one by one. */
static void fc_wide(const rt_fc_s8_params *p, const int8_t *x, const int32_t *xw, int32_t kw,
                    const int8_t *w, int32_t k, int32_t from, int32_t cout,
                    const int32_t *bias, int8_t *out)
{
    const int16x2_t foff2 = rt_dsp_pair(p->filter_offset);
    int32_t oc, i;
    for (oc = from; oc < cout; ++oc) {
        const int8_t *const wr = w + oc * k;
        const int32_t c = p->per_channel ? oc : 0;
        int32_t acc = bias != NULL ? bias[oc] : 0;
        for (i = 0; i < kw; i += 4) {
            const int32_t v = rt_dsp_load4(wr + i);
            acc = __smlad((int16x2_t)xw[i / 2], rt_dsp_even(foff2, v),
                          __smlad((int16x2_t)xw[i / 2 + 1], rt_dsp_odd(foff2, v), acc));
        }
        for (; i < k; ++i) {
            acc += ((int32_t)x[i] + p->input_offset) * ((int32_t)wr[i] + p->filter_offset);
        }
        out[oc] = rt_s8_clamp(rt_requantize(acc, p->mult[c], p->shift[c]) + p->output_offset,
                              p->act_min, p->act_max);
    }
}

#if defined(__OPTIMIZE__)
/* Taps 4 * (o / 8) to 4 * (o / 8) + 3 of fc_blocks' turn: the two input words at x + o and
 * filters 2 and 3's words ([w0 + 2k], [w1 + 2k]) in one run of loads, split by SXTB16, four
 * SMLADs; then filters 0 and 1's words (stepping w0, w1), four more: 24 cycles for 16 MACs.
 * The turn's first group loads its input words with x's step (+32) written back. */
#define FC_GROUP(xload) \
    xload \
    "ldr %[t], [%[w0], %[k], lsl #1]\n\t" \
    "ldr %[u], [%[w1], %[k], lsl #1]\n\t" \
    FC_PAIR("a2", "a3") \
    "ldr %[t], [%[w0]], #4\n\t" \
    "ldr %[u], [%[w1]], #4\n\t" \
    FC_PAIR("a0", "a1")
#define FC_X(o) \
    "ldr %[xe], [%[x], #" #o "]\n\t" \
    "ldr %[xo], [%[x], #" #o " + 4]\n\t"
#define FC_X_STEP \
    "ldr %[xo], [%[x], #36]\n\t" \
    "ldr %[xe], [%[x], #32]!\n\t"
#define FC_PAIR(aa, ab) \
    "sxtb16 %[v], %[t]\n\t" \
    "smlad %[" aa "], %[xe], %[v], %[" aa "]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad %[" aa "], %[xo], %[t], %[" aa "]\n\t" \
    "sxtb16 %[v], %[u]\n\t" \
    "smlad %[" ab "], %[xe], %[v], %[" ab "]\n\t" \
    "sxtb16 %[u], %[u], ror #8\n\t" \
    "smlad %[" ab "], %[xo], %[u], %[" ab "]\n\t"

/* The requantization of the doubled sum a, its mult at [t + o], its shift at [u + o] (v holds
 * 2 * out_off + 1; xe, xo, x scratch): r = SMMULR(2a, mult), then with e = -shift,
 * (r + 2^(e-1) - [r < 0] + out_off * 2^e) >> e (rt_dsp_requant's rounding, plus the offset)
 * as shifts by e - 1 (= ~shift, into register e by neg, which also ors it into end, checked
 * under 16 after the four) and 1, saturated to int8 by SSAT. */
#define FC_RQ(a, o, neg, e) \
    "ldr %[xe], [%[t], #" #o "]\n\t" \
    "ldr %[xo], [%[u], #" #o "]\n\t" \
    neg \
    "lsl %[x], %[v], %[" e "]\n\t" \
    "smmulr %[xe], %[" a "], %[xe]\n\t" \
    "add %[x], %[x], %[xe], asr #31\n\t" \
    "add %[" a "], %[xe], %[x]\n\t" \
    "asr %[" a "], %[" a "], %[" e "]\n\t" \
    "ssat %[" a "], #8, %[" a "], asr #1\n\t"

/* Blocks of four outputs (n of them; rows w, w + k, ... of k taps, k a multiple of 4 under
 * 2^27) over the widened row xw: the sums start at bias (stepped by bstep: 16, or 0 for a zero
 * bias), each output has its own mult and shift, the int8 outputs go to out. Returns 1, or 0
 * when a shift lies outside [-16, -1] or a sum past 2^30 (a QADD or SMLAD set the Q flag);
 * the block that found it is not stored, those before it are. */
static RT_DSP_NOINLINE RT_DSP_ADR_ALIGNED int32_t fc_blocks(
    const int32_t *xw, const int8_t *w, int32_t k, int32_t n, const int32_t *bias,
    int32_t bstep, const int32_t *mult, const int32_t *shift, int32_t out_off, int8_t *out)
{
    int32_t a0, a1, a2, a3, xe, xo, t, u, v;
    const int8_t *w1;
    /* the shifts at a fixed distance from the multipliers (one pointer steps both) */
    const uintptr_t dshift = (uintptr_t)shift - (uintptr_t)mult;
    /* x before the first turn: entered at the group that leaves k % 16 taps to it, 8 bytes
       a group, and the turn's start written back by its first group */
    const int32_t *x;
    const uintptr_t xs = (uintptr_t)xw - 32 + 2 * (uint32_t)(k & 15);
    const int32_t *end;   /* x after the last turn */
    const uintptr_t end_m = (uintptr_t)xw + 2 * (uint32_t)k - 32;
    const int32_t o2 = 2 * out_off + 1;
    int8_t *const out_end = out + 4 * n;
    uintptr_t entry;
    __asm__ volatile(
        /* where a block's loop starts: at the group that leaves k % 16 taps to the first
           turn (0: at the top, where the block's start falls through) */
        "adr %[t], 10f\n\t"
        "and %[u], %[k], #12\n\t"
        "ldr %[t], [%[t], %[u]]\n\t"      /* the table at 10 */
        "str %[t], %[entry]\n\t"
        "ldr %[end], %[end_m]\n\t"
        "add %[w1], %[w0], %[k]\n\t"
        "msr APSR_nzcvq, %[k]\n\t"        /* Q clear (k < 2^27) */
        /* a block: the sums start at the biases; one run of loads */
        "1:\n\t"
        "ldr %[v], %[bias]\n\t"
        "ldr %[t], %[bstep]\n\t"
        "ldr %[x], %[xs]\n\t"
        "ldr %[u], %[entry]\n\t"
        "ldr %[a0], [%[v]]\n\t"
        "ldr %[a1], [%[v], #4]\n\t"
        "ldr %[a2], [%[v], #8]\n\t"
        "ldr %[a3], [%[v], #12]\n\t"
        "add %[v], %[v], %[t]\n\t"
        "str %[v], %[bias]\n\t"
        "cmp %[u], #0\n\t"
        "it ne\n\t"
        "bxne %[u]\n\t"
        ".p2align 2\n\t"                   /* the loop's head a word: its branch 3 cycles */
        "2:\n\t"
        FC_GROUP(FC_X_STEP)
        "6:\n\t"
        FC_GROUP(FC_X(8))
        "3:\n\t"
        FC_GROUP(FC_X(16))
        "7:\n\t"
        FC_GROUP(FC_X(24))
        "cmp %[x], %[end]\n\t"
        "bne 2b\n\t"
        /* the sums doubled (SMMULR's input): a sum past 2^30 sets Q, as would an SMLAD's
           overflow */
        "qadd %[a0], %[a0], %[a0]\n\t"
        "qadd %[a1], %[a1], %[a1]\n\t"
        "qadd %[a2], %[a2], %[a2]\n\t"
        "qadd %[a3], %[a3], %[a3]\n\t"
        "mrs %[t], APSR\n\t"
        "tst %[t], #0x08000000\n\t"
        "bne 8f\n\t"
        "ldr %[t], %[mult]\n\t"
        "ldr %[u], %[dshift]\n\t"
        "ldr %[v], %[o2]\n\t"
        "add %[u], %[u], %[t]\n\t"
        FC_RQ("a0", 0, "mvn %[end], %[xo]\n\t", "end")
        FC_RQ("a1", 4, "mvn %[xo], %[xo]\n\t" "orr %[end], %[end], %[xo]\n\t", "xo")
        FC_RQ("a2", 8, "mvn %[xo], %[xo]\n\t" "orr %[end], %[end], %[xo]\n\t", "xo")
        FC_RQ("a3", 12, "mvn %[xo], %[xo]\n\t" "orr %[end], %[end], %[xo]\n\t", "xo")
        "cmp %[end], #16\n\t"
        "bcs 8f\n\t"
        /* store; step the multipliers, the filters */
        "ldr %[u], %[out]\n\t"
        "ldr %[v], %[out_end]\n\t"
        "ldr %[end], %[end_m]\n\t"
        "add %[t], %[t], #16\n\t"
        "str %[t], %[mult]\n\t"
        "strb %[a1], [%[u], #1]\n\t"
        "strb %[a2], [%[u], #2]\n\t"
        "strb %[a3], [%[u], #3]\n\t"
        "strb %[a0], [%[u]], #4\n\t"
        "str %[u], %[out]\n\t"
        "msr APSR_nzcvq, %[k]\n\t"        /* Q clear: SSAT may have set it */
        "add %[w0], %[w1], %[k], lsl #1\n\t"
        "add %[w1], %[w0], %[k]\n\t"
        "cmp %[u], %[v]\n\t"
        "bne 1b\n\t"
        "movs %[t], #1\n\t"
        "b 9f\n\t"
        ".p2align 2\n\t"
        "10:\n\t"
        ".word 0, 7b + 1, 3b + 1, 6b + 1\n\t"   /* by k % 16 / 4 */
        "8:\n\t"
        "movs %[t], #0\n\t"
        "9:\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [x] "=&r"(x),
          [w0] "+r"(w), [w1] "=&r"(w1), [k] "+r"(k), [end] "=&r"(end), [xe] "=&r"(xe),
          [xo] "=&r"(xo), [t] "=&r"(t), [u] "=&r"(u), [v] "=&r"(v), [bias] "+m"(bias),
          [mult] "+m"(mult), [out] "+m"(out), [entry] "=m"(entry)
        : [end_m] "m"(end_m), [xs] "m"(xs), [bstep] "m"(bstep),
          [dshift] "m"(dshift), [o2] "m"(o2), [out_end] "m"(out_end)
        : "cc", "memory");
    return t;
}
#undef FC_GROUP
#undef FC_X
#undef FC_X_STEP
#undef FC_PAIR
#undef FC_RQ

#define FC_CHUNK 64   /* outputs a per-tensor layer's spread constants cover */

/* fc_blocks over the row's whole blocks of four outputs: a per-tensor requantization spread
 * over FC_CHUNK outputs' constants at a time, and an activation narrower than int8 clamped
 * after (clamping the saturated value is clamping the value). Returns the outputs made: the
 * blocks before any that gave up. */
static int32_t fc_fast(const rt_fc_s8_params *p, const int32_t *xw, const int8_t *w, int32_t k,
                       int32_t cout, const int32_t *bias, int8_t *out)
{
    static const int32_t zero[4];   /* no bias: sums from 0, not stepped */
    const int32_t whole = cout & ~3, bstep = bias != NULL ? 16 : 0;
    int32_t done = 0, i;
    if (p->per_channel) {
        done = fc_blocks(xw, w, k, whole / 4, bias != NULL ? bias : zero, bstep, p->mult,
                         p->shift, p->output_offset, out) ? whole : 0;
    } else {
        int32_t mult[FC_CHUNK], shift[FC_CHUNK];
        for (i = 0; i < FC_CHUNK; ++i) {
            mult[i] = p->mult[0];
            shift[i] = p->shift[0];
        }
        while (done < whole) {
            const int32_t n = whole - done < FC_CHUNK ? whole - done : FC_CHUNK;
            if (!fc_blocks(xw, w + done * k, k, n / 4, bias != NULL ? bias + done : zero, bstep,
                           mult, shift, p->output_offset, out + done)) {
                break;
            }
            done += n;
        }
    }
    if (p->act_min > -128 || p->act_max < 127) {
        for (i = 0; i < done; ++i) {
            out[i] = rt_s8_clamp(out[i], p->act_min, p->act_max);
        }
    }
    return done;
}
#endif

void rt_s8_fc_row(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w, int32_t k,
                  int32_t cout, const int32_t *bias, int8_t *out)
{
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xw[RT_DSP_WIDE_WORDS];
    /* the taps widened: all but k % 4, none past the buffer */
    const int32_t kw = k / 2 <= RT_DSP_WIDE_WORDS ? k & ~3 : 0;
    int32_t i, done = 0;   /* outputs the asm block has made */
    for (i = 0; i < kw / 2; i += 2) {
        const int32_t v = rt_dsp_load4(x + 2 * i);
        xw[i] = (int32_t)rt_dsp_even(off2, v);
        xw[i + 1] = (int32_t)rt_dsp_odd(off2, v);
    }
#if defined(__OPTIMIZE__)
    if (RT_DSP_HAS(RT_DSP_U_FC_BLOCKS) && kw == k && k > 0 && cout >= 4 &&
        p->filter_offset == 0 && p->output_offset >= -128 && p->output_offset <= 127 &&
        p->act_min >= -128 && p->act_max <= 127) {
        done = fc_fast(p, xw, w, k, cout, bias, out);
    }
#endif
    fc_wide(p, x, xw, kw, w, k, done, cout, bias, out);
}
