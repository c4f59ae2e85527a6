/* conv_1x1_s8.c (Cortex-M Helium) - rt_conv2d_1x1_s8: a pointwise layer as a matrix product
 * of the pixels by the filters. Filters two at a time outside: their sums times the input
 * offset folded into the bias, and the requantization vectors, made once. Pixels two at a
 * time inside: four VMLADAVAs per sixteen taps (inline, mac_2x2_whole, when Cin is a
 * multiple of 16), then one vector requantization and one scatter. No stack buffer beyond
 * a tile's four sums. Bit-exact with int8/conv_1x1_s8.c. */
#include "conv_mve.h"

/* a = (x0.w0, x0.w1, x1.w0, x1.w1) over n taps, without the offset. Out of line: its four
 * pointers and sums get registers of their own, so the loop is nine instructions. */
static RT_DSP_NOINLINE void mac_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0,
                                    const int8_t *w1, int32_t n, int32_t *a)
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
    for (; n >= 16; n -= 16, x0 += 16, x1 += 16, w0 += 16, w1 += 16) {
        const int8x16_t va = vldrbq_s8(x0), vb = vldrbq_s8(x1);
        const int8x16_t fa = vldrbq_s8(w0), fb = vldrbq_s8(w1);
        a00 = vmladavaq_s8(a00, va, fa);
        a01 = vmladavaq_s8(a01, va, fb);
        a10 = vmladavaq_s8(a10, vb, fa);
        a11 = vmladavaq_s8(a11, vb, fb);
    }
    if (n > 0) {
        const mve_pred16_t p = rt_mve_tail8(n);
        const int8x16_t va = vldrbq_z_s8(x0, p), vb = vldrbq_z_s8(x1, p);
        const int8x16_t fa = vldrbq_z_s8(w0, p), fb = vldrbq_z_s8(w1, p);
        a00 = vmladavaq_s8(a00, va, fa);
        a01 = vmladavaq_s8(a01, va, fb);
        a10 = vmladavaq_s8(a10, vb, fa);
        a11 = vmladavaq_s8(a11, vb, fb);
    }
    a[0] = a00;
    a[1] = a01;
    a[2] = a10;
    a[3] = a11;
}

/* mac_2x2 when n is a whole number of vectors (n % 16 == 0, n > 0), inline: at -O2 one
 * assembly loop of post-incremented loads, ten instructions a turn, with no call and no
 * tail to set up (per tile that was as much again as the loop for 64 channels). */
static inline void mac_2x2_whole(const int8_t *x0, const int8_t *x1, const int8_t *w0,
                                 const int8_t *w1, int32_t n, int32_t *a)
{
#if defined(__OPTIMIZE__)
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0, turns = n >> 4;
    /* "Te": VMLAVA/VADDVA accumulate into an even core register */
    __asm__ volatile(
        "1:\n\t"
        "vldrb.8 q0, [%[x0]], #16\n\t"
        "vldrb.8 q1, [%[w0]], #16\n\t"
        "vldrb.8 q2, [%[w1]], #16\n\t"
        "vmlava.s8 %[a00], q0, q1\n\t"
        "vldrb.8 q3, [%[x1]], #16\n\t"
        "vmlava.s8 %[a01], q0, q2\n\t"
        "vmlava.s8 %[a10], q3, q1\n\t"
        "vmlava.s8 %[a11], q3, q2\n\t"
        "subs %[turns], %[turns], #1\n\t"
        "bne 1b"
        : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11),
          [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1), [turns] "+r"(turns)
        :
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    a[0] = a00;
    a[1] = a01;
    a[2] = a10;
    a[3] = a11;
#else
    mac_2x2(x0, x1, w0, w1, n, a);
#endif
}

/* A pointwise layer (1x1 taps, stride 1, no padding, one group): a matrix product of the
 * pixels by the filters. Filters two at a time outside: their sums times the input offset
 * folded into the bias, and the requantization vectors, made once. Pixels two at a time
 * inside: four VMLADAVAs per sixteen taps, then one vector requantization and one scatter. */
static void pointwise(const rt_conv_s8_params *p, const rt_conv_s8_geom *g, const int8_t *w,
                      const int32_t *bias, const int8_t *in, int8_t *out, int32_t pixels)
{
    const int32_t cin = g->cin, cout = g->cout, x_off = p->input_offset;
    const uint32_t offs[4] = {0u, 1u, (uint32_t)cout, (uint32_t)cout + 1u};
    const uint32x4_t where = vldrwq_u32(offs);
    const int32_t whole = cin > 0 && cin % 16 == 0;
    int32_t i, k, oc;
    for (oc = 0; oc < cout; oc += 2) {
        const int32_t o1 = cout - oc >= 2 ? oc + 1 : oc;   /* the last filter twice if odd */
        const int8_t *w0 = w + oc * cin, *w1 = w + o1 * cin, *x = in;
        int32_t s0 = 0, s1 = 0, v[4];
        int32x4_t fold, mult, shift;
        for (k = 0; k < cin; k += 16) {
            const mve_pred16_t pk = rt_mve_tail8(cin - k);
            s0 = vaddvaq_s8(s0, vldrbq_z_s8(w0 + k, pk));
            s1 = vaddvaq_s8(s1, vldrbq_z_s8(w1 + k, pk));
        }
        v[0] = v[2] = (bias != NULL ? bias[oc] : 0) + x_off * s0;
        v[1] = v[3] = (bias != NULL ? bias[o1] : 0) + x_off * s1;
        fold = vldrwq_s32(v);
        v[0] = v[2] = p->mult[oc];
        v[1] = v[3] = p->mult[o1];
        mult = vldrwq_s32(v);
        v[0] = v[2] = p->shift[oc];
        v[1] = v[3] = p->shift[o1];
        shift = vldrwq_s32(v);
        for (i = 0; i < pixels; i += 2, x += 2 * cin) {
            const int32_t two = i + 1 < pixels;
            int32_t a[4];
            int32x4_t acc;
            if (whole) {
                mac_2x2_whole(x, two ? x + cin : x, w0, w1, cin, a);
            } else {
                mac_2x2(x, two ? x + cin : x, w0, w1, cin, a);
            }
            acc = vldrwq_s32(a);
            vstrbq_scatter_offset_p_s32(
                out + i * cout + oc, where,
                rt_mve_requant(vaddq_s32(acc, fold), mult, shift, p->output_offset, p->act_min,
                               p->act_max),
                (mve_pred16_t)(0x000Fu | (o1 > oc ? 0x00F0u : 0u) |
                               (two ? 0x0F00u | (o1 > oc ? 0xF000u : 0u) : 0u)));
        }
    }
}

rt_status rt_conv2d_1x1_s8(const rt_scratch *scratch, const rt_conv_s8_params *p,
                           const rt_shape *in_s, const int8_t *in,
                           const rt_shape *w_s, const int8_t *w,
                           const rt_shape *b_s, const int32_t *bias,
                           const rt_shape *out_s, int8_t *out)
{
    rt_conv_s8_geom g;
    (void)scratch;
    RT_TRY(rt_conv_s8_geom_init(&g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(&g, p), RT_ERR_PARAM);
    pointwise(p, &g, w, bias, in, out, g.n * g.oh * g.ow);
    return RT_OK;
}
