/* pte_fuse.c - the interpreter's fused epilogues: an activation run inside the conv, addmm or
 * add before it, exactly where the static C fuses it (aot/codegen/epilogue.py), so the two
 * give the same bits and the interpreter makes no pass over memory the static C does not.
 *
 * Linked only when a firmware's kernel table has both producers and activations (float32
 * programs): the table then points rt_pte_registry.fusion at rt_pte_fusion.
 */
#include <math.h>
#include <string.h>

#include "rt_check.h"
#include "rt_pte.h"
#include "pte_internal.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

static void set_bit(uint8_t *bits, int32_t i)
{
    bits[i >> 3] = (uint8_t)(bits[i >> 3] | (1u << (i & 7)));
}

/* The activation bounds of call c (an RT_PTE_ACT_* op), as the static C takes them. */
static rt_status act_bounds(const rt_pte_call *c, rt_act_f32 *act)
{
    double lo = -1.0, hi = 1.0;
    act->on = 1;
    if (c->op->flags & RT_PTE_ACT_RELU) {
        act->lo = 0.0f;
        act->hi = INFINITY;
        return RT_OK;
    }
    if (c->op->flags & RT_PTE_ACT_CLAMP) {
        lo = -(double)INFINITY;
        hi = (double)INFINITY;
    }
    if (!rt_pte_arg_is_none(c, 1)) {
        RT_TRY(rt_pte_arg_double(c, 1, &lo));
    }
    if (!rt_pte_arg_is_none(c, 2)) {
        RT_TRY(rt_pte_arg_double(c, 2, &hi));
    }
    act->lo = rt_pte_f32(lo);
    act->hi = rt_pte_f32(hi);
    return RT_OK;
}

/* The kernel call after instruction i, views aside; -1 if something else comes first. */
static int32_t next_kernel(rt_rd *r, const rt_pte_program *p, int32_t i)
{
    int32_t j;
    uint32_t kind, body;
    for (j = i + 1; j < p->n_instructions; ++j) {
        int32_t op;
        (void)rt_pte_instruction(r, p, j, &kind, &body);
        if (r->err != RT_OK || kind != INS_KERNEL) {
            return -1;
        }
        op = (int32_t)rt_rd_fu32(r, body, 0, 0);
        if (!(p->ops[op]->flags & RT_PTE_VIEW)) {
            return j;
        }
    }
    return -1;
}

COLD static int same_storage(const rt_pte_tensor *a, const rt_pte_tensor *b)
{
    int32_t k;
    if (a->data != b->data || a->data == NULL || a->shape.rank != b->shape.rank) {
        return 0;
    }
    for (k = 0; k < a->shape.rank; ++k) {
        if (a->shape.d[k] != b->shape.d[k]) {
            return 0;
        }
    }
    return 1;
}

/* Fuse activation j into producer i when the static C would (aot/codegen/epilogue.py): the
 * activation runs in place over the producer's output, which nothing else reads, every
 * tensor is float32 (an in-place convolution's scratch aside), and a convolution is not
 * transposed. */
COLD static int fusable(const rt_pte_program *p, int32_t i, int32_t j)
{
    enum { IN_PLACE_SCRATCH = 9 };
    rt_rd r = rt_rd_of(&p->fb);
    uint32_t kind, body;
    int32_t n_p, n_a, k, out_v, x_v, m, in_place;
    uint32_t pargs, aargs;
    rt_pte_call c;
    rt_pte_tensor x, y, t;
    const rt_pte_op *prod;
    prod = p->ops[rt_rd_fu32(&r, rt_pte_instruction(&r, p, i, &kind, &body), 0, 0)];
    pargs = rt_pte_call_args(&r, body, &n_p);
    (void)rt_pte_instruction(&r, p, j, &kind, &body);
    aargs = rt_pte_call_args(&r, body, &n_a);
    if (r.err != RT_OK || n_p < 2 || n_a < 2) {
        return 0;
    }
    out_v = rt_pte_index_at(&r, pargs, n_p - 1);     /* the producer's returned out */
    x_v = rt_pte_index_at(&r, aargs, 0);
    if (x_v != out_v) {
        return 0;
    }
    memset(&c, 0, sizeof c);
    c.prog = p;
    c.check = 1;
    c.args = pargs;
    c.n_args = n_p;
    c.op = prod;
    /* mcu_aot::convolution_in_place: aten::convolution's 9 arguments, then its scratch
       (bytes: argument IN_PLACE_SCRATCH), then out */
    in_place = rt_str_equal(prod->name, "mcu_aot::convolution_in_place");
    if (in_place || rt_str_equal(prod->name, "aten::convolution")) {
        int32_t transposed = 1;
        if (rt_pte_arg_bool(&c, 6, &transposed) != RT_OK || transposed) {
            return 0;
        }
    }
    for (k = 0; k < n_p; ++k) { /* every tensor of the producer is float32 */
        if (!(in_place && k == IN_PLACE_SCRATCH) && !rt_pte_arg_is_none(&c, k) &&
            rt_pte_arg_tensor(&c, k, -1, &t) == RT_OK && t.dtype != RT_DTYPE_F32) {
            return 0;
        }
    }
    c.args = aargs;
    c.n_args = n_a;
    if (rt_pte_arg_tensor(&c, 0, RT_DTYPE_F32, &x) != RT_OK ||
        rt_pte_arg_tensor(&c, n_a - 1, RT_DTYPE_F32, &y) != RT_OK || !same_storage(&x, &y)) {
        return 0;
    }
    for (m = 0; m < p->n_inputs; ++m) {
        if (p->inputs[m] == x_v) {
            return 0;
        }
    }
    for (m = 0; m < p->n_outputs; ++m) {
        if (p->outputs[m] == x_v) {
            return 0;
        }
    }
    for (m = 0; m < p->n_instructions; ++m) { /* no reader but the pair */
        int32_t n, a;
        uint32_t args;
        if (m == i || m == j) {
            continue;
        }
        (void)rt_pte_instruction(&r, p, m, &kind, &body);
        if (kind != INS_KERNEL && kind != INS_DELEGATE) {
            continue;
        }
        args = rt_pte_call_args(&r, body, &n);
        for (a = 0; a < n; ++a) {
            if (rt_pte_index_at(&r, args, a) == x_v) {
                return 0;
            }
        }
    }
    return r.err == RT_OK;
}

COLD static void find_fusions(rt_pte_program *p)
{
    rt_rd r = rt_rd_of(&p->fb);
    int32_t i;
    uint32_t kind, body;
    for (i = 0; i < p->n_instructions; ++i) {
        int32_t j;
        const rt_pte_op *op;
        (void)rt_pte_instruction(&r, p, i, &kind, &body);
        if (r.err != RT_OK || kind != INS_KERNEL || rt_pte_bit(p->skip, i)) {
            continue;
        }
        op = p->ops[rt_rd_fu32(&r, body, 0, 0)];
        if (!(op->flags & RT_PTE_FUSE_PRODUCER)) {
            continue;
        }
        j = next_kernel(&r, p, i);
        if (j < 0) {
            continue;
        }
        (void)rt_pte_instruction(&r, p, j, &kind, &body);
        op = p->ops[rt_rd_fu32(&r, body, 0, 0)];
        if ((op->flags & (RT_PTE_ACT_RELU | RT_PTE_ACT_HARDTANH | RT_PTE_ACT_CLAMP)) &&
            fusable(p, i, j)) {
            set_bit(p->fused, i);
            set_bit(p->skip, j);
        }
    }
}

/* The bounds of the activation producer i absorbed: the kernel call after it, views aside
 * (find_fusions found it there; read directly, as the run path reads). */
static rt_status bounds_after(const rt_pte_program *p, int32_t i, rt_act_f32 *act)
{
    rt_pte_call c;
    uint32_t body;
    do {
        if (++i >= p->n_instructions || rt_pte_kernel_call(p, i, &c, &body) != INS_KERNEL) {
            return RT_ERR_PTE_CORRUPT;
        }
    } while (c.op->flags & RT_PTE_VIEW);
    return act_bounds(&c, act);
}

const rt_pte_fusion_support rt_pte_fusion = { find_fusions, bounds_after };
