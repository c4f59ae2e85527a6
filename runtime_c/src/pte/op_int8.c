/* op_int8.c - the interpreter's adapters for the int8 operators (ExecuTorch's cortex_m names,
 * aot/quantization/ops.py): each decodes a call's arguments as aot/codegen/kernels.py's q8_*
 * renderer reads them, makes the same checks, and calls the same rt_*_s8 kernel with the same
 * parameters, so a .pte run here gives the static C's bytes.
 *
 * Every tensor's dtype is one the runtime takes (rt_pte_load refused any other).
 *
 * Refusals: an argument that contradicts the op -> RT_ERR_PTE_ARGS (the renderer's
 * ctx.invalid), a tensor of another dtype -> RT_ERR_PTE_DTYPE, a valid call with no kernel
 * (a rank the kernel does not take, a softmax over another dim) ->
 * RT_ERR_PTE_UNSUPPORTED (ctx.unsupported). Arguments the renderer does not read are checked
 * for their kind at load only (as aot.calls.decode_call does before any renderer runs).
 *
 * quantized_linear's requantization comes as two int[] lists (one pair per tensor, or one per
 * output channel): rt_pte_arg_int32s hands over a layer's lists as load decoded them into the
 * state, and decodes a short one on the stack.
 *
 * quantized_conv2d_nhwc has two kernels (general, pointwise); it calls the one the kernel
 * table links for it (rt_pte_variant), so a firmware whose convolutions are all pointwise
 * links no general convolution, as with the static C.
 *
 * What a kernel needs beyond that (the preconditions its op declares in aot/ops.py:
 * requant_shift, accumulator_fits, conv_geometry_fits) is checked at load by rt_pte_checks.h,
 * after the adapter's own checks; the kernels rely on it.
 *
 * quantize, dequantize, add, mul, maximum, minimum, quantized_activation, softmax, transpose
 * and the two poolings are call specs (aot/ops_int8.py): their adapters are generated.
 */
#include <string.h>

#include "rt_check.h"
#include "rt_pte.h"
#include "rt_pte_args.h"
#include "rt_kernels_s8.h"
#include "rt_pte_checks.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

#define I32_MIN (-2147483647 - 1)
#define I32_MAX 2147483647

/* accumulator_fits' term_max (kernels.py TERM_MAX, TERM_MAX_ASYM): the largest magnitude of
 * (x + input_offset) * w and of the vector kernels' folds of it, where the weights are
 * symmetric (2^15 >= 255 * 128), and where a filter_offset makes them not (255 * 255). */
#define Q8_TERM_MAX 32768u
#define Q8_TERM_MAX_ASYM 65025u


rt_status rt_op_cortex_m_quantized_conv2d_nhwc_out(const rt_pte_call *c);
rt_status rt_op_cortex_m_quantized_depthwise_conv2d_nhwc_out(const rt_pte_call *c);
rt_status rt_op_cortex_m_quantized_linear_out(const rt_pte_call *c);
rt_status rt_op_cortex_m_pad_out(const rt_pte_call *c);

/* ---- decoding ------------------------------------------------------------------------ */

/* An int[] argument of exactly `len` items (len <= 4), each in [lo, hi] (ctx.ints). */
static rt_status q8_ints(const rt_pte_call *c, int32_t i, int32_t len, int32_t lo, int32_t hi,
                         int32_t *v)
{
    int64_t items[RT_PTE_MAX_LIST];
    int32_t n, k;
    RT_TRY(rt_pte_arg_ints(c, i, items, RT_PTE_MAX_LIST, &n));
    if (n != len) {
        return RT_ERR_PTE_ARGS;
    }
    for (k = 0; k < n; ++k) {
        if (items[k] < lo || items[k] > hi) {
            return RT_ERR_PTE_ARGS;
        }
        v[k] = (int32_t)items[k];
    }
    return RT_OK;
}

/* An int[2] argument (ctx.ints), each item in [lo, I32_MAX]: its (h, w). */
static rt_status q8_hw(const rt_pte_call *c, int32_t i, int32_t lo, int32_t *h, int32_t *w)
{
    int32_t v[2];
    RT_TRY(q8_ints(c, i, 2, lo, I32_MAX, v));
    *h = v[0];
    *w = v[1];
    return RT_OK;
}

/* A [lo, hi] activation range (_act_range). */
static rt_status q8_act_range(const rt_pte_call *c, int32_t i_lo, int32_t i_hi, int32_t *lo,
                              int32_t *hi)
{
    RT_TRY(rt_pte_arg_int32_in(c, i_lo, -128, 127, lo));
    RT_TRY(rt_pte_arg_int32_in(c, i_hi, -128, 127, hi));
    return *lo > *hi ? RT_ERR_PTE_ARGS : RT_OK;
}

/* A rank-4 int8 feature map (_nhwc). */
static rt_status q8_nhwc(const rt_pte_call *c, int32_t i, rt_pte_tensor *t)
{
    RT_TRY(rt_pte_arg_tensor(c, i, RT_DTYPE_I8, t));
    return t->shape.rank == 4 ? RT_OK : RT_ERR_PTE_UNSUPPORTED;
}

/* ---- convolution --------------------------------------------------------------------- */

/* What _conv_common reads, from argument 2 (bias) on; `q` is the index of input_offset (the
 * depthwise op has its depth_multiplier before it). */
static rt_status q8_conv_common(const rt_pte_call *c, int32_t q, const rt_pte_tensor *x,
                                const rt_pte_tensor *out, int32_t cout, rt_pte_tensor *bias,
                                rt_conv_s8_params *p, rt_pte_tensor *m_t, rt_pte_tensor *s_t)
{
    rt_pte_tensor m, s;
    RT_TRY(q8_hw(c, 3, 1, &p->stride_h, &p->stride_w));
    RT_TRY(q8_hw(c, 4, 0, &p->pad_h, &p->pad_w));
    RT_TRY(q8_hw(c, 5, 1, &p->dilation_h, &p->dilation_w));
    RT_TRY(rt_pte_arg_opt_tensor(c, 2, RT_DTYPE_I32, bias));
    if (bias->data != NULL && rt_pte_numel(&bias->shape) != cout) {
        return RT_ERR_PTE_ARGS;
    }
    if (out->shape.d[3] != cout || out->shape.d[0] != x->shape.d[0]) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(q8_act_range(c, q + 4, q + 5, &p->act_min, &p->act_max));
    RT_TRY(rt_pte_arg_tensor(c, q + 2, RT_DTYPE_I32, &m));
    RT_TRY(rt_pte_arg_tensor(c, q + 3, RT_DTYPE_I32, &s));
    if (rt_pte_numel(&m.shape) != cout || rt_pte_numel(&s.shape) != cout) {
        return RT_ERR_PTE_ARGS;
    }
    p->mult = (const int32_t *)m.data;
    p->shift = (const int32_t *)s.data;
    *m_t = m;
    *s_t = s;
    RT_TRY(rt_pte_arg_int32_in(c, q, -127, 128, &p->input_offset));
    return rt_pte_arg_int32_in(c, q + 1, -128, 127, &p->output_offset);
}

/* A convolution's preconditions (load): its sums of `taps` products plus the bias (argument 2),
 * its requantization of them (constants, each pair one rt_s8_requant takes), its geometry
 * (`groups` groups). */
static rt_status q8_conv_preconditions(const rt_pte_call *c, const rt_pte_tensor *x,
                                       const rt_pte_tensor *w, const rt_pte_tensor *out,
                                       const rt_conv_s8_params *p, const rt_pte_tensor *m,
                                       const rt_pte_tensor *s, const rt_pte_tensor *bias,
                                       int32_t groups, uint64_t taps)
{
    rt_pte_conv_geometry g;
    const int32_t cout = out->shape.d[3];
    const rt_pte_tensor *b = rt_pte_arg_is_none(c, 2) ? NULL : bias;
    RT_TRY(rt_pte_pre_accumulator_fits(c, taps, Q8_TERM_MAX, b, cout));
    RT_TRY(rt_pte_requant_tensors(c, m, s, cout,
                                  rt_pte_accumulator_max(c, taps, Q8_TERM_MAX, b, cout)));
    memset(&g, 0, sizeof g);
    g.h.in = x->shape.d[1];
    g.h.k = w->shape.d[1];
    g.h.stride = p->stride_h;
    g.h.pad = p->pad_h;
    g.h.dil = p->dilation_h;
    g.h.out = out->shape.d[1];
    g.w.in = x->shape.d[2];
    g.w.k = w->shape.d[2];
    g.w.stride = p->stride_w;
    g.w.pad = p->pad_w;
    g.w.dil = p->dilation_w;
    g.w.out = out->shape.d[2];
    g.batch = x->shape.d[0];
    g.cin = x->shape.d[3];
    g.cout = cout;
    g.groups = groups;
    return rt_pte_pre_conv_geometry_fits(&g);
}

typedef rt_status (*conv_s8_fn)(const rt_scratch *, const rt_conv_s8_params *,
                                const rt_shape *, const int8_t *, const rt_shape *,
                                const int8_t *, const rt_shape *, const int32_t *,
                                const rt_shape *, int8_t *);

rt_status rt_op_cortex_m_quantized_conv2d_nhwc_out(const rt_pte_call *c)
{
    conv_s8_fn kernel;
    rt_pte_tensor x, w, b, out, scratch_t, m, s;
    rt_conv_s8_params p;
    rt_scratch scratch;
    int32_t cin_g, pointwise;
    RT_TRY(q8_nhwc(c, 0, &x));
    RT_TRY(q8_nhwc(c, 1, &w));
    RT_TRY(q8_nhwc(c, 13, &out));
    cin_g = w.shape.d[3];
    if (cin_g == 0 || x.shape.d[3] % cin_g != 0 || x.shape.d[3] / cin_g == 0 ||
        w.shape.d[0] % (x.shape.d[3] / cin_g) != 0) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(q8_conv_common(c, 6, &x, &out, w.shape.d[0], &b, &p, &m, &s));
    /* A pointwise layer has its own entry point (same contract and result). */
    pointwise = w.shape.d[1] == 1 && w.shape.d[2] == 1 && cin_g == x.shape.d[3] &&
                p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 && p.pad_w == 0 &&
                out.shape.d[1] == x.shape.d[1] && out.shape.d[2] == x.shape.d[2];
    RT_TRY(rt_pte_arg_tensor(c, 12, -1, &scratch_t));
    /* The kernels this firmware links (aot/interpreter.py VARIANTS): general, pointwise. */
    kernel = (conv_s8_fn)rt_pte_variant(c, pointwise ? 1 : 0);
    if (kernel == NULL) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    if (c->check) {
        return q8_conv_preconditions(c, &x, &w, &out, &p, &m, &s, &b, x.shape.d[3] / cin_g,
                                     (uint64_t)w.shape.d[1] * (uint64_t)w.shape.d[2] *
                                         (uint64_t)cin_g);
    }
    scratch.buf = scratch_t.data;
    scratch.size = (int32_t)rt_pte_numel(&scratch_t.shape);
    return kernel(&scratch, &p, &x.shape, (const int8_t *)x.data, &w.shape,
                  (const int8_t *)w.data, RT_PTE_SHAPE(&b), (const int32_t *)b.data, &out.shape,
                  (int8_t *)out.data);
}

rt_status rt_op_cortex_m_quantized_depthwise_conv2d_nhwc_out(const rt_pte_call *c)
{
    rt_pte_tensor x, w, b, out, scratch_t, m, s;
    rt_conv_s8_params p;
    int32_t cout, mult;
    if (c->check) {
        RT_TRY(rt_pte_arg_tensor(c, 13, -1, &scratch_t));   /* scratch: not used */
    }
    RT_TRY(q8_nhwc(c, 0, &x));
    RT_TRY(q8_nhwc(c, 1, &w));
    RT_TRY(q8_nhwc(c, 14, &out));
    cout = w.shape.d[3];
    RT_TRY(rt_pte_arg_int32_in(c, 6, 1, I32_MAX, &mult));
    if (w.shape.d[0] != 1 || (int64_t)cout != (int64_t)x.shape.d[3] * mult) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(q8_conv_common(c, 7, &x, &out, cout, &b, &p, &m, &s));
    if (c->check) {
        return q8_conv_preconditions(c, &x, &w, &out, &p, &m, &s, &b,
                                     x.shape.d[3] > 1 ? x.shape.d[3] : 1,
                                     (uint64_t)w.shape.d[1] * (uint64_t)w.shape.d[2]);
    }
    return rt_depthwise_conv2d_s8(&p, &x.shape, (const int8_t *)x.data, &w.shape,
                                  (const int8_t *)w.data, RT_PTE_SHAPE(&b),
                                  (const int32_t *)b.data, &out.shape, (int8_t *)out.data);
}

/* ---- fully connected ----------------------------------------------------------------- */

rt_status rt_op_cortex_m_quantized_linear_out(const rt_pte_call *c)
{
    rt_pte_tensor x, w, b, ks, out;
    rt_fc_s8_params p;
    int32_t mult_buf[RT_PTE_CACHE_MIN_ITEMS], shift_buf[RT_PTE_CACHE_MIN_ITEMS];
    const int32_t *mult, *shift;
    int32_t cout, k, r, n_m, n_s, last, has_ks;
    RT_TRY(rt_pte_arg_tensor(c, 0, RT_DTYPE_I8, &x));
    RT_TRY(rt_pte_arg_tensor(c, 1, RT_DTYPE_I8, &w));
    RT_TRY(rt_pte_arg_tensor(c, 11, RT_DTYPE_I8, &out));
    if (w.shape.rank != 2) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    cout = w.shape.d[0];
    k = w.shape.d[1];
    /* A kernel_sum (the MVE form: input_offset * sum(w) + bias, precomputed) stands in for the
     * bias, the input offset already in it; the bias is then not read. */
    RT_TRY(rt_pte_arg_opt_tensor(c, 3, RT_DTYPE_I32, &ks));
    RT_TRY(rt_pte_arg_opt_tensor(c, 2, RT_DTYPE_I32, &b));
    has_ks = ks.shape.rank != 0 || ks.nbytes != 0;   /* not None (a tensor has bytes or dims) */
    if (has_ks) {
        b = ks;
    }
    last = x.shape.rank - 1;   /* out: x's shape with cout for k */
    if (last < 0 || x.shape.d[last] != k || out.shape.rank != x.shape.rank) {
        return RT_ERR_PTE_ARGS;
    }
    for (r = 0; r <= last; ++r) {
        if (out.shape.d[r] != (r == last ? cout : x.shape.d[r])) {
            return RT_ERR_PTE_ARGS;
        }
    }
    if (b.data != NULL && rt_pte_numel(&b.shape) != cout) {
        return RT_ERR_PTE_ARGS;
    }
    /* _requant_arrays: one pair, or one per channel. A layer's per-channel lists were decoded
     * at load into the state (rt_pte_arg_int32s hands them over in place); a short list is
     * decoded here. */
    RT_TRY(rt_pte_arg_int32s(c, 7, 0, I32_MAX, mult_buf, RT_PTE_CACHE_MIN_ITEMS, &mult, &n_m));
    RT_TRY(rt_pte_arg_int32s(c, 8, -31, 31, shift_buf, RT_PTE_CACHE_MIN_ITEMS, &shift, &n_s));
    if (n_m != n_s || (n_m != 1 && n_m != cout)) {
        return RT_ERR_PTE_ARGS;   /* (an empty list is not a tensor either) */
    }
    RT_TRY(q8_act_range(c, 10, 9, &p.act_min, &p.act_max));
    RT_TRY(rt_pte_arg_int32_in(c, 4, -127, 128, &p.input_offset));
    if (has_ks) {
        p.input_offset = 0;
    }
    RT_TRY(rt_pte_arg_int32_in(c, 5, -127, 128, &p.filter_offset));
    RT_TRY(rt_pte_arg_int32_in(c, 6, -128, 127, &p.output_offset));
    p.per_channel = n_m > 1;
    p.mult = mult;
    p.shift = shift;
    if (c->check) {
        const uint32_t term = p.filter_offset == 0 ? Q8_TERM_MAX : Q8_TERM_MAX_ASYM;
        const rt_pte_tensor *sum0 = has_ks ? &ks : (rt_pte_arg_is_none(c, 2) ? NULL : &b);
        RT_TRY(rt_pte_pre_accumulator_fits(c, (uint64_t)k, term, sum0, cout));
        return rt_pte_requant_pairs(mult, shift, n_m,
                                    rt_pte_accumulator_max(c, (uint64_t)k, term, sum0, cout),
                                    RT_PTE_REQUANT_OUT_MAX);
    }
    return rt_fully_connected_s8(&p, &x.shape, (const int8_t *)x.data, &w.shape,
                                 (const int8_t *)w.data, RT_PTE_SHAPE(&b),
                                 (const int32_t *)b.data, &out.shape, (int8_t *)out.data);
}

/* ---- data movement ------------------------------------------------------------------- */

rt_status rt_op_cortex_m_pad_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    int32_t pre[4], post[4], before[4];
    int32_t off, k, value;
    int8_t fill;
    RT_TRY(rt_pte_arg_tensor(c, 0, RT_DTYPE_I8, &x));
    RT_TRY(rt_pte_arg_tensor(c, 4, RT_DTYPE_I8, &out));
    RT_TRY(q8_ints(c, 1, 4, 0, I32_MAX, pre));
    RT_TRY(q8_ints(c, 2, 4, 0, I32_MAX, post));
    if (x.shape.rank > 4) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    off = 4 - x.shape.rank;
    if (out.shape.rank != x.shape.rank) {
        return RT_ERR_PTE_ARGS;
    }
    for (k = 0; k < off; ++k) {
        if (pre[k] != 0 || post[k] != 0) {
            return RT_ERR_PTE_ARGS;
        }
    }
    for (k = 0; k < x.shape.rank; ++k) {
        if ((int64_t)out.shape.d[k] !=
            (int64_t)x.shape.d[k] + pre[off + k] + (int64_t)post[off + k]) {
            return RT_ERR_PTE_ARGS;
        }
    }
    RT_TRY(rt_pte_arg_int32_in(c, 3, -128, 127, &value));
    fill = (int8_t)value;
    before[0] = 0;   /* a rank-0 tensor: one 0 */
    for (k = 0; k < x.shape.rank; ++k) {
        before[k] = pre[off + k];
    }
    if (c->check) {
        return RT_OK;
    }
    return rt_constant_pad(1, before, &fill, &x.shape, x.data, &out.shape, out.data);
}
