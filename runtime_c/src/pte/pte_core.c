/* pte_core.c - the .pte loader and interpreter (see rt_pte.h).
 *
 * Load reads the file once, front to back, and checks it whole; run walks the chain's
 * instructions and hands each kernel call to its adapter, which decodes the arguments through
 * the rt_pte_arg_* functions below. Nothing is decoded ahead into the state: values are read
 * from the file where they lie, so the state's size does not grow with the program.
 *
 * Table and field numbers are those of schema/program.fbs (ExecuTorch's program schema).
 */
#include <math.h>
#include <string.h>


#include "rt_check.h"
#include "rt_pte.h"
#include "pte_internal.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

#define BUFFER_ALIGN 16u

/* ---- small helpers ------------------------------------------------------------------- */

COLD static int str_eq(const char *a, uint32_t len, const char *b)
{
    uint32_t i;
    if (a == NULL || b == NULL) {
        return 0;
    }
    for (i = 0; i < len; ++i) {
        if (b[i] != a[i] || b[i] == '\0') {
            return 0;
        }
    }
    return b[len] == '\0';
}

int rt_pte_bit(const uint8_t *bits, int32_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* A cached list in the state's tail: the value it decodes, its length, where its items are
 * (in int32s from the tail's start). */
typedef struct cached_list {
    int32_t value;
    int32_t count;
    uint32_t at;
} cached_list;

static cached_list *cache_entries(const rt_pte_program *p)
{
    return (cached_list *)(uintptr_t)((const uint8_t *)p + sizeof *p);
}

/* ---- values -------------------------------------------------------------------------- */

/* The EValue table of value `v` and its kind (0 on a bad index or table). */
uint32_t rt_pte_value_table(rt_rd *r, const rt_pte_program *p, int64_t v, uint32_t *kind)
{
    uint32_t ev;
    *kind = 0;
    if (v < 0 || v >= p->n_values) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    ev = rt_rd_elem(r, p->values, (int32_t)v);
    *kind = rt_rd_fu8(r, ev, 0, 0);
    return rt_rd_fref(r, ev, 1);
}

/* The value index held by element i of an int vector at `first`. */
int32_t rt_pte_index_at(rt_rd *r, uint32_t first, int32_t i)
{
    return (int32_t)rt_rd_u32(r, first + 4u * (uint32_t)i);
}

static int32_t find_bound(const rt_pte_program *p, int32_t v)
{
    int32_t k;
    for (k = 0; k < p->n_bound; ++k) {
        if (p->bound_value[k] == v) {
            return k;
        }
    }
    return -1;
}

/* Program.segments[index]: its file position and size, inside the file (an empty segment is
 * at no position: 0, size 0); 0 with r->err set when it is not there. */
uint32_t rt_pte_segment(rt_rd *r, const rt_pte_program *p, uint32_t index, uint32_t *size)
{
    uint32_t seg;
    uint64_t off, n;
    *size = 0;
    if (index >= (uint32_t)p->n_segments) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    seg = rt_rd_elem(r, p->segments, (int32_t)index);
    off = rt_rd_fu64(r, seg, 0);
    n = rt_rd_fu64(r, seg, 1);
    if (r->err != RT_OK || n == 0) {
        return 0;
    }
    if (p->segment_base == 0 || off > p->file_size - p->segment_base ||
        n > p->file_size - p->segment_base - off) {
        rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
        return 0;
    }
    *size = (uint32_t)n;
    return p->segment_base + (uint32_t)off;
}

/* File position of state tensor t's initial value (index buf_idx of its mutable data
 * segment, Program.mutable_data_segments), nbytes long; 0 with r->err set if it is not there. */
COLD static uint32_t state_data(rt_rd *r, const rt_pte_program *p, uint32_t t, uint32_t buf_idx,
                                uint32_t nbytes)
{
    uint32_t extra = rt_rd_fref(r, t, TENSOR_EXTRA);
    uint64_t which = extra != 0 ? rt_rd_fu64(r, extra, 0) : 0u;
    uint32_t root = rt_rd_ref(r, 0), list, sub, offsets, index, pos, size;
    uint64_t at;
    int32_t n, n_off;
    list = rt_rd_fvec(r, root, PROGRAM_MUTABLE_SEGMENTS, 4, &n);
    if (r->err != RT_OK) {
        return 0;
    }
    if (which >= (uint64_t)n || (extra != 0 && rt_rd_fu8(r, extra, 2, 0) != 0)) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT); /* (or its data in another file: not here) */
        return 0;
    }
    sub = rt_rd_elem(r, list, (int32_t)which);
    index = rt_rd_fu32(r, sub, 0, 0);
    offsets = rt_rd_fvec(r, sub, 1, 8, &n_off);
    if (r->err != RT_OK) {
        return 0;
    }
    if (buf_idx >= (uint32_t)n_off) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    at = rt_rd_u64(r, offsets + 8u * buf_idx);
    pos = rt_pte_segment(r, p, index, &size);
    if (r->err == RT_OK && (at > size || nbytes > size - at)) {
        rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
    }
    return r->err == RT_OK ? pos + (uint32_t)at : 0u;
}

/* Check the Tensor table `t` whole: its dtype, sizes and layout, and that its data lies inside
 * the file (a constant) or inside its planned buffer. */
COLD static void check_tensor(rt_rd *r, const rt_pte_program *p, uint32_t t)
{
    int32_t rank, k, dtype, es, n_order;
    int64_t numel = 1, span = 1; /* span: the product with each size 0 counted as 1 */
    uint32_t sizes, order, buf_idx, alloc, nbytes;
    dtype = (int32_t)(int8_t)rt_rd_fu8(r, t, TENSOR_DTYPE, 0);
    sizes = rt_rd_fvec(r, t, TENSOR_SIZES, 4, &rank);
    order = rt_rd_fvec(r, t, TENSOR_DIM_ORDER, 1, &n_order);
    if (r->err != RT_OK) {
        return;
    }
    es = rt_pte_elem_size(dtype);
    if (es == 0) {
        rt_rd_fail(r, RT_ERR_PTE_DTYPE);
        return;
    }
    if (rank > RT_MAX_DIMS) {
        rt_rd_fail(r, RT_ERR_PTE_LIMIT);
        return;
    }
    if (rt_rd_fu32(r, t, TENSOR_STORAGE_OFFSET, 0) != 0 ||
        rt_rd_fu8(r, t, TENSOR_DYNAMISM, 0) != 0 || (n_order != 0 && n_order != rank)) {
        rt_rd_fail(r, RT_ERR_PTE_UNSUPPORTED); /* views into storage, dynamic shapes */
        return;
    }
    for (k = 0; k < rank; ++k) {
        int32_t d = (int32_t)rt_rd_u32(r, sizes + 4u * (uint32_t)k);
        if (d < 0) {
            rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
            return;
        }
        if (n_order != 0 && rt_rd_u8(r, order + (uint32_t)k) != (uint32_t)k) {
            rt_rd_fail(r, RT_ERR_PTE_UNSUPPORTED); /* a layout other than contiguous */
            return;
        }
        numel *= d;
        span *= d > 0 ? d : 1; /* a kernel's strides over the other sizes fit int32 too */
        if (span * es > 0x7fffffff) {
            rt_rd_fail(r, RT_ERR_PTE_LIMIT);
            return;
        }
    }
    nbytes = (uint32_t)(numel * es);
    buf_idx = rt_rd_fu32(r, t, TENSOR_BUFFER, 0);
    alloc = rt_rd_fref(r, t, TENSOR_ALLOCATION);
    if (r->err != RT_OK) {
        return;
    }
    if (alloc != 0) { /* planned in the arena (a state tensor too: its initial value below) */
        uint32_t id = rt_rd_fu32(r, alloc, 0, 0);
        uint32_t lo = rt_rd_fu32(r, alloc, 1, 0);
        uint32_t hi = rt_rd_fu32(r, alloc, 2, 0);
        if (r->err != RT_OK) {
            return;
        }
        if (id == 0 || id > (uint32_t)p->n_buffers || hi != 0 || lo > p->buffer_size[id] ||
            nbytes > p->buffer_size[id] - lo) {
            rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
            return;
        }
        if (lo % (uint32_t)es != 0) { /* (buffers start 16-byte aligned in the arena) */
            rt_rd_fail(r, RT_ERR_PTE_ALIGN);
            return;
        }
        if (buf_idx > 0) { /* mutable state: copy its initial value in, as <model>_init does */
            uint32_t from = state_data(r, p, t, buf_idx, nbytes);
            if (r->err == RT_OK && p->arena != NULL && nbytes > 0) {
                memcpy(p->arena + p->buffer_base[id] + lo, r->b + from, nbytes);
            }
        }
        return;
    }
    if (buf_idx > 0) { /* a constant, read where it lies: in the constant segment */
        uint64_t off;
        if (buf_idx >= (uint32_t)p->n_const_offsets) {
            /* (or in Program.constant_buffer, inside the flatbuffer: a form ExecuTorch's
             * runtime no longer reads either) */
            rt_rd_fail(r, p->n_const_offsets == 0 ? RT_ERR_PTE_UNSUPPORTED : RT_ERR_PTE_CORRUPT);
            return;
        }
        off = rt_rd_u64(r, p->const_offsets + 8u * buf_idx);
        if (off > p->constants_size || (uint64_t)nbytes > p->constants_size - off) {
            rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
        } else if ((p->constants + (uint32_t)off) % (uint32_t)es != 0) {
            rt_rd_fail(r, RT_ERR_PTE_ALIGN); /* (the file itself is 16-byte aligned) */
        }
    } /* else given at run time: a graph input, or a view's output */
}

/* Check value v whole (load). */
COLD static void check_value(rt_rd *r, const rt_pte_program *p, int32_t v)
{
    uint32_t kind, t = rt_pte_value_table(r, p, v, &kind);
    int32_t n, k;
    uint32_t first, width, len;
    if (r->err != RT_OK) {
        return;
    }
    if (kind != EV_NULL && t == 0) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return;
    }
    switch (kind) {
    case EV_NULL:
        return;
    case EV_INT:
    case EV_DOUBLE:
    case EV_BOOL:
        (void)(kind == EV_BOOL ? rt_rd_fu8(r, t, 0, 0) : rt_rd_fu64(r, t, 0));
        return;
    case EV_STRING:
        (void)rt_rd_fstr(r, t, 0, &len);
        return;
    case EV_TENSOR:
        check_tensor(r, p, t);
        return;
    case EV_DOUBLE_LIST:
    case EV_BOOL_LIST:
        (void)rt_rd_fvec(r, t, 0, kind == EV_BOOL_LIST ? 1u : 8u, &n);
        return;
    case EV_INT_LIST:         /* value indices (int64), each of an Int */
    case EV_TENSOR_LIST:      /* value indices (int32), each of a Tensor */
    case EV_OPT_TENSOR_LIST:  /* ... or -1 for None */
        width = kind == EV_INT_LIST ? 8u : 4u;
        first = rt_rd_fvec(r, t, 0, width, &n);
        for (k = 0; k < n && r->err == RT_OK; ++k) {
            uint32_t item_kind, at = first + width * (uint32_t)k;
            int64_t item = width == 8u ? (int64_t)rt_rd_u64(r, at) : (int32_t)rt_rd_u32(r, at);
            if (item == -1 && kind == EV_OPT_TENSOR_LIST) {
                continue;
            }
            (void)rt_pte_value_table(r, p, item, &item_kind);
            if (r->err == RT_OK && item_kind != (kind == EV_INT_LIST ? EV_INT : EV_TENSOR)) {
                rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
            }
        }
        return;
    default:
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return;
    }
}

/* ---- the run path ---------------------------------------------------------------------
 * At run (c->check == 0) an adapter reads exactly the arguments it read at load, when every
 * table, vtable, vector and field on the way was checked, from bytes that have not changed
 * since (the caller keeps the .pte in place). So the run path reads them directly: a value
 * is a few loads, not a walk of checks. */

#if defined(__GNUC__)
#define HOT_INLINE __attribute__((always_inline)) inline
#else
#define HOT_INLINE inline
#endif

static HOT_INLINE uint32_t ld32(const uint8_t *b, uint32_t at)
{
    uint32_t v;
    __builtin_memcpy(&v, b + at, 4);
    return v;
}

static HOT_INLINE uint64_t ld64(const uint8_t *b, uint32_t at)
{
    uint64_t v;
    __builtin_memcpy(&v, b + at, 8);
    return v;
}

static HOT_INLINE uint32_t ld16(const uint8_t *b, uint32_t at)
{
    return (uint32_t)b[at] | ((uint32_t)b[at + 1] << 8);
}

static HOT_INLINE uint32_t fast_ref(const uint8_t *b, uint32_t pos)
{
    return pos + ld32(b, pos);
}

/* Field f of the table at t, or 0 when absent (t - soffset is its vtable): inline where every
 * argument reads it (values, tensors), a call elsewhere. */
static HOT_INLINE uint32_t hot_field(const uint8_t *b, uint32_t t, uint32_t f)
{
    uint32_t vt = t - ld32(b, t);
    uint32_t at = 4u + 2u * f, fo;
    if (at + 2u > ld16(b, vt)) {
        return 0;
    }
    fo = ld16(b, vt + at);
    return fo != 0 ? t + fo : 0;
}

static uint32_t fast_field(const uint8_t *b, uint32_t t, uint32_t f)
{
    return hot_field(b, t, f);
}

/* The uint32 (or int32) in field f of the table at t, 0 when absent. */
static uint32_t fast_u32(const uint8_t *b, uint32_t t, uint32_t f)
{
    uint32_t at = fast_field(b, t, f);
    return at != 0 ? ld32(b, at) : 0u;
}

/* Value v's payload table (0 for Null) and kind. */
static uint32_t fast_value(const rt_pte_program *p, int32_t v, uint32_t *kind)
{
    const uint8_t *b = p->fb.base;
    uint32_t ev = fast_ref(b, p->values + 4u * (uint32_t)v);
    uint32_t ft = hot_field(b, ev, 0), fv = hot_field(b, ev, 1);
    *kind = ft != 0 ? b[ft] : 0u;
    return fv != 0 ? fast_ref(b, fv) : 0u;
}

static uint32_t fast_arg(const rt_pte_call *c, int32_t i, uint32_t *kind, int32_t *v)
{
    *v = (int32_t)ld32(c->prog->fb.base, c->args + 4u * (uint32_t)i);
    return fast_value(c->prog, *v, kind);
}

/* The scalar in field 0 of an Int, Bool or Double table. */
static uint64_t fast_scalar(const uint8_t *b, uint32_t t, uint32_t width)
{
    uint32_t f = fast_field(b, t, 0);
    return f == 0 ? 0u : (width == 8u ? ld64(b, f) : (uint64_t)b[f]);
}

static void fast_tensor(const rt_pte_program *p, uint32_t t, int32_t v, rt_pte_tensor *out)
{
    const uint8_t *b = p->fb.base;
    uint32_t f = hot_field(b, t, TENSOR_DTYPE), sizes, buf;
    int32_t rank, k, numel = 1;
    out->dtype = f != 0 ? (int32_t)(int8_t)b[f] : 0;
    f = hot_field(b, t, TENSOR_SIZES);
    sizes = f != 0 ? fast_ref(b, f) : 0u;
    rank = sizes != 0 ? (int32_t)ld32(b, sizes) : 0;
    out->shape.rank = rank;
    for (k = 0; k < rank; ++k) {
        out->shape.d[k] = (int32_t)ld32(b, sizes + 4u + 4u * (uint32_t)k);
        numel *= out->shape.d[k];
    }
    out->nbytes = numel * rt_pte_elem_size(out->dtype);
    f = hot_field(b, t, TENSOR_ALLOCATION);
    if (f != 0) { /* planned (a state tensor too) */
        uint32_t alloc = fast_ref(b, f);
        out->data = p->arena + p->buffer_base[fast_u32(b, alloc, 0)] + fast_u32(b, alloc, 1);
        return;
    }
    buf = fast_u32(b, t, TENSOR_BUFFER);
    if (buf > 0) {
        out->data = (void *)(uintptr_t)(b + p->constants +
                                        (uint32_t)ld64(b, p->const_offsets + 8u * buf));
        return;
    }
    k = find_bound(p, v);
    out->data = k >= 0 ? p->bound_data[k] : NULL;
}

static rt_status fast_tensor_arg(const rt_pte_call *c, int32_t i, int32_t dtype,
                                 rt_pte_tensor *t, int optional)
{
    uint32_t kind = 0, tab = 0;
    int32_t v = -1;
    if ((uint32_t)i < (uint32_t)c->n_args) {
        tab = fast_arg(c, i, &kind, &v);
    }
    if (kind != EV_TENSOR) {
        if (optional && kind == EV_NULL) {
            t->data = NULL;
            t->shape.rank = 0;
            t->dtype = dtype;
            t->nbytes = 0;
            return RT_OK;
        }
        return RT_ERR_PTE_ARGS;
    }
    fast_tensor(c->prog, tab, v, t);
    if (dtype >= 0 && t->dtype != dtype) {
        return RT_ERR_PTE_DTYPE;
    }
    return t->data != NULL || c->check || optional == 2 ? RT_OK : RT_ERR_NULL;
}

/* ---- adapter accessors ------------------------------------------------------------------
 * Adapters run twice per instruction: at load (c->check) to refuse what their kernel cannot
 * take, and at run. Both read through the run path: rt_pte_load has checked every value
 * whole before any adapter runs (check_value: every table, vtable and field on the way, every
 * vector, list items of the right kind, tensor data inside its buffer), so what is left to
 * check here is what an argument means: its kind, its dtype, its range. */

/* Argument i's payload table and kind (kind 0 past the call's arguments). */
static uint32_t arg_value(const rt_pte_call *c, int32_t i, uint32_t *kind)
{
    int32_t v;
    *kind = 0;
    return (uint32_t)i < (uint32_t)c->n_args ? fast_arg(c, i, kind, &v) : 0u;
}

/* A scalar argument's kind and bits (an Int's or Double's 8 bytes, a Bool's byte; 0 for any
 * other kind). */
static uint32_t arg_scalar(const rt_pte_call *c, int32_t i, uint64_t *bits)
{
    uint32_t kind, tab = arg_value(c, i, &kind);
    *bits = 0;
    if (kind == EV_INT || kind == EV_DOUBLE || kind == EV_BOOL) {
        *bits = fast_scalar(c->prog->fb.base, tab, kind == EV_BOOL ? 1u : 8u);
    }
    return kind;
}

rt_status rt_pte_arg_tensor(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t)
{
    return fast_tensor_arg(c, i, dtype, t, 0);
}

rt_status rt_pte_arg_opt_tensor(const rt_pte_call *c, int32_t i, int32_t dtype,
                                rt_pte_tensor *t)
{
    return fast_tensor_arg(c, i, dtype, t, 1);
}

rt_status rt_pte_arg_int(const rt_pte_call *c, int32_t i, int64_t *v)
{
    uint64_t bits;
    int ok = arg_scalar(c, i, &bits) == EV_INT;
    *v = ok ? (int64_t)bits : 0;
    return ok ? RT_OK : RT_ERR_PTE_ARGS;
}

rt_status rt_pte_arg_bool(const rt_pte_call *c, int32_t i, int32_t *v)
{
    uint64_t bits;
    int ok = arg_scalar(c, i, &bits) == EV_BOOL;
    *v = ok && bits != 0;
    return ok ? RT_OK : RT_ERR_PTE_ARGS;
}

rt_status rt_pte_arg_double(const rt_pte_call *c, int32_t i, double *v)
{
    uint64_t bits;
    uint32_t kind = arg_scalar(c, i, &bits);
    *v = 0.0;
    if (kind == EV_DOUBLE) {
        memcpy(v, &bits, 8);
    } else if (kind == EV_INT || kind == EV_BOOL) {
        *v = kind == EV_BOOL ? (double)(bits != 0) : (double)(int64_t)bits;
    } else {
        return RT_ERR_PTE_ARGS;
    }
    return RT_OK;
}

/* A list argument of `kind`: position of its first item and its length. */
static uint32_t list_arg(const rt_pte_call *c, int32_t i, uint32_t kind, int32_t *len)
{
    uint32_t got;
    uint32_t tab = arg_value(c, i, &got), items;
    const uint8_t *b = c->prog->fb.base;
    *len = -1;
    if (got != kind) {
        return 0;
    }
    items = fast_field(b, tab, 0);
    if (items == 0) {
        *len = 0;
        return 0;
    }
    items = fast_ref(b, items);
    *len = (int32_t)ld32(b, items);
    return items + 4u;
}

/* Items [first, first + count) of an int list (value indices, each of an Int). */
static void int_items(const rt_pte_call *c, uint32_t items, int32_t first, int32_t count,
                      int64_t *v)
{
    const uint8_t *b = c->prog->fb.base;
    int32_t k;
    for (k = 0; k < count; ++k) {
        uint32_t kind;
        int32_t at = (int32_t)ld64(b, items + 8u * (uint32_t)(first + k));
        v[k] = (int64_t)fast_scalar(b, fast_value(c->prog, at, &kind), 8u);
    }
}

rt_status rt_pte_arg_ints(const rt_pte_call *c, int32_t i, int64_t *v, int32_t max, int32_t *n)
{
    int32_t len;
    uint32_t items = list_arg(c, i, EV_INT_LIST, &len);
    *n = 0;
    if (len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (len > max) {
        return RT_ERR_PTE_LIMIT;
    }
    int_items(c, items, 0, len, v);
    *n = len;
    return RT_OK;
}

rt_status rt_pte_arg_ints_at(const rt_pte_call *c, int32_t i, int32_t first, int64_t *v,
                             int32_t max, int32_t *n)
{
    int32_t len, count;
    uint32_t items = list_arg(c, i, EV_INT_LIST, &len);
    *n = 0;
    if (len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (first < 0 || max < 0) {
        return RT_ERR_PARAM;
    }
    count = first >= len ? 0 : (len - first < max ? len - first : max);
    int_items(c, items, first, count, v);
    *n = count;
    return RT_OK;
}

rt_status rt_pte_arg_int32s(const rt_pte_call *c, int32_t i, int32_t lo, int32_t hi,
                            int32_t *scratch, int32_t max, const int32_t **v, int32_t *n)
{
    int32_t len, k, value;
    uint32_t items = list_arg(c, i, EV_INT_LIST, &len);
    const int32_t *got = NULL;
    *v = NULL;
    *n = 0;
    if (len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (len >= RT_PTE_CACHE_MIN_ITEMS) { /* decoded at load into the state's tail */
        const cached_list *e = cache_entries(c->prog);
        value = (int32_t)ld32(c->prog->fb.base, c->args + 4u * (uint32_t)i);
        for (k = 0; k < c->prog->n_cached && got == NULL; ++k) {
            if (e[k].value == value) {
                got = (const int32_t *)(const void *)(e + c->prog->n_cached) + e[k].at;
            }
        }
        if (got == NULL) {
            return RT_ERR_PTE_ARGS; /* long, yet not cached: an item is no int32 */
        }
    } else {
        int64_t wide[RT_PTE_CACHE_MIN_ITEMS];
        if (len > max) {
            return RT_ERR_PTE_LIMIT;
        }
        int_items(c, items, 0, len, wide);
        for (k = 0; k < len; ++k) {
            if (wide[k] < INT32_MIN || wide[k] > INT32_MAX) {
                return RT_ERR_PTE_ARGS;
            }
            scratch[k] = (int32_t)wide[k];
        }
        got = scratch;
    }
    if (c->check) { /* the range, once */
        for (k = 0; k < len; ++k) {
            if (got[k] < lo || got[k] > hi) {
                return RT_ERR_PTE_ARGS;
            }
        }
    }
    *v = got;
    *n = len;
    return RT_OK;
}

rt_status rt_pte_arg_doubles(const rt_pte_call *c, int32_t i, double *v, int32_t max,
                             int32_t *n)
{
    int32_t len, k;
    uint32_t items = list_arg(c, i, EV_DOUBLE_LIST, &len);
    *n = 0;
    if (len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (len > max) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 0; k < len; ++k) {
        uint64_t bits = ld64(c->prog->fb.base, items + 8u * (uint32_t)k);
        memcpy(&v[k], &bits, 8);
    }
    *n = len;
    return RT_OK;
}

rt_status rt_pte_arg_string(const rt_pte_call *c, int32_t i, const char **s, uint32_t *len)
{
    uint32_t kind, f;
    uint32_t tab = arg_value(c, i, &kind);
    const uint8_t *b = c->prog->fb.base;
    *s = NULL;
    *len = 0;
    if (kind != EV_STRING || (f = fast_field(b, tab, 0)) == 0) {
        return RT_ERR_PTE_ARGS;
    }
    f = fast_ref(b, f);
    *len = ld32(b, f);
    *s = (const char *)(b + f + 4u);
    return RT_OK;
}

rt_status rt_pte_arg_tensors(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t,
                             int32_t max, int32_t *n)
{
    int32_t len, k;
    uint32_t items = list_arg(c, i, EV_TENSOR_LIST, &len);
    *n = 0;
    if (len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (len > max) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 0; k < len; ++k) {
        uint32_t kind;
        int32_t v = (int32_t)ld32(c->prog->fb.base, items + 4u * (uint32_t)k);
        fast_tensor(c->prog, fast_value(c->prog, v, &kind), v, &t[k]);
        if (dtype >= 0 && t[k].dtype != dtype) {
            return RT_ERR_PTE_DTYPE;
        }
        if (t[k].data == NULL && !c->check) {
            return RT_ERR_NULL;
        }
    }
    *n = len;
    return RT_OK;
}

int32_t rt_pte_arg_is_none(const rt_pte_call *c, int32_t i)
{
    uint32_t kind;
    (void)arg_value(c, i, &kind);
    return kind == EV_NULL;
}

/* ---- load ---------------------------------------------------------------------------- */

uint32_t rt_pte_arena_size(const uint8_t *pte, uint32_t size, rt_status *status);

COLD static rt_status read_header(rt_pte_program *p, const uint8_t *pte, uint32_t size)
{
    uint32_t fb_size = size;
    p->segment_base = 0;
    if (size < 8) {
        return RT_ERR_PTE_TRUNCATED;
    }
    if (ld32(pte, 4) != 0x32315445u) { /* "ET12" */
        return RT_ERR_PTE_CORRUPT;
    }
    if (size >= 40 && ld32(pte, 8) == 0x30306865u) { /* "eh00": the extended header */
        uint32_t h[7]; /* length, then program size, segment base, segment size (u64 each) */
        memcpy(h, pte + 12, 28);
        if (h[0] < 32) {
            return RT_ERR_PTE_CORRUPT;
        }
        if ((h[2] | h[4] | h[6]) != 0 || h[1] > size || h[3] > size || h[5] > size - h[3]) {
            return RT_ERR_PTE_TRUNCATED; /* (a high word set: beyond any file we can hold) */
        }
        if (h[1] < 8 || (h[5] > 0 && h[3] < h[1])) {
            return RT_ERR_PTE_CORRUPT;
        }
        fb_size = h[1];
        p->segment_base = h[3];
    }
    p->fb.base = pte;
    p->fb.size = fb_size;
    p->file_size = size;
    return RT_OK;
}

/* The plan's buffers: each memory id's arena offset and size. */
COLD static rt_status read_buffers(rt_rd *r, rt_pte_program *p, uint32_t plan)
{
    int32_t n, k;
    uint32_t first = rt_rd_fvec(r, plan, PLAN_BUFFER_SIZES, 8, &n);
    uint32_t total = 0;
    if (r->err != RT_OK) {
        return r->err;
    }
    p->n_buffers = n > 1 ? n - 1 : 0; /* entry 0 is reserved */
    if (p->n_buffers > RT_PTE_MAX_BUFFERS) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 1; k < n; ++k) {
        uint64_t s = rt_rd_u64(r, first + 8u * (uint32_t)k);
        total = (total + BUFFER_ALIGN - 1u) & ~(BUFFER_ALIGN - 1u);
        if (s > 0x7fffffffu || total > 0x7fffffffu - (uint32_t)s) {
            return RT_ERR_PTE_ARENA; /* (total stays below 2^31: no wrap) */
        }
        p->buffer_base[k] = total;
        p->buffer_size[k] = (uint32_t)s;
        total += (uint32_t)s;
    }
    p->arena_size = total;
    return r->err;
}

COLD static rt_status read_constants(rt_rd *r, rt_pte_program *p, uint32_t root)
{
    uint32_t cs = rt_rd_fref(r, root, PROGRAM_CONST_SEGMENT), at;
    int32_t n;
    p->segments = rt_rd_fvec(r, root, PROGRAM_SEGMENTS, 4, &p->n_segments);
    p->delegate_data = rt_rd_fvec(r, root, PROGRAM_DELEGATE_DATA, 4, &p->n_delegate_data);
    if (cs != 0) {
        uint32_t seg_index = rt_rd_fu32(r, cs, 0, 0);
        p->const_offsets = rt_rd_fvec(r, cs, 1, 8, &n);
        if (r->err == RT_OK && n > 0) {
            at = rt_pte_segment(r, p, seg_index, &p->constants_size);
            if (p->constants_size > 0) { /* (empty: a program with no weights) */
                p->constants = at;
                p->n_const_offsets = n;
            }
        }
    }
    return r->err;
}

COLD static rt_status read_operators(rt_rd *r, rt_pte_program *p, uint32_t plan)
{
    int32_t n, k, j;
    uint32_t first = rt_rd_fvec(r, plan, PLAN_OPERATORS, 4, &n);
    const rt_pte_registry *reg = p->registry;
    p->operators = first;
    if (r->err != RT_OK) {
        return r->err;
    }
    if (n > RT_PTE_MAX_OPERATORS) {
        return RT_ERR_PTE_LIMIT;
    }
    p->n_ops = n;
    for (k = 0; k < n; ++k) {
        uint32_t len_name, len_over;
        uint32_t op = rt_rd_elem(r, first, k);
        const char *name = rt_rd_fstr(r, op, 0, &len_name);
        const char *over = rt_rd_fstr(r, op, 1, &len_over);
        if (r->err != RT_OK) {
            return r->err;
        }
        if (over == NULL) {
            over = "";
        }
        p->ops[k] = NULL;
        for (j = 0; j < reg->n_ops; ++j) {
            if (str_eq(name, len_name, reg->ops[j].name) &&
                str_eq(over, len_over, reg->ops[j].overload)) {
                p->ops[k] = &reg->ops[j];
                break;
            }
        }
        if (p->ops[k] == NULL) {
            p->bad_operator = k;
            return RT_ERR_PTE_OPERATOR;
        }
    }
    return RT_OK;
}

/* Position of instruction i's arguments (a KernelCall's or DelegateCall's args vector). */
uint32_t rt_pte_instruction(rt_rd *r, const rt_pte_program *p, int32_t i, uint32_t *kind,
                            uint32_t *body)
{
    uint32_t ins = rt_rd_elem(r, p->instructions, i);
    *kind = rt_rd_fu8(r, ins, 0, 0);
    *body = rt_rd_fref(r, ins, 1);
    if (r->err == RT_OK && *body == 0) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
    }
    return *body;
}

uint32_t rt_pte_call_args(rt_rd *r, uint32_t body, int32_t *n)
{
    return rt_rd_fvec(r, body, 1, 4, n);
}

COLD static rt_status read_io(rt_rd *r, rt_pte_program *p, uint32_t plan, uint32_t field,
                         int32_t *dst, int32_t *count)
{
    int32_t n, k;
    uint32_t first = rt_rd_fvec(r, plan, field, 4, &n);
    if (r->err != RT_OK) {
        return r->err;
    }
    if (n > RT_PTE_MAX_IO) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 0; k < n; ++k) {
        uint32_t kind;
        dst[k] = rt_pte_index_at(r, first, k);
        (void)rt_pte_value_table(r, p, dst[k], &kind);
        if (r->err != RT_OK) {
            return r->err;
        }
        if (kind != EV_TENSOR) {
            return RT_ERR_PTE_UNSUPPORTED; /* a number as a method input or output */
        }
    }
    *count = n;
    return RT_OK;
}

/* 1 if value v is a tensor whose data is a constant of the file (not planned in the arena). */
COLD static int is_constant(rt_rd *r, const rt_pte_program *p, int64_t v)
{
    uint32_t kind, t = rt_pte_value_table(r, p, v, &kind);
    return kind == EV_TENSOR && rt_rd_fref(r, t, TENSOR_ALLOCATION) == 0 &&
           rt_rd_fu32(r, t, TENSOR_BUFFER, 0) > 0;
}

/* The arguments a call writes (op->writes): none may be a constant, alone or in a list. */
COLD static rt_status check_writes(rt_rd *r, const rt_pte_program *p, const rt_pte_op *op,
                                   uint32_t args, int32_t n)
{
    int32_t k, j, len;
    for (k = 0; k < n && k < 32; ++k) {
        uint32_t kind, t, first;
        int32_t v;
        if (!((op->writes >> k) & 1u)) {
            continue;
        }
        v = rt_pte_index_at(r, args, k);
        t = rt_pte_value_table(r, p, v, &kind);
        if (kind == EV_TENSOR_LIST || kind == EV_OPT_TENSOR_LIST) {
            first = rt_rd_fvec(r, t, 0, 4, &len);
            for (j = 0; j < len && r->err == RT_OK; ++j) {
                int32_t item = (int32_t)rt_rd_u32(r, first + 4u * (uint32_t)j);
                if (item >= 0 && is_constant(r, p, item)) {
                    return RT_ERR_PTE_ARGS;
                }
            }
        } else if (is_constant(r, p, v)) {
            return RT_ERR_PTE_ARGS;
        }
        if (r->err != RT_OK) {
            return r->err;
        }
    }
    return RT_OK;
}

COLD static rt_status check_instructions(rt_rd *r, rt_pte_program *p)
{
    int32_t i, k;
    uint32_t kind, body;
    for (i = 0; i < p->n_instructions; ++i) {
        rt_status s = RT_OK;
        int32_t n = 0;
        uint32_t args = 0;
        p->bad_instruction = i;
        (void)rt_pte_instruction(r, p, i, &kind, &body);
        if (r->err != RT_OK) {
            return r->err;
        }
        if (kind == INS_KERNEL || kind == INS_DELEGATE) {
            args = rt_pte_call_args(r, body, &n);
            for (k = 0; k < n && r->err == RT_OK; ++k) {
                int32_t v = rt_pte_index_at(r, args, k);
                if (v < 0 || v >= p->n_values) {
                    return RT_ERR_PTE_CORRUPT;
                }
            }
            if (r->err != RT_OK) {
                return r->err;
            }
        }
        if (kind == INS_KERNEL) {
            int32_t op = (int32_t)rt_rd_fu32(r, body, 0, 0);
            rt_pte_call c;
            if (op < 0 || op >= p->n_ops) {
                return RT_ERR_PTE_CORRUPT;
            }
            if (n != p->ops[op]->n_args) {
                return RT_ERR_PTE_ARGS;
            }
            RT_TRY(check_writes(r, p, p->ops[op], args, n));
            memset(&c, 0, sizeof c);
            c.prog = p;
            c.op = p->ops[op];
            c.args = args;
            c.n_args = n;
            c.check = 1;
            s = c.op->run(&c);
        } else if (kind == INS_DELEGATE) {
            s = p->registry->delegates == NULL ? RT_ERR_PTE_BACKEND
                                               : p->registry->delegates->call(p, i, body, 1);
        } else if (kind == INS_FREE) {
            if (rt_rd_fu32(r, body, 0, 0) >= (uint32_t)p->n_values) {
                return RT_ERR_PTE_CORRUPT;
            }
        } else if (kind == INS_JUMP_FALSE) {
            uint32_t vk;
            int32_t cond = (int32_t)rt_rd_fu32(r, body, 0, 0);
            int32_t dest = (int32_t)rt_rd_fu32(r, body, 1, 0);
            (void)rt_pte_value_table(r, p, cond, &vk);
            if (r->err != RT_OK) {
                return r->err;
            }
            /* Forward jumps only: a method then always ends (no data-dependent loops). */
            if (vk != EV_BOOL || dest <= i || dest > p->n_instructions) {
                return vk != EV_BOOL ? RT_ERR_PTE_UNSUPPORTED : RT_ERR_PTE_CORRUPT;
            }
        } else { /* MoveCall, or an unknown kind */
            return kind == INS_MOVE ? RT_ERR_PTE_UNSUPPORTED : RT_ERR_PTE_CORRUPT;
        }
        if (r->err != RT_OK) {
            return r->err;
        }
        if (s != RT_OK) {
            return s;
        }
    }
    p->bad_instruction = -1;
    return RT_OK;
}

/* Read the header and find method 0's plan: values, instructions, buffers (p is zeroed). */
COLD static rt_status open_plan(rt_pte_program *p, const uint8_t *pte, uint32_t size,
                                uint32_t *root_out, uint32_t *plan_out)
{
    rt_rd r;
    uint32_t root, plan, chain, first;
    int32_t n;
    memset(p, 0, sizeof *p);
    p->bad_instruction = -1;
    p->bad_operator = -1;
    if (pte == NULL) {
        return RT_ERR_NULL;
    }
    RT_TRY(read_header(p, pte, size));
    r = rt_rd_of(&p->fb);
    root = rt_rd_ref(&r, 0);
    first = rt_rd_fvec(&r, root, PROGRAM_PLANS, 4, &n);
    if (r.err == RT_OK && n < 1) {
        return RT_ERR_PTE_CORRUPT;
    }
    plan = rt_rd_elem(&r, first, 0);
    p->values = rt_rd_fvec(&r, plan, PLAN_VALUES, 4, &p->n_values);
    first = rt_rd_fvec(&r, plan, PLAN_CHAINS, 4, &n);
    if (r.err == RT_OK && n < 1) {
        return RT_ERR_PTE_CORRUPT;
    }
    chain = rt_rd_elem(&r, first, 0);
    p->instructions = rt_rd_fvec(&r, chain, 2, 4, &p->n_instructions);
    if (r.err != RT_OK) {
        return r.err;
    }
    if (p->n_instructions > RT_PTE_MAX_INSTRUCTIONS) {
        return RT_ERR_PTE_LIMIT;
    }
    *root_out = root;
    *plan_out = plan;
    return read_buffers(&r, p, plan);
}

/* Count (fill == 0) or decode (fill != 0) the int lists load caches: RT_PTE_CACHE_MIN_ITEMS
 * items or more, every item an Int that fits in int32. The values are checked (check_value):
 * read directly. */
/* Item k of the int list whose items start at `first` (load checked each an Int): 1 if it
 * fits in int32, its value in *x. */
COLD static int list_item(const rt_pte_program *p, uint32_t first, int32_t k, int32_t *x)
{
    uint32_t kind;
    const uint8_t *b = p->fb.base;
    int32_t at = (int32_t)ld64(b, first + 4u + 8u * (uint32_t)k);
    int64_t v = (int64_t)fast_scalar(b, fast_value(p, at, &kind), 8u);
    int ok = v >= INT32_MIN && v <= INT32_MAX;
    *x = ok ? (int32_t)v : 0;
    return ok;
}

COLD static void cache_lists(rt_pte_program *p, int fill, int32_t *lists, int32_t *items)
{
    const uint8_t *b = p->fb.base;
    int32_t v, k, n, x;
    cached_list *entry = cache_entries(p);
    int32_t *base = (int32_t *)(void *)(entry + (fill ? p->n_cached : 0));
    *lists = 0;
    *items = 0;
    for (v = 0; v < p->n_values; ++v) {
        uint32_t kind, t = fast_value(p, v, &kind), f, first;
        int ok = 1;
        if (kind != EV_INT_LIST || (f = fast_field(b, t, 0)) == 0) {
            continue;
        }
        first = fast_ref(b, f);
        n = (int32_t)ld32(b, first);
        if (n < RT_PTE_CACHE_MIN_ITEMS) {
            continue;
        }
        for (k = 0; k < n && ok; ++k) { /* (each item an Int: check_value) */
            ok = list_item(p, first, k, &x);
        }
        if (!ok) {
            continue; /* not cached: the adapter refuses it (RT_ERR_PTE_ARGS) */
        }
        if (fill) { /* the whole list checked: its items now, inside what the count reserved */
            for (k = 0; k < n; ++k) {
                (void)list_item(p, first, k, &x);
                base[*items + k] = (int32_t)x;
            }
            entry[*lists].value = v;
            entry[*lists].count = n;
            entry[*lists].at = (uint32_t)*items;
        }
        *lists += 1;
        *items += n;
    }
}

/* Check every value whole (the file's constants located first). */
COLD static rt_status check_values(rt_pte_program *p, uint32_t root)
{
    rt_rd r = rt_rd_of(&p->fb);
    int32_t v;
    RT_TRY(read_constants(&r, p, root));
    for (v = 0; v < p->n_values && r.err == RT_OK; ++v) {
        check_value(&r, p, v);
    }
    return r.err;
}

COLD uint32_t rt_pte_state_size(const uint8_t *pte, uint32_t size, rt_status *status)
{
    rt_pte_program p;
    uint32_t root, plan;
    int32_t lists = 0, items = 0;
    rt_status s = open_plan(&p, pte, size, &root, &plan);
    if (s == RT_OK) {
        s = check_values(&p, root);
    }
    if (s == RT_OK) {
        cache_lists(&p, 0, &lists, &items);
    }
    if (status != NULL) {
        *status = s;
    }
    return s == RT_OK ? (uint32_t)sizeof p + RT_PTE_CACHE_BYTES(lists, items) : 0u;
}

COLD rt_status rt_pte_load(rt_pte_program *p, uint32_t state_size, const uint8_t *pte,
                           uint32_t size, uint8_t *arena, uint32_t arena_size,
                           const rt_pte_registry *registry)
{
    rt_rd r;
    uint32_t root, plan;
    int32_t lists, items;
    rt_status s;
    if (p == NULL || state_size < sizeof *p) {
        return p == NULL ? RT_ERR_NULL : RT_ERR_PTE_LIMIT;
    }
    if (((uintptr_t)pte & 15u) != 0 || ((uintptr_t)arena & 15u) != 0 ||
        ((uintptr_t)p & 7u) != 0) {
        memset(p, 0, sizeof *p);
        return RT_ERR_PARAM; /* constants and buffers keep the file's 16-byte alignment */
    }
    RT_TRY(open_plan(p, pte, size, &root, &plan));
    if (registry == NULL) {
        return RT_ERR_NULL;
    }
    p->registry = registry;
    r = rt_rd_of(&p->fb);
    if (p->arena_size > arena_size) {
        return RT_ERR_PTE_ARENA;
    }
    if (arena == NULL && p->arena_size > 0) {
        return RT_ERR_NULL;
    }
    p->arena = arena;
    RT_TRY(check_values(p, root));
    RT_TRY(read_operators(&r, p, plan));
    p->delegates = rt_rd_fvec(&r, plan, PLAN_DELEGATES, 4, &p->n_delegates);
    if (r.err != RT_OK) {
        return r.err;
    }
    if (p->n_delegates > 0) { /* backends come with the registry's delegate support */
        if (registry->delegates == NULL) {
            return RT_ERR_PTE_BACKEND;
        }
        RT_TRY(registry->delegates->load(p));
    }
    cache_lists(p, 0, &lists, &items);
    if (state_size - sizeof *p < RT_PTE_CACHE_BYTES(lists, items)) {
        return RT_ERR_PTE_LIMIT; /* the state is smaller than rt_pte_state_size() */
    }
    p->n_cached = lists;
    cache_lists(p, 1, &lists, &items);
    RT_TRY(read_io(&r, p, plan, PLAN_INPUTS, p->inputs, &p->n_inputs));
    RT_TRY(read_io(&r, p, plan, PLAN_OUTPUTS, p->outputs, &p->n_outputs));
    s = check_instructions(&r, p);
    if (s != RT_OK) {
        return s;
    }
    if (registry->fusion != NULL) { /* the table has producers and activations */
        registry->fusion->find(p);
    }
    return RT_OK;
}

COLD uint32_t rt_pte_arena_size(const uint8_t *pte, uint32_t size, rt_status *status)
{
    rt_pte_program p;
    uint32_t root, plan;
    rt_status s = open_plan(&p, pte, size, &root, &plan);
    if (status != NULL) {
        *status = s;
    }
    return s == RT_OK ? p.arena_size : 0u;
}

/* ---- run ----------------------------------------------------------------------------- */

uint32_t rt_pte_kernel_call(const rt_pte_program *p, int32_t i, rt_pte_call *c, uint32_t *body)
{
    const uint8_t *b = p->fb.base;
    uint32_t ins = fast_ref(b, p->instructions + 4u * (uint32_t)i), args;
    uint32_t f = fast_field(b, ins, 0), kind = f != 0 ? b[f] : 0u;
    *body = fast_ref(b, fast_field(b, ins, 1));
    if (kind == INS_KERNEL) {
        args = fast_ref(b, fast_field(b, *body, 1));
        c->prog = p;
        c->op = p->ops[fast_u32(b, *body, 0)];
        c->args = args + 4u;
        c->n_args = (int32_t)ld32(b, args);
        c->check = 0;
        c->act.on = 0; /* (lo and hi are read only when it is on) */
    }
    return kind;
}

rt_status rt_pte_run(rt_pte_program *p)
{
    int32_t i;
    if (p == NULL || p->registry == NULL) {
        return RT_ERR_NULL;
    }
    for (i = 0; i < p->n_instructions; ++i) {
        rt_status s = RT_OK;
        const uint8_t *b = p->fb.base;
        rt_pte_call c;
        uint32_t body, kind = rt_pte_kernel_call(p, i, &c, &body);
        if (kind == INS_KERNEL) {
            if (rt_pte_bit(p->skip, i)) {
                continue;
            }
            if (rt_pte_bit(p->fused, i)) {
                s = p->registry->fusion->bounds(p, i, &c.act);
            }
            if (s == RT_OK) {
                s = c.op->run(&c);
            }
        } else if (kind == INS_DELEGATE) {
            s = p->registry->delegates == NULL ? RT_ERR_PTE_BACKEND
                                               : p->registry->delegates->call(p, i, body, 0);
        } else if (kind == INS_JUMP_FALSE) { /* (load checked: a Bool, a later instruction) */
            uint32_t vk;
            if (fast_scalar(b, fast_value(p, (int32_t)fast_u32(b, body, 0), &vk), 1u) == 0) {
                i = (int32_t)fast_u32(b, body, 1) - 1;
            }
        }
        if (s != RT_OK) {
            p->bad_instruction = i;
            return s;
        }
    }
    return RT_OK;
}

/* ---- inputs and outputs -------------------------------------------------------------- */

/* Input (out == 0) or output k. */
static rt_status io_tensor(const rt_pte_program *p, int32_t k, int out, rt_pte_tensor *t)
{
    uint32_t kind;
    int32_t v;
    if (p == NULL || t == NULL) {
        return RT_ERR_NULL;
    }
    if (k < 0 || k >= (out ? p->n_outputs : p->n_inputs)) {
        return RT_ERR_INDEX;
    }
    v = (out ? p->outputs : p->inputs)[k];
    fast_tensor(p, fast_value(p, v, &kind), v, t); /* (load checked: a Tensor) */
    return RT_OK;
}

int32_t rt_pte_num_inputs(const rt_pte_program *p)
{
    return p != NULL ? p->n_inputs : 0;
}

int32_t rt_pte_num_outputs(const rt_pte_program *p)
{
    return p != NULL ? p->n_outputs : 0;
}

rt_status rt_pte_input(const rt_pte_program *p, int32_t k, rt_pte_tensor *t)
{
    return io_tensor(p, k, 0, t);
}

rt_status rt_pte_output(const rt_pte_program *p, int32_t k, rt_pte_tensor *t)
{
    return io_tensor(p, k, 1, t);
}

/* Bind value v (an input or output the program does not plan) to the caller's data. */
COLD static rt_status bind_value(rt_pte_program *p, int32_t v, const rt_pte_tensor *t,
                                 void *data)
{
    int32_t slot = find_bound(p, v);
    if ((uintptr_t)data % (uint32_t)rt_pte_elem_size(t->dtype) != 0) {
        return RT_ERR_PTE_ALIGN; /* a kernel's loads of this dtype need it aligned */
    }
    if (slot < 0) {
        if (t->data != NULL) {
            return RT_ERR_PARAM; /* planned: use the data rt_pte_input/output give instead */
        }
        if (p->n_bound >= RT_PTE_MAX_BOUND) {
            return RT_ERR_PTE_LIMIT;
        }
        slot = p->n_bound++;
        p->bound_value[slot] = v;
    }
    p->bound_data[slot] = data;
    return RT_OK;
}

COLD rt_status rt_pte_bind_input(rt_pte_program *p, int32_t k, void *data)
{
    rt_pte_tensor t;
    if (p == NULL || data == NULL) {
        return RT_ERR_NULL;
    }
    RT_TRY(rt_pte_input(p, k, &t));
    return bind_value(p, p->inputs[k], &t, data);
}

COLD rt_status rt_pte_bind_output(rt_pte_program *p, int32_t k, void *data)
{
    rt_pte_tensor t;
    if (p == NULL || data == NULL) {
        return RT_ERR_NULL;
    }
    RT_TRY(rt_pte_output(p, k, &t));
    return bind_value(p, p->outputs[k], &t, data);
}

COLD rt_status rt_pte_operator(const rt_pte_program *p, int32_t k, const char **name,
                          const char **overload)
{
    rt_rd r;
    uint32_t len, op;
    if (p == NULL || name == NULL || overload == NULL) {
        return RT_ERR_NULL;
    }
    if (k < 0 || k >= p->n_ops) { /* (read_operators checked the vector) */
        return RT_ERR_INDEX;
    }
    r = rt_rd_of(&p->fb);
    op = rt_rd_elem(&r, p->operators, k);
    *name = rt_rd_fstr(&r, op, 0, &len);
    *overload = rt_rd_fstr(&r, op, 1, &len);
    return r.err;
}

COLD const char *rt_status_name(rt_status s)
{
    static const char *const names[] = {
        "RT_OK", "RT_ERR_NULL", "RT_ERR_RANK", "RT_ERR_SHAPE", "RT_ERR_PARAM",
        "RT_ERR_SCRATCH", "RT_ERR_INDEX", "RT_ERR_PTE_TRUNCATED", "RT_ERR_PTE_CORRUPT",
        "RT_ERR_PTE_OPERATOR", "RT_ERR_PTE_ARENA", "RT_ERR_PTE_DTYPE", "RT_ERR_PTE_ARGS",
        "RT_ERR_PTE_BACKEND", "RT_ERR_PTE_UNSUPPORTED", "RT_ERR_PTE_LIMIT", "RT_ERR_PTE_ALIGN"
    };
    uint32_t k = (uint32_t)s;
    return k < sizeof names / sizeof names[0] ? names[k] : "unknown rt_status";
}

/* executorch_prim::et_view.default: out takes self's data (bound to it, or copied into out's
 * own storage). */
rt_status rt_op_executorch_prim_et_view_default(const rt_pte_call *c);

rt_status rt_op_executorch_prim_et_view_default(const rt_pte_call *c)
{
    /* (rt_pte_run's own program: a view binds its out in the program's table) */
    rt_pte_program *p = (rt_pte_program *)(uintptr_t)c->prog;
    rt_pte_tensor self, out;
    int32_t out_v = (int32_t)ld32(p->fb.base, c->args + 4u * (uint32_t)(c->n_args - 1)), k;
    RT_TRY(rt_pte_arg_tensor(c, 0, -1, &self));
    RT_TRY(fast_tensor_arg(c, c->n_args - 1, self.dtype, &out, 2)); /* out may be unbound */
    if (out.nbytes != self.nbytes) {
        return RT_ERR_PTE_ARGS;
    }
    if (c->check) {
        return RT_OK;
    }
    k = find_bound(p, out_v);
    if (k >= 0) {
        p->bound_data[k] = self.data;
    } else if (out.data == NULL) {
        if (p->n_bound >= RT_PTE_MAX_BOUND) {
            return RT_ERR_PTE_LIMIT;
        }
        p->bound_value[p->n_bound] = out_v;
        p->bound_data[p->n_bound++] = self.data;
    } else if (out.data != self.data) {
        memmove(out.data, self.data, (size_t)self.nbytes);
    }
    return RT_OK;
}
