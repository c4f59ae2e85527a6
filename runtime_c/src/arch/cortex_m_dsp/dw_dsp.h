/* dw_dsp.h - what the DSP depthwise kernels share: which layers the 3x3 planes of
 * depthwise_conv_3x3_s8.c take, so that rt_depthwise_conv2d_s8 hands them those 3x3 layers
 * too (KWS's, four or five columns wide, reach it) and neither calls the other back. */
#ifndef RT_DW_DSP_H
#define RT_DW_DSP_H

#include "dsp_variants.h"
#include "s8_dsp.h"
#include "../../int8/conv_s8.h"

#define DW3_COLS 104   /* a plane row's halfwords: the padded columns four-output steps read */
#define DW3_LANES 4    /* channels widened together */
#define DW3_PLANES ((DW3_LANES * 3 + 1) * DW3_COLS)   /* the planes' halfwords (stack) */
#define DW3_FLAT (DW3_PLANES / DW3_LANES)             /* a lane's whole plane, flat mode */

/* Flat mode (stride 1, each lane's whole padded plane at once): its lines run down the
 * columns of a map taller than wide (KWS's 25x5: 144 outputs a channel, not 200 along its
 * rows), else along the rows. */
static inline int rt_dsp_dw3_tall(const rt_conv_s8_geom *g)
{
    return g->ow < g->oh;
}

/* Flat mode at stride 2 (both ways): a lane's plane holds the padded input rows an output
 * row reads, the even ones' lines (oh + 1 of them) and then the odd ones' (oh), lines of
 * 2 (ow + 1) halfwords, so that output (oy, ox) is output oy * (ow + 1) + ox of one long row
 * of stride 2 whose filter rows are the even lines', the odd lines' and the even lines' one
 * line on. Its line's halfwords; the halfwords before the odd lines. */
static inline int32_t rt_dsp_dw3_flat2_pw(const rt_conv_s8_geom *g)
{
    return 2 * (g->ow + 1);
}

static inline int32_t rt_dsp_dw3_flat2_odd(const rt_conv_s8_geom *g)
{
    return (g->oh + 1) * rt_dsp_dw3_flat2_pw(g);
}

/* Flat mode's eight-output steps a lane: over every line but the last whole, then the last's
 * outputs (at stride 2 the long row's lines are ow + 1 outputs). */
static inline int32_t rt_dsp_dw3_flat_steps(const rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                                            int32_t pw)
{
    const int32_t tall = rt_dsp_dw3_tall(g), lines = tall ? g->ow : g->oh;
    if (p->stride_w == 2) {
        return ((g->oh - 1) * (g->ow + 1) + g->ow + 7) / 8;
    }
    return ((lines - 1) * pw + (tall ? g->oh : g->ow) + 7) / 8;
}

/* Flat mode's plane lines' halfwords (a line's padded outputs, even; at stride 2
 * rt_dsp_dw3_flat2_pw), or 0 when the plane, or what its steps read (two lines and ten
 * halfwords on; at stride 2 the even lines and two halfwords past twice the steps' outputs),
 * does not fit, or the build left the mode out (dsp_variants.h). */
static inline int32_t rt_dsp_dw3_flat_pw(const rt_conv_s8_geom *g, const rt_conv_s8_params *p)
{
    const int32_t tall = rt_dsp_dw3_tall(g), lines = tall ? g->ow : g->oh;
    const int32_t pw = ((tall ? g->oh : g->ow) + 3) & ~1;
    if (RT_DSP_HAS(RT_DSP_U_DW3_ROWS) && p->stride_h == 2 && p->stride_w == 2) {
        const int32_t pw2 = rt_dsp_dw3_flat2_pw(g), odd = rt_dsp_dw3_flat2_odd(g);
        return (2 * g->oh + 1) * pw2 <= DW3_FLAT &&
                       odd + 16 * rt_dsp_dw3_flat_steps(g, p, pw2) + 2 <= DW3_FLAT
                   ? pw2 : 0;
    }
    return RT_DSP_HAS(RT_DSP_U_DW3_FLAT) && p->stride_h == 1 && p->stride_w == 1 &&
           (lines + 2) * pw <= DW3_FLAT &&
           8 * rt_dsp_dw3_flat_steps(g, p, pw) + 2 * pw + 2 <= DW3_FLAT
               ? pw : 0;
}

/* Do the planes take this 3x3 layer (rt_conv_s8_is_dw3x3): its requantization pre-scaled
 * (rt_dsp_dw_requant_fits), and either a whole padded plane in DW3_FLAT (flat mode, at
 * stride 1 or 2) or stride 1 or 2 across, rows of 8 outputs or more no wider padded than
 * DW3_COLS (ring mode), in a mode the build compiles? */
static inline int rt_dsp_dw3_takes(const rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                                   const int32_t *bias)
{
    const int32_t sw = p->stride_w;
    if (g->ow == 0 || g->oh == 0 || p->pad_w > 2) {
        return 0;
    }
    if (rt_dsp_dw3_flat_pw(g, p) == 0 &&
        (!RT_DSP_HAS(RT_DSP_U_DW3_ROWS) || g->ow < 8 || (sw != 1 && sw != 2) ||
         ((4 * ((g->ow + 3) / 4) * sw + 3) & ~1) > DW3_COLS)) {
        return 0;
    }
    return rt_dsp_dw_requant_fits(p, bias, g->cout, 9);
}

#endif /* RT_DW_DSP_H */
