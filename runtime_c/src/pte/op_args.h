/* op_args.h - argument helpers of the hand-written adapters (op_data.c, op_compute.c; private
 * to src/pte/); the generic readers are rt_pte_args.h.
 *
 * Each helper is one of aot/codegen/context.py's CallContext accessors, with its checks:
 * what the renderer refuses with ctx.invalid is RT_ERR_PTE_ARGS here, ctx.unsupported
 * RT_ERR_PTE_UNSUPPORTED, a tensor of a dtype the kernel does not take RT_ERR_PTE_DTYPE.
 * Numbers are read as the renderer reads them: a Scalar as a double (ctx.scalar), a float
 * parameter as rt_pte_f32 of that double (the renderer's np.float32 literal), an int64 operand
 * through that double too (ctx.scalar, then int()). What a kernel needs beyond these checks
 * (the preconditions an op declares in aot/ops.py) is checked by rt_pte_checks.h.
 */
#ifndef OP_ARGS_H
#define OP_ARGS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"
#include "rt_pte.h"
#include "rt_pte_args.h"

#define OP_ANY ((int32_t)-1)
#define OP_F32 ((int32_t)RT_DTYPE_F32)
#define OP_I64 ((int32_t)RT_DTYPE_I64)
#define OP_I32 ((int32_t)RT_DTYPE_I32)
#define OP_BOOL ((int32_t)RT_DTYPE_BOOL)
#define OP_I32_MIN ((int64_t)INT32_MIN)
#define OP_I32_MAX ((int64_t)INT32_MAX)

/* Tensors one Tensor[] argument may list (cat's inputs, split_with_sizes' outputs); more is
 * RT_ERR_PTE_LIMIT. Each costs an rt_pte_tensor (and a pointer) of the adapter's stack. */
#ifndef RT_PTE_MAX_TENSOR_LIST
#define RT_PTE_MAX_TENSOR_LIST 32
#endif

/* The element size, RT_ERR_PTE_DTYPE for a dtype without one (kernels.py's _elem_size). */
static inline rt_status op_elem(int32_t dtype, int32_t *size)
{
    *size = rt_pte_elem_size(dtype);
    return *size > 0 ? RT_OK : RT_ERR_PTE_DTYPE;
}

/* A tensor of any dtype the runtime takes (ctx.t(name, None)). */
static inline rt_status op_tensor(const rt_pte_call *c, int32_t i, rt_pte_tensor *t)
{
    return rt_pte_arg_tensor(c, i, OP_ANY, t);
}

#endif /* OP_ARGS_H */
