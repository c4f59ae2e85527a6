/* pte_internal.h - what the interpreter's files share (private to src/pte/). */
#ifndef RT_PTE_INTERNAL_H
#define RT_PTE_INTERNAL_H

#include "pte_read.h"

/* What runs once (loading and checking) is built for size; what every call runs (the
 * argument decoding) for speed. */
#if defined(__GNUC__)
#define COLD __attribute__((cold))
#else
#define COLD
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

#endif /* RT_PTE_INTERNAL_H */
