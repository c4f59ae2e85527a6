/* conv_geom_s8.c - the checks and the scratch size shared by the NHWC int8 convolutions (every
 * arch's rt_conv2d_s8 plans the same scratch). */
#include "conv_s8.h"

int32_t rt_conv2d_s8_scratch_size(const rt_shape *w_s)
{
    return w_s != NULL && w_s->rank == 4 ? rt_conv_s8_patch_bytes(w_s) : 0;
}

rt_status rt_conv_s8_geom_init(rt_conv_s8_geom *g, const rt_conv_s8_params *p,
                          const rt_shape *in_s, const void *in, const rt_shape *w_s,
                          const void *w, const rt_shape *b_s, const void *bias,
                          const rt_shape *out_s, const void *out, int depthwise)
{
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL && p->mult != NULL && p->shift != NULL,
             RT_ERR_NULL);
    RT_CHECK(in_s->rank == 4 && w_s->rank == 4 && out_s->rank == 4, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(w_s) >= 0 &&
             rt_shape_numel(out_s) >= 0, RT_ERR_SHAPE);
    RT_CHECK(p->stride_h >= 1 && p->stride_w >= 1 && p->dilation_h >= 1 &&
             p->dilation_w >= 1 && p->pad_h >= 0 && p->pad_w >= 0, RT_ERR_PARAM);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && p->input_offset >= -127 &&
             p->input_offset <= 128 && p->output_offset >= -128 && p->output_offset <= 127,
             RT_ERR_PARAM);
    g->n = in_s->d[0];
    g->h = in_s->d[1];
    g->w = in_s->d[2];
    g->cin = in_s->d[3];
    g->kh = w_s->d[1];
    g->kw = w_s->d[2];
    g->oh = out_s->d[1];
    g->ow = out_s->d[2];
    g->cout = out_s->d[3];
    if (depthwise) {
        RT_CHECK(w_s->d[0] == 1 && w_s->d[3] == g->cout && g->cin > 0 &&
                 g->cout % g->cin == 0, RT_ERR_SHAPE);
        g->cin_g = 1;
        g->groups = g->cin;
    } else {
        g->cin_g = w_s->d[3];
        RT_CHECK(w_s->d[0] == g->cout && g->cin_g > 0 && g->cin % g->cin_g == 0,
                 RT_ERR_SHAPE);
        g->groups = g->cin / g->cin_g;
        RT_CHECK(g->cout % g->groups == 0, RT_ERR_SHAPE);
    }
    RT_CHECK(out_s->d[0] == g->n && g->kh >= 1 && g->kw >= 1, RT_ERR_SHAPE);
    /* every output position must see at least its top-left tap inside the padded input */
    RT_CHECK(g->oh == 0 || (g->oh - 1) * p->stride_h + (g->kh - 1) * p->dilation_h <
             g->h + 2 * p->pad_h + p->stride_h, RT_ERR_SHAPE);
    RT_CHECK(g->ow == 0 || (g->ow - 1) * p->stride_w + (g->kw - 1) * p->dilation_w <
             g->w + 2 * p->pad_w + p->stride_w, RT_ERR_SHAPE);
    RT_CHECK(bias == NULL || (b_s != NULL && rt_shape_numel(b_s) == g->cout), RT_ERR_SHAPE);
    return RT_OK;
}
