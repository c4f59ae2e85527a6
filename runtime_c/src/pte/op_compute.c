/* op_compute.c - interpreter adapters of the float32 compute ops: convolution (and
 * transposed) and constant padding. (Reductions, softmax, batch_norm and layer_norm
 * (aot/ops_reduce.py), matrix products, embedding, pooling and upsampling
 * (aot/ops_compute.py), and the other padding modes (aot/ops_data.py) are call specs: their
 * adapters are generated.)
 *
 * Each adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py, same name) and calls the same kernel
 * with the same parameters, so the results are bit for bit the static C's. A renderer's
 * ctx.invalid is RT_ERR_PTE_ARGS here, ctx.unsupported RT_ERR_PTE_UNSUPPORTED, a tensor of a
 * dtype the kernel does not take RT_ERR_PTE_DTYPE. Arguments the renderer does not read are
 * still decoded (their kind checked), as the Program check (aot/calls.py) does. The
 * precondition convolution declares in aot/ops.py (conv_geometry_fits) is checked at load by
 * rt_pte_checks.h, after the adapter's own checks; the kernels rely on it.
 */
#include <stdint.h>
#include <string.h>

#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"
#include "rt_pte.h"
#include "rt_pte_args.h"
#include "rt_pte_checks.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_convolution_out(const rt_pte_call *c);
rt_status rt_op_aten_constant_pad_nd_out(const rt_pte_call *c);

#define F32 ((int32_t)RT_DTYPE_F32)
#define I64 ((int32_t)RT_DTYPE_I64)
#define ANY ((int32_t)-1)
#define I32_MIN ((int64_t)INT32_MIN)
#define I32_MAX ((int64_t)INT32_MAX)

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
    rt_pte_conv_geometry g;
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
    return rt_pte_pre_conv_geometry_fits(&g);
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

/* ---- padding ------------------------------------------------------------------------------- */

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
