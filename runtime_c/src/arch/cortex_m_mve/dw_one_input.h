/* dw_one_input.h (Cortex-M Helium) - depthwise over one input channel (a first layer) with
 * 16 to DW_MAT_TAPS taps: a convolution on one channel, run as conv_mve.c's gathered matrix
 * product (rt_mve_gathered). Chosen first, whatever else would take the layer. */
#ifndef RT_MVE_DW_ONE_INPUT_H
#define RT_MVE_DW_ONE_INPUT_H

#include "dw_mve.h"

/* One input channel (a first layer, say) with 16 to DW_MAT_TAPS taps: a convolution on one
 * channel, so the gathered matrix product of conv_mve.c takes it. Its filters are transposed
 * a block of up to 64 at a time (each channel's taps one row) onto the stack, so that KWS's
 * 64 filters are one block and its patches are gathered once; the taps are padded with zeros
 * to a multiple of 16 (KWS's 40 to 48) for the 4x2 tiles of conv_mve.c. An image of up to
 * DW_PAD_BYTES with its padding (KWS's 49x10 stem input) is first copied padded with the
 * zero point, so that every patch is a straight copy of its rows (most of KWS's windows
 * reach past the input: gathered one by one, they cost more than the products). */

/* Image img (one channel) into dst, ph rows of pw, from row -pad_h and column -pad_w on:
 * the zero point outside the input. */
static void pad_image(const dw_ctx *c, const int8_t *img, int32_t ph, int32_t pw, int8_t *dst)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t left = p->pad_w < pw ? p->pad_w : pw;
    const int32_t inside = c->g.w < pw - left ? c->g.w : pw - left;
    const int32_t r1 = c->g.h + p->pad_h < ph ? c->g.h + p->pad_h : ph;
    int32_t r;
    rt_mve_fill(dst, vdupq_n_s8((int8_t)(-p->input_offset)), ph * pw);   /* the padding */
    for (r = p->pad_h; r < r1 && inside > 0; ++r) {   /* then the rows inside */
        rt_mve_copy(dst + r * pw + left, img + (r - p->pad_h) * c->g.w, inside);
    }
}

static rt_status one_input(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t k = c->g.kh * c->g.kw, cout = c->g.cout, kp = rt_mve_padded_taps(k);
    const int32_t fit = DW_MAT_BYTES / kp & ~1, block = fit < 64 ? fit : 64;
    const int32_t ph = (c->g.oh - 1) * p->stride_h + (c->g.kh - 1) * p->dilation_h + 1;
    const int32_t pw = (c->g.ow - 1) * p->stride_w + (c->g.kw - 1) * p->dilation_w + 1;
    int8_t wt[DW_MAT_BYTES], patch[8 * DW_MAT_TAPS], padded[DW_PAD_BYTES];
    rt_mve_pair q[32];
    rt_conv_s8_geom g = c->g;
    rt_conv_s8_params pp = *p;
    const uint16x8_t rows = vmulq_n_u16(vidupq_n_u16(0u, 1), (uint16_t)kp);
    int32_t oc, j, t, n;
    g.n = 1;
    g.h = ph;
    g.w = pw;
    pp.pad_h = pp.pad_w = 0;
    for (oc = 0; oc < cout; oc += block) {
        const int32_t count = cout - oc < block ? cout - oc : block;
        for (t = 0; t < kp; ++t) {   /* tap t of eight filters a vector, scattered kp apart */
            for (j = 0; j + 8 <= count; j += 8) {   /* whole eights: no predicate */
                const int16x8_t v = t < k ? vldrbq_s16(c->w + t * cout + oc + j)
                                          : vdupq_n_s16(0);
                vstrbq_scatter_offset_s16(wt + j * kp + t, rows, v);
            }
            if (j < count) {
                const mve_pred16_t lanes = vctp16q((uint32_t)(count - j));
                const int16x8_t v = t < k ? vldrbq_z_s16(c->w + t * cout + oc + j, lanes)
                                          : vdupq_n_s16(0);
                vstrbq_scatter_offset_p_s16(wt + j * kp + t, rows, v, lanes);
            }
        }
        if (ph * pw > DW_PAD_BYTES) {
            RT_TRY(rt_mve_gathered(&c->g, p, in, wt, kp, c->bias, oc, count, patch,
                                   (int32_t)sizeof patch, NULL, 0, q, out));
            continue;
        }
        for (n = 0; n < c->g.n; ++n) {
            pad_image(c, in + n * c->g.h * c->g.w, ph, pw, padded);
            RT_TRY(rt_mve_gathered(&g, &pp, padded, wt, kp, c->bias, oc, count, patch,
                                   (int32_t)sizeof patch, NULL, 0, q,
                                   out + n * c->g.oh * c->g.ow * cout));
        }
    }
    return RT_OK;
}

#endif
