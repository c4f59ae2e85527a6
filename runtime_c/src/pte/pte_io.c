/* pte_io.c - a loaded program's inputs and outputs, the caller's data bound to them, its
 * operators' names, and the names of the statuses.
 */
#include "rt_check.h"
#include "pte_internal.h"

PTE_FOR_SIZE

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
    rt_pte_fast_tensor(p, rt_pte_fast_value(p, v, &kind), v, t); /* (load checked: a Tensor) */
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

/* Bind input (out == 0) or output k, when the program does not plan it, to the caller's data. */
COLD static rt_status bind_io(rt_pte_program *p, int32_t k, int out, void *data)
{
    rt_pte_tensor t;
    int32_t v, slot;
    if (p == NULL || data == NULL) {
        return RT_ERR_NULL;
    }
    RT_TRY(io_tensor(p, k, out, &t));
    v = (out ? p->outputs : p->inputs)[k];
    slot = pte_find_bound(p, v);
    if ((uintptr_t)data % (uint32_t)rt_pte_elem_size(t.dtype) != 0) {
        return RT_ERR_PTE_ALIGN; /* a kernel's loads of this dtype need it aligned */
    }
    if (slot < 0) {
        if (t.data != NULL) {
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
    return bind_io(p, k, 0, data);
}

COLD rt_status rt_pte_bind_output(rt_pte_program *p, int32_t k, void *data)
{
    return bind_io(p, k, 1, data);
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
