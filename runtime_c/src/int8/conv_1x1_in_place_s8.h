/* conv_1x1_in_place_s8.h - a pointwise int8 layer whose output the planner put over its input
 * (aot/overlap.py, under --overlap), by bands of pixels (internal; what every arch's
 * rt_conv2d_1x1_in_place_s8 shares). Output pixel i reads input pixel i only, so a band
 * computed into the scratch goes home at once: the planner keeps the output at least
 * max(Cout - Cin, P * (Cout - Cin)) bytes below the input, so a band lands on input already
 * read. The kernels see separate buffers and give the same bytes. */
#ifndef RT_CONV_1X1_IN_PLACE_S8_H
#define RT_CONV_1X1_IN_PLACE_S8_H

#include <string.h>

#include "conv_s8.h"

/* Bands of k pixels of the layer g from in to out (over it) land on input already read: the
 * first band's end and the last's, between which the margin is linear. */
static inline int rt_s8_pointwise_band_fits(const rt_conv_s8_geom *g, const int8_t *in,
                                            const int8_t *out, int32_t k)
{
    const int32_t pixels = g->n * g->oh * g->ow;
    return (uintptr_t)out + (uintptr_t)(k * g->cout) <= (uintptr_t)in + (uintptr_t)(k * g->cin) &&
           (uintptr_t)out + (uintptr_t)(pixels * g->cout) <=
               (uintptr_t)in + (uintptr_t)(pixels * g->cin);
}

/* The checks of rt_conv2d_1x1_in_place_s8: the layer's geometry (``g``), pointwise; where the
 * output does not overlap the input, the whole layer through rt_conv2d_1x1_s8 and *band = 0;
 * else *band, the pixels a band (scratch->size / Cout, at most the layer's), where the
 * scratch holds one and every band lands on input already read (rt_s8_pointwise_band_fits). */
static inline rt_status rt_s8_pointwise_start(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS,
                                              rt_conv_s8_geom *g, int32_t *band)
{
    int32_t pixels, k;
    *band = 0;
    RT_TRY(rt_conv_s8_geom_init(g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 0));
    RT_CHECK(rt_conv_s8_is_pointwise(g, p), RT_ERR_PARAM);
    if (!rt_conv_s8_over_input(g, in, out)) {
        return rt_conv2d_1x1_s8(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    pixels = g->n * g->oh * g->ow;
    RT_CHECK(scratch != NULL && scratch->buf != NULL && g->cout > 0, RT_ERR_SCRATCH);
    k = scratch->size / g->cout;
    RT_CHECK(k >= 1, RT_ERR_SCRATCH);
    k = k < pixels ? k : pixels;
    RT_CHECK(rt_s8_pointwise_band_fits(g, in, out, k), RT_ERR_PARAM);
    *band = k;
    return RT_OK;
}

/* ``pixels`` pixels from ``in`` to ``out`` (over it), ``band`` at a time through
 * rt_conv2d_1x1_s8 into the scratch. */
static inline rt_status rt_s8_pointwise_bands(const rt_scratch *scratch,
                                              const rt_conv_s8_params *p,
                                              const rt_conv_s8_geom *g, const rt_shape *w_s,
                                              const int8_t *w, const rt_shape *b_s,
                                              const int32_t *bias, const int8_t *in,
                                              int8_t *out, int32_t pixels, int32_t band)
{
    rt_shape bin = {4, {1, 1, 0, 0}}, bout = {4, {1, 1, 0, 0}};
    int32_t i;
    bin.d[3] = g->cin;
    bout.d[3] = g->cout;
    for (i = 0; i < pixels; i += band) {
        const int32_t k = pixels - i < band ? pixels - i : band;
        bin.d[2] = k;
        bout.d[2] = k;
        RT_TRY(rt_conv2d_1x1_s8(NULL, p, &bin, in + i * g->cin, w_s, w, b_s, bias, &bout,
                                (int8_t *)scratch->buf));
        memcpy(out + i * g->cout, scratch->buf, (size_t)(k * g->cout));
    }
    return RT_OK;
}

#endif /* RT_CONV_1X1_IN_PLACE_S8_H */
