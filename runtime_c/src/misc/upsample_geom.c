/* upsample_geom.c - the NCHW geometry shared by rt_upsample_nearest2d_f32 and
 * rt_upsample_bilinear2d_f32: planes, input and output sizes, and the scales (in / out where
 * the caller gives none, scale <= 0). */
#include "../core/rt_internal.h"

rt_status rt_upsample_geom_init(rt_upsample_geom *g, float scale_h, float scale_w,
                                const rt_shape *in_s, const float *in,
                                const rt_shape *out_s, const float *out)
{
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(out_s) >= 0 &&
             in_s->d[0] == out_s->d[0] && in_s->d[1] == out_s->d[1], RT_ERR_SHAPE);
    g->planes = in_s->d[0] * in_s->d[1];
    g->ih = in_s->d[2];
    g->iw = in_s->d[3];
    g->oh = out_s->d[2];
    g->ow = out_s->d[3];
    RT_CHECK((g->ih > 0 && g->iw > 0) || g->planes * g->oh * g->ow == 0, RT_ERR_SHAPE);
    g->scale_h = scale_h > 0.0f ? scale_h : (float)g->ih / (float)g->oh;
    g->scale_w = scale_w > 0.0f ? scale_w : (float)g->iw / (float)g->ow;
    return RT_OK;
}
