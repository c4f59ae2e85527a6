/* depthwise_conv_s8.c (Cortex-M Helium) - rt_depthwise_conv2d_s8: chooses a strategy by the
 * named predicates below, first that takes the layer wins:
 * - takes_one_input: one input channel, 16 to 64 taps (dw_one_input.h);
 * - takes_plane: 3x3, a whole padded plane a call (dw_plane.h; -O2);
 * - takes_gathered: 3x3, gathered taps down the columns or along lines (dw_gathered.h; -O2);
 * - takes_band: a multiplier of 1, whole windows in bands (dw_band.h);
 * - takes_pass16, takes_pass8: the channels left, 16 or 8 a pass, a pixel at a time, and
 *   any channel after those one at a time (dw_taps.h).
 * Up to about 7.3 KB of stack (the one-input strategy's; a band's 6.1 KB). Bit-exact with
 * int8/depthwise_conv_s8.c. Why each strategy and where it wins: docs/kernels/helium.md. */
/* The strategies, a file each, compiled here as one unit: gcc then sees every call of a
 * strategy's functions and what memory they touch, as the measured instruction counts need
 * (as separate files the passes' output stages, the dispatch and the gathered loops took
 * other registers and other counts). */
/* Each compiled where the build asks for it (mve_variants.h: a model's firmware takes the
 * strategies its layers do; a strategy asked for but left out returns RT_ERR_PARAM). */
#include "dw_mve.h"
#if RT_MVE_HAS(RT_MVE_U_DW_BAND)
#include "dw_taps.h"
#include "dw_band.h"
#endif
#include "dw_gathered.h"
#if RT_MVE_HAS(RT_MVE_U_DW_PLANES)
#include "dw_plane.h"
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_ONE_INPUT)
#include "dw_one_input.h"
#endif

/* One input channel with 16 to DW_MAT_TAPS taps: a convolution on one channel. (A macro: as
 * a function, inlined, it cost the dispatch other registers and instructions.) */
#define takes_one_input(g) \
    ((g).cin == 1 && (g).kh * (g).kw >= 16 && (g).kh * (g).kw <= DW_MAT_TAPS)

#if defined(__OPTIMIZE__)
/* Whether gathered taps can take the layer at all: a 3x3 filter at a multiplier of 1, no
 * dilation, a stride of 1 or 2 along its rows. */
static int32_t fits_gathered(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    return c->mult == 1 && c->g.kh == 3 && c->g.kw == 3 && p->dilation_h == 1 &&
           p->dilation_w == 1 && (p->stride_w == 1 || p->stride_w == 2);
}

/* Which way gathered taps take the layer (DW_G_LINES, DW_G_COLS, DW_G_ROWS; 0: not at all),
 * where they cost fewer instructions an output than the bands:
 * - along the columns of tall and narrow maps (16 rows or more, 7 columns or fewer) where the
 *   activation range is all of int8;
 * - down the columns at stride 1 down, on maps of four rows or more where the range is all
 *   of int8, else of eight rows or more and planes of 16 channels;
 * - else along the rows, where a row's groups of four cost less than 8 an output. */
static int32_t takes_gathered(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t ow = c->g.ow, oh = c->g.oh, bw = (ow - 1) * p->stride_w + 3;
    const int32_t full = rt_mve_full_range(p);
    if (!fits_gathered(c)) {
        return 0;
    }
    if (full && oh >= 16 && ow <= 7 && (p->stride_h == 1 || p->stride_h == 2) &&
        ((oh - 1) * p->stride_h + 3) * 48 <= RT_MVE_DW_BAND_BYTES) {
        return DW_G_LINES;
    }
    if (p->stride_h == 1 && ow >= 3 && (full ? oh >= 4 : oh >= 8 && c->g.cin >= 16) &&
        3 * 96 <= RT_MVE_DW_BAND_BYTES) {
        return DW_G_COLS;
    }
    return ow >= 4 && 23 * ((ow + 3) >> 2) + 25 < 8 * ow && bw * 48 <= RT_MVE_DW_BAND_BYTES
               ? DW_G_ROWS
               : 0;
}

/* How the whole-plane strategy takes the layer (DW_P_COLUMNS, DW_P_BLOCKS, DW_P_BLOCKS2; 0:
 * not at all): gathered taps at the same stride down as along (1, or 2 in blocks), the
 * activation range all of int8, the padded plane within its band and the outputs' offsets
 * within 16 bits. */
static int32_t takes_plane(const dw_ctx *c)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t oh = c->g.oh, ow = c->g.ow, s = p->stride_h;
    const int32_t blocks = (ow == 2 || ow == 4 || ow == 6) && (oh & 1) == 0;
    if (!fits_gathered(c) || p->stride_w != s || !rt_mve_full_range(p) ||
        7 * ow * c->g.cout > 65535) {
        return 0;
    }
    if (s == 2) {
        return blocks && 2 * (2 * oh + 1) * DW_P_ROW2 <= DW_P_BYTES ? DW_P_BLOCKS2 : 0;
    }
    if (2 * (oh + 2) * DW_P_ROW > DW_P_BYTES) {
        return 0;
    }
    if ((ow == 4 || ow == 5) && oh >= 8) {
        return DW_P_COLUMNS;
    }
    return blocks ? DW_P_BLOCKS : 0;
}
#endif

/* Exactly in place (output == input) at the input's own shape and stride 1 (where the window's
 * lag is a pixel or more, only the bands of int8/in_place_s8.h put it so), the whole planes
 * run the layer as they stand: a group's padded planes are gathered before its outputs are
 * written (dw_plane.h). No other strategy does, so rt_depthwise_conv2d_s8 then refuses the
 * layer (RT_ERR_PARAM) before writing anything, and the bands take it instead. A smaller
 * output at lag 0 (stride 2) streams as before. */
static int whole_planes(const dw_ctx *c)
{
#if defined(__OPTIMIZE__) && RT_MVE_HAS(RT_MVE_U_DW_PLANES)
    const int32_t plane = takes_one_input(c->g) ? 0 : takes_plane(c);
    return plane != 0 && RT_MVE_HAS(RT_MVE_U_DW_PLANE_AT(plane_loop(c, plane)));
#else
    (void)c;
    return 0;
#endif
}

#if RT_MVE_HAS(RT_MVE_U_DW_BAND)
/* A channel multiplier of 1: bands, as many channels as they hold. */
static int32_t takes_band(int32_t mult)
{
    return mult == 1;
}

/* 16 channels a pass: consecutive inputs (a multiplier of 1) or one input for all 16. */
static int32_t takes_pass16(int32_t mult)
{
    return mult == 1 || mult % 16 == 0;
}

/* 8 channels a pass: likewise for 8. */
static int32_t takes_pass8(int32_t mult)
{
    return mult == 1 || mult % 8 == 0;
}

/* The channels no earlier strategy took: bands, passes of 16 and of 8, then one at a time. */
static void general(const dw_ctx *c, const int8_t *in, int8_t *out)
{
    int32_t oc = 0;
    if (takes_band(c->mult)) {
        oc = banded(c, in, out);
    }
    if (takes_pass16(c->mult)) {
        while (oc + 16 <= c->g.cout) {
            const int32_t left = (c->g.cout - oc) / 16;
            const int32_t passes = left < DW_PASSES ? left : DW_PASSES;
            passes16(c, in, oc, passes, out);
            oc += 16 * passes;
        }
    }
    if (takes_pass8(c->mult)) {
        for (; oc + 8 <= c->g.cout; oc += 8) {
            pass8(c, in, oc, out);
        }
    }
    for (; oc < c->g.cout; ++oc) {
        one_channel(c, in, oc, out);
    }
}
#endif

rt_status rt_depthwise_conv2d_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    dw_ctx c;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    c.p = p;
    c.w = w;
    c.bias = bias;
    c.mult = c.g.cin > 0 ? c.g.cout / c.g.cin : 1;
    c.row = c.g.w * c.g.cin;
    c.x_step = p->dilation_w * c.g.cin;
    c.y_step = p->dilation_h * c.row;
    if ((const void *)in == (const void *)out && c.g.oh == c.g.h && c.g.ow == c.g.w &&
        p->stride_h == 1 && p->stride_w == 1 && !whole_planes(&c)) {
        return RT_ERR_PARAM;   /* in place at its own shape: the whole planes only */
    }
    if (takes_one_input(c.g)) {
#if RT_MVE_HAS(RT_MVE_U_DW_ONE_INPUT)
        return one_input(&c, in, out);
#else
        return RT_ERR_PARAM;
#endif
    }
#if defined(__OPTIMIZE__)
    /* (over the input at a lag, aot/overlap.py: the whole planes and the gathered taps, which
       go down columns or write a channel group's rows before the next group's are read, are
       left out; the bands write each channel's rows in order. Exactly in place, the whole
       planes stay: a group's padded planes are gathered before its outputs are written.) */
    const int alone = !rt_conv_s8_over_input(&c.g, in, out);
    const int32_t plane = alone || (const void *)in == (const void *)out ? takes_plane(&c) : 0;
    if (plane != 0) {
#if RT_MVE_HAS(RT_MVE_U_DW_PLANES)
        if (!RT_MVE_HAS(RT_MVE_U_DW_PLANE_AT(plane_loop(&c, plane)))) {
            return RT_ERR_PARAM;   /* (its loop left out of the build) */
        }
        gathered_plane(&c, in, out, plane);
        return RT_OK;
#else
        return RT_ERR_PARAM;
#endif
    }
    switch (alone ? takes_gathered(&c) : 0) {
    case DW_G_COLS:
#if RT_MVE_HAS(RT_MVE_U_DW_G_COLS)
        gathered_cols(&c, in, out);
        return RT_OK;
#else
        return RT_ERR_PARAM;
#endif
    case DW_G_ROWS:
#if RT_MVE_HAS(RT_MVE_U_DW_G_ROWS)
        gathered_rows(&c, in, out);
        return RT_OK;
#else
        return RT_ERR_PARAM;
#endif
    case DW_G_LINES:
#if RT_MVE_HAS(RT_MVE_U_DW_G_LINES)
        gathered_columns(&c, in, out);
        return RT_OK;
#else
        return RT_ERR_PARAM;
#endif
    default:
        break;
    }
#endif
#if RT_MVE_HAS(RT_MVE_U_DW_BAND)
    general(&c, in, out);
    return RT_OK;
#else
    return RT_ERR_PARAM;
#endif
}
