/* conv_geom.c - shape/param validation shared by the conv2d kernels. */
#include "../core/rt_internal.h"

rt_status rt_conv2d_geom(rt_conv_geom *g, const rt_conv2d_params *p,
                         const rt_shape *in_s, const rt_shape *w_s,
                         const rt_shape *b_s, const float *b,
                         const rt_shape *out_s)
{
    const int32_t r = in_s->rank;
    const int one_d = r == 3;
    RT_CHECK(r == 3 || r == 4, RT_ERR_RANK);
    RT_CHECK(w_s->rank == r && out_s->rank == r, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(w_s) >= 0 &&
             rt_shape_numel(out_s) >= 0,
             RT_ERR_SHAPE);
    g->n = in_s->d[0];
    g->cin = in_s->d[1];
    g->h = one_d ? 1 : in_s->d[2];
    g->w = in_s->d[r - 1];
    g->cout = w_s->d[0];
    g->kh = one_d ? 1 : w_s->d[2];
    g->kw = w_s->d[r - 1];
    g->oh = one_d ? 1 : out_s->d[2];
    g->ow = out_s->d[r - 1];
    g->sh = one_d ? 1 : p->stride_h;
    g->sw = p->stride_w;
    g->ph = one_d ? 0 : p->pad_h;
    g->pw = p->pad_w;
    g->dh = one_d ? 1 : p->dilation_h;
    g->dw = p->dilation_w;
    g->groups = p->groups;
    g->lo = rt_act_lo(&p->act);
    g->hi = rt_act_hi(&p->act);
    RT_CHECK(g->sh >= 1 && g->sw >= 1 && g->ph >= 0 && g->pw >= 0 &&
             g->dh >= 1 && g->dw >= 1 && g->groups >= 1,
             RT_ERR_PARAM);
    RT_CHECK(g->cin % g->groups == 0 && g->cout % g->groups == 0,
             RT_ERR_SHAPE);
    g->cin_g = g->cin / g->groups;
    g->cout_g = g->cout / g->groups;
    RT_CHECK(w_s->d[1] == g->cin_g && out_s->d[0] == g->n &&
             out_s->d[1] == g->cout && g->kh >= 1 && g->kw >= 1,
             RT_ERR_SHAPE);
    RT_CHECK(g->oh == rt_pool_out_size(g->h, g->kh, g->sh, g->ph, g->dh, 0) &&
             g->ow == rt_pool_out_size(g->w, g->kw, g->sw, g->pw, g->dw, 0) &&
             g->oh >= 1 && g->ow >= 1,
             RT_ERR_SHAPE);
    RT_CHECK((b_s == NULL) == (b == NULL), RT_ERR_NULL);
    RT_CHECK(b == NULL || rt_shape_numel(b_s) == g->cout, RT_ERR_SHAPE);
    g->oy0 = 0;
    g->oy1 = g->oh;
    g->oplane = g->oh * g->ow;
    return RT_OK;
}
