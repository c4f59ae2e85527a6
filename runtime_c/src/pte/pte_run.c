/* pte_run.c - the run path of the .pte interpreter: rt_pte_run, and the rt_pte_arg_*
 * accessors through which adapters decode a call's arguments (at load and at run).
 */
#include <string.h>

#include "rt_check.h"
#include "pte_internal.h"

PTE_FOR_SIZE

/* ---- direct reads (pte_internal.h: why they need no checks) ------------------------- */

static HOT_INLINE uint32_t ld16(const uint8_t *b, uint32_t at)
{
    return (uint32_t)b[at] | ((uint32_t)b[at + 1] << 8);
}

/* Field f of the table at t, or 0 when absent (t - soffset is its vtable): inline where every
 * argument reads it (values, tensors), a call elsewhere. */
static HOT_INLINE uint32_t hot_field(const uint8_t *b, uint32_t t, uint32_t f)
{
    uint32_t vt = t - pte_ld32(b, t);
    uint32_t at = 4u + 2u * f, fo;
    if (at + 2u > ld16(b, vt)) {
        return 0;
    }
    fo = ld16(b, vt + at);
    return fo != 0 ? t + fo : 0;
}

uint32_t rt_pte_fast_field(const uint8_t *b, uint32_t t, uint32_t f)
{
    return hot_field(b, t, f);
}

uint32_t rt_pte_fast_u32(const uint8_t *b, uint32_t t, uint32_t f)
{
    uint32_t at = rt_pte_fast_field(b, t, f);
    return at != 0 ? pte_ld32(b, at) : 0u;
}

uint32_t rt_pte_fast_value(const rt_pte_program *p, int32_t v, uint32_t *kind)
{
    const uint8_t *b = p->fb.base;
    uint32_t ev = pte_ref(b, p->values + 4u * (uint32_t)v);
    uint32_t ft = hot_field(b, ev, 0), fv = hot_field(b, ev, 1);
    *kind = ft != 0 ? b[ft] : 0u;
    return fv != 0 ? pte_ref(b, fv) : 0u;
}

static uint32_t fast_arg(const rt_pte_call *c, int32_t i, uint32_t *kind, int32_t *v)
{
    *v = (int32_t)pte_ld32(c->prog->fb.base, c->args + 4u * (uint32_t)i);
    return rt_pte_fast_value(c->prog, *v, kind);
}

uint64_t rt_pte_fast_scalar(const uint8_t *b, uint32_t t, uint32_t width)
{
    uint32_t f = rt_pte_fast_field(b, t, 0);
    return f == 0 ? 0u : (width == 8u ? pte_ld64(b, f) : (uint64_t)b[f]);
}

void rt_pte_fast_tensor(const rt_pte_program *p, uint32_t t, int32_t v, rt_pte_tensor *out)
{
    const uint8_t *b = p->fb.base;
    uint32_t f = hot_field(b, t, TENSOR_DTYPE), sizes, buf;
    int32_t rank, k, numel = 1;
    out->dtype = f != 0 ? (int32_t)(int8_t)b[f] : 0;
    f = hot_field(b, t, TENSOR_SIZES);
    sizes = f != 0 ? pte_ref(b, f) : 0u;
    rank = sizes != 0 ? (int32_t)pte_ld32(b, sizes) : 0;
    out->shape.rank = rank;
    for (k = 0; k < rank; ++k) {
        out->shape.d[k] = (int32_t)pte_ld32(b, sizes + 4u + 4u * (uint32_t)k);
        numel *= out->shape.d[k];
    }
    out->nbytes = numel * rt_pte_elem_size(out->dtype);
    f = hot_field(b, t, TENSOR_ALLOCATION);
    if (f != 0) { /* planned (a state tensor too) */
        uint32_t alloc = pte_ref(b, f);
        out->data = p->arena + p->buffer_base[rt_pte_fast_u32(b, alloc, 0)] +
                    rt_pte_fast_u32(b, alloc, 1);
        return;
    }
    buf = rt_pte_fast_u32(b, t, TENSOR_BUFFER);
    if (buf > 0) {
        out->data = (void *)(uintptr_t)(b + p->constants +
                                        (uint32_t)pte_ld64(b, p->const_offsets + 8u * buf));
        return;
    }
    k = pte_find_bound(p, v);
    out->data = k >= 0 ? p->bound_data[k] : NULL;
}

rt_status rt_pte_tensor_arg(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t,
                            int optional)
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
    rt_pte_fast_tensor(c->prog, tab, v, t);
    if (dtype >= 0 && t->dtype != dtype) {
        return RT_ERR_PTE_DTYPE;
    }
    return t->data != NULL || c->check || optional == 2 ? RT_OK : RT_ERR_NULL;
}

/* ---- adapter accessors ------------------------------------------------------------------
 * Adapters run twice per instruction: at load (c->check) to refuse what their kernel cannot
 * take, and at run. Both read through the run path: rt_pte_load has checked every value
 * whole before any adapter runs (pte_check.c: every table, vtable and field on the way, every
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
        *bits = rt_pte_fast_scalar(c->prog->fb.base, tab, kind == EV_BOOL ? 1u : 8u);
    }
    return kind;
}

rt_status rt_pte_arg_tensor(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t)
{
    return rt_pte_tensor_arg(c, i, dtype, t, 0);
}

rt_status rt_pte_arg_opt_tensor(const rt_pte_call *c, int32_t i, int32_t dtype,
                                rt_pte_tensor *t)
{
    return rt_pte_tensor_arg(c, i, dtype, t, 1);
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
    items = rt_pte_fast_field(b, tab, 0);
    if (items == 0) {
        *len = 0;
        return 0;
    }
    items = pte_ref(b, items);
    *len = (int32_t)pte_ld32(b, items);
    return items + 4u;
}

/* A list argument of `kind` with at most `max` items: position of its first item and its
 * length. */
static rt_status sized_list(const rt_pte_call *c, int32_t i, uint32_t kind, int32_t max,
                            uint32_t *items, int32_t *len)
{
    *items = list_arg(c, i, kind, len);
    if (*len < 0) {
        return RT_ERR_PTE_ARGS;
    }
    return *len > max ? RT_ERR_PTE_LIMIT : RT_OK;
}

/* Items [first, first + count) of an int list (value indices, each of an Int). */
static void int_items(const rt_pte_call *c, uint32_t items, int32_t first, int32_t count,
                      int64_t *v)
{
    const uint8_t *b = c->prog->fb.base;
    int32_t k;
    for (k = 0; k < count; ++k) {
        uint32_t kind;
        int32_t at = (int32_t)pte_ld64(b, items + 8u * (uint32_t)(first + k));
        v[k] = (int64_t)rt_pte_fast_scalar(b, rt_pte_fast_value(c->prog, at, &kind), 8u);
    }
}

rt_status rt_pte_arg_ints(const rt_pte_call *c, int32_t i, int64_t *v, int32_t max, int32_t *n)
{
    int32_t len;
    uint32_t items;
    *n = 0;
    RT_TRY(sized_list(c, i, EV_INT_LIST, max, &items, &len));
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
        const pte_cached_list *e = pte_cache_entries(c->prog);
        value = (int32_t)pte_ld32(c->prog->fb.base, c->args + 4u * (uint32_t)i);
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
    uint32_t items;
    *n = 0;
    RT_TRY(sized_list(c, i, EV_DOUBLE_LIST, max, &items, &len));
    for (k = 0; k < len; ++k) {
        uint64_t bits = pte_ld64(c->prog->fb.base, items + 8u * (uint32_t)k);
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
    if (kind != EV_STRING || (f = rt_pte_fast_field(b, tab, 0)) == 0) {
        return RT_ERR_PTE_ARGS;
    }
    f = pte_ref(b, f);
    *len = pte_ld32(b, f);
    *s = (const char *)(b + f + 4u);
    return RT_OK;
}

/* The items of a Tensor[] argument, or (dtypes != NULL) of a Tensor?[] or Tensor[] one: each
 * tensor's shape and data, its dtype for an optional list (a None entry: rank 0, NULL, -1). */
static rt_status tensor_items(const rt_pte_call *c, int32_t i, int32_t dtype, rt_shape *shapes,
                              void **ptrs, int32_t *dtypes, int32_t max, int32_t *n)
{
    int32_t len, k;
    uint32_t list_kind, items;
    *n = 0;
    (void)arg_value(c, i, &list_kind);
    if (dtypes == NULL || list_kind != EV_OPT_TENSOR_LIST) {
        list_kind = EV_TENSOR_LIST; /* a Tensor?[] only where the caller takes one */
    }
    RT_TRY(sized_list(c, i, list_kind, max, &items, &len));
    for (k = 0; k < len; ++k) {
        uint32_t kind;
        rt_pte_tensor t;
        int32_t v = (int32_t)pte_ld32(c->prog->fb.base, items + 4u * (uint32_t)k);
        if (v == -1 && dtypes != NULL) { /* (load checked: only a Tensor?[] holds -1) */
            memset(&t, 0, sizeof t);
            t.dtype = -1;
        } else {
            rt_pte_fast_tensor(c->prog, rt_pte_fast_value(c->prog, v, &kind), v, &t);
            if (dtype >= 0 && t.dtype != dtype) {
                return RT_ERR_PTE_DTYPE;
            }
            if (t.data == NULL && !c->check) {
                return RT_ERR_NULL;
            }
        }
        shapes[k] = t.shape;
        ptrs[k] = t.data;
        if (dtypes != NULL) {
            dtypes[k] = t.dtype;
        }
    }
    *n = len;
    return RT_OK;
}

rt_status rt_pte_arg_tensor_list(const rt_pte_call *c, int32_t i, int32_t dtype,
                                 rt_shape *shapes, void **ptrs, int32_t max, int32_t *n)
{
    return tensor_items(c, i, dtype, shapes, ptrs, NULL, max, n);
}

rt_status rt_pte_arg_opt_tensor_list(const rt_pte_call *c, int32_t i, rt_shape *shapes,
                                     void **ptrs, int32_t *dtypes, int32_t max, int32_t *n)
{
    return tensor_items(c, i, -1, shapes, ptrs, dtypes, max, n);
}

int32_t rt_pte_arg_is_none(const rt_pte_call *c, int32_t i)
{
    uint32_t kind;
    (void)arg_value(c, i, &kind);
    return kind == EV_NULL;
}

/* ---- run ----------------------------------------------------------------------------- */

int rt_pte_bit(const uint8_t *bits, int32_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

uint32_t rt_pte_kernel_call(const rt_pte_program *p, int32_t i, rt_pte_call *c, uint32_t *body)
{
    const uint8_t *b = p->fb.base;
    uint32_t ins = pte_ref(b, p->instructions + 4u * (uint32_t)i), args;
    uint32_t f = rt_pte_fast_field(b, ins, 0), kind = f != 0 ? b[f] : 0u;
    *body = pte_ref(b, rt_pte_fast_field(b, ins, 1));
    if (kind == INS_KERNEL) {
        args = pte_ref(b, rt_pte_fast_field(b, *body, 1));
        c->prog = p;
        c->op = p->ops[rt_pte_fast_u32(b, *body, 0)];
        c->args = args + 4u;
        c->n_args = (int32_t)pte_ld32(b, args);
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
            uint32_t vk, cond = rt_pte_fast_value(p, (int32_t)rt_pte_fast_u32(b, body, 0), &vk);
            if (rt_pte_fast_scalar(b, cond, 1u) == 0) {
                i = (int32_t)rt_pte_fast_u32(b, body, 1) - 1;
            }
        }
        if (s != RT_OK) {
            p->bad_instruction = i;
            return s;
        }
    }
    return RT_OK;
}

/* executorch_prim::et_view.default: out takes self's data (bound to it, or copied into out's
 * own storage). */
rt_status rt_op_executorch_prim_et_view_default(const rt_pte_call *c);

rt_status rt_op_executorch_prim_et_view_default(const rt_pte_call *c)
{
    /* (rt_pte_run's own program: a view binds its out in the program's table) */
    rt_pte_program *p = (rt_pte_program *)(uintptr_t)c->prog;
    rt_pte_tensor self, out;
    int32_t out_v = (int32_t)pte_ld32(p->fb.base, c->args + 4u * (uint32_t)(c->n_args - 1)), k;
    RT_TRY(rt_pte_arg_tensor(c, 0, -1, &self));
    RT_TRY(rt_pte_tensor_arg(c, c->n_args - 1, self.dtype, &out, 2)); /* out may be unbound */
    if (out.nbytes != self.nbytes) {
        return RT_ERR_PTE_ARGS;
    }
    if (c->check) {
        return RT_OK;
    }
    k = pte_find_bound(p, out_v);
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
