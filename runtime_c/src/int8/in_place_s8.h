/* in_place_s8.h - depthwise int8 layers whose output the planner put over their input
 * (aot/overlap.py's declarations, planned under --overlap), by bands (internal). The
 * layer's usual kernel runs on a band of the map at a time, into the call's scratch, and each
 * band is copied home once the input bytes under it are dead. The kernels see separate
 * buffers, so every arch's paths run as they stand and give the same bytes.
 *
 * Depthwise (stride 1, multiplier 1, the output the input's shape, exactly in place): output
 * row y reads input rows from y - pad_h down by the filter's reach, so a band of r rows (r at
 * least pad_h) goes home only once the next band is computed; the scratch holds two bands.
 * The arch files whose kernel can run a layer whole in place (a group of channels' whole
 * planes read before its outputs are written) do so instead. Pointwise layers:
 * conv_1x1_in_place_s8.h. */
#ifndef RT_IN_PLACE_S8_H
#define RT_IN_PLACE_S8_H

#include <string.h>

#include "conv_s8.h"

typedef rt_status (*rt_s8_dw_kernel)(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS);

/* The checks of a depthwise layer in place: its geometry (``g``); *rows = 0 where its output
 * does not overlap its input, else the rows of a band, where the overlap is exact and the
 * scratch holds two bands (RT_ERR_PARAM, RT_ERR_SCRATCH otherwise). The arch files that run
 * some layers whole in place check these first too, so every arch gives the same status. */
static inline rt_status rt_s8_depthwise_bands_start(const rt_scratch *scratch,
                                                    const rt_conv_s8_params *p,
                                                    RT_S8_LAYER_TENSORS, rt_conv_s8_geom *g,
                                                    int32_t *rows)
{
    int32_t row;
    *rows = 0;
    RT_TRY(rt_conv_s8_geom_init(g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    if (!rt_conv_s8_over_input(g, in, out)) {
        return RT_OK;
    }
    RT_CHECK((const void *)in == (const void *)out && g->cout == g->cin && g->oh == g->h &&
                 g->ow == g->w && p->stride_h == 1 && p->stride_w == 1,
             RT_ERR_PARAM);
    row = g->w * g->cin;
    RT_CHECK(scratch != NULL && scratch->buf != NULL && row > 0, RT_ERR_SCRATCH);
    row = scratch->size / (2 * row);
    RT_CHECK(row >= 1 && row >= p->pad_h, RT_ERR_SCRATCH);
    *rows = row;
    return RT_OK;
}

/* A depthwise layer through ``kernel`` (the general one or the 3x3 one): whole where its
 * output does not overlap its input, else by bands of rows. */
static inline rt_status rt_s8_depthwise_bands(rt_s8_dw_kernel kernel, const rt_scratch *scratch,
                                              const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    rt_conv_s8_geom g;
    rt_conv_s8_params q = *p;
    rt_shape bin, bout;
    int32_t row, rows, image, y0, k;
    int8_t *slot[2];
    RT_TRY(rt_s8_depthwise_bands_start(scratch, p, in_s, in, w_s, w, b_s, bias, out_s, out, &g,
                                       &rows));
    if (rows == 0) {
        return kernel(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    row = g.w * g.cin;
    slot[0] = (int8_t *)scratch->buf;
    slot[1] = slot[0] + rows * row;
    bin = *in_s;
    bout = *out_s;
    bin.d[0] = 1;
    bout.d[0] = 1;
    for (image = 0; image < g.n; ++image) {
        const int8_t *x = in + image * g.h * row;
        int8_t *y = out + image * g.h * row;
        for (y0 = 0, k = 0; y0 < g.h; y0 += rows, ++k) {
            const int32_t y1 = g.h - y0 < rows ? g.h : y0 + rows;
            const int32_t top = y0 - p->pad_h, r0 = top > 0 ? top : 0;
            const int32_t end = y1 - 1 - p->pad_h + (g.kh - 1) * p->dilation_h + 1;
            const int32_t r1 = end < g.h ? end : g.h;
            q.pad_h = r0 - top;
            bin.d[1] = r1 - r0;
            bout.d[1] = y1 - y0;
            RT_TRY(kernel(&q, &bin, x + r0 * row, w_s, w, b_s, bias, &bout, slot[k % 2]));
            if (k > 0) {   /* the band before: no later band reads its rows */
                memcpy(y + (y0 - rows) * row, slot[(k - 1) % 2], (size_t)(rows * row));
            }
            if (y1 == g.h) {
                memcpy(y + y0 * row, slot[k % 2], (size_t)((y1 - y0) * row));
            }
        }
    }
    return RT_OK;
}

#endif /* RT_IN_PLACE_S8_H */
