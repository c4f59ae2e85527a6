/* fc_row_s8.c (Cortex-M Helium) - rt_s8_fc_row: one input row of rt_fully_connected_s8.
 * With a kernel_sum (no input offset: the bias holds it), a bias and four outputs or more, at
 * -O1 and up: one asm block of dot products per 64 outputs into a stack buffer (fc_sums: four
 * filters a loop, tail-predicated for any k; fc_sums_short for k <= 16: the input one vector,
 * loaded once), then requantized four to a vector.
 * Otherwise four outputs at a time (fc_dot4), two filters a loop sharing each sixteen-byte
 * input vector, per filter a VMLADAVA for the products and a VADDVA for the filter's sum,
 * which carries the input offset (sum (x + x_off) * w = sum x * w + x_off * sum w); a
 * predicated tail takes any k. A ragged end of outputs takes the last four again (at least
 * four outputs); fewer than four outputs, or an input offset outside [-127, 128], go one
 * output at a time (rt_s8_dot).
 * The four outputs are requantized in one vector (rt_mve_requant). Asymmetric weights
 * (filter offset != 0) take the plain loop.
 * Bit-exact with int8/fc_row_s8.c. */
#include "s8_mve.h"

/* a[j] = sum over i < n of x[i] * w[j * n + i] and s[j] = the sum of those taps, j < 2,
 * over the whole vectors of n (n >= 16): two filters a call, one input load, a VMLADAVA and
 * a VADDVA per filter per sixteen bytes: 7 instructions for 32 products in a low-overhead
 * loop (the input is read twice per four outputs, which still beats the input offset's
 * extra VMLADAVA per filter). */
static inline void fc_whole_2(const int8_t *x, const int8_t *w0, const int8_t *w1,
                              int32_t turns, int32_t *a, int32_t *s)
{
    int32_t a0 = 0, a1 = 0, s0 = 0, s1 = 0;
    /* "Te": VMLAVA/VADDVA accumulate into an even core register */
    __asm__ volatile(
        "dls lr, %[turns]\n\t"
        "1:\n\t"
        "vldrb.8 q0, [%[x]], #16\n\t"
        "vldrb.8 q1, [%[w0]], #16\n\t"
        "vldrb.8 q2, [%[w1]], #16\n\t"
        "vmlava.s8 %[a0], q0, q1\n\t"
        "vaddva.s8 %[s0], q1\n\t"
        "vmlava.s8 %[a1], q0, q2\n\t"
        "vaddva.s8 %[s1], q2\n\t"
        "le lr, 1b"
        : [a0] "+Te"(a0), [a1] "+Te"(a1), [s0] "+Te"(s0), [s1] "+Te"(s1), [x] "+r"(x),
          [w0] "+r"(w0), [w1] "+r"(w1)
        : [turns] "r"(turns)
        : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5");
    a[0] = a0;
    a[1] = a1;
    s[0] = s0;
    s[1] = s1;
}

/* acc[j] = sum over i < n of (x[i] + x_off) * w[j * n + i], j < 4, as sum x * w plus x_off
 * times sum w (both exact in 32 bits). Out of line, so that its loops keep their pointers
 * in registers. */
static RT_DSP_NOINLINE void fc_dot4(const int8_t *x, const int8_t *w, int32_t n, int32_t x_off,
                                    int32_t *acc)
{
    int32_t a[4] = {0, 0, 0, 0}, s[4] = {0, 0, 0, 0}, i = 0, j;
#if defined(__OPTIMIZE__)
    if (n >= 16) {
        fc_whole_2(x, w, w + n, n >> 4, a, s);
        fc_whole_2(x, w + 2 * n, w + 3 * n, n >> 4, a + 2, s + 2);
        i = n & ~15;
    }
#endif
    for (; i < n; i += 16) {   /* the rest (a tail, or everything at -O0), predicated */
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const int8x16_t xv = vldrbq_z_s8(x + i, p);
        for (j = 0; j < 4; ++j) {
            const int8x16_t wv = vldrbq_z_s8(w + j * n + i, p);
            a[j] = vmladavaq_s8(a[j], xv, wv);
            s[j] = vaddvaq_s8(s[j], wv);
        }
    }
    for (j = 0; j < 4; ++j) {
        acc[j] = a[j] + x_off * s[j];
    }
}

#if defined(__OPTIMIZE__)   /* (at -O0 gcc cannot give the asm its twelve registers) */
/* What fc_sums reads from memory (the asm has no register to spare for it). */
typedef struct {
    const int8_t *x;
    int32_t k;           /* at least 1 */
    const int32_t *bias; /* the next group's four, advanced as they are read */
    const int8_t *next;  /* the next group's first filter */
} fc_job;

/* sums[0 .. 4 * groups) = bias + x . w for the groups of four filters from w, any k >= 1, no
 * input offset (a kernel_sum took it). One asm block for all the groups, so that no pointer
 * goes through the stack: per group 19 instructions of set-up and stores, then a
 * tail-predicated loop (DLSTP/LETP: the last pass loads only the bytes left, the lanes past k
 * as zero) of four filters sharing each sixteen-byte input vector, 9 instructions for 64
 * products. */
static inline void fc_sums(fc_job *job, const int8_t *w, int32_t groups, int32_t *sums)
{
    const int8_t *xp, *w1, *w2, *w3;
    int32_t a0, a1, a2, a3;
    /* "Te": VMLAVA accumulates into an even core register. */
    __asm__ volatile(
        "3:\n\t"
        "ldr lr, [%[job], #4]\n\t"
        "ldr %[xp], [%[job], #8]\n\t"
        "add %[w1], %[w0], lr\n\t"
        "add %[w2], %[w1], lr\n\t"
        "add %[w3], %[w2], lr\n\t"
        "ldrd %[a0], %[a1], [%[xp]]\n\t"
        "ldrd %[a2], %[a3], [%[xp], #8]\n\t"
        "add %[xp], %[xp], #16\n\t"
        "str %[xp], [%[job], #8]\n\t"
        "add %[xp], %[w3], lr\n\t"
        "str %[xp], [%[job], #12]\n\t"
        "ldr %[xp], [%[job]]\n\t"
        "dlstp.8 lr, lr\n\t"
        "1:\n\t"
        "vldrb.8 q0, [%[xp]], #16\n\t"
        "vldrb.8 q1, [%[w0]], #16\n\t"
        "vldrb.8 q2, [%[w1]], #16\n\t"
        "vmlava.s8 %[a0], q0, q1\n\t"
        "vldrb.8 q3, [%[w2]], #16\n\t"
        "vmlava.s8 %[a1], q0, q2\n\t"
        "vldrb.8 q1, [%[w3]], #16\n\t"
        "vmlava.s8 %[a2], q0, q3\n\t"
        "vmlava.s8 %[a3], q0, q1\n\t"
        "letp lr, 1b\n\t"
        "strd %[a0], %[a1], [%[dst]], #8\n\t"
        "strd %[a2], %[a3], [%[dst]], #8\n\t"
        "ldr %[w0], [%[job], #12]\n\t"
        "subs %[g], %[g], #1\n\t"
        "bne 3b"
        : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3),
          [xp] "=&r"(xp), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w0] "+&r"(w),
          [g] "+&r"(groups), [dst] "+&r"(sums)
        : [job] "r"(job)
        : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
}

/* fc_sums for k <= 16: the input row is one vector, loaded once (the lanes past k as zero,
 * under a VCTP predicate that then stays in P0 for every filter). gcc takes no "vpr" clobber,
 * so the block's write of VPR is kept safe by calling convention instead: out of line, and
 * VPR is not preserved across a call (AAPCS), so no caller holds a predicate across it. Per
 * group of four filters two LDRDs of the bias, four filter loads under that predicate, four
 * VMLAVAs and two STRDs: 20 instructions for four outputs. */
static RT_DSP_NOINLINE void fc_sums_short(const int8_t *x, int32_t k, const int32_t *bias,
                                          const int8_t *w, int32_t groups, int32_t *sums)
{
    const int8_t *w2, *w3;
    int32_t a0, a1, a2, a3;
    /* "Te": VMLAVA accumulates into an even core register; w1 comes in holding x. */
    __asm__ volatile(
        "vctp.8 %[k]\n\t"
        "vpst\n\t"
        "vldrbt.8 q0, [%[w1]]\n\t"
        "3:\n\t"
        "add %[w1], %[w0], %[k]\n\t"
        "add %[w2], %[w1], %[k]\n\t"
        "add %[w3], %[w2], %[k]\n\t"
        "ldrd %[a0], %[a1], [%[b]], #8\n\t"
        "ldrd %[a2], %[a3], [%[b]], #8\n\t"
        "vpsttt\n\t"
        "vldrbt.8 q1, [%[w0]]\n\t"
        "vldrbt.8 q2, [%[w1]]\n\t"
        "vldrbt.8 q3, [%[w2]]\n\t"
        "vmlava.s8 %[a0], q0, q1\n\t"
        "vpst\n\t"
        "vldrbt.8 q1, [%[w3]]\n\t"
        "vmlava.s8 %[a1], q0, q2\n\t"
        "vmlava.s8 %[a2], q0, q3\n\t"
        "vmlava.s8 %[a3], q0, q1\n\t"
        "add %[w0], %[w3], %[k]\n\t"
        "strd %[a0], %[a1], [%[dst]], #8\n\t"
        "strd %[a2], %[a3], [%[dst]], #8\n\t"
        "subs %[g], %[g], #1\n\t"
        "bne 3b"
        : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3),
          [w1] "+&r"(x), [w2] "=&r"(w2), [w3] "=&r"(w3), [w0] "+&r"(w), [b] "+&r"(bias),
          [g] "+&r"(groups), [dst] "+&r"(sums)
        : [k] "r"(k)
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
}

/* The row without an input offset, with four outputs or more and a bias, any k >= 1, at -O1
 * and up: the sums of up to 64 outputs at a time (fc_sums, or fc_sums_short for k <= 16; at a
 * ragged end the last four again) into a stack buffer, then requantized four to a vector.
 * Inline, so that each caller below gets its own copy with per_channel a constant. */
static RT_MVE_INLINE void fc_row_plain_for(const rt_fc_s8_params *p, const int8_t *x,
                                          const int8_t *w, int32_t k, int32_t cout,
                                          const int32_t *bias, int8_t *out, int per_channel)
{
    int32_t sums[64];
    const int32x4_t mult = vdupq_n_s32(p->mult[0]), shift = vdupq_n_s32(p->shift[0]);
    const int32_t out_off = p->output_offset, lo = p->act_min, hi = p->act_max;
    fc_job job;
    int32_t c = 0, n, i;
    job.x = x;
    job.k = k;
    while (c < cout) {
        if (c + 4 > cout) {   /* a ragged end: the last four again (cout >= 4) */
            c = cout - 4;
        }
        n = cout - c < 64 ? (cout - c) & ~3 : 64;
        if (k <= 16) {
            fc_sums_short(x, k, bias + c, w + c * k, n >> 2, sums);
        } else {
            job.bias = bias + c;
            fc_sums(&job, w + c * k, n >> 2, sums);
        }
        for (i = 0; i < n; i += 4) {
            vstrbq_s32(out + c + i,
                       rt_mve_requant(vldrwq_s32(sums + i),
                                      per_channel ? vldrwq_s32(p->mult + c + i) : mult,
                                      per_channel ? vldrwq_s32(p->shift + c + i) : shift,
                                      out_off, lo, hi));
        }
        c += n;
    }
}

static RT_DSP_NOINLINE void fc_row_plain(const rt_fc_s8_params *p, const int8_t *x,
                                         const int8_t *w, int32_t k, int32_t cout,
                                         const int32_t *bias, int8_t *out)
{
    if (p->per_channel) {
        fc_row_plain_for(p, x, w, k, cout, bias, out, 1);
    } else {
        fc_row_plain_for(p, x, w, k, cout, bias, out, 0);
    }
}
#endif

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
#if defined(__OPTIMIZE__)
    if (p->input_offset == 0 && cout >= 4 && k >= 1 && bias != NULL) {
        fc_row_plain(p, x, w, k, cout, bias, out);
        return;
    }
#endif
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
