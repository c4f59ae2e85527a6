/* rt_internal.h - helpers shared by the kernels; not part of the public API. */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include <math.h>
#include <string.h>

#include "rt.h"

/* dim in [-rank, rank) -> [0, rank); -1 if out of range. */
int32_t rt_norm_dim(int32_t dim, int32_t rank);

/* Product of s->d[lo..hi) (1 for an empty range). */
int32_t rt_dims_prod(const rt_shape *s, int32_t lo, int32_t hi);

/* 1 if both shapes are valid and hold the same number of elements. */
int rt_same_numel(const rt_shape *a, const rt_shape *b);

/* 1 if both shapes are valid and equal: the same rank and dims. */
int rt_same_shape(const rt_shape *a, const rt_shape *b);

/* 1 if ``in`` broadcasts to ``out`` element for element (out's dims are in's, right-aligned,
 * with only 1s before them: [1, 96] to [1, 1, 96]), so one flat row walks both. The dims are
 * not checked otherwise: the caller still takes rt_shape_numel(out) >= 0. */
int rt_bcast_flat(const rt_shape *in, const rt_shape *out);

/* 1 where float arithmetic is in hardware (an Arm FPU, or a host): kernels unroll float
 * loops there; with soft float (the M3, RV32IMAC) every operation is a library call and the
 * unrolled copies would only cost flash. */
#if (defined(__ARM_FP) && (__ARM_FP & 4)) || !(defined(__arm__) || defined(__riscv))
#define RT_HARD_FLOAT 1
#else
#define RT_HARD_FLOAT 0
#endif

/* acc + a * b, the product rounded before the sum: what the kernels' `acc += a * b` computes
 * under -ffp-contract=off (no fused multiply-add). On an Arm FPU with single precision, gcc
 * still emits that as VMUL then VADD; VMLA.F32 is the same two roundings in one instruction
 * (Arm ARM: "the result of the multiply is rounded before the accumulation"), so the inner
 * loops take it there, bit for bit the same. */
#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && defined(__OPTIMIZE__)
static inline float rt_mac_f32(float acc, float a, float b)
{
    __asm__("vmla.f32 %0, %1, %2" : "+t"(acc) : "t"(a), "t"(b));
    return acc;
}
#else
static inline float rt_mac_f32(float acc, float a, float b)
{
    return acc + a * b;
}
#endif

/* A fused activation's bounds: [-INFINITY, INFINITY] when there is none,
 * so rt_act(x, lo, hi) then leaves every x, NaN and infinities included. */
static inline float rt_act_lo(const rt_act_f32 *a)
{
    return a != NULL && a->on ? a->lo : -INFINITY;
}

static inline float rt_act_hi(const rt_act_f32 *a)
{
    return a != NULL && a->on ? a->hi : INFINITY;
}

/* x clamped to [lo, hi] exactly as rt_clamp_f32 does it (NaN passes). */
static inline float rt_act(float x, float lo, float hi)
{
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
}

/* Four consecutive outputs of one channel of a register block: sum + bias, then the fused
 * activation (the conv kernels' stores). */
static inline void rt_act_store4(float *o, float a0, float a1, float a2, float a3,
                                 float bias, float lo, float hi)
{
    o[0] = rt_act(a0 + bias, lo, hi);
    o[1] = rt_act(a1 + bias, lo, hi);
    o[2] = rt_act(a2 + bias, lo, hi);
    o[3] = rt_act(a3 + bias, lo, hi);
}

/* Compensated (Kahan) float sum: close to double accuracy using single
 * precision only (no soft-float on an FPv4-SP core). `plain` is the naive
 * sum, used when the result is not finite (Kahan's correction turns inf into
 * NaN). Do not build the runtime with -ffast-math: it removes the correction. */
typedef struct rt_acc {
    float sum, comp, plain;
} rt_acc;

static inline void rt_acc_init(rt_acc *a)
{
    a->sum = 0.0f;
    a->comp = 0.0f;
    a->plain = 0.0f;
}

static inline void rt_acc_add(rt_acc *a, float v)
{
    const float y = v - a->comp;
    const float t = a->sum + y;
    a->comp = (t - a->sum) - y;
    a->sum = t;
    a->plain += v;
}

static inline float rt_acc_value(const rt_acc *a)
{
    const float p = a->plain;
    return (p - p == 0.0f) ? a->sum : p; /* p - p is NaN iff p is inf/NaN */
}

/* Whether the spans [a, a + a_bytes) and [b, b + b_bytes) share a byte: an output the plan
 * put over its input (aot/overlap.py), which the in-place kernels check. */
static inline int rt_spans_overlap(const void *a, uintptr_t a_bytes, const void *b,
                                   uintptr_t b_bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + b_bytes && y < x + a_bytes;
}

/* Whether element i of a tensor of rt_dtype `dtype` is nonzero (true). */
static inline int rt_is_nonzero(int32_t dtype, const void *p, int32_t i)
{
    switch (dtype) {
    case RT_DTYPE_U8: case RT_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case RT_DTYPE_I8: return ((const int8_t *)p)[i] != 0;
    case RT_DTYPE_I16: return ((const int16_t *)p)[i] != 0;
    case RT_DTYPE_I32: return ((const int32_t *)p)[i] != 0;
    case RT_DTYPE_I64: return ((const int64_t *)p)[i] != 0;
    default: return ((const float *)p)[i] != 0.0f;
    }
}

/* Bytes per element of an rt_dtype; 0 for a value that is not one. */
static inline int32_t rt_dtype_size(int32_t dtype)
{
    switch (dtype) {
    case RT_DTYPE_U8: case RT_DTYPE_I8: case RT_DTYPE_BOOL: return 1;
    case RT_DTYPE_I16: return 2;
    case RT_DTYPE_I32: case RT_DTYPE_F32: return 4;
    case RT_DTYPE_I64: return 8;
    default: return 0;
    }
}

/* Whether cat passes over input in_s: torch's legacy empty 1-D tensor (no elements, another
 * rank than the output's) takes no part. */
static inline int rt_cat_skips(const rt_shape *in_s, const rt_shape *out_s)
{
    return in_s->rank != out_s->rank && rt_shape_numel(in_s) == 0;
}

/* Element i of an int64 or int32 index tensor (`dtype` RT_DTYPE_I64 or RT_DTYPE_I32). */
static inline int64_t rt_index_value(int32_t dtype, const void *p, int32_t i)
{
    return dtype == RT_DTYPE_I32 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

/* Broadcast iterator: walks a contiguous output row by row while tracking
 * the element offset of each (broadcast) input. Dims are right-aligned as
 * in numpy; size-1 output dims are dropped and dims that are contiguous in
 * every operand are merged, so the common cases become one or two rows.
 *
 *   rt_bcast it;
 *   RT_TRY(rt_bcast_init(&it, 2, shapes, out_s));
 *   for (r = 0; r < it.rows; ++r) {
 *       ... out[i] = f(a[it.off[0] + i * it.inner_st[0]], ...), i < it.inner
 *       out += it.inner; rt_bcast_next(&it);
 *   }
 */
#define RT_BCAST_MAX_IN 3

typedef struct rt_bcast {
    int32_t n_in;
    int32_t rank;                              /* >= 1 after init */
    int32_t d[RT_MAX_DIMS];                    /* merged output dims */
    int32_t st[RT_BCAST_MAX_IN][RT_MAX_DIMS];  /* element strides, 0 = bcast */
    int32_t idx[RT_MAX_DIMS];                  /* odometer over outer dims */
    int32_t off[RT_BCAST_MAX_IN];              /* current row's offsets */
    int32_t inner_st[RT_BCAST_MAX_IN];         /* stride along the row */
    int32_t inner;                             /* row length */
    int32_t rows;                              /* rows to visit (0 if empty) */
} rt_bcast;

/* Checks that every in[i] broadcasts to out (in rank <= out rank, each dim
 * equal or 1). RT_ERR_SHAPE otherwise. */
rt_status rt_bcast_init(rt_bcast *it, int32_t n_in, const rt_shape *const *in,
                        const rt_shape *out);
/* Advance to the next output row. */
void rt_bcast_next(rt_bcast *it);

/* len bytes from src, s bytes apart, to dst, d bytes apart (rt_permute's inner row;
 * src/shape/strided_u8.c, replaced by an arch's). */
void rt_copy_strided_u8(uint8_t *dst, int32_t d, const uint8_t *src, int32_t s, int32_t len);

/* Internal GEMM: c[M,N] = a[M,K] @ B, B = b[K,N] (b_trans 0) or b[N,K]
 * (b_trans 1). Accumulates in float in k order; c must not alias a or b. */
void rt_gemm_f32(int32_t m, int32_t n, int32_t k, const float *a,
                 const float *b, int b_trans, float *c);

/* Resolved conv geometry (1-D convs already mapped to H = 1). */
typedef struct rt_conv_geom {
    int32_t n, cin, h, w;           /* input */
    int32_t cout, kh, kw;           /* weight */
    int32_t oh, ow;                 /* output */
    int32_t groups, cin_g, cout_g;  /* channels per group */
    int32_t sh, sw, ph, pw, dh, dw; /* stride, padding, dilation */
    float lo, hi;                   /* fused activation bounds (rt_act_lo/hi) */
    /* The output rows a float32 convolution computes, [oy0, oy1), into planes oplane floats
     * apart whose first row is oy0: the whole map (0, oh, oh * ow) but in
     * rt_conv2d_image_f32's bands. */
    int32_t oy0, oy1, oplane;
} rt_conv_geom;

/* Validates the conv shapes and params (bias optional) and fills g. */
rt_status rt_conv2d_geom(rt_conv_geom *g, const rt_conv2d_params *p,
                         const rt_shape *in_s, const rt_shape *w_s,
                         const rt_shape *b_s, const float *b,
                         const rt_shape *out_s);

/* A float32 convolution's arguments checked (none NULL but the bias), then its geometry into
 * g (rt_conv2d_geom), returning the status where either fails: what every float convolution
 * does first. */
#define RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out) \
    RT_CHECK((p) != NULL && (in_s) != NULL && (in) != NULL && (w_s) != NULL && \
             (w) != NULL && (out_s) != NULL && (out) != NULL, \
             RT_ERR_NULL); \
    RT_TRY(rt_conv2d_geom(&(g), p, in_s, w_s, b_s, b, out_s))

/* Whether g is a pointwise layer (1x1 taps, stride 1, no padding, one group): what every
 * rt_conv2d_1x1_f32 requires. */
#define RT_CONV_GEOM_IS_1X1(g) \
    ((g).kh == 1 && (g).kw == 1 && (g).sh == 1 && (g).sw == 1 && (g).ph == 0 && (g).pw == 0 && \
     (g).groups == 1)

/* A band of a pointwise layer g (rt_conv2d_1x1_in_place_f32): every output channel of px
 * pixels, their inputs read where they lie in the map (x: the band's first pixel of channel
 * 0, channels hw apart), into band (channels px apart). Each arch's conv2d_1x1.c defines it
 * with the sums its rt_conv2d_1x1_f32 makes, so that a band's bits are the whole layer's. */
void rt_conv2d_1x1_band_f32(const rt_conv_geom *g, const float *x, int32_t hw, int32_t px,
                            const float *w, const float *b, float *band);

/* rt_conv2d_f32 on image in_n of a layer g: its output rows [g->oy0, g->oy1) of every channel
 * into out_n, g->oplane floats a channel, the input read where it lies. Each arch's conv2d.c
 * defines it with the sums of its rt_conv2d_f32 (which runs it on every image), so that a band
 * of rows has the whole layer's bits (rt_conv2d_in_place_f32). */
void rt_conv2d_image_f32(const rt_conv_geom *g, const float *in_n, const float *w,
                         const float *b, float *out_n);

/* Where a depthwise kernel puts its output planes (image-major, ``count`` of ``plane`` floats):
 * home in ``out``, or, with a ``stage`` (rt_conv2d_depthwise_in_place_f32), plane i in the
 * stage's slot i % group, a group going home once its last plane is done. Every arch's kernel
 * computes the planes in order, each from its own input plane, so a group goes home over
 * input planes it has read for the last time (output planes no larger than input ones). */
typedef struct rt_dw_stage {
    float *out;
    float *stage;   /* NULL: straight home */
    int32_t group, plane, count;
} rt_dw_stage;

static inline float *rt_dw_stage_plane(const rt_dw_stage *s, int32_t i)
{
    return s->stage == NULL ? s->out + i * s->plane : s->stage + i % s->group * s->plane;
}

/* Output plane i is done: with a stage, its group home when full or the last. */
static inline void rt_dw_stage_done(const rt_dw_stage *s, int32_t i)
{
    if (s->stage != NULL && ((i + 1) % s->group == 0 || i + 1 == s->count)) {
        const int32_t first = i - i % s->group;
        memcpy(s->out + first * s->plane, s->stage,
               (size_t)((i + 1 - first) * s->plane) * sizeof(float));
    }
}

/* The stage of a layer g's output ``out``: ``stage`` (NULL: none) of ``group`` planes. */
static inline rt_dw_stage rt_dw_stage_of(const rt_conv_geom *g, float *out, float *stage,
                                         int32_t group)
{
    rt_dw_stage s;
    s.out = out;
    s.stage = stage;
    s.group = group > 0 ? group : 1;
    s.plane = g->oh * g->ow;
    s.count = g->n * g->cout;
    return s;
}

/* rt_conv2d_depthwise_f32 with its output planes staged (rt_dw_stage: ``stage`` NULL, or
 * ``group`` planes of room); rt_conv2d_depthwise_f32 is this with no stage. Each arch's
 * conv2d_depthwise.c defines it. */
rt_status rt_conv2d_depthwise_staged_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS,
                                         float *stage, int32_t group);

/* Pooling/conv output size along one dim, PyTorch's pooling_output_shape
 * (ceil_mode 0 gives the conv formula). May be <= 0 for invalid params. */
int32_t rt_pool_out_size(int32_t in, int32_t k, int32_t s, int32_t pad,
                         int32_t dil, int32_t ceil_mode);

/* Validates rank-3/4 pool input/output shapes against p; sets the plane
 * count and the spatial sizes. */
rt_status rt_pool2d_shapes(const rt_pool2d_params *p, const rt_shape *in_s,
                           const rt_shape *out_s, int32_t *planes,
                           int32_t *ih, int32_t *iw, int32_t *oh, int32_t *ow);

/* Reduction geometry. in is contiguous, so adjacent dims that are both kept
 * or both reduced merge into one "run". Kept runs enumerate the outputs
 * (row-major), reduced runs the elements folded into each output. */
typedef struct rt_reduce_geom {
    int32_t n_keep, n_red;            /* number of kept / reduced runs */
    int32_t keep_d[RT_MAX_DIMS], keep_st[RT_MAX_DIMS];
    int32_t red_d[RT_MAX_DIMS], red_st[RT_MAX_DIMS];
    int32_t n_out;                    /* output elements */
    int32_t red_count;                /* elements reduced into each output */
    int32_t inner, inner_st;          /* innermost reduced run: size, stride */
    int32_t red_rows;                 /* red_count / inner (0 if empty) */
} rt_reduce_geom;

/* Checks dim_mask against in's rank and out's numel. */
rt_status rt_reduce_init(rt_reduce_geom *g, uint32_t dim_mask,
                         const rt_shape *in_s, const rt_shape *out_s);
/* rt_reduce_init for a reduction that picks an element (max, min, median, their indices): the
 * data given (RT_ERR_NULL), and an element to pick for each output (RT_ERR_SHAPE). */
rt_status rt_reduce_init_pick(rt_reduce_geom *g, uint32_t dim_mask, const rt_shape *in_s,
                              const void *in, const rt_shape *out_s, const void *out);
/* Offset of output o's first input element. */
int32_t rt_reduce_base(const rt_reduce_geom *g, int32_t o);
/* Offset, from the base, of the j-th innermost row of reduced elements
 * (j < red_rows); the row then has `inner` elements inner_st apart. */
int32_t rt_reduce_row(const rt_reduce_geom *g, int32_t j);

/* Softmax geometry: in viewed as [outer, n, inner] around the softmax dim (a 0-d tensor is
 * one element). Checks the pointers, that in and out hold as many elements, and dim. */
typedef struct rt_softmax_geom {
    int32_t outer, n, inner;
} rt_softmax_geom;

rt_status rt_softmax_geom_init(rt_softmax_geom *g, int32_t dim, const rt_shape *in_s,
                               const float *in, const rt_shape *out_s, const float *out);
/* The largest of x[k * stride], k < n; NaN if any is NaN (as torch). */
float rt_softmax_row_max(const float *x, int32_t n, int32_t stride);

/* The 4x4 tile of multiply-adds acc<r><c> = rt_mac_f32(acc<r><c>, x<c>, v<r>): four outputs
 * (x0..x3) of four filters (v0..v3), in the accumulators acc00..acc33. */
#define RT_MAC_4X4(acc, x0, x1, x2, x3, v0, v1, v2, v3)                                    \
    do {                                                                                   \
        acc##00 = rt_mac_f32(acc##00, x0, v0); acc##01 = rt_mac_f32(acc##01, x1, v0);      \
        acc##02 = rt_mac_f32(acc##02, x2, v0); acc##03 = rt_mac_f32(acc##03, x3, v0);      \
        acc##10 = rt_mac_f32(acc##10, x0, v1); acc##11 = rt_mac_f32(acc##11, x1, v1);      \
        acc##12 = rt_mac_f32(acc##12, x2, v1); acc##13 = rt_mac_f32(acc##13, x3, v1);      \
        acc##20 = rt_mac_f32(acc##20, x0, v2); acc##21 = rt_mac_f32(acc##21, x1, v2);      \
        acc##22 = rt_mac_f32(acc##22, x2, v2); acc##23 = rt_mac_f32(acc##23, x3, v2);      \
        acc##30 = rt_mac_f32(acc##30, x0, v3); acc##31 = rt_mac_f32(acc##31, x1, v3);      \
        acc##32 = rt_mac_f32(acc##32, x2, v3); acc##33 = rt_mac_f32(acc##33, x3, v3);      \
    } while (0)

/* NCHW upsampling: planes (N * C), input and output sizes, scales (src per dst pixel). */
typedef struct rt_upsample_geom {
    int32_t planes, ih, iw, oh, ow;
    float scale_h, scale_w;
} rt_upsample_geom;

rt_status rt_upsample_geom_init(rt_upsample_geom *g, float scale_h, float scale_w,
                                const rt_shape *in_s, const float *in,
                                const rt_shape *out_s, const float *out);

/* The element count *n of an elementwise call from in to out: RT_ERR_NULL unless both are
 * given, RT_ERR_SHAPE unless they hold the same count. */
static inline rt_status rt_elementwise_numel(const rt_shape *in_s, const void *in,
                                             const rt_shape *out_s, const void *out,
                                             int32_t *n)
{
    *n = rt_shape_numel(in_s);
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(*n >= 0 && *n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    return RT_OK;
}

/* The loops shared by the elementwise kernels. EXPR is written in terms of `x` (and `y`), the
 * current input element(s); the macros check the pointers and shapes and return the status on
 * a mismatch, so they may only be used in a function returning rt_status.
 *
 * RT_MAP_UNARY: out[i] = EXPR(x = in[i]) over equal element counts; out may be in. */
#define RT_MAP_UNARY(in_s, in, out_s, out, EXPR)                                 \
    do {                                                                        \
        int32_t rt_n_, rt_i_;                                                   \
        RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &rt_n_));             \
        for (rt_i_ = 0; rt_i_ < rt_n_; ++rt_i_) {                               \
            const float x = (in)[rt_i_];                                        \
            (out)[rt_i_] = (EXPR);                                              \
        }                                                                       \
    } while (0)

/* RT_MAP_BINARY: out = EXPR(x = a, y = b) with numpy broadcasting of a and b to out; out may
 * be an input that has out's shape. RT_MAP_BINARY_T does the same for inputs of element type
 * T (x and y are then T). */
#define RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, EXPR)                          \
    RT_MAP_BINARY_T(float, a_s, a, b_s, b, out_s, out, EXPR)

#define RT_MAP_BINARY_T(T, a_s, a, b_s, b, out_s, out, EXPR)                     \
    do {                                                                        \
        const rt_shape *rt_in_s_[2];                                            \
        rt_bcast rt_it_;                                                        \
        int32_t rt_r_, rt_i_;                                                   \
        rt_in_s_[0] = (a_s);                                                    \
        rt_in_s_[1] = (b_s);                                                    \
        RT_CHECK((a) != NULL && (b) != NULL && (out) != NULL, RT_ERR_NULL);     \
        RT_TRY(rt_bcast_init(&rt_it_, 2, rt_in_s_, (out_s)));                   \
        for (rt_r_ = 0; rt_r_ < rt_it_.rows; ++rt_r_) {                         \
            const T *rt_pa_ = (a) + rt_it_.off[0];                              \
            const T *rt_pb_ = (b) + rt_it_.off[1];                              \
            for (rt_i_ = 0; rt_i_ < rt_it_.inner; ++rt_i_) {                    \
                const T x = rt_pa_[rt_i_ * rt_it_.inner_st[0]];                 \
                const T y = rt_pb_[rt_i_ * rt_it_.inner_st[1]];                 \
                (out)[rt_i_] = (EXPR);                                          \
            }                                                                   \
            (out) += rt_it_.inner;                                              \
            rt_bcast_next(&rt_it_);                                             \
        }                                                                       \
    } while (0)

/* A tensor-tensor kernel rt_<name>_f32 (numpy broadcasting) and its tensor-number twin
 * rt_<name>_scalar_f32 (y = other), both out = EXPR(x, y). Used at file scope, without a
 * semicolon. */
#define RT_BINARY_F32_KERNELS(name, EXPR)                                        \
    rt_status rt_##name##_f32(RT_F32_BINARY_TENSORS)                            \
    {                                                                           \
        RT_MAP_BINARY(a_s, a, b_s, b, out_s, out, EXPR);                        \
        return RT_OK;                                                           \
    }                                                                           \
    rt_status rt_##name##_scalar_f32(float other, RT_F32_UNARY_TENSORS)         \
    {                                                                           \
        const float y = other;                                                  \
        RT_MAP_UNARY(in_s, in, out_s, out, EXPR);                               \
        return RT_OK;                                                           \
    }

/* Advanced-indexing geometry (index.Tensor, index_put): the result of in[idx...] is
 * rest[:b_pos] + B + rest[b_pos:], where B is the broadcast shape of the index tensors and rest
 * the dims of in that no index tensor covers. rt_index_offset maps a result coordinate to the
 * element of in it reads (or index_put writes). */
typedef struct rt_index_geom {
    int32_t rank;                               /* in's rank */
    int32_t res_rank, res_d[RT_MAX_DIMS], res_n;
    int32_t b_pos, b_rank;
    int32_t in_d[RT_MAX_DIMS], in_st[RT_MAX_DIMS];
    int32_t res_dim[RT_MAX_DIMS];               /* for a dim without index: its result dim */
    int32_t idx_st[RT_MAX_DIMS][RT_MAX_DIMS];   /* per indexed dim: stride per B dim, 0 = bcast */
    int32_t dtype[RT_MAX_DIMS];                 /* per in dim: index dtype, -1 = not indexed */
    const void *idx[RT_MAX_DIMS];
} rt_index_geom;

/* Checks p and the index shapes and dtypes; works out the result's shape. */
rt_status rt_index_geom_init(rt_index_geom *g, const rt_index_params *p, const rt_shape *in_s,
                             const rt_shape *idx_s, const void *const *idx);
/* The offset in in of result coordinate c; RT_ERR_INDEX for an index out of range. */
rt_status rt_index_offset(const rt_index_geom *g, const int32_t *c, int32_t *offset);

#endif /* RT_INTERNAL_H */
