/* pte_delegate.c - delegate calls of the .pte interpreter: each BackendDelegate's backend
 * found among those registered at build time (rt_backend.h), its blob and compile specs
 * handed to init at load, and its arguments split into inputs and outputs (the values a call
 * reads are those defined before it, as aot/backend/program_io.py splits them).
 *
 * Linked only when a firmware registers backends: its kernel table then points
 * rt_pte_registry.delegates at rt_pte_delegates; without it a program with delegates
 * is refused at load (RT_ERR_PTE_BACKEND).
 */
#include <string.h>

#include "rt_check.h"
#include "pte_internal.h"

/* A delegate's BackendDelegate table, filled into *d with its specs in specs[]. */
static rt_status read_delegate(rt_rd *r, const rt_pte_program *p, int32_t k, rt_delegate *d,
                               rt_compile_spec *specs)
{
    uint32_t bd = rt_rd_elem(r, p->delegates, k);
    uint32_t len, ref, loc, index, first;
    int32_t n, s;
    d->backend_id = rt_rd_fstr(r, bd, 0, &len);
    ref = rt_rd_fref(r, bd, 1);
    first = rt_rd_fvec(r, bd, 2, 4, &n);
    if (r->err != RT_OK) {
        return r->err;
    }
    if (d->backend_id == NULL || ref == 0) {
        return RT_ERR_PTE_CORRUPT;
    }
    loc = rt_rd_fu8(r, ref, 0, 0);
    index = rt_rd_fu32(r, ref, 1, 0);
    if (loc == 0) { /* INLINE: Program.backend_delegate_data[index] */
        int32_t size;
        uint32_t blob;
        if (index >= (uint32_t)p->n_delegate_data) {
            return RT_ERR_PTE_CORRUPT;
        }
        blob = rt_rd_fvec(r, rt_rd_elem(r, p->delegate_data, (int32_t)index), 0, 1, &size);
        d->processed = r->b + blob;
        d->processed_size = (uint32_t)size;
    } else { /* SEGMENT: Program.segments[index] */
        uint32_t at = rt_pte_segment(r, p, index, &d->processed_size);
        d->processed = r->b + at;
    }
    if (r->err != RT_OK) {
        return r->err;
    }
    if (n > RT_PTE_MAX_SPECS) {
        return RT_ERR_PTE_LIMIT;
    }
    for (s = 0; s < n; ++s) {
        uint32_t spec = rt_rd_elem(r, first, s);
        int32_t vlen;
        specs[s].key = rt_rd_fstr(r, spec, 0, &len);
        specs[s].value = r->b + rt_rd_fvec(r, spec, 1, 1, &vlen);
        specs[s].size = (uint32_t)vlen;
        if (specs[s].key == NULL && r->err == RT_OK) {
            return RT_ERR_PTE_CORRUPT;
        }
    }
    d->specs = specs;
    d->n_specs = n;
    d->n_inputs = 0;
    d->n_outputs = 0;
    return r->err;
}

/* 1 if value v is an argument of an instruction before `before`, or a plan input, or not a
 * tensor in the arena: then a delegate call reads it (see aot/backend/program_io.py). */
COLD static int defined_before(rt_rd *r, const rt_pte_program *p, int32_t v, int32_t before)
{
    int32_t i, k, n;
    uint32_t kind, body, args;
    for (k = 0; k < p->n_inputs; ++k) {
        if (p->inputs[k] == v) {
            return 1;
        }
    }
    {
        uint32_t vk, t = rt_pte_value_table(r, p, v, &vk);
        if (vk != EV_TENSOR || rt_rd_fu32(r, t, TENSOR_BUFFER, 0) > 0) {
            return 1;
        }
    }
    for (i = 0; i < before && r->err == RT_OK; ++i) {
        (void)rt_pte_instruction(r, p, i, &kind, &body);
        if (kind != INS_KERNEL && kind != INS_DELEGATE) {
            continue;
        }
        args = rt_pte_call_args(r, body, &n);
        for (k = 0; k < n; ++k) {
            if (rt_pte_index_at(r, args, k) == v) {
                return 1;
            }
        }
    }
    return 0;
}

/* Find each delegate's backend (p->delegates, p->n_delegates are read). */
COLD static rt_status load_delegates(rt_pte_program *p)
{
    int32_t k;
    if (p->n_delegates > RT_PTE_MAX_DELEGATES) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 0; k < p->n_delegates; ++k) {
        rt_rd r = rt_rd_of(&p->fb);
        rt_delegate d;
        rt_compile_spec specs[RT_PTE_MAX_SPECS];
        rt_status s = read_delegate(&r, p, k, &d, specs);
        const rt_backend *b;
        if (s != RT_OK) {
            return s;
        }
        b = rt_backend_find(p->registry->backends, p->registry->n_backends, d.backend_id);
        if (b == NULL || b->init == NULL || b->execute == NULL) {
            return RT_ERR_PTE_BACKEND;
        }
        p->backends[k] = b;
    }
    return RT_OK;
}

/* Fill d's arity and the tensors of delegate call i (its args, inputs first). */
static rt_status delegate_io(const rt_pte_program *p, int32_t slot, uint32_t args, int32_t n,
                             rt_delegate *d, rt_tensor *io, rt_pte_tensor *tensors, int check)
{
    int32_t k;
    rt_pte_call c;
    memset(&c, 0, sizeof c);
    c.prog = p;
    c.args = args;
    c.n_args = n;
    c.check = check;
    if (n > 2 * RT_PTE_MAX_IO) {
        return RT_ERR_PTE_LIMIT;
    }
    for (k = 0; k < n; ++k) {
        RT_TRY(rt_pte_arg_tensor(&c, k, -1, &tensors[k]));
        io[k].shape = &tensors[k].shape;
        io[k].data = tensors[k].data;
        io[k].dtype = tensors[k].dtype;
    }
    d->n_inputs = p->delegate_inputs[slot];
    d->n_outputs = n - d->n_inputs;
    return RT_OK;
}

static rt_status run_delegate(const rt_pte_program *p, int32_t i, uint32_t body, int check)
{
    rt_rd r = rt_rd_of(&p->fb);
    int32_t index = (int32_t)rt_rd_fu32(&r, body, 0, 0), n, slot;
    uint32_t args = rt_pte_call_args(&r, body, &n);
    rt_delegate d;
    rt_compile_spec specs[RT_PTE_MAX_SPECS];
    rt_tensor io[2 * RT_PTE_MAX_IO];
    rt_pte_tensor tensors[2 * RT_PTE_MAX_IO];
    rt_status s;
    if (r.err != RT_OK) {
        return r.err;
    }
    if (index < 0 || index >= p->n_delegates) {
        return RT_ERR_PTE_CORRUPT;
    }
    for (slot = 0; slot < p->n_delegate_calls && p->delegate_call[slot] != i; ++slot) {
    }
    if (slot == p->n_delegate_calls) {
        return RT_ERR_PTE_CORRUPT;
    }
    RT_TRY(read_delegate(&r, p, index, &d, specs));
    RT_TRY(delegate_io(p, slot, args, n, &d, io, tensors, check));
    if (d.n_outputs <= 0) {
        return RT_ERR_PTE_ARGS;
    }
    if (check) {
        return p->backends[index]->init(&d);
    }
    s = p->backends[index]->execute(&d, io, io + d.n_inputs);
    return s;
}


/* Delegate call instruction i: at load (check) record how many of its args it reads and let
 * the backend's init check the blob; at run, execute. */
static rt_status call_delegate(rt_pte_program *p, int32_t i, uint32_t body, int check)
{
    if (check) {
        rt_rd r = rt_rd_of(&p->fb);
        int32_t n, n_in = 0, slot = p->n_delegate_calls;
        uint32_t args = rt_pte_call_args(&r, body, &n);
        if (r.err != RT_OK) {
            return r.err;
        }
        if (slot >= RT_PTE_MAX_DELEGATE_CALLS) {
            return RT_ERR_PTE_LIMIT;
        }
        while (n_in < n && defined_before(&r, p, rt_pte_index_at(&r, args, n_in), i)) {
            n_in++;
        }
        if (r.err != RT_OK) {
            return r.err;
        }
        p->delegate_call[slot] = i;
        p->delegate_inputs[slot] = n_in;
        p->n_delegate_calls = slot + 1;
    }
    return run_delegate(p, i, body, check);
}

const rt_pte_delegate_support rt_pte_delegates = { load_delegates, call_delegate };

