/* fc_row_s8.c (Cortex-M DSP) - rt_s8_fc_row: one input row of rt_fully_connected_s8. With
 * symmetric weights, at least four outputs and a multiple of 4 inputs, at most
 * 2 * RT_DSP_WIDE_WORDS, the row is widened once to
 * halfwords with the input offset (on the stack), taps 0, 2 then 1, 3 of every four, the
 * order SXTB16 splits a filter word into; four outputs then run over it together, their
 * sums started at the biases: sixteen taps a turn in runs of loads, 24 cycles per 16
 * multiply-accumulates on the M4 (fc_dot4_16), a rest of k % 16 taps four at a time
 * (fc_dot4; a ragged end of outputs takes the last four again). Other rows go one output at
 * a time. Bit-exact with int8/fc_row_s8.c. */
#include "conv_dsp.h"

/* One filter word's turn of fc_dot4: its halves against the input pair xe, xo. */
#define FC_FILTER(wk, ak) \
    "ldr %[t], [%[" wk "]], #4\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad %[" ak "], %[xe], %[u], %[" ak "]\n\t" \
    "smlad %[" ak "], %[xo], %[t], %[" ak "]\n\t"

/* acc[j] += the widened row xw . filter j (w + j * k), over n bytes (n % 4 == 0, n > 0). */
static RT_DSP_NOINLINE void fc_dot4(const int32_t *xw, const int8_t *w, int32_t k,
                                    int32_t n, int32_t *acc)
{
    const int8_t *w0 = w, *w1 = w + k, *w2 = w1 + k, *w3 = w2 + k;
#if defined(__OPTIMIZE__)
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], xe, xo, t, u;
    /* in-out, so that it gets a register of its own: as a plain input gcc may share one with
       w1 when both hold the same address (n == k) */
    const int8_t *end = w0 + n;
    __asm__ volatile(
        "1:\n\t"
        "ldrd %[xe], %[xo], [%[x]], #8\n\t"
        FC_FILTER("w0", "a0")
        FC_FILTER("w1", "a1")
        FC_FILTER("w2", "a2")
        FC_FILTER("w3", "a3")
        "cmp %[w0], %[end]\n\t"
        "bne 1b"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(xw),
          [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
          [xe] "=&r"(xe), [xo] "=&r"(xo), [t] "=&r"(t), [u] "=&r"(u), [end] "+r"(end)
        :
        : "cc", "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
#else
    const int8_t *ws[4];
    int32_t i, j;
    ws[0] = w0;
    ws[1] = w1;
    ws[2] = w2;
    ws[3] = w3;
    for (i = 0; i < n; i += 4, xw += 2) {
        for (j = 0; j < 4; ++j) {
            const int32_t v = rt_dsp_load4(ws[j] + i);
            acc[j] = __smlad((int16x2_t)xw[0], rt_dsp_w_even(v),
                             __smlad((int16x2_t)xw[1], rt_dsp_w_odd(v), acc[j]));
        }
    }
#endif
}

/* Four taps of fc_dot4_16 (the widened pair at byte o of the turn's inputs): the inputs' two
 * words and two filters' words in one run of loads, the filters split by SXTB16, four SMLADs;
 * the other two filters' words in a second run, four more: 24 cycles for 16 MACs on the M4. */
#define FC_GROUP(o) \
    "ldr %[xe], [%[x], #" #o "]\n\t" \
    "ldr %[xo], [%[x], #" #o " + 4]\n\t" \
    "ldr %[t], [%[w0]], #4\n\t" \
    "ldr %[u], [%[w1]], #4\n\t" \
    FC_PAIR("a0", "a1") \
    "ldr %[t], [%[w2]], #4\n\t" \
    "ldr %[u], [%[w3]], #4\n\t" \
    FC_PAIR("a2", "a3")
#define FC_PAIR(aa, ab) \
    "sxtb16 %[v], %[t]\n\t" \
    "smlad %[" aa "], %[xe], %[v], %[" aa "]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad %[" aa "], %[xo], %[t], %[" aa "]\n\t" \
    "sxtb16 %[v], %[u]\n\t" \
    "smlad %[" ab "], %[xe], %[v], %[" ab "]\n\t" \
    "sxtb16 %[u], %[u], ror #8\n\t" \
    "smlad %[" ab "], %[xo], %[u], %[" ab "]\n\t"

/* fc_dot4 for n a multiple of 16 (n > 0): sixteen taps a turn, the end reloaded from the stack
 * (every register is taken), 102 cycles for 64 MACs. */
static RT_DSP_NOINLINE void fc_dot4_16(const int32_t *xw, const int8_t *w, int32_t k,
                                       int32_t n, int32_t *acc)
{
#if defined(__OPTIMIZE__)
    const int8_t *w0 = w, *w1 = w + k, *w2 = w1 + k, *w3 = w2 + k;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], xe, xo, t, u, v;
    const int32_t *const end = xw + n / 2;
    __asm__ volatile(
        "1:\n\t"
        FC_GROUP(0) FC_GROUP(8) FC_GROUP(16) FC_GROUP(24)
        "add %[x], %[x], #32\n\t"
        "ldr %[t], %[end]\n\t"
        "cmp %[x], %[t]\n\t"
        "bne 1b"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(xw),
          [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3),
          [xe] "=&r"(xe), [xo] "=&r"(xo), [t] "=&r"(t), [u] "=&r"(u), [v] "=&r"(v)
        : [end] "m"(end)
        : "cc", "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
#else
    fc_dot4(xw, w, k, n, acc);
#endif
}

/* A row the widened path does not take: one output at a time, plainly. */
static void fc_row_plain(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w,
                         int32_t k, int32_t cout, const int32_t *bias, int8_t *out)
{
    int32_t oc, i;
    for (oc = 0; oc < cout; ++oc, w += k) {
        const int32_t c = p->per_channel ? oc : 0;
        int32_t acc = bias != NULL ? bias[oc] : 0;
        for (i = 0; i < k; ++i) {
            acc += ((int32_t)x[i] + p->input_offset) * ((int32_t)w[i] + p->filter_offset);
        }
        out[oc] = rt_s8_clamp(rt_requantize(acc, p->mult[c], p->shift[c]) + p->output_offset,
                              p->act_min, p->act_max);
    }
}

void rt_s8_fc_row(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w, int32_t k,
                  int32_t cout, const int32_t *bias, int8_t *out)
{
    const int16x2_t off2 = rt_dsp_pair(p->input_offset);
    int32_t xw[RT_DSP_WIDE_WORDS];
    const int32_t k16 = k & ~15;   /* taps sixteen at a time, the rest four */
    /* the parameters in locals, which the asm's memory clobber leaves in registers */
    const int32_t *const mult = p->mult, *const shift = p->shift;
    const int32_t per = p->per_channel, out_off = p->output_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t oc, i, j;
    if (p->filter_offset != 0 || k == 0 || k % 4 != 0 || k / 2 > RT_DSP_WIDE_WORDS || cout < 4) {
        fc_row_plain(p, x, w, k, cout, bias, out);
        return;
    }
    for (i = 0; i < k; i += 4) {
        const int32_t v = rt_dsp_load4(x + i);
        xw[i / 2] = (int32_t)rt_dsp_even(off2, v);
        xw[i / 2 + 1] = (int32_t)rt_dsp_odd(off2, v);
    }
    for (oc = 0; oc < cout; oc += 4) {
        const int32_t o = oc + 4 <= cout ? oc : cout - 4;   /* a ragged end: the last 4 again */
        const int8_t *wr = w + o * k;
        int32_t acc[4];
        for (j = 0; j < 4; ++j) {
            acc[j] = bias != NULL ? bias[o + j] : 0;
        }
        if (k16 > 0) {
            fc_dot4_16(xw, wr, k, k16, acc);
        }
        if (k16 < k) {
            fc_dot4(xw + k16 / 2, wr + k16, k, k - k16, acc);
        }
        for (j = 0; j < 4; ++j) {
            const int32_t c = per ? o + j : 0;
            out[o + j] = rt_dsp_out(acc[j], mult[c], shift[c], out_off, lo, hi);
        }
    }
}
