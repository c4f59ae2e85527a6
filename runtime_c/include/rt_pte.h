/* rt_pte.h - run a .pte (an ExecuTorch program) from its bytes: loader and interpreter.
 *
 * The program stays where the caller keeps it (flash): constants are read in place, never
 * copied. The caller gives three things:
 *   - the .pte bytes (8-byte aligned; they must stay valid while the program is used),
 *   - the arena, at least rt_pte_arena_size() bytes (the planned buffers, one after another),
 *   - the interpreter's whole state: an rt_pte_program followed by the program's long int
 *     lists, decoded once (a layer's per-channel requantization: RT_PTE_CACHE_MIN_ITEMS or
 *     more items), rt_pte_state_size() bytes, 8-byte aligned. For a program without such
 *     lists that is sizeof(rt_pte_program), whatever its size.
 *
 *     static uint64_t state[STATE_BYTES / 8];
 *     rt_pte_program *prog = (rt_pte_program *)state;
 *     rt_status s = rt_pte_load(prog, sizeof state, pte, pte_size, arena, sizeof arena,
 *                               &rt_pte_registry_default);
 *     rt_pte_input(&prog, 0, &t);  ... write the input into t.data ...
 *     s = rt_pte_run(&prog);
 *     rt_pte_output(&prog, 0, &t); ... read t.data ...
 *
 * rt_pte_load validates the whole file before anything runs, as ExecuTorch does at init: every
 * offset, size and index in the flatbuffer, every value (tensor dtypes, sizes, where its data
 * lies: inside the arena or inside the file), every instruction (each operator resolved in the
 * kernel table, its arguments of the kinds and dtypes its kernel takes) and every delegate
 * (its backend registered). A bad file gets a status naming what is wrong (below); no byte
 * outside the .pte, the arena or the state is ever read. No heap, no recursion.
 *
 * Kernels: one table of rt_pte_op, generated from mcu-aot's op table (aot/ops.py) with only
 * the operators a firmware's programs use, or all of them (aot.pte_c). Each entry's `run`
 * decodes a call's arguments and calls the same runtime_c kernel the static C would.
 */
#ifndef RT_PTE_H
#define RT_PTE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_types.h"
#include "rt_kernels.h"
#include "rt_backend.h"

/* Limits of the fixed-size state. A program over them is refused with RT_ERR_PTE_LIMIT. */
#define RT_PTE_MAX_OPERATORS 64      /* distinct operators of a method */
#define RT_PTE_MAX_INSTRUCTIONS 1024 /* instructions of its chain */
#define RT_PTE_MAX_IO 16             /* inputs, and outputs */
#define RT_PTE_MAX_BUFFERS 4         /* planned memory buffers (non_const_buffer_sizes - 1) */
#define RT_PTE_MAX_BOUND 32          /* tensors whose data is bound at run time (views) */
#define RT_PTE_MAX_DELEGATES 8
#define RT_PTE_MAX_DELEGATE_CALLS 16
#define RT_PTE_MAX_SPECS 8           /* compile specs of one delegate */
#define RT_PTE_MAX_LIST 64           /* items of one list argument an adapter decodes */
#define RT_PTE_CACHE_MIN_ITEMS 16    /* an int list this long is decoded once, at load */

/* State bytes past the rt_pte_program for `lists` cached int lists of `items` items in all. */
#define RT_PTE_CACHE_BYTES(lists, items) (12u * (uint32_t)(lists) + 4u * (uint32_t)(items))

/* What a .pte's tensor lists and arguments decode to. */
typedef struct rt_pte_tensor {
    rt_shape shape;
    void *data;       /* NULL for an absent optional tensor */
    int32_t dtype;    /* an rt_dtype (the .pte's ScalarType) */
    int32_t nbytes;
} rt_pte_tensor;

/* Bytes per element of an rt_dtype; 0 for a dtype the runtime does not take. */
static inline int32_t rt_pte_elem_size(int32_t dtype)
{
    switch (dtype) {
    case RT_DTYPE_U8:
    case RT_DTYPE_I8:
    case RT_DTYPE_BOOL:
        return 1;
    case RT_DTYPE_I16:
        return 2;
    case RT_DTYPE_I32:
    case RT_DTYPE_F32:
        return 4;
    case RT_DTYPE_I64:
        return 8;
    default:
        return 0;
    }
}

/* A double as the float the static C writes for it (np.float32(x): round to nearest, beyond
 * the float range an infinity), with no undefined conversion: C leaves (float)x undefined
 * for an x outside the float range. */
static inline float rt_pte_f32(double x)
{
    if (x >= 0x1.ffffffp127 || x <= -0x1.ffffffp127) { /* FLT_MAX and half an ulp: rounds up */
        return x > 0.0 ? INFINITY : -INFINITY;
    }
    if (x > 0x1.fffffep127 || x < -0x1.fffffep127) { /* rounds down to FLT_MAX */
        return x > 0.0 ? 0x1.fffffep127f : -0x1.fffffep127f;
    }
    return (float)x; /* (NaN stays NaN) */
}

/* The shape pointer a kernel takes for an optional tensor: NULL when it is absent. */
#define RT_PTE_SHAPE(t) ((t)->data != NULL ? &(t)->shape : (const rt_shape *)NULL)

struct rt_pte_program;
struct rt_pte_call;

/* An operator's entry in the kernel table: its .pte name and overload, how many arguments a
 * call of it holds (its out-variant schema's arguments, then its returns again), and `run`,
 * which decodes those arguments and calls the kernel. */
typedef rt_status (*rt_pte_kernel)(const struct rt_pte_call *call);

/* Flags of an op-table entry: how the interpreter may fuse an activation into its producer
 * (as the static C does, aot/codegen/epilogue.py). */
#define RT_PTE_FUSE_PRODUCER 1u   /* conv, addmm, add.Tensor: its kernel takes an rt_act_f32 */
#define RT_PTE_ACT_RELU 2u
#define RT_PTE_ACT_HARDTANH 4u    /* bounds in args 1, 2 */
#define RT_PTE_ACT_CLAMP 8u       /* bounds in args 1, 2 (each may be None) */
#define RT_PTE_VIEW 16u           /* executorch_prim::et_view: binds out to self's data */

typedef struct rt_pte_op {
    const char *name;      /* e.g. "aten::convolution" */
    const char *overload;  /* e.g. "out" */
    int32_t n_args;
    uint32_t flags;
    rt_pte_kernel run;
    /* Bit k set: the call writes argument k (an out tensor or tensor list, or the result
     * repeated last). Load refuses a call whose written argument is a constant: constants are
     * the file's bytes, which the program only reads. */
    uint32_t writes;
} rt_pte_op;

struct rt_pte_delegate_support;
struct rt_pte_fusion_support;

/* The operators and backends a firmware can run: what rt_pte_load resolves names in.
 * `delegates` is &rt_pte_delegates when backends are registered (it brings the
 * delegate calls' code, src/pte/pte_delegate.c), else NULL: a program with delegates is then
 * refused (RT_ERR_PTE_BACKEND). */
typedef struct rt_pte_registry {
    const rt_pte_op *ops;
    int32_t n_ops;
    const rt_backend *const *backends;
    int32_t n_backends;
    const struct rt_pte_delegate_support *delegates;
    /* &rt_pte_fusion when the table has producers and activations (src/pte/pte_fuse.c),
     * else NULL (nothing to fuse). */
    const struct rt_pte_fusion_support *fusion;
} rt_pte_registry;

/* A flatbuffer in memory: every read is checked against size. */
typedef struct rt_fb {
    const uint8_t *base;
    uint32_t size;
} rt_fb;

/* The interpreter's state (its fixed part; the cached lists follow it). */
typedef struct rt_pte_program {
    rt_fb fb;                     /* the flatbuffer (the whole file) */
    const rt_pte_registry *registry;
    uint8_t *arena;
    uint32_t arena_size;          /* what the program needs, <= what was given */
    uint32_t buffer_base[RT_PTE_MAX_BUFFERS + 1]; /* arena offset of each memory_id */
    uint32_t buffer_size[RT_PTE_MAX_BUFFERS + 1];
    int32_t n_buffers;            /* memory ids 1..n_buffers */
    uint32_t values;              /* file position of ExecutionPlan.values' first element */
    int32_t n_values;
    uint32_t instructions;        /* ... of the chain's instructions */
    int32_t n_instructions;
    uint32_t constants;           /* file position of the constant segment (0: none) */
    uint32_t constants_size;
    uint32_t const_offsets;       /* file position of constant_segment.offsets' first element */
    int32_t n_const_offsets;
    int32_t n_inputs, n_outputs;
    int32_t inputs[RT_PTE_MAX_IO];  /* value indices */
    int32_t outputs[RT_PTE_MAX_IO];
    const rt_pte_op *ops[RT_PTE_MAX_OPERATORS];  /* each operator's table entry */
    int32_t n_ops;
    uint32_t operators;           /* file position of ExecutionPlan.operators' first element */
    const rt_backend *backends[RT_PTE_MAX_DELEGATES];
    int32_t n_delegates;
    int32_t n_bound;
    int32_t bound_value[RT_PTE_MAX_BOUND];      /* value index -> data bound at run time */
    void *bound_data[RT_PTE_MAX_BOUND];
    int32_t n_delegate_calls;
    int32_t delegate_call[RT_PTE_MAX_DELEGATE_CALLS]; /* instruction index of each */
    int32_t delegate_inputs[RT_PTE_MAX_DELEGATE_CALLS]; /* how many of its args it reads */
    uint32_t delegates;           /* file position of ExecutionPlan.delegates' first element */
    uint32_t segments;            /* ... of Program.segments' first element */
    int32_t n_segments;
    uint32_t segment_base;        /* file position the segments' offsets count from */
    uint32_t delegate_data;       /* ... of Program.backend_delegate_data's first element */
    int32_t n_delegate_data;
    uint32_t file_size;
    uint8_t fused[RT_PTE_MAX_INSTRUCTIONS / 8]; /* producers that take the next activation */
    uint8_t skip[RT_PTE_MAX_INSTRUCTIONS / 8];  /* activations a producer took */
    int32_t bad_instruction;      /* the instruction a load or run failed at, or -1 */
    int32_t bad_operator;         /* the operator load could not resolve, or -1 */
    int32_t n_cached;             /* int lists decoded into the state's tail */
} rt_pte_program;

/* One call being decoded (at load, check != 0: validate and return without running) or run. */
typedef struct rt_pte_call {
    const rt_pte_program *prog;
    const rt_pte_op *op;
    uint32_t args;      /* file position of the args vector's first element */
    int32_t n_args;
    int32_t check;
    rt_act_f32 act;     /* the fused activation of a producer ({0} when none) */
} rt_pte_call;

typedef struct rt_pte_delegate_support {
    rt_status (*load)(rt_pte_program *p);
    rt_status (*call)(rt_pte_program *p, int32_t instruction, uint32_t body, int check);
} rt_pte_delegate_support;

extern const rt_pte_delegate_support rt_pte_delegates;

typedef struct rt_pte_fusion_support {
    void (*find)(rt_pte_program *p);
    rt_status (*bounds)(const rt_pte_program *p, int32_t producer, rt_act_f32 *act);
} rt_pte_fusion_support;

extern const rt_pte_fusion_support rt_pte_fusion;

/* ---- the API ------------------------------------------------------------------------- */

/* Validate `pte` (size bytes) and prepare method 0 to run in `arena`. On failure nothing of
 * the program may be used; prog->bad_instruction names the instruction at fault (or -1). */
rt_status rt_pte_load(rt_pte_program *prog, uint32_t state_size, const uint8_t *pte,
                      uint32_t size, uint8_t *arena, uint32_t arena_size,
                      const rt_pte_registry *registry);

/* Bytes of state (prog) the program at `pte` needs (0 with *status set if it is not a
 * readable .pte; status may be NULL). */
uint32_t rt_pte_state_size(const uint8_t *pte, uint32_t size, rt_status *status);

/* Bytes of arena the program at `pte` needs (0 with *status set if it is not a readable .pte;
 * status may be NULL). Checks the header and the buffer sizes only. */
uint32_t rt_pte_arena_size(const uint8_t *pte, uint32_t size, rt_status *status);

/* Run the loaded method once: its instructions in order. */
rt_status rt_pte_run(rt_pte_program *prog);

int32_t rt_pte_num_inputs(const rt_pte_program *prog);
int32_t rt_pte_num_outputs(const rt_pte_program *prog);

/* Input / output k: shape, dtype and where its data lives (in the arena: write inputs there
 * before rt_pte_run, read outputs after). An input or output the program did not plan has
 * data NULL until rt_pte_bind_input / rt_pte_bind_output gives it. */
rt_status rt_pte_input(const rt_pte_program *prog, int32_t k, rt_pte_tensor *t);
rt_status rt_pte_output(const rt_pte_program *prog, int32_t k, rt_pte_tensor *t);
rt_status rt_pte_bind_input(rt_pte_program *prog, int32_t k, void *data);
/* An output the program did not plan is written where the caller says (rt_pte_output gives
 * its shape and nbytes, data NULL until bound). */
rt_status rt_pte_bind_output(rt_pte_program *prog, int32_t k, void *data);

/* Operator k's name and overload (for messages: the one bad_operator names). */
rt_status rt_pte_operator(const rt_pte_program *prog, int32_t k, const char **name,
                          const char **overload);

/* The status's name, e.g. "RT_ERR_PTE_TRUNCATED". */
const char *rt_status_name(rt_status s);

/* ---- for kernel adapters (the `run` of each rt_pte_op) --------------------------------- */
/* An adapter is named after its operator: rt_op_<namespace>_<name>_<overload>, every
 * character outside [A-Za-z0-9_] as '_' (aten::add.Scalar_out -> rt_op_aten_add_Scalar_out,
 * cortex_m::quantized_add.out -> rt_op_cortex_m_quantized_add_out). It decodes every argument
 * with the functions below, makes the checks the static C generator makes (aot/codegen/
 * spec_render.py: same kernel, same parameters, so the results are bit for bit the same), and
 * returns RT_OK without calling the kernel when c->check is set (rt_pte_load runs every
 * instruction that way). A refusal returns RT_ERR_PTE_ARGS (an argument that contradicts the
 * op), RT_ERR_PTE_DTYPE, or RT_ERR_PTE_UNSUPPORTED (valid, but no kernel for it). */
/* Each reads argument i of the call, checking that it is of the kind asked for (else
 * RT_ERR_PTE_ARGS) and, for a tensor of a given dtype (dtype >= 0), its dtype (else
 * RT_ERR_PTE_DTYPE). Integers and lists of integers come as int64_t. */

rt_status rt_pte_arg_tensor(const rt_pte_call *c, int32_t i, int32_t dtype, rt_pte_tensor *t);
/* A Tensor? argument: None gives t->data == NULL (pass RT_PTE_SHAPE(t), t->data). */
rt_status rt_pte_arg_opt_tensor(const rt_pte_call *c, int32_t i, int32_t dtype,
                                rt_pte_tensor *t);
rt_status rt_pte_arg_int(const rt_pte_call *c, int32_t i, int64_t *v);
rt_status rt_pte_arg_bool(const rt_pte_call *c, int32_t i, int32_t *v);
/* A number: a Double, an Int or a Bool argument, as a double. */
rt_status rt_pte_arg_double(const rt_pte_call *c, int32_t i, double *v);
/* An int[] (IntList): up to `max` items into v[], their count into *n. */
rt_status rt_pte_arg_ints(const rt_pte_call *c, int32_t i, int64_t *v, int32_t max, int32_t *n);
/* Items first .. first + max - 1 of an int[] argument (fewer at its end; none when first is
 * past it): a long list (a layer's per-channel requantization) read a window at a time. */
rt_status rt_pte_arg_ints_at(const rt_pte_call *c, int32_t i, int32_t first, int64_t *v,
                             int32_t max, int32_t *n);
/* An int[] argument as int32 values, each checked to lie in [lo, hi]: *v points into the
 * state when load cached the list, else at `scratch` (up to `max` items decoded there). */
rt_status rt_pte_arg_int32s(const rt_pte_call *c, int32_t i, int32_t lo, int32_t hi,
                            int32_t *scratch, int32_t max, const int32_t **v, int32_t *n);
rt_status rt_pte_arg_doubles(const rt_pte_call *c, int32_t i, double *v, int32_t max,
                             int32_t *n);
/* A str argument: its bytes (NUL-terminated in the file) and length. */
rt_status rt_pte_arg_string(const rt_pte_call *c, int32_t i, const char **s, uint32_t *len);
/* A Tensor[] argument of up to `max` tensors (more: RT_ERR_PTE_LIMIT): their shapes and data,
 * their count into *n. */
rt_status rt_pte_arg_tensor_list(const rt_pte_call *c, int32_t i, int32_t dtype,
                                 rt_shape *shapes, void **ptrs, int32_t max, int32_t *n);
/* A Tensor?[] argument (a Tensor[] is taken too) of up to `max` entries, of any dtype: each
 * one's shape, data and dtype; a None entry has rank 0, NULL data and dtype -1. */
rt_status rt_pte_arg_opt_tensor_list(const rt_pte_call *c, int32_t i, rt_shape *shapes,
                                     void **ptrs, int32_t *dtypes, int32_t max, int32_t *n);
/* 1 if argument i is None (0 otherwise, and for an index out of range). */
int32_t rt_pte_arg_is_none(const rt_pte_call *c, int32_t i);

#endif /* RT_PTE_H */
