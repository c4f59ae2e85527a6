/* median.c - rt_median_f32: the lower median (the element at sorted position (n - 1) / 2) over
 * the dims in dim_mask, as torch.median; NaN if the reduced elements hold one. indices (int64,
 * optional) gets the position, along the reduced dims, of an element equal to the median: the
 * first such element, or the first NaN. Torch may name another of several equal elements.
 * Selection by counting, O(n^2) compares per output and no scratch; an empty reduction is an
 * error. */
#include <math.h>

#include "../core/rt_internal.h"

static float element(const rt_reduce_geom *g, const float *base, int32_t k)
{
    return base[rt_reduce_row(g, k / g->inner) + (k % g->inner) * g->inner_st];
}

rt_status rt_median_f32(uint32_t dim_mask, const rt_shape *in_s, const float *in,
                        const rt_shape *out_s, float *out,
                        const rt_shape *idx_s, int64_t *indices)
{
    rt_reduce_geom g;
    int32_t o, j, k, n;
    RT_TRY(rt_reduce_init_pick(&g, dim_mask, in_s, in, out_s, out));
    RT_CHECK(indices == NULL || (idx_s != NULL && rt_shape_numel(idx_s) == g.n_out),
             RT_ERR_SHAPE);
    n = g.red_count;
    for (o = 0; o < g.n_out; ++o) {
        const float *base = in + rt_reduce_base(&g, o);
        int32_t pick = -1;
        for (j = 0; j < n && pick < 0; ++j) {
            if (isnan(element(&g, base, j))) {
                pick = j;
            }
        }
        for (j = 0; j < n && pick < 0; ++j) {
            const float v = element(&g, base, j);
            int32_t less = 0, equal = 0;
            for (k = 0; k < n; ++k) {
                const float u = element(&g, base, k);
                less += u < v;
                equal += u == v;
            }
            if (less <= (n - 1) / 2 && (n - 1) / 2 < less + equal) {
                pick = j;
            }
        }
        out[o] = element(&g, base, pick);
        if (indices != NULL) {
            indices[o] = pick;
        }
    }
    return RT_OK;
}
