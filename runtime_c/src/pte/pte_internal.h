/* pte_internal.h - what the interpreter's files share (private to src/pte/). */
#ifndef RT_PTE_INTERNAL_H
#define RT_PTE_INTERNAL_H

#include "pte_read.h"

/* What runs once (loading and checking) is built for size; what every call runs (the
 * argument decoding) for speed. */
#if defined(__GNUC__)
#define COLD __attribute__((cold))
#define HOT_INLINE __attribute__((always_inline)) inline
#else
#define COLD
#define HOT_INLINE inline
#endif
/* The interpreter's own files (pte_*.c) are built for size on the host too, as boards build
 * all of src/pte/ (-Os). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define PTE_FOR_SIZE _Pragma("GCC optimize(\"Os\")")
#else
#define PTE_FOR_SIZE
#endif

/* Table and field numbers of schema/program.fbs (ExecuTorch's program schema). */
enum { PROGRAM_PLANS = 1, PROGRAM_CONST_BUFFER = 2, PROGRAM_DELEGATE_DATA = 3,
       PROGRAM_SEGMENTS = 4, PROGRAM_CONST_SEGMENT = 5, PROGRAM_MUTABLE_SEGMENTS = 6 };
enum { PLAN_VALUES = 2, PLAN_INPUTS = 3, PLAN_OUTPUTS = 4, PLAN_CHAINS = 5, PLAN_OPERATORS = 6,
       PLAN_DELEGATES = 7, PLAN_BUFFER_SIZES = 8 };
/* EValue's union KernelTypes */
enum { EV_NULL = 1, EV_INT = 2, EV_BOOL = 3, EV_DOUBLE = 4, EV_TENSOR = 5, EV_STRING = 6,
       EV_INT_LIST = 7, EV_DOUBLE_LIST = 8, EV_BOOL_LIST = 9, EV_TENSOR_LIST = 10,
       EV_OPT_TENSOR_LIST = 11 };
/* Tensor */
enum { TENSOR_DTYPE = 0, TENSOR_STORAGE_OFFSET = 1, TENSOR_SIZES = 2, TENSOR_DIM_ORDER = 3,
       TENSOR_BUFFER = 5, TENSOR_ALLOCATION = 6, TENSOR_DYNAMISM = 8, TENSOR_EXTRA = 9 };
/* Instruction's union InstructionArguments */
enum { INS_KERNEL = 1, INS_DELEGATE = 2, INS_MOVE = 3, INS_JUMP_FALSE = 4, INS_FREE = 5 };

/* The EValue table of value v and its kind (a KernelTypes tag; 0 on a bad index). */
uint32_t rt_pte_value_table(rt_rd *r, const rt_pte_program *p, int64_t v, uint32_t *kind);
/* The int32 held by element i of an int vector at `first`. */
int32_t rt_pte_index_at(rt_rd *r, uint32_t first, int32_t i);
/* Instruction i's kind and the table of its arguments. */
uint32_t rt_pte_instruction(rt_rd *r, const rt_pte_program *p, int32_t i, uint32_t *kind,
                            uint32_t *body);
/* Program.segments[index]: its file position and size (0, 0 when empty); 0 with r->err set
 * when it is not there or not inside the file. */
uint32_t rt_pte_segment(rt_rd *r, const rt_pte_program *p, uint32_t index, uint32_t *size);
/* Instruction i's kind and the table of its arguments, read directly (load checked it); for
 * a KernelCall, *c is the call ready to run (no activation). */
uint32_t rt_pte_kernel_call(const rt_pte_program *p, int32_t i, rt_pte_call *c, uint32_t *body);
/* Bit i of a bitmap. */
int rt_pte_bit(const uint8_t *bits, int32_t i);
/* The args vector of a KernelCall or DelegateCall table. */
uint32_t rt_pte_call_args(rt_rd *r, uint32_t body, int32_t *n);

/* Load's checks (pte_check.c): value v whole (r->err set when it is not sound; the
 * constants located first), and every instruction (each call's adapter run with c->check
 * set), the one refused in p->bad_instruction. */
void rt_pte_check_value(rt_rd *r, const rt_pte_program *p, int32_t v);
rt_status rt_pte_check_instructions(rt_rd *r, rt_pte_program *p);

/* ---- the run path's reads (pte_run.c) ---------------------------------------------------
 * At run an adapter reads exactly the arguments it read at load, when every table, vtable,
 * vector and field on the way was checked, from bytes that have not changed since (the caller
 * keeps the .pte in place). So the run path reads them directly: a value is a few loads, not a
 * walk of checks. */

static HOT_INLINE uint32_t pte_ld32(const uint8_t *b, uint32_t at)
{
    uint32_t v;
    __builtin_memcpy(&v, b + at, 4);
    return v;
}

static HOT_INLINE uint64_t pte_ld64(const uint8_t *b, uint32_t at)
{
    uint64_t v;
    __builtin_memcpy(&v, b + at, 8);
    return v;
}

/* The position the uoffset at `pos` refers to. */
static HOT_INLINE uint32_t pte_ref(const uint8_t *b, uint32_t pos)
{
    return pos + pte_ld32(b, pos);
}

/* Field f of the table at t, or 0 when absent. */
uint32_t rt_pte_fast_field(const uint8_t *b, uint32_t t, uint32_t f);
/* The uint32 (or int32) in field f of the table at t, 0 when absent. */
uint32_t rt_pte_fast_u32(const uint8_t *b, uint32_t t, uint32_t f);
/* Value v's payload table (0 for Null) and kind. */
uint32_t rt_pte_fast_value(const rt_pte_program *p, int32_t v, uint32_t *kind);
/* The scalar in field 0 of an Int, Bool or Double table (`width` 8, or 1 for a Bool). */
uint64_t rt_pte_fast_scalar(const uint8_t *b, uint32_t t, uint32_t width);
/* The Tensor table t of value v: its dtype, shape and data. */
void rt_pte_fast_tensor(const rt_pte_program *p, uint32_t t, int32_t v, rt_pte_tensor *out);
/* Argument i as a tensor of `dtype` (-1: any): optional 1 takes None, 2 an unbound tensor. */
rt_status rt_pte_tensor_arg(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t,
                            int optional);

/* The slot of value v among those bound to the caller's data, or -1. */
static inline int32_t pte_find_bound(const rt_pte_program *p, int32_t v)
{
    int32_t k;
    for (k = 0; k < p->n_bound; ++k) {
        if (p->bound_value[k] == v) {
            return k;
        }
    }
    return -1;
}

/* A cached list in the state's tail: the value it decodes, its length, where its items are
 * (in int32s from the tail's start). */
typedef struct pte_cached_list {
    int32_t value;
    int32_t count;
    uint32_t at;
} pte_cached_list;

static inline pte_cached_list *pte_cache_entries(const rt_pte_program *p)
{
    return (pte_cached_list *)(uintptr_t)((const uint8_t *)p + sizeof *p);
}

#endif /* RT_PTE_INTERNAL_H */
