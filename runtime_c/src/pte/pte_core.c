/* pte_core.c - the .pte loader (see rt_pte.h): rt_pte_load, rt_pte_state_size and
 * rt_pte_arena_size.
 *
 * Load reads the file once, front to back, and checks it whole (the values and the
 * instructions: pte_check.c); run (pte_run.c) walks the chain's instructions and hands each
 * kernel call to its adapter, which decodes the arguments through the rt_pte_arg_* functions.
 * Nothing is decoded ahead into the state but the long int lists: values are read from the
 * file where they lie, so the state's size does not grow with the program.
 *
 * Table and field numbers are those of schema/program.fbs (ExecuTorch's program schema).
 */
#include <string.h>

#include "rt_check.h"
#include "pte_internal.h"

PTE_FOR_SIZE

#define BUFFER_ALIGN 16u

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

COLD static rt_status read_header(rt_pte_program *p, const uint8_t *pte, uint32_t size)
{
    uint32_t fb_size = size;
    p->segment_base = 0;
    if (size < 8) {
        return RT_ERR_PTE_TRUNCATED;
    }
    if (pte_ld32(pte, 4) != 0x32315445u) { /* "ET12" */
        return RT_ERR_PTE_CORRUPT;
    }
    if (size >= 40 && pte_ld32(pte, 8) == 0x30306865u) { /* "eh00": the extended header */
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

/* Item k of the int list whose items start at `first` (load checked each an Int): 1 if it
 * fits in int32, its value in *x. */
COLD static int list_item(const rt_pte_program *p, uint32_t first, int32_t k, int32_t *x)
{
    uint32_t kind;
    const uint8_t *b = p->fb.base;
    int32_t at = (int32_t)pte_ld64(b, first + 4u + 8u * (uint32_t)k);
    int64_t v = (int64_t)rt_pte_fast_scalar(b, rt_pte_fast_value(p, at, &kind), 8u);
    int ok = v >= INT32_MIN && v <= INT32_MAX;
    *x = ok ? (int32_t)v : 0;
    return ok;
}

/* Count (fill == 0) or decode (fill != 0) the int lists load caches: RT_PTE_CACHE_MIN_ITEMS
 * items or more, every item an Int that fits in int32. The values are checked (pte_check.c):
 * read directly. */
COLD static void cache_lists(rt_pte_program *p, int fill, int32_t *lists, int32_t *items)
{
    const uint8_t *b = p->fb.base;
    int32_t v, k, n, x;
    pte_cached_list *entry = pte_cache_entries(p);
    int32_t *base = (int32_t *)(void *)(entry + (fill ? p->n_cached : 0));
    *lists = 0;
    *items = 0;
    for (v = 0; v < p->n_values; ++v) {
        uint32_t kind, t = rt_pte_fast_value(p, v, &kind), f, first;
        int ok = 1;
        if (kind != EV_INT_LIST || (f = rt_pte_fast_field(b, t, 0)) == 0) {
            continue;
        }
        first = pte_ref(b, f);
        n = (int32_t)pte_ld32(b, first);
        if (n < RT_PTE_CACHE_MIN_ITEMS) {
            continue;
        }
        for (k = 0; k < n && ok; ++k) { /* (each item an Int: pte_check.c) */
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
        rt_pte_check_value(&r, p, v);
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
    s = rt_pte_check_instructions(&r, p);
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
