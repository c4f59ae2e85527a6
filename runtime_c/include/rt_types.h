/* rt_types.h - core types of the mcu-aot C runtime.
 *
 * Tensors are dense, contiguous, row-major (PyTorch's default layout; NCHW
 * for conv/pool). A tensor is described by an rt_shape and a data pointer.
 * Every kernel returns an rt_status; RT_OK (0) means success.
 */
#ifndef RT_TYPES_H
#define RT_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Runtime API version; bumped whenever a kernel signature or struct changes,
 * so generated code can check it was generated for this runtime. */
#define RT_API_VERSION 1

/* Largest tensor rank any kernel accepts. */
#define RT_MAX_DIMS 6

/* Status returned by every kernel. 0 is success, everything else an error. */
typedef enum rt_status {
    RT_OK = 0,
    RT_ERR_NULL = 1,    /* a required pointer is NULL */
    RT_ERR_RANK = 2,    /* rank out of range or not what the kernel needs */
    RT_ERR_SHAPE = 3,   /* shapes do not agree with each other / params */
    RT_ERR_PARAM = 4,   /* an op parameter is out of range */
    RT_ERR_SCRATCH = 5, /* scratch buffer missing or too small */
    RT_ERR_INDEX = 6,   /* a data-dependent index is out of range */
    /* A .pte the interpreter (rt_pte.h) refuses: */
    RT_ERR_PTE_TRUNCATED = 7,   /* an offset or size reaches past the end of the file */
    RT_ERR_PTE_CORRUPT = 8,     /* not a .pte, or its structure is inconsistent */
    RT_ERR_PTE_OPERATOR = 9,    /* an operator the kernel table does not have */
    RT_ERR_PTE_ARENA = 10,      /* its planned buffers need more arena than given */
    RT_ERR_PTE_DTYPE = 11,      /* a tensor of a dtype its operator does not take */
    RT_ERR_PTE_ARGS = 12,       /* an argument of the wrong kind or count */
    RT_ERR_PTE_BACKEND = 13,    /* a delegate whose backend is not registered */
    RT_ERR_PTE_UNSUPPORTED = 14, /* an instruction or value the interpreter does not run */
    RT_ERR_PTE_LIMIT = 15,      /* more operators/instructions/inputs than the state holds */
    RT_ERR_PTE_ALIGN = 16       /* data not aligned for its dtype (a tensor, a bound buffer) */
} rt_status;

/* Element types, numbered as the .pte's ScalarType. */
typedef enum rt_dtype {
    RT_DTYPE_U8 = 0,
    RT_DTYPE_I8 = 1,
    RT_DTYPE_I16 = 2,
    RT_DTYPE_I32 = 3,
    RT_DTYPE_I64 = 4,
    RT_DTYPE_F32 = 6,
    RT_DTYPE_BOOL = 11
} rt_dtype;

/* Shape of a contiguous row-major tensor: d[0..rank-1] are the sizes,
 * outermost first. rank 0 is a scalar (one element). Entries past rank are
 * ignored. Sizes must be >= 0. */
typedef struct rt_shape {
    int32_t rank;
    int32_t d[RT_MAX_DIMS];
} rt_shape;

/* The tensors of a layer kernel (convolutions, fully connected), after its parameters: input,
 * filter, bias (NULL: none, for float32) and output, each as (shape, data). Every such kernel
 * and its arch twins take them in this order, so they are spelled once. */
#define RT_F32_LAYER_TENSORS                                                                 \
    const rt_shape *in_s, const float *in, const rt_shape *w_s, const float *w,             \
        const rt_shape *b_s, const float *b, const rt_shape *out_s, float *out
#define RT_S8_LAYER_TENSORS                                                                  \
    const rt_shape *in_s, const int8_t *in, const rt_shape *w_s, const int8_t *w,           \
        const rt_shape *b_s, const int32_t *bias, const rt_shape *out_s, int8_t *out

/* The tensors of a float32 kernel with one input (in -> out: unary elementwise, pooling,
 * reductions, resampling), or with two (a, b -> out: broadcast elementwise, matmul), each as
 * (shape, data), after the kernel's other arguments. */
#define RT_F32_UNARY_TENSORS                                                                 \
    const rt_shape *in_s, const float *in, const rt_shape *out_s, float *out
#define RT_F32_BINARY_TENSORS                                                                \
    const rt_shape *a_s, const float *a, const rt_shape *b_s, const float *b,               \
        const rt_shape *out_s, float *out

/* Scratch memory for kernels that need it (see rt_<op>_scratch_size()).
 * The memory planner places it in the arena (4-byte aligned) for the
 * duration of the call; kernels never allocate. */
typedef struct rt_scratch {
    void *buf;
    int32_t size; /* bytes */
} rt_scratch;

#endif /* RT_TYPES_H */
