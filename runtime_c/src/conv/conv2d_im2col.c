/* conv2d_im2col.c - rt_conv2d_im2col_f32: same contract as rt_conv2d_f32.
 * For each output pixel it gathers the input patch (Cin/g * KH * KW floats,
 * zeros for padding) into scratch once, then takes a contiguous dot product
 * with every filter of the group. */
#include "../core/rt_internal.h"

int32_t rt_conv2d_im2col_f32_scratch_size(const rt_conv2d_params *p,
                                          const rt_shape *in_s,
                                          const rt_shape *w_s)
{
    (void)p;
    (void)in_s;
    if (w_s == NULL || w_s->rank < 3 || w_s->rank > 4) {
        return 0;
    }
    return w_s->d[1] * (w_s->rank == 4 ? w_s->d[2] : 1) *
           w_s->d[w_s->rank - 1] * (int32_t)sizeof(float);
}

/* Gather the patch feeding output pixel (oy, ox) of group grp. */
static void gather_patch(const rt_conv_geom *g, const float *in_n,
                         int32_t grp, int32_t oy, int32_t ox, float *col)
{
    int32_t c, ky, kx;
    for (c = 0; c < g->cin_g; ++c) {
        const float *ip = in_n + (grp * g->cin_g + c) * g->h * g->w;
        for (ky = 0; ky < g->kh; ++ky) {
            const int32_t y = oy * g->sh - g->ph + ky * g->dh;
            for (kx = 0; kx < g->kw; ++kx) {
                const int32_t x = ox * g->sw - g->pw + kx * g->dw;
                const int inside = y >= 0 && y < g->h && x >= 0 && x < g->w;
                *col++ = inside ? ip[y * g->w + x] : 0.0f;
            }
        }
    }
}

rt_status rt_conv2d_im2col_f32(const rt_scratch *scratch,
                               const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    float *col;
    int32_t len, n, grp, oy, ox, oc, i;
    RT_CHECK(scratch != NULL && scratch->buf != NULL && p != NULL &&
             in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_conv2d_geom(&g, p, in_s, w_s, b_s, b, out_s));
    RT_CHECK(scratch->size >= rt_conv2d_im2col_f32_scratch_size(p, in_s, w_s),
             RT_ERR_SCRATCH);
    col = (float *)scratch->buf;
    len = g.cin_g * g.kh * g.kw;
    for (n = 0; n < g.n; ++n) {
        const float *in_n = in + n * g.cin * g.h * g.w;
        float *out_n = out + n * g.cout * g.oh * g.ow;
        for (grp = 0; grp < g.groups; ++grp) {
            for (oy = 0; oy < g.oh; ++oy) {
                for (ox = 0; ox < g.ow; ++ox) {
                    gather_patch(&g, in_n, grp, oy, ox, col);
                    for (oc = grp * g.cout_g; oc < (grp + 1) * g.cout_g; ++oc) {
                        const float *wp = w + oc * len;
                        float acc = 0.0f;
                        for (i = 0; i < len; ++i) {
                            acc = rt_mac_f32(acc, col[i], wp[i]);
                        }
                        out_n[(oc * g.oh + oy) * g.ow + ox] =
                            rt_act(acc + (b != NULL ? b[oc] : 0.0f), g.lo, g.hi);
                    }
                }
            }
        }
    }
    return RT_OK;
}
