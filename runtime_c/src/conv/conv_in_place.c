/* conv_in_place.c - float32 convolutions whose output the planner put exactly over their
 * input (aot/overlap.py's conv_f32, planned under --overlap). A depthwise layer of large planes
 * needs no entry: every arch's kernel reads plane by plane, so its output goes one output
 * plane below its input (aot/overlap.py's depthwise_f32).
 *
 * In NCHW a channel's plane is contiguous, so an output that starts where its input starts
 * lands each output channel on the input channel of its index:
 *   - pointwise: output (c, p) overwrites input (c, p) alone, so once every channel of a band
 *     of pixels is read, the band's outputs may go home. The arch's rt_conv2d_1x1_band_f32
 *     computes the band's outputs into the scratch from the pixels where they lie (its
 *     conv2d_1x1.c's own sums: the whole layer's bits), and they are copied home. Exact in
 *     place for one image, or for several where Cout <= Cin (image k's outputs then lie on
 *     dead bytes of images up to k).
 *   - kxk of one group, stride 1 and "same" padding: output row y of plane c lands on input
 *     row y of plane c, which the rows from y - pad_h on still read. By bands of
 *     max(1, pad_h) rows, two of them in the scratch: the arch's rt_conv2d_image_f32 computes
 *     a band's rows from the input where it lies (its rt_conv2d_f32's own sums: the whole
 *     layer's bits), then the band before goes home, over input rows no later band reads.
 *     One image, or Cout <= Cin.
 *   - any other layer of one group on one image (a strided stem): output plane c lands on
 *     whatever input rows lie at its offset, which the layer may read for long (VWW's stem:
 *     plane c on quarter c mod 4 of an input plane). A row of every channel at a time: a
 *     channel's row goes home once no later output row reads the input under it, and the
 *     rows that must wait are held in the scratch, in order (rt_conv2d_held_f32).
 *   - depthwise of multiplier 1, output planes no larger than input ones: output plane c
 *     lands on input planes up to c. The arch's kernel computes the planes in order, each
 *     from its own input plane, into the scratch (rt_conv2d_depthwise_staged_f32), and a
 *     group of them goes home once done, over input planes no later plane reads: the whole
 *     layer's planes, in one call.
 * Where the output does not overlap the input, the layer's kernel runs on it directly.
 * RT_ERR_PARAM for an overlap of another kind, RT_ERR_SCRATCH for too little scratch. */
#include <string.h>

#include "../core/rt_internal.h"

/* Whether [out, out + out_n) and [in, in + in_n) (floats) share a byte. */
static int rt_f32_overlaps(const float *in, int32_t in_n, const float *out, int32_t out_n)
{
    return rt_spans_overlap(in, (uintptr_t)in_n * sizeof(float), out,
                            (uintptr_t)out_n * sizeof(float));
}

/* ``rows`` rows of ``n`` floats from src (rows ``src_step`` apart) to dst (``dst_step``
 * apart): a band's outputs of every channel sent home. A band's rows are short
 * (RT_F32_POINTWISE_BAND), so its usual width is written out, a word at a time. */
static void rt_f32_copy_rows(float *dst, int32_t dst_step, const float *src, int32_t src_step,
                             int32_t rows, int32_t n)
{
    int32_t r, j;
    for (r = 0; r < rows; ++r, dst += dst_step, src += src_step) {
        if (n == 8) {
            const float a = src[0], b = src[1], c = src[2], d = src[3];
            const float e = src[4], f = src[5], g = src[6], h = src[7];
            dst[0] = a;
            dst[1] = b;
            dst[2] = c;
            dst[3] = d;
            dst[4] = e;
            dst[5] = f;
            dst[6] = g;
            dst[7] = h;
        } else {
            for (j = 0; j < n; ++j) {
                dst[j] = src[j];
            }
        }
    }
}

rt_status rt_conv2d_1x1_in_place_f32(const rt_scratch *scratch, const rt_conv2d_params *p,
                                     RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n, p0, hw, band;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    RT_CHECK(RT_CONV_GEOM_IS_1X1(g), RT_ERR_PARAM);
    hw = g.h * g.w;
    if (!rt_f32_overlaps(in, g.n * g.cin * hw, out, g.n * g.cout * hw)) {
        return rt_conv2d_1x1_f32(p, in_s, in, w_s, w, b_s, b, out_s, out);
    }
    RT_CHECK(in == out && (g.n == 1 || g.cout <= g.cin), RT_ERR_PARAM);
    band = hw < RT_F32_POINTWISE_BAND ? hw : RT_F32_POINTWISE_BAND;
    RT_CHECK(scratch != NULL && scratch->buf != NULL &&
                 scratch->size / (int32_t)sizeof(float) / g.cout >= band,
             RT_ERR_SCRATCH);
    for (n = 0; n < g.n; ++n) {
        const float *x = in + n * g.cin * hw;
        float *o = out + n * g.cout * hw;
        for (p0 = 0; p0 < hw; p0 += band) {
            const int32_t px = hw - p0 < band ? hw - p0 : band;
            rt_conv2d_1x1_band_f32(&g, x + p0, hw, px, w, b, (float *)scratch->buf);
            rt_f32_copy_rows(o + p0, hw, (const float *)scratch->buf, px, g.cout, px);
        }
    }
    return RT_OK;
}

rt_status rt_conv2d_depthwise_in_place_f32(const rt_scratch *scratch,
                                           const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t plane_in, plane_out;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    plane_in = g.h * g.w;
    plane_out = g.oh * g.ow;
    if (!rt_f32_overlaps(in, g.n * g.cin * plane_in, out, g.n * g.cout * plane_out)) {
        return rt_conv2d_depthwise_f32(p, in_s, in, w_s, w, b_s, b, out_s, out);
    }
    RT_CHECK(in == out && g.groups == g.cin && g.cout == g.cin && plane_out <= plane_in,
             RT_ERR_PARAM);
    RT_CHECK(scratch != NULL && scratch->buf != NULL &&
                 scratch->size / (int32_t)sizeof(float) >= plane_out,
             RT_ERR_SCRATCH);
    return rt_conv2d_depthwise_staged_f32(p, in_s, in, w_s, w, b_s, b, out_s, out,
                                          (float *)scratch->buf,
                                          scratch->size / (int32_t)sizeof(float) / plane_out);
}

/* Output rows [y0, y0 + rows) of every channel, from the band in ``o`` (cout x rows x w), home
 * into the image at ``out``. */
static void rt_f32_band_home(const rt_conv_geom *g, const float *o, int32_t y0, int32_t rows,
                             float *out)
{
    int32_t c;
    for (c = 0; c < g->cout; ++c) {
        memcpy(out + c * g->h * g->w + y0 * g->w, o + c * rows * g->w,
               (size_t)(rows * g->w) * sizeof(float));
    }
}

/* Whether output row y of channel o of g (one image, its output exactly over its input) may
 * go home once output row t is computed: the last row, or its bytes lie past the input's end
 * or above every row the next output row reads (of every channel; a row that crosses into
 * the next plane lies over the last rows of its first). aot/overlap.py's _f32_row_dead. */
static int rt_f32_row_dead(const rt_conv_geom *g, int32_t o, int32_t y, int32_t t)
{
    const int32_t hw = g->h * g->w, total = g->cin * hw;
    const int32_t a = o * g->oh * g->ow + y * g->ow;
    int32_t end, need;
    if (t == g->oh - 1 || a >= total) {
        return 1;
    }
    end = a + g->ow < total ? a + g->ow : total;
    need = (end - 1) / hw > a / hw ? g->h - 1 : (end - 1) % hw / g->w;
    return need < (t + 1) * g->sh - g->ph;
}

/* The most rows of output channel o that wait to go home: in order, each once its bytes are
 * dead, a row straight from the kernel where none waits before it. aot/overlap.py's
 * _f32_ring_rows. */
static int32_t rt_f32_ring_rows(const rt_conv_geom *g, int32_t o)
{
    int32_t first = 0, cap = 0, t;
    for (t = 0; t < g->oh; ++t) {
        if (first == t && rt_f32_row_dead(g, o, t, t)) {
            first = t + 1;
            continue;
        }
        cap = cap > t + 1 - first ? cap : t + 1 - first;
        while (first <= t && rt_f32_row_dead(g, o, first, t)) {
            ++first;
        }
    }
    return cap;
}

/* A layer of one group and one image (any stride, padding or dilation), its output exactly
 * over its input: each output row of every channel is computed into the scratch, and a
 * channel's row goes home once the input under it is dead (rt_f32_row_dead); the rows that
 * must wait are held in the channel's ring, in order. The scratch: each channel's ring
 * size and next row home (int32), a row of every channel, then the rings. x: the input,
 * which the output overwrites. */
static rt_status rt_conv2d_held_f32(const rt_scratch *scratch, rt_conv_geom *g,
                                    const float *w, const float *b, float *x)
{
    const int32_t words = scratch->size / (int32_t)sizeof(float), plane = g->oh * g->ow;
    int32_t *state = (int32_t *)scratch->buf;
    float *row, *rings;
    int32_t o, t, base, held = 0;
    RT_CHECK(words >= 2 * g->cout + g->cout * g->ow, RT_ERR_SCRATCH);
    for (o = 0; o < g->cout; ++o) {
        state[2 * o] = rt_f32_ring_rows(g, o);
        state[2 * o + 1] = 0;
        held += state[2 * o];
    }
    RT_CHECK((words - 2 * g->cout) / g->ow - g->cout >= held, RT_ERR_SCRATCH);
    row = (float *)(state + 2 * g->cout);
    rings = row + g->cout * g->ow;
    g->oplane = g->ow;
    for (t = 0; t < g->oh; ++t) {
        g->oy0 = t;
        g->oy1 = t + 1;
        rt_conv2d_image_f32(g, x, w, b, row);
        for (o = 0, base = 0; o < g->cout; base += state[2 * o], ++o) {
            const int32_t cap = state[2 * o];
            float *ring = rings + base * g->ow, *home = x + o * plane;
            const size_t bytes = (size_t)g->ow * sizeof(float);
            int32_t first = state[2 * o + 1];
            if (first == t && rt_f32_row_dead(g, o, t, t)) {
                memcpy(home + t * g->ow, row + o * g->ow, bytes);
                state[2 * o + 1] = t + 1;
                continue;
            }
            memcpy(ring + t % cap * g->ow, row + o * g->ow, bytes);
            for (; first <= t && rt_f32_row_dead(g, o, first, t); ++first) {
                memcpy(home + first * g->ow, ring + first % cap * g->ow, bytes);
            }
            state[2 * o + 1] = first;
        }
    }
    return RT_OK;
}

rt_status rt_conv2d_in_place_f32(const rt_scratch *scratch, const rt_conv2d_params *p,
                                 RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    float *bands[2];
    int32_t n, k, rows, hw, last;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    hw = g.h * g.w;
    if (!rt_f32_overlaps(in, g.n * g.cin * hw, out, g.n * g.cout * g.oh * g.ow)) {
        return rt_conv2d_f32(p, in_s, in, w_s, w, b_s, b, out_s, out);
    }
    RT_CHECK(in == out && in_s->rank == 4 && g.groups == 1, RT_ERR_PARAM);
    RT_CHECK(scratch != NULL && scratch->buf != NULL, RT_ERR_SCRATCH);
    if (g.sh != 1 || g.sw != 1 || g.oh != g.h || g.ow != g.w) {
        RT_CHECK(g.n == 1, RT_ERR_PARAM);
        return rt_conv2d_held_f32(scratch, &g, w, b, out);
    }
    RT_CHECK(g.n == 1 || g.cout <= g.cin, RT_ERR_PARAM);
    rows = g.ph > 1 ? g.ph : 1;
    rows = rows < g.h ? rows : g.h;
    RT_CHECK(scratch->size / (int32_t)sizeof(float) / 2 >= g.cout * rows * g.w, RT_ERR_SCRATCH);
    bands[0] = (float *)scratch->buf;
    bands[1] = bands[0] + g.cout * rows * g.w;
    last = (g.h - 1) / rows;
    for (n = 0; n < g.n; ++n) {
        const float *x = in + n * g.cin * hw;
        float *o = out + n * g.cout * hw;
        for (k = 0; k <= last; ++k) {
            g.oy0 = k * rows;
            g.oy1 = g.oy0 + rows < g.h ? g.oy0 + rows : g.h;
            g.oplane = (g.oy1 - g.oy0) * g.w;
            rt_conv2d_image_f32(&g, x, w, b, bands[k % 2]);
            if (k > 0) {   /* the band before: no band from here on reads under it */
                rt_f32_band_home(&g, bands[(k - 1) % 2], g.oy0 - rows, rows, o);
            }
        }
        rt_f32_band_home(&g, bands[last % 2], last * rows, g.h - last * rows, o);
    }
    return RT_OK;
}
