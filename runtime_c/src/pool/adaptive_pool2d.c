/* adaptive_pool2d.c - adaptive pooling over [N, C, H, W] or [C, H, W]: output cell (oy, ox)
 * covers input rows floor(oy * H / OH) .. ceil((oy + 1) * H / OH) - 1, and likewise columns,
 * so any output size works (cells overlap when it does not divide the input).
 *   rt_adaptive_avg_pool2d_f32: the mean of the cell;
 *   rt_adaptive_max_pool2d_f32: its largest element and, when indices is given, that
 *       element's flat index y * W + x as int64. As torch: the first maximum wins, NaN
 *       propagates, and among NaNs the last one's index is given. */
#include <math.h>

#include "../core/rt_internal.h"

static int32_t cell_start(int32_t o, int32_t in, int32_t out)
{
    return (int32_t)(((int64_t)o * in) / out);
}

static int32_t cell_end(int32_t o, int32_t in, int32_t out)
{
    return (int32_t)(((int64_t)(o + 1) * in + out - 1) / out);
}

static rt_status geometry(const rt_shape *in_s, const rt_shape *out_s, int32_t *planes,
                          int32_t *ih, int32_t *iw, int32_t *oh, int32_t *ow)
{
    const int32_t r = in_s->rank;
    int32_t k;
    RT_CHECK((r == 3 || r == 4) && out_s->rank == r, RT_ERR_RANK);
    for (k = 0; k < r - 2; ++k) {
        RT_CHECK(in_s->d[k] == out_s->d[k], RT_ERR_SHAPE);
    }
    *planes = rt_dims_prod(in_s, 0, r - 2);
    *ih = in_s->d[r - 2];
    *iw = in_s->d[r - 1];
    *oh = out_s->d[r - 2];
    *ow = out_s->d[r - 1];
    RT_CHECK(*planes >= 0 && *oh >= 0 && *ow >= 0, RT_ERR_SHAPE);
    RT_CHECK((*ih > 0 && *iw > 0) || *planes * *oh * *ow == 0, RT_ERR_SHAPE);
    return RT_OK;
}

rt_status rt_adaptive_avg_pool2d_f32(RT_F32_UNARY_TENSORS)
{
    int32_t planes, ih, iw, oh, ow, c, oy, ox, y, x;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(geometry(in_s, out_s, &planes, &ih, &iw, &oh, &ow));
    for (c = 0; c < planes; ++c) {
        const float *ip = in + c * ih * iw;
        for (oy = 0; oy < oh; ++oy) {
            const int32_t y0 = cell_start(oy, ih, oh), y1 = cell_end(oy, ih, oh);
            for (ox = 0; ox < ow; ++ox) {
                const int32_t x0 = cell_start(ox, iw, ow), x1 = cell_end(ox, iw, ow);
                float sum = 0.0f;
                for (y = y0; y < y1; ++y) {
                    for (x = x0; x < x1; ++x) {
                        sum += ip[y * iw + x];
                    }
                }
                *out++ = sum / (float)((y1 - y0) * (x1 - x0));
            }
        }
    }
    return RT_OK;
}

rt_status rt_adaptive_max_pool2d_f32(const rt_shape *in_s, const float *in,
                                     const rt_shape *out_s, float *out,
                                     const rt_shape *idx_s, int64_t *indices)
{
    int32_t planes, ih, iw, oh, ow, c, oy, ox, y, x;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(geometry(in_s, out_s, &planes, &ih, &iw, &oh, &ow));
    RT_CHECK(indices == NULL || (idx_s != NULL &&
                                 rt_shape_numel(idx_s) == rt_shape_numel(out_s)), RT_ERR_SHAPE);
    for (c = 0; c < planes; ++c) {
        const float *ip = in + c * ih * iw;
        for (oy = 0; oy < oh; ++oy) {
            const int32_t y0 = cell_start(oy, ih, oh), y1 = cell_end(oy, ih, oh);
            for (ox = 0; ox < ow; ++ox) {
                const int32_t x0 = cell_start(ox, iw, ow), x1 = cell_end(ox, iw, ow);
                int32_t best = y0 * iw + x0;
                for (y = y0; y < y1; ++y) {
                    for (x = x0; x < x1; ++x) {
                        const float v = ip[y * iw + x];
                        if (v > ip[best] || isnan(v)) {
                            best = y * iw + x;
                        }
                    }
                }
                *out++ = ip[best];
                if (indices != NULL) {
                    *indices++ = best;
                }
            }
        }
    }
    return RT_OK;
}
