/* pte_check.c - what rt_pte_load checks before anything runs: every value whole (each
 * table, vtable, vector and field on the way, list items of the right kind, tensor data
 * inside the file or inside its planned buffer) and every instruction (its arguments, what
 * it writes, its adapter's own checks, forward jumps only).
 */
#include <string.h>

#include "rt_check.h"
#include "pte_internal.h"

PTE_FOR_SIZE

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

COLD void rt_pte_check_value(rt_rd *r, const rt_pte_program *p, int32_t v)
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

COLD rt_status rt_pte_check_instructions(rt_rd *r, rt_pte_program *p)
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
