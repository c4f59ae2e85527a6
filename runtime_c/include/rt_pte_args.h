/* rt_pte_args.h - argument readers of the interpreter's adapters.
 *
 * The adapters are generated from the op table's call specs (aot/opspec.py,
 * aot/codegen/adapters.py) into the kernel table's source. Each reader is one of the static C
 * generator's checked accessors (aot/codegen/context.py's CallContext) over a KernelCall's
 * argument, with the same checks: what the generator refuses as invalid is RT_ERR_PTE_ARGS
 * here, what no kernel takes RT_ERR_PTE_UNSUPPORTED. Numbers are read as the generator reads
 * them: a Scalar as a double, a float parameter as the float32 literal the generator writes.
 */
#ifndef RT_PTE_ARGS_H
#define RT_PTE_ARGS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"
#include "rt_pte.h"

/* A tensor argument of any dtype the runtime takes. */
#define RT_PTE_ANY_DTYPE ((int32_t)-1)

/* Tensors one Tensor[] argument may list (cat's inputs, split_with_sizes' outputs); more is
 * RT_ERR_PTE_LIMIT. Each costs its adapter an rt_shape and a pointer of stack. */
#ifndef RT_PTE_MAX_TENSOR_LIST
#define RT_PTE_MAX_TENSOR_LIST 32
#endif

/* A number as the float32 the generator writes (np.float32 of it; beyond the float range an
 * infinity, with no undefined conversion; NaN is NAN). */
static inline float rt_pte_to_f32(double x)
{
    return x != x ? NAN : rt_pte_f32(x);
}

/* ctx.float: a number argument as a float32. */
static inline rt_status rt_pte_arg_f32(const rt_pte_call *c, int32_t i, float *v)
{
    double d;
    RT_TRY(rt_pte_arg_double(c, i, &d));
    *v = rt_pte_to_f32(d);
    return RT_OK;
}

/* ctx.int(name, lo, hi): an Int in [lo, hi], else RT_ERR_PTE_ARGS. */
static inline rt_status rt_pte_arg_int_in(const rt_pte_call *c, int32_t i, int64_t lo,
                                          int64_t hi, int64_t *v)
{
    RT_TRY(rt_pte_arg_int(c, i, v));
    return *v < lo || *v > hi ? RT_ERR_PTE_ARGS : RT_OK;
}

/* The same, for a range within int32's: the value as an int32. */
static inline rt_status rt_pte_arg_int32_in(const rt_pte_call *c, int32_t i, int64_t lo,
                                            int64_t hi, int32_t *v)
{
    int64_t x;
    RT_TRY(rt_pte_arg_int_in(c, i, lo, hi, &x));
    *v = (int32_t)x;
    return RT_OK;
}

/* A number operand of an int64 tensor, which must be whole: a fraction (and NaN, an
 * infinity, or a whole number outside int64, which the generator cannot write as an int64
 * literal either) is RT_ERR_PTE_UNSUPPORTED. */
static inline rt_status rt_pte_arg_whole(const rt_pte_call *c, int32_t i, int64_t *v)
{
    double d;
    RT_TRY(rt_pte_arg_double(c, i, &d));
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    *v = (int64_t)d;
    return (double)*v == d ? RT_OK : RT_ERR_PTE_UNSUPPORTED;
}

/* A string argument among `names` (n of them), as its code; None reads as `none_code` (< 0:
 * refused); another string is RT_ERR_PTE_ARGS. */
static inline rt_status rt_pte_arg_choice(const rt_pte_call *c, int32_t i,
                                          const char *const *names, const int32_t *codes,
                                          int32_t n, int32_t none_code, int32_t *v)
{
    const char *s;
    uint32_t len, k;
    int32_t j;
    if (rt_pte_arg_is_none(c, i)) {
        *v = none_code;
        return none_code < 0 ? RT_ERR_PTE_ARGS : RT_OK;
    }
    RT_TRY(rt_pte_arg_string(c, i, &s, &len));
    for (j = 0; j < n; ++j) {
        for (k = 0; k < len; ++k) {
            if (names[j][k] == '\0' || names[j][k] != s[k]) {
                break;
            }
        }
        if (k == len && names[j][k] == '\0') {
            *v = codes[j];
            return RT_OK;
        }
    }
    return RT_ERR_PTE_ARGS;
}

/* TensorArg.numel: the product of the sizes (1 for rank 0). */
static inline int64_t rt_pte_numel(const rt_shape *s)
{
    int64_t n = 1;
    int32_t k;
    for (k = 0; k < s->rank; ++k) {
        n *= s->d[k];
    }
    return n;
}

/* ctx.same_shape: whether two shapes are equal (1) or not (0). */
static inline int32_t rt_pte_same_shape(const rt_shape *a, const rt_shape *b)
{
    int32_t k;
    if (a->rank != b->rank) {
        return 0;
    }
    for (k = 0; k < a->rank; ++k) {
        if (a->d[k] != b->d[k]) {
            return 0;
        }
    }
    return 1;
}

/* Whether shape out is shape in padded by before[j] and after[j] along dim j - (n - rank), for
 * n >= rank pairs: the first n - rank name dims the tensor lacks and must be 0 (1, else 0). */
static inline int32_t rt_pte_pads_to(const rt_shape *in, const rt_shape *out,
                                     const int32_t *before, const int32_t *after, int32_t n)
{
    const int32_t off = n - in->rank;
    int32_t j;
    if (off < 0 || out->rank != in->rank) {
        return 0;
    }
    for (j = 0; j < n; ++j) {
        const int64_t pad = (int64_t)before[j] + after[j];
        if (j < off ? pad != 0 : (int64_t)out->d[j - off] != in->d[j - off] + pad) {
            return 0;
        }
    }
    return 1;
}

/* Whether shape out is shape x (rank k + 1 or k + 2) padded over its last k dims by pad =
 * [last_lo, last_hi, prev_lo, ...], its leading dims unchanged: each padded dim non-empty unless
 * its output is empty, and (reflect) each pad smaller than its dim (1, else 0). */
static inline int32_t rt_pte_mode_pads_to(const rt_shape *x, const rt_shape *out,
                                          const int32_t *pad, int32_t k, int32_t reflect)
{
    const int32_t r = x->rank;
    int32_t i;
    if ((r != k + 1 && r != k + 2) || out->rank != r) {
        return 0;
    }
    for (i = 0; i < k; ++i) {
        const int32_t d = r - 1 - i;
        const int64_t n = x->d[d], lo = pad[2 * i], hi = pad[2 * i + 1], size = n + lo + hi;
        if (out->d[d] != size || (n == 0 && size > 0) ||
            (reflect && !(lo < n && hi < n) && size > 0)) {
            return 0;
        }
    }
    return out->d[0] == x->d[0] && (r == k + 1 || out->d[1] == x->d[1]);
}

/* Whether shape out is shape in (rank 1 or more) with `size` for its last dim (1, else 0). */
static inline int32_t rt_pte_last_is(const rt_shape *in, const rt_shape *out, int64_t size)
{
    int32_t k;
    if (in->rank < 1 || out->rank != in->rank || out->d[in->rank - 1] != size) {
        return 0;
    }
    for (k = 0; k + 1 < in->rank; ++k) {
        if (out->d[k] != in->d[k]) {
            return 0;
        }
    }
    return 1;
}

/* The sum of n int32 items (rt_pte_ints_sum) and their least (INT32_MAX when n is 0). */
static inline int64_t rt_pte_ints_sum(const int32_t *v, int32_t n)
{
    int64_t sum = 0;
    int32_t k;
    for (k = 0; k < n; ++k) {
        sum += v[k];
    }
    return sum;
}

static inline int32_t rt_pte_ints_min(const int32_t *v, int32_t n)
{
    int32_t least = INT32_MAX, k;
    for (k = 0; k < n; ++k) {
        least = v[k] < least ? v[k] : least;
    }
    return least;
}

/* PyTorch's pad list [last_lo, last_hi, prev_lo, ...] (n items, n / 2 <= rank <= RT_MAX_DIMS)
 * as the elements added before each dim, in dim order: before[0 .. rank - 1]. */
static inline void rt_pte_pad_before(const int32_t *pad, int32_t n, int32_t rank,
                                     int32_t *before)
{
    int32_t k;
    for (k = 0; k < rank && k < RT_MAX_DIMS; ++k) {
        before[k] = 0;
    }
    for (k = 0; k < n / 2 && k < rank && rank <= RT_MAX_DIMS; ++k) {
        before[rank - 1 - k] = pad[2 * k];
    }
}

/* Whether each entry of an index list is None (-1), an int64 or an int32 tensor (1, else 0). */
static inline int32_t rt_pte_index_dtypes_ok(const int32_t *dtypes, int32_t n)
{
    int32_t k;
    for (k = 0; k < n; ++k) {
        if (dtypes[k] != -1 && dtypes[k] != (int32_t)RT_DTYPE_I64 &&
            dtypes[k] != (int32_t)RT_DTYPE_I32) {
            return 0;
        }
    }
    return 1;
}

/* Where an index list's broadcast dims go (rt_index_params.bcast_pos): at its first tensor when
 * its tensors are adjacent, else at 0, as numpy; -1 when it holds no tensor. */
static inline int32_t rt_pte_index_bcast_pos(const int32_t *dtypes, int32_t n)
{
    int32_t k, first = -1, last = -1, adjacent = 1;
    for (k = 0; k < n; ++k) {
        if (dtypes[k] != -1) {
            adjacent = adjacent && (first < 0 || last == k - 1);
            first = first < 0 ? k : first;
            last = k;
        }
    }
    return first < 0 ? -1 : adjacent ? first : 0;
}

/* A number as numpy's astype from float64 gives it in tensor dtype `dtype`, written to *buf
 * (its first bytes): an integer type takes a value outside its conversion range, or NaN, as its
 * most negative value (as x86 does; int8, int16 and uint8 convert through int32 and keep the
 * low bytes), a bool is nonzero (NaN included), float32 rounds. */
static inline void rt_pte_fill_value(int32_t dtype, double v, void *buf)
{
    const int32_t i32 = (v >= -2147483648.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
    const uint32_t low = (uint32_t)i32;
    switch (dtype) {
    case RT_DTYPE_F32: {
        const float x = rt_pte_to_f32(v);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I64: {
        const int64_t x = (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
                              ? (int64_t)v : INT64_MIN;
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I32:
        memcpy(buf, &i32, sizeof i32);
        break;
    case RT_DTYPE_I16: {
        const uint16_t x = (uint16_t)(low & 0xffffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_BOOL: {
        const uint8_t x = (uint8_t)(v != 0.0 ? 1 : 0);
        memcpy(buf, &x, sizeof x);
        break;
    }
    default: { /* uint8, int8: the low byte */
        const uint8_t x = (uint8_t)(low & 0xffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    }
}

/* ctx.dim(name, rank): in [-size, size), normalized to [0, size), size = max(rank, 1). */
static inline rt_status rt_pte_arg_dim(const rt_pte_call *c, int32_t i, int32_t rank,
                                       int32_t *d)
{
    const int32_t size = rank > 1 ? rank : 1;
    int64_t v;
    RT_TRY(rt_pte_arg_int_in(c, i, -(int64_t)size, (int64_t)size - 1, &v));
    *d = (int32_t)(v < 0 ? v + size : v);
    return RT_OK;
}

/* ctx.dims(name, rank): an int list, each in [-size, size) normalized, none repeated. A list
 * longer than size must repeat or leave the range, so it is refused as such (ARGS). */
static inline rt_status rt_pte_arg_dims(const rt_pte_call *c, int32_t i, int32_t rank,
                                        int32_t *d, int32_t *n)
{
    const int32_t size = rank > 1 ? rank : 1;
    int64_t v[RT_MAX_DIMS];
    int32_t k, j;
    rt_status s = rt_pte_arg_ints(c, i, v, size, n);
    if (s != RT_OK) {
        return s == RT_ERR_PTE_LIMIT ? RT_ERR_PTE_ARGS : s;
    }
    for (k = 0; k < *n; ++k) {
        if (v[k] < -(int64_t)size || v[k] > (int64_t)size - 1) {
            return RT_ERR_PTE_ARGS;
        }
        d[k] = (int32_t)(v[k] < 0 ? v[k] + size : v[k]);
        for (j = 0; j < k; ++j) {
            if (d[j] == d[k]) {
                return RT_ERR_PTE_ARGS;
            }
        }
    }
    return RT_OK;
}

/* ctx.ints: an int list of at most `cap` items (more: RT_ERR_PTE_ARGS, as the renderers'
 * length checks), each in [lo, hi], into v as int32 (v NULL: only checked, any length). Read
 * a window at a time, so a list of any length costs a small buffer. */
#define RT_PTE_INTS_WINDOW 8
static inline rt_status rt_pte_arg_ints_in(const rt_pte_call *c, int32_t i, int64_t lo,
                                           int64_t hi, int32_t *v, int32_t cap, int32_t *n)
{
    int64_t buf[RT_PTE_INTS_WINDOW];
    int32_t got, k, first = 0;
    *n = 0;
    do {
        RT_TRY(rt_pte_arg_ints_at(c, i, first, buf, RT_PTE_INTS_WINDOW, &got));
        for (k = 0; k < got; k++) {
            if (buf[k] < lo || buf[k] > hi) {
                return RT_ERR_PTE_ARGS;
            }
            if (v != NULL) {
                if (first + k >= cap) {
                    return RT_ERR_PTE_ARGS;
                }
                v[first + k] = (int32_t)buf[k];
            }
        }
        first += got;
    } while (got == RT_PTE_INTS_WINDOW);
    *n = first;
    return RT_OK;
}

/* The spec's Spatial: a convolution parameter, one item for every spatial dim or one each of
 * `spatial` (1 or 2), each in [lo, INT32_MAX], as v = [h, w]; a 1-D convolution's h is
 * `unit` (it runs as H = 1). */
static inline rt_status rt_pte_arg_spatial(const rt_pte_call *c, int32_t i, int64_t lo,
                                           int32_t spatial, int32_t unit, int32_t v[2])
{
    int32_t n;
    RT_TRY(rt_pte_arg_ints_in(c, i, lo, INT32_MAX, v, 2, &n));
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

/* The spec's IsRange: whether int list i is 0, 1, ..., n - 1 (each item an int32, n at most
 * RT_MAX_DIMS: a dim order). */
static inline rt_status rt_pte_arg_is_range(const rt_pte_call *c, int32_t i, int32_t n,
                                            int32_t *is)
{
    int32_t v[RT_MAX_DIMS], got, k;
    RT_TRY(rt_pte_arg_ints_in(c, i, INT32_MIN, INT32_MAX, NULL, 0, &got));
    *is = got == n && n <= RT_MAX_DIMS;
    if (*is) {
        RT_TRY(rt_pte_arg_ints_in(c, i, INT32_MIN, INT32_MAX, v, RT_MAX_DIMS, &got));
        for (k = 0; k < n; k++) {
            *is &= v[k] == k;
        }
    }
    return RT_OK;
}

/* The spec's ShapeTail: an int list that is the last dims of `of` (at least one); its
 * length. */
static inline rt_status rt_pte_arg_shape_tail(const rt_pte_call *c, int32_t i,
                                              const rt_shape *of, int32_t *n)
{
    int32_t v[RT_MAX_DIMS], k;
    RT_TRY(rt_pte_arg_ints_in(c, i, 0, INT32_MAX, v, RT_MAX_DIMS, n));
    if (*n < 1 || *n > of->rank) {
        return RT_ERR_PTE_ARGS;
    }
    for (k = 0; k < *n; k++) {
        if (of->d[of->rank - *n + k] != v[k]) {
            return RT_ERR_PTE_ARGS;
        }
    }
    return RT_OK;
}

/* Every dim of a rank-`rank` tensor as a mask (bit d: dim d). */
static inline uint32_t rt_pte_all_dims(int32_t rank)
{
    return rank > 0 ? (uint32_t)((1ull << rank) - 1u) : 0u;
}

/* The spec's DimMask: the dims argument i names, as a mask; None is every dim. How it reads
 * the argument: */
enum {
    RT_PTE_DIM_LIST = 0,           /* a list with no dim repeated; empty: every dim */
    RT_PTE_DIM_ONE = 1,            /* one dim (a rank-0 tensor has none to name: mask 0) */
    RT_PTE_DIM_LIST_EMPTY_NONE = 2 /* a list as RT_PTE_DIM_LIST; empty: no dim */
};

static inline rt_status rt_pte_arg_dim_mask(const rt_pte_call *c, int32_t i, int32_t rank,
                                            int32_t mode, uint32_t *mask)
{
    int32_t d[RT_MAX_DIMS], n, k;
    *mask = rt_pte_all_dims(rank);
    if (rt_pte_arg_is_none(c, i)) {
        return RT_OK;
    }
    if (mode == RT_PTE_DIM_ONE) {
        RT_TRY(rt_pte_arg_dim(c, i, rank, &d[0]));
        *mask &= 1u << d[0];
        return RT_OK;
    }
    RT_TRY(rt_pte_arg_dims(c, i, rank, d, &n));
    if (n > 0 || mode == RT_PTE_DIM_LIST_EMPTY_NONE) {
        *mask = 0;
        for (k = 0; k < n; ++k) {
            *mask |= 1u << d[k];
        }
    }
    return RT_OK;
}

/* A pooling parameter for one or two dims, as [h, w], each in [lo, INT32_MAX]: one item stands
 * for both; none (or None) is def's (def NULL: RT_ERR_PTE_ARGS). */
static inline rt_status rt_pte_arg_pair(const rt_pte_call *c, int32_t i, int64_t lo,
                                        const int32_t *def, int32_t v[2])
{
    int32_t n = 0;
    if (!rt_pte_arg_is_none(c, i)) {
        RT_TRY(rt_pte_arg_ints_in(c, i, lo, INT32_MAX, v, 2, &n));
    }
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

/* A float list of exactly n items, as doubles (any other count: RT_ERR_PTE_ARGS). */
static inline rt_status rt_pte_arg_doubles_n(const rt_pte_call *c, int32_t i, double *v,
                                             int32_t n)
{
    int32_t got;
    const rt_status s = rt_pte_arg_doubles(c, i, v, n, &got);
    if (s != RT_OK) {
        return s == RT_ERR_PTE_LIMIT ? RT_ERR_PTE_ARGS : s;
    }
    return got == n ? RT_OK : RT_ERR_PTE_ARGS;
}

/* Kind checks of schema arguments a spec does not read (the verifier checks them for the
 * static C): a bool; an int; an int or None; an int list; an int list or None; a number; a
 * tensor of any dtype. */
static inline rt_status rt_pte_kind_bool(const rt_pte_call *c, int32_t i)
{
    int32_t b;
    return rt_pte_arg_bool(c, i, &b);
}

static inline rt_status rt_pte_kind_int(const rt_pte_call *c, int32_t i)
{
    int64_t v;
    return rt_pte_arg_int(c, i, &v);
}

static inline rt_status rt_pte_kind_opt_int(const rt_pte_call *c, int32_t i)
{
    int64_t v;
    return rt_pte_arg_is_none(c, i) ? RT_OK : rt_pte_arg_int(c, i, &v);
}

static inline rt_status rt_pte_kind_ints(const rt_pte_call *c, int32_t i)
{
    int64_t v[RT_PTE_MAX_LIST];
    int32_t n;
    return rt_pte_arg_ints(c, i, v, RT_PTE_MAX_LIST, &n);
}

static inline rt_status rt_pte_kind_opt_ints(const rt_pte_call *c, int32_t i)
{
    int32_t n;
    return rt_pte_arg_is_none(c, i) ? RT_OK
                                    : rt_pte_arg_ints_in(c, i, INT64_MIN, INT64_MAX, NULL, 0, &n);
}

static inline rt_status rt_pte_kind_double(const rt_pte_call *c, int32_t i)
{
    double v;
    return rt_pte_arg_double(c, i, &v);
}

static inline rt_status rt_pte_kind_tensor(const rt_pte_call *c, int32_t i)
{
    rt_pte_tensor t;
    return rt_pte_arg_tensor(c, i, RT_PTE_ANY_DTYPE, &t);
}

#endif /* RT_PTE_ARGS_H */
