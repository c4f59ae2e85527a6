/* pool_geom.c - shape/param validation shared by the pool2d kernels. */
#include "../core/rt_internal.h"

/* PyTorch: padding at most half the kernel size (dilation not counted). */
static int pad_ok(int32_t pad, int32_t k)
{
    return pad >= 0 && pad <= k / 2;
}

rt_status rt_pool2d_shapes(const rt_pool2d_params *p, const rt_shape *in_s,
                           const rt_shape *out_s, int32_t *planes,
                           int32_t *ih, int32_t *iw, int32_t *oh, int32_t *ow)
{
    const int32_t r = in_s->rank;
    RT_CHECK(r == 3 || r == 4, RT_ERR_RANK);
    RT_CHECK(out_s->rank == r, RT_ERR_RANK);
    RT_CHECK(p->kernel_h >= 1 && p->kernel_w >= 1 && p->stride_h >= 1 &&
             p->stride_w >= 1 && p->dilation_h >= 1 && p->dilation_w >= 1,
             RT_ERR_PARAM);
    RT_CHECK(pad_ok(p->pad_h, p->kernel_h) && pad_ok(p->pad_w, p->kernel_w),
             RT_ERR_PARAM);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(out_s) >= 0 &&
             in_s->d[0] == out_s->d[0] && (r == 3 || in_s->d[1] == out_s->d[1]),
             RT_ERR_SHAPE);
    *planes = rt_dims_prod(in_s, 0, r - 2);
    *ih = in_s->d[r - 2];
    *iw = in_s->d[r - 1];
    *oh = out_s->d[r - 2];
    *ow = out_s->d[r - 1];
    RT_CHECK(*oh == rt_pool_out_size(*ih, p->kernel_h, p->stride_h, p->pad_h,
                                     p->dilation_h, p->ceil_mode) &&
             *ow == rt_pool_out_size(*iw, p->kernel_w, p->stride_w, p->pad_w,
                                     p->dilation_w, p->ceil_mode) &&
             *oh >= 1 && *ow >= 1,
             RT_ERR_SHAPE);
    return RT_OK;
}
