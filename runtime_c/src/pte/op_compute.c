/* op_compute.c - interpreter adapters of the float32 compute ops: convolution (and
 * transposed), pooling (max, avg), upsampling and padding (constant, reflection,
 * replication). (Reductions, softmax, batch_norm and layer_norm (aot/ops_reduce.py), matrix
 * products, embedding and adaptive pooling (aot/ops_compute.py) are call specs: their
 * adapters are generated.)
 *
 * Each adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py, same name) and calls the same kernel
 * with the same parameters, so the results are bit for bit the static C's. A renderer's
 * ctx.invalid is RT_ERR_PTE_ARGS here, ctx.unsupported RT_ERR_PTE_UNSUPPORTED, a tensor of a
 * dtype the kernel does not take RT_ERR_PTE_DTYPE. Arguments the renderer does not read are
 * still decoded (their kind checked), as the Program check (aot/calls.py) does. The
 * preconditions their ops declare in aot/ops.py (conv_geometry_fits, pool_geometry_fits,
 * resample_scale_fits) are checked at load by op_checks.h, after the adapter's own checks;
 * the kernels rely on them.
 */
#include <stdint.h>
#include <string.h>

#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"
#include "rt_pte.h"
#include "rt_pte_args.h"
#include "op_checks.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_convolution_out(const rt_pte_call *c);
rt_status rt_op_aten_max_pool2d_with_indices_out(const rt_pte_call *c);
rt_status rt_op_aten_avg_pool2d_out(const rt_pte_call *c);
rt_status rt_op_aten_upsample_nearest2d_vec_out(const rt_pte_call *c);
rt_status rt_op_aten_upsample_bilinear2d_vec_out(const rt_pte_call *c);
rt_status rt_op_aten_reflection_pad1d_out(const rt_pte_call *c);
rt_status rt_op_aten_replication_pad1d_out(const rt_pte_call *c);
rt_status rt_op_aten_reflection_pad2d_out(const rt_pte_call *c);
rt_status rt_op_aten_replication_pad2d_out(const rt_pte_call *c);
rt_status rt_op_aten_reflection_pad3d_out(const rt_pte_call *c);
rt_status rt_op_aten_replication_pad3d_out(const rt_pte_call *c);
rt_status rt_op_aten_constant_pad_nd_out(const rt_pte_call *c);

#define F32 ((int32_t)RT_DTYPE_F32)
#define I64 ((int32_t)RT_DTYPE_I64)
#define ANY ((int32_t)-1)
#define I32_MIN ((int64_t)INT32_MIN)
#define I32_MAX ((int64_t)INT32_MAX)

/* ---- argument helpers (context.py's accessors) ------------------------------------------ */

/* An int list or None. */
static rt_status check_opt_ints(const rt_pte_call *c, int32_t i)
{
    int32_t n;
    if (rt_pte_arg_is_none(c, i)) {
        return RT_OK;
    }
    return rt_pte_arg_ints_in(c, i, INT64_MIN, INT64_MAX, NULL, 0, &n);
}

/* ---- convolution ------------------------------------------------------------------------- */

/* A conv parameter given for 1 or `spatial` dims, as [h, w]; 1-D runs as H = 1 with `unit`. */
static rt_status spatial_arg(const rt_pte_call *c, int32_t i, int64_t lo, int32_t spatial,
                             int32_t unit, int32_t v[2])
{
    int32_t n;
    RT_TRY(rt_pte_arg_ints_in(c, i, lo, I32_MAX, v, 2, &n));
    if (n != 1 && n != spatial) {
        return RT_ERR_PTE_ARGS;
    }
    if (spatial == 1) {
        v[1] = v[0];
        v[0] = unit;
    } else if (n == 1) {
        v[1] = v[0];
    }
    return RT_OK;
}

/* conv_geometry_fits of an NCHW convolution (a 1-D one as H = 1: its parameters' H entries the
 * unit values spatial_arg gives), kernels.py _conv_geometry. */
static rt_status conv_geometry(const rt_pte_tensor *x, const rt_pte_tensor *w,
                               const rt_pte_tensor *out, const int32_t s[2], const int32_t pad[2],
                               const int32_t d[2], int32_t groups, const int32_t *out_pad)
{
    op_conv_geometry g;
    const int32_t r = x->shape.rank;
    memset(&g, 0, sizeof g);
    g.h.in = r == 4 ? x->shape.d[2] : 1;
    g.h.k = r == 4 ? w->shape.d[2] : 1;
    g.h.out = r == 4 ? out->shape.d[2] : 1;
    g.h.stride = s[0];
    g.h.pad = pad[0];
    g.h.dil = d[0];
    g.w.in = x->shape.d[r - 1];
    g.w.k = w->shape.d[r - 1];
    g.w.out = out->shape.d[r - 1];
    g.w.stride = s[1];
    g.w.pad = pad[1];
    g.w.dil = d[1];
    g.batch = x->shape.d[0];
    g.cin = x->shape.d[1];
    g.cout = out->shape.d[1];
    g.groups = groups;
    if (out_pad != NULL) {
        g.transposed = 1;
        g.out_pad_h = out_pad[0];
        g.out_pad_w = out_pad[1];
    }
    return op_pre_conv_geometry_fits(&g);
}

/* convolution with transposed=True (kernels.py conv_transpose). */
typedef rt_status (*conv_transpose_fn)(const rt_conv_transpose2d_params *p, RT_F32_LAYER_TENSORS);

static rt_status conv_transpose(const rt_pte_call *c, const rt_pte_tensor *x,
                                const rt_pte_tensor *w, const rt_pte_tensor *out,
                                int32_t spatial)
{
    conv_transpose_fn fn;
    rt_conv_transpose2d_params p;
    rt_pte_tensor b;
    int32_t s[2], pad[2], op[2], d[2], k;
    RT_TRY(spatial_arg(c, 3, 1, spatial, 1, s));
    RT_TRY(spatial_arg(c, 4, 0, spatial, 0, pad));
    RT_TRY(spatial_arg(c, 7, 0, spatial, 0, op));
    RT_TRY(spatial_arg(c, 5, 1, spatial, 1, d));
    memset(&p, 0, sizeof p);
    RT_TRY(rt_pte_arg_int32_in(c, 8, 1, I32_MAX, &p.groups));
    for (k = 0; k < 2; k++) {
        if (op[k] >= (s[k] > d[k] ? s[k] : d[k])) {
            return RT_ERR_PTE_ARGS;
        }
    }
    /* The static C fuses no activation into a transposed convolution. */
    if (c->act.on) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    p.stride_h = s[0];
    p.stride_w = s[1];
    p.pad_h = pad[0];
    p.pad_w = pad[1];
    p.out_pad_h = op[0];
    p.out_pad_w = op[1];
    p.dilation_h = d[0];
    p.dilation_w = d[1];
    RT_TRY(rt_pte_arg_opt_tensor(c, 2, F32, &b));
    fn = (conv_transpose_fn)rt_pte_variant(c, 3);
    if (fn == NULL) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    if (c->check) {
        return conv_geometry(x, w, out, s, pad, d, p.groups, op);
    }
    return fn(&p, &x->shape, (const float *)x->data, &w->shape, (const float *)w->data,
              RT_PTE_SHAPE(&b), (const float *)b.data, &out->shape, (float *)out->data);
}

typedef rt_status (*conv_fn)(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS);

/* aten::convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
 * output_padding, groups, *, out) */
rt_status rt_op_aten_convolution_out(const rt_pte_call *c)
{
    rt_pte_tensor x, w, b, out;
    rt_conv2d_params p;
    int32_t transposed, spatial, s[2], pad[2], d[2], k, pointwise;
    int32_t n_opad;
    conv_fn fn;
    RT_TRY(rt_pte_arg_tensor(c, 0, F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 1, F32, &w));
    RT_TRY(rt_pte_arg_tensor(c, 9, F32, &out));
    RT_TRY(rt_pte_arg_bool(c, 6, &transposed));
    spatial = x.shape.rank - 2;
    if ((spatial != 1 && spatial != 2) || w.shape.rank != x.shape.rank ||
        out.shape.rank != x.shape.rank) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    if (transposed) {
        return conv_transpose(c, &x, &w, &out, spatial);
    }
    RT_TRY(spatial_arg(c, 3, 1, spatial, 1, s));
    RT_TRY(spatial_arg(c, 4, 0, spatial, 0, pad));
    RT_TRY(spatial_arg(c, 5, 1, spatial, 1, d));
    /* output_padding: ints in int32's range, all 0 (else invalid either way) */
    RT_TRY(rt_pte_arg_ints_in(c, 7, 0, 0, NULL, 0, &n_opad));
    memset(&p, 0, sizeof p);
    RT_TRY(rt_pte_arg_int32_in(c, 8, 1, I32_MAX, &p.groups));
    p.stride_h = s[0];
    p.stride_w = s[1];
    p.pad_h = pad[0];
    p.pad_w = pad[1];
    p.dilation_h = d[0];
    p.dilation_w = d[1];
    if (c->act.on) {
        p.act = c->act;
    }
    /* _conv_variant: pointwise, depthwise or the general kernel. */
    pointwise = p.groups == 1 && s[0] == 1 && s[1] == 1 && pad[0] == 0 && pad[1] == 0;
    for (k = 2; k < w.shape.rank; k++) {
        pointwise = pointwise && w.shape.d[k] == 1;
    }
    /* The kernels this firmware links (aot/interpreter.py VARIANTS): general, pointwise,
     * depthwise, transposed. A variant the table leaves out is one no program calls. */
    fn = (conv_fn)rt_pte_variant(c, pointwise ? 1 : (p.groups > 1 && p.groups == x.shape.d[1]
                                                     ? 2 : 0));
    if (fn == NULL) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    RT_TRY(rt_pte_arg_opt_tensor(c, 2, F32, &b));
    if (c->check) {
        return conv_geometry(&x, &w, &out, s, pad, d, p.groups, NULL);
    }
    return fn(&p, &x.shape, (const float *)x.data, &w.shape, (const float *)w.data,
              RT_PTE_SHAPE(&b), (const float *)b.data, &out.shape, (float *)out.data);
}

/* ---- pooling ------------------------------------------------------------------------------ */

/* kernels.py _pair: a pooling parameter given for one or two dims ([] takes def; def NULL:
 * none, the call is refused), as [h, w]. */
static rt_status pool_pair(const rt_pte_call *c, int32_t i, int64_t lo, const int32_t *def,
                           int32_t v[2])
{
    int32_t n;
    RT_TRY(rt_pte_arg_ints_in(c, i, lo, I32_MAX, v, 2, &n));
    if (n == 0) {
        if (def == NULL) {
            return RT_ERR_PTE_ARGS;
        }
        v[0] = def[0];
        v[1] = def[1];
    } else if (n == 1) {
        v[1] = v[0];
    }
    return RT_OK;
}

/* pool_geometry_fits of an NCHW (or CHW) pooling (kernels.py _pool_geometry): out of x's rank
 * (else RT_ERR_PTE_ARGS). */
static rt_status pool_geometry(const rt_pte_tensor *x, const rt_pte_tensor *out,
                               const rt_pool2d_params *p, int32_t average)
{
    op_pool_geometry g;
    const int32_t r = x->shape.rank;
    if (out->shape.rank != r) {
        return RT_ERR_PTE_ARGS;
    }
    g.h.in = x->shape.d[r - 2];
    g.h.k = p->kernel_h;
    g.h.stride = p->stride_h;
    g.h.pad = p->pad_h;
    g.h.dil = p->dilation_h;
    g.h.out = out->shape.d[r - 2];
    g.w.in = x->shape.d[r - 1];
    g.w.k = p->kernel_w;
    g.w.stride = p->stride_w;
    g.w.pad = p->pad_w;
    g.w.dil = p->dilation_w;
    g.w.out = out->shape.d[r - 1];
    g.batch = r == 4 ? x->shape.d[0] : 1;
    g.channels = x->shape.d[r - 3];
    g.ceil_mode = p->ceil_mode;
    g.average = average;
    return op_pre_pool_geometry_fits(&g);
}

/* The pooling input: float32, rank 3 or 4. */
static rt_status pool_input(const rt_pte_call *c, int32_t i, rt_pte_tensor *x)
{
    RT_TRY(rt_pte_arg_tensor(c, i, F32, x));
    if (x->shape.rank != 3 && x->shape.rank != 4) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    return RT_OK;
}

/* aten::max_pool2d_with_indices.out(self, kernel_size, stride, padding, dilation, ceil_mode,
 * *, out, indices) */
rt_status rt_op_aten_max_pool2d_with_indices_out(const rt_pte_call *c)
{
    static const int32_t zeros[2] = {0, 0}, ones[2] = {1, 1};
    rt_pte_tensor x, out, idx;
    rt_pool2d_params p;
    int32_t k[2], s[2], pad[2], d[2], ceil_mode;
    RT_TRY(pool_input(c, 0, &x));
    RT_TRY(pool_pair(c, 1, 1, NULL, k));
    RT_TRY(pool_pair(c, 2, 1, k, s));
    RT_TRY(pool_pair(c, 3, 0, zeros, pad));
    RT_TRY(pool_pair(c, 4, 1, ones, d));
    RT_TRY(rt_pte_arg_bool(c, 5, &ceil_mode));
    RT_TRY(rt_pte_arg_tensor(c, 6, F32, &out));
    RT_TRY(rt_pte_arg_tensor(c, 7, I64, &idx));
    memset(&p, 0, sizeof p);
    p.kernel_h = k[0];
    p.kernel_w = k[1];
    p.stride_h = s[0];
    p.stride_w = s[1];
    p.pad_h = pad[0];
    p.pad_w = pad[1];
    p.dilation_h = d[0];
    p.dilation_w = d[1];
    p.ceil_mode = ceil_mode ? 1 : 0;
    p.count_include_pad = 0;
    p.divisor_override = 0;
    if (c->check) {
        return pool_geometry(&x, &out, &p, 0);
    }
    return rt_max_pool2d_f32(&p, &x.shape, (const float *)x.data, &out.shape,
                             (float *)out.data, &idx.shape, (int64_t *)idx.data);
}

/* aten::avg_pool2d.out(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
 * divisor_override?, *, out) */
rt_status rt_op_aten_avg_pool2d_out(const rt_pte_call *c)
{
    static const int32_t zeros[2] = {0, 0};
    rt_pte_tensor x, out;
    rt_pool2d_params p;
    int32_t k[2], s[2], pad[2], ceil_mode, include, div = 0;
    RT_TRY(pool_input(c, 0, &x));
    RT_TRY(pool_pair(c, 1, 1, NULL, k));
    RT_TRY(pool_pair(c, 2, 1, k, s));
    RT_TRY(pool_pair(c, 3, 0, zeros, pad));
    if (!rt_pte_arg_is_none(c, 6)) {
        RT_TRY(rt_pte_arg_int32_in(c, 6, 1, I32_MAX, &div));
    }
    RT_TRY(rt_pte_arg_bool(c, 4, &ceil_mode));
    RT_TRY(rt_pte_arg_bool(c, 5, &include));
    RT_TRY(rt_pte_arg_tensor(c, 7, F32, &out));
    memset(&p, 0, sizeof p);
    p.kernel_h = k[0];
    p.kernel_w = k[1];
    p.stride_h = s[0];
    p.stride_w = s[1];
    p.pad_h = pad[0];
    p.pad_w = pad[1];
    p.dilation_h = 1;
    p.dilation_w = 1;
    p.ceil_mode = ceil_mode ? 1 : 0;
    p.count_include_pad = include ? 1 : 0;
    p.divisor_override = div;
    if (c->check) {
        return pool_geometry(&x, &out, &p, 1);
    }
    return rt_avg_pool2d_f32(&p, &x.shape, (const float *)x.data, &out.shape,
                             (float *)out.data);
}

/* ---- resampling ---------------------------------------------------------------------------- */

/* scale_factors (float[]?): None gives 0 (the kernel uses in / out); else two positive
 * factors, each given to the kernel as rt_pte_f32(1.0 / factor). (A list of more than
 * SCALES_MAX entries is RT_ERR_PTE_LIMIT rather than RT_ERR_PTE_ARGS: refused either way.) */
#define SCALES_MAX 8
static rt_status scales_arg(const rt_pte_call *c, int32_t i, float *sh, float *sw)
{
    double v[SCALES_MAX];
    int32_t n;
    *sh = 0.0f;
    *sw = 0.0f;
    if (rt_pte_arg_is_none(c, i)) {
        return RT_OK;
    }
    RT_TRY(rt_pte_arg_doubles(c, i, v, SCALES_MAX, &n));
    if (n != 2 || !(v[0] > 0.0) || !(v[1] > 0.0)) {
        return RT_ERR_PTE_ARGS;
    }
    *sh = rt_pte_f32(1.0 / v[0]);
    *sw = rt_pte_f32(1.0 / v[1]);
    return RT_OK;
}

/* aten::upsample_nearest2d.vec_out(input, output_size?, scale_factors?, *, out) */
rt_status rt_op_aten_upsample_nearest2d_vec_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float sh, sw;
    RT_TRY(rt_pte_arg_tensor(c, 0, F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 3, F32, &out));
    if (x.shape.rank != 4) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    RT_TRY(scales_arg(c, 2, &sh, &sw));
    RT_TRY(check_opt_ints(c, 1));
    if (c->check) {
        return RT_OK;
    }
    return rt_upsample_nearest2d_f32(sh, sw, &x.shape, (const float *)x.data, &out.shape,
                                     (float *)out.data);
}

/* aten::upsample_bilinear2d.vec_out(input, output_size?, align_corners, scale_factors?, *,
 * out) */
rt_status rt_op_aten_upsample_bilinear2d_vec_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    float sh, sw;
    int32_t align;
    RT_TRY(rt_pte_arg_tensor(c, 0, F32, &x));
    RT_TRY(rt_pte_arg_tensor(c, 4, F32, &out));
    if (x.shape.rank != 4) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    RT_TRY(scales_arg(c, 3, &sh, &sw));
    RT_TRY(rt_pte_arg_bool(c, 2, &align));
    if (c->check) {
        RT_TRY(check_opt_ints(c, 1));
        if (out.shape.rank != 4) {
            return RT_ERR_PTE_ARGS;
        }
        return op_pre_resample_scale_fits(out.shape.d[2], out.shape.d[3], sh, sw, align);
    }
    return rt_upsample_bilinear2d_f32(align ? 1 : 0, sh, sw, &x.shape, (const float *)x.data,
                                      &out.shape, (float *)out.data);
}

/* ---- padding ------------------------------------------------------------------------------- */

typedef rt_status (*pad_mode_fn)(int32_t elem_size, const int32_t *before,
                                 const rt_shape *in_s, const void *in, const rt_shape *out_s,
                                 void *out);

/* aten::{reflection,replication}_pad{k}d.out(self, padding, *, out): any dtype, padding
 * [last_lo, last_hi, prev_lo, ...] over the last k dims of a rank k+1 or k+2 tensor. */
static rt_status pad_mode(const rt_pte_call *c, int32_t k, int32_t reflect, pad_mode_fn fn)
{
    rt_pte_tensor x, out;
    int32_t pad[6], before[RT_MAX_DIMS], n, i, elem;
    RT_TRY(rt_pte_arg_tensor(c, 0, ANY, &x));
    elem = rt_pte_elem_size(x.dtype);
    if (elem == 0) {
        return RT_ERR_PTE_DTYPE;
    }
    RT_TRY(rt_pte_arg_tensor(c, 2, ANY, &out));
    if (rt_pte_elem_size(out.dtype) == 0) {
        return RT_ERR_PTE_DTYPE;
    }
    if (x.dtype != out.dtype) {
        return RT_ERR_PTE_ARGS;
    }
    if ((x.shape.rank != k + 1 && x.shape.rank != k + 2) || out.shape.rank != x.shape.rank) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(rt_pte_arg_ints_in(c, 1, I32_MIN, I32_MAX, pad, 2 * k, &n));
    if (n != 2 * k) {
        return RT_ERR_PTE_ARGS;
    }
    for (i = 0; i < RT_MAX_DIMS; i++) {
        before[i] = 0;
    }
    for (i = 0; i < k; i++) {
        const int32_t d = x.shape.rank - 1 - i;
        const int64_t lo = pad[2 * i], hi = pad[2 * i + 1], size = x.shape.d[d];
        if ((int64_t)out.shape.d[d] != size + lo + hi) {
            return RT_ERR_PTE_ARGS;
        }
        if (reflect && (lo >= size || hi >= size) && size + lo + hi > 0) {
            return RT_ERR_PTE_ARGS;
        }
        if (size == 0 && size + lo + hi > 0) {
            return RT_ERR_PTE_ARGS;
        }
        before[d] = pad[2 * i];
    }
    for (i = 0; i < x.shape.rank - k; i++) {
        if (out.shape.d[i] != x.shape.d[i]) {
            return RT_ERR_PTE_ARGS;
        }
    }
    if (c->check) {
        return RT_OK;
    }
    return fn(elem, before, &x.shape, x.data, &out.shape, out.data);
}

rt_status rt_op_aten_reflection_pad1d_out(const rt_pte_call *c)
{
    return pad_mode(c, 1, 1, rt_reflection_pad);
}

rt_status rt_op_aten_replication_pad1d_out(const rt_pte_call *c)
{
    return pad_mode(c, 1, 0, rt_replication_pad);
}

rt_status rt_op_aten_reflection_pad2d_out(const rt_pte_call *c)
{
    return pad_mode(c, 2, 1, rt_reflection_pad);
}

rt_status rt_op_aten_replication_pad2d_out(const rt_pte_call *c)
{
    return pad_mode(c, 2, 0, rt_replication_pad);
}

rt_status rt_op_aten_reflection_pad3d_out(const rt_pte_call *c)
{
    return pad_mode(c, 3, 1, rt_reflection_pad);
}

rt_status rt_op_aten_replication_pad3d_out(const rt_pte_call *c)
{
    return pad_mode(c, 3, 0, rt_replication_pad);
}

/* A double as numpy's astype from float64 gives it in an integer type (x86: a value outside
 * the type's conversion range, or NaN, becomes its most negative value; int8/int16/uint8
 * convert through int32 and keep the low bytes), or a bool (nonzero, NaN included). */
static int32_t to_int32_np(double v)
{
    if (!(v >= -2147483648.0 && v < 2147483648.0)) {
        return INT32_MIN;
    }
    return (int32_t)v;
}

static void fill_value(int32_t dtype, double v, void *buf)
{
    switch (dtype) {
    case RT_DTYPE_I64: {
        int64_t x = INT64_MIN;
        if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) {
            x = (int64_t)v;
        }
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I32: {
        const int32_t x = to_int32_np(v);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I16: {
        const int16_t x = (int16_t)(uint16_t)((uint32_t)to_int32_np(v) & 0xffffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_BOOL: {
        const uint8_t x = (uint8_t)(v != 0.0 ? 1 : 0);
        memcpy(buf, &x, sizeof x);
        break;
    }
    default: { /* U8, I8: the low byte */
        const uint8_t x = (uint8_t)((uint32_t)to_int32_np(v) & 0xffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    }
}

/* aten::constant_pad_nd.out(self, pad, value, *, out) */
rt_status rt_op_aten_constant_pad_nd_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    int32_t pad[2 * RT_MAX_DIMS], n, i, elem;
    double value;
    rt_pad_params p;
    RT_TRY(rt_pte_arg_tensor(c, 0, ANY, &x));
    elem = rt_pte_elem_size(x.dtype);
    if (elem == 0) {
        return RT_ERR_PTE_DTYPE;
    }
    RT_TRY(rt_pte_arg_tensor(c, 3, x.dtype, &out));
    /* more than 2 * RT_MAX_DIMS entries: more than twice the rank, invalid either way */
    RT_TRY(rt_pte_arg_ints_in(c, 1, I32_MIN, I32_MAX, pad, 2 * RT_MAX_DIMS, &n));
    if (n % 2 != 0 || n / 2 > x.shape.rank || x.shape.rank > 6) {
        return RT_ERR_PTE_ARGS;
    }
    memset(&p, 0, sizeof p);
    for (i = 0; i < n / 2; i++) {
        p.before[x.shape.rank - 1 - i] = pad[2 * i];
    }
    if (x.dtype != F32) {
        union {
            int64_t i64;
            uint8_t bytes[8];
        } v;
        for (i = 0; i < n; i++) {
            if (pad[i] < 0) {
                return RT_ERR_PTE_UNSUPPORTED;
            }
        }
        RT_TRY(rt_pte_arg_double(c, 2, &value));
        v.i64 = 0;
        fill_value(x.dtype, value, v.bytes);
        if (c->check) {
            return RT_OK;
        }
        /* before[:max(rank, 1)]: the kernel reads rank entries */
        return rt_constant_pad(elem, p.before, v.bytes, &x.shape, x.data, &out.shape, out.data);
    }
    RT_TRY(rt_pte_arg_double(c, 2, &value));
    p.value = rt_pte_f32(value);
    if (c->check) {
        return RT_OK;
    }
    return rt_constant_pad_f32(&p, &x.shape, (const float *)x.data, &out.shape,
                               (float *)out.data);
}
