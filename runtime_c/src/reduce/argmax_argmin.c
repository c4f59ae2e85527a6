/* argmax_argmin.c - rt_argmax_f32 / rt_argmin_f32: the index of the largest / smallest element
 * over the dims in dim_mask (one dim, or all of them for the flattened index), as int64.
 * The first one wins a tie and the first NaN beats every number, as in PyTorch; an empty
 * reduction is an error. */
#include <math.h>

#include "../core/rt_internal.h"

static rt_status arg_extreme(int want_max, uint32_t dim_mask, const rt_shape *in_s,
                             const float *in, const rt_shape *out_s, int64_t *out)
{
    rt_reduce_geom g;
    int32_t o, j, i;
    RT_TRY(rt_reduce_init_pick(&g, dim_mask, in_s, in, out_s, out));
    for (o = 0; o < g.n_out; ++o) {
        const float *base = in + rt_reduce_base(&g, o);
        float m = 0.0f;
        int32_t best = -1, k = 0;
        for (j = 0; j < g.red_rows; ++j) {
            const float *row = base + rt_reduce_row(&g, j);
            for (i = 0; i < g.inner; ++i, ++k) {
                const float v = row[i * g.inner_st];
                if (best >= 0 && isnan(m)) {
                    break;                              /* a NaN already won */
                }
                if (best < 0 || isnan(v) || (want_max ? v > m : v < m)) {
                    m = v;
                    best = k;
                }
            }
        }
        out[o] = best;
    }
    return RT_OK;
}

rt_status rt_argmax_f32(uint32_t dim_mask, const rt_shape *in_s,
                        const float *in, const rt_shape *out_s, int64_t *out)
{
    return arg_extreme(1, dim_mask, in_s, in, out_s, out);
}

rt_status rt_argmin_f32(uint32_t dim_mask, const rt_shape *in_s,
                        const float *in, const rt_shape *out_s, int64_t *out)
{
    return arg_extreme(0, dim_mask, in_s, in, out_s, out);
}
