/* fc_row_s8.c (Cortex-M Helium) - rt_s8_fc_row: one input row of rt_fully_connected_s8.
 * Blocking: four outputs at a time share each sixteen-byte input vector, per filter a VMLADAVA
 * for the products, and a VMLADAVA and a VADDVA for the input offset's part
 * (sum (x + x_off) * w = sum x * w + x_off * sum w, fc_dot4); a predicated tail takes any
 * k. A ragged end of outputs takes the last four again (at least four outputs); fewer than
 * four outputs, or an input offset outside [-127, 128], go one output at a time (rt_s8_dot).
 * The four outputs are requantized in one vector (rt_mve_requant). Asymmetric weights
 * (filter offset != 0) take the plain loop. No stack buffer beyond four sums.
 * Bit-exact with int8/fc_row_s8.c. */
#include "s8_mve.h"

/* acc[j] = sum over i < n of (x[i] + x_off) * w[j * n + i], j < 4, for x_off in [-127, 128].
 * The offset's part x_off * sum w goes into the same sum as the products: one VMLADAVA by
 * the constant x_off - 1 (an int8) and one VADDVA of w, so each output has one 32-bit sum
 * and the loop's pointers and sums all fit in core registers. Out of line for the same. */
static RT_DSP_NOINLINE void fc_dot4(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off,
                                    int32_t *acc)
{
    const int8_t *w0 = w, *w1 = w + n, *w2 = w1 + n, *w3 = w2 + n;
    const int8x16_t off = vdupq_n_s8((int8_t)(x_off - 1));
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i = n;
#if defined(__OPTIMIZE__)
    /* whole vectors: one input load and four filter loads (post-incremented) for 64
       products, 18 instructions a turn; gcc's own loop recomputes five addresses */
    if (i >= 16) {
        int32_t turns = i >> 4;
        /* "Te": VMLAVA/VADDVA accumulate into an even core register */
        __asm__ volatile(
            "vdup.8 q3, %[off]\n\t"
            "1:\n\t"
            "vldrb.8 q0, [%[x]], #16\n\t"
            "vldrb.8 q1, [%[w0]], #16\n\t"
            "vldrb.8 q2, [%[w1]], #16\n\t"
            "vmlava.s8 %[a0], q0, q1\n\t"
            "vmlava.s8 %[a0], q3, q1\n\t"
            "vaddva.s8 %[a0], q1\n\t"
            "vldrb.8 q1, [%[w2]], #16\n\t"
            "vmlava.s8 %[a1], q0, q2\n\t"
            "vmlava.s8 %[a1], q3, q2\n\t"
            "vaddva.s8 %[a1], q2\n\t"
            "vldrb.8 q2, [%[w3]], #16\n\t"
            "vmlava.s8 %[a2], q0, q1\n\t"
            "vmlava.s8 %[a2], q3, q1\n\t"
            "vaddva.s8 %[a2], q1\n\t"
            "vmlava.s8 %[a3], q0, q2\n\t"
            "vmlava.s8 %[a3], q3, q2\n\t"
            "vaddva.s8 %[a3], q2\n\t"
            "subs %[turns], %[turns], #1\n\t"
            "bne 1b"
            : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+r"(x),
              [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [turns] "+r"(turns)
            : [off] "r"(x_off - 1)
            : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
        i &= 15;
    }
    (void)off;
#else
    for (; i >= 16; i -= 16, x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        const int8x16_t xv = vldrbq_s8(x);
        int8x16_t wv = vldrbq_s8(w0);
        a0 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a0, xv, wv), off, wv), wv);
        wv = vldrbq_s8(w1);
        a1 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a1, xv, wv), off, wv), wv);
        wv = vldrbq_s8(w2);
        a2 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a2, xv, wv), off, wv), wv);
        wv = vldrbq_s8(w3);
        a3 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a3, xv, wv), off, wv), wv);
    }
#endif
    if (i > 0) {   /* the tail: lanes past n load as zero and add nothing */
        const mve_pred16_t p = rt_mve_tail8(i);
        const int8x16_t xv = vldrbq_z_s8(x, p);
        int8x16_t wv = vldrbq_z_s8(w0, p);
        a0 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a0, xv, wv), off, wv), wv);
        wv = vldrbq_z_s8(w1, p);
        a1 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a1, xv, wv), off, wv), wv);
        wv = vldrbq_z_s8(w2, p);
        a2 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a2, xv, wv), off, wv), wv);
        wv = vldrbq_z_s8(w3, p);
        a3 = vaddvaq_s8(vmladavaq_s8(vmladavaq_s8(a3, xv, wv), off, wv), wv);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Output oc from its sum: bias, requantization, offset and clamp. */
static inline int8_t fc_out(const rt_fc_s8_params *p, int32_t acc, int32_t oc,
                            const int32_t *bias)
{
    const int32_t c = p->per_channel ? oc : 0;
    return rt_dsp_out(acc + (bias != NULL ? bias[oc] : 0), p->mult[c], p->shift[c],
                      p->output_offset, p->act_min, p->act_max);
}

void rt_s8_fc_row(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w, int32_t k,
                  int32_t cout, const int32_t *bias, int8_t *out)
{
    int32_t oc, i;
    if (p->filter_offset != 0) {   /* asymmetric weights: one output at a time, plainly */
        for (oc = 0; oc < cout; ++oc, w += k) {
            int32_t acc = 0;
            for (i = 0; i < k; ++i) {
                acc += ((int32_t)x[i] + p->input_offset) * ((int32_t)w[i] + p->filter_offset);
            }
            out[oc] = fc_out(p, acc, oc, bias);
        }
        return;
    }
    if (cout < 4 || p->input_offset < -127 || p->input_offset > 128) {
        for (oc = 0; oc < cout; ++oc) {
            out[oc] = fc_out(p, rt_s8_dot(x, w + oc * k, k, p->input_offset), oc, bias);
        }
        return;
    }
    for (oc = 0; oc < cout; oc += 4) {
        const int32_t o = oc + 4 <= cout ? oc : cout - 4;   /* a ragged end: the last 4 again */
        const int32_t c = p->per_channel ? o : 0;
        int32_t acc[4];
        int32x4_t a;
        fc_dot4(x, w + o * k, k, p->input_offset, acc);
        a = vldrwq_s32(acc);
        if (bias != NULL) {
            a = vaddq_s32(a, vldrwq_s32(bias + o));
        }
        vstrbq_s32(out + o,
                   rt_mve_requant(a, p->per_channel ? vldrwq_s32(p->mult + c)
                                                    : vdupq_n_s32(p->mult[c]),
                                  p->per_channel ? vldrwq_s32(p->shift + c)
                                                 : vdupq_n_s32(p->shift[c]),
                                  p->output_offset, p->act_min, p->act_max));
    }
}
