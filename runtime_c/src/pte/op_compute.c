/* op_compute.c - the interpreter's adapter of constant_pad_nd, of any dtype: its pad list gives
 * (before, after) pairs from the last dim back, and its fill value converts to the tensor's
 * dtype as numpy's astype does. (Every other compute op, convolution included, is a call spec:
 * aot/ops_compute.py, aot/ops_reduce.py, aot/ops_data.py; its adapter is generated.)
 *
 * The adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py constant_pad) and calls the same kernel
 * with the same parameters, so the results are bit for bit the static C's. The renderer's
 * ctx.invalid is RT_ERR_PTE_ARGS here, ctx.unsupported RT_ERR_PTE_UNSUPPORTED.
 */
#include <stdint.h>
#include <string.h>

#include "op_args.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_constant_pad_nd_out(const rt_pte_call *c);

/* ---- padding ------------------------------------------------------------------------------- */

/* A double as numpy's astype from float64 gives it in an integer type (x86: a value outside
 * the type's conversion range, or NaN, becomes its most negative value; int8/int16/uint8
 * convert through int32 and keep the low bytes), or a bool (nonzero, NaN included). */
static int32_t to_int32_np(double v)
{
    if (!(v >= -2147483648.0 && v < 2147483648.0)) {
        return INT32_MIN;
    }
    return (int32_t)v;
}

static void fill_value(int32_t dtype, double v, void *buf)
{
    switch (dtype) {
    case RT_DTYPE_I64: {
        int64_t x = INT64_MIN;
        if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) {
            x = (int64_t)v;
        }
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I32: {
        const int32_t x = to_int32_np(v);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_I16: {
        const int16_t x = (int16_t)(uint16_t)((uint32_t)to_int32_np(v) & 0xffffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    case RT_DTYPE_BOOL: {
        const uint8_t x = (uint8_t)(v != 0.0 ? 1 : 0);
        memcpy(buf, &x, sizeof x);
        break;
    }
    default: { /* U8, I8: the low byte */
        const uint8_t x = (uint8_t)((uint32_t)to_int32_np(v) & 0xffu);
        memcpy(buf, &x, sizeof x);
        break;
    }
    }
}

/* aten::constant_pad_nd.out(self, pad, value, *, out) */
rt_status rt_op_aten_constant_pad_nd_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    int32_t pad[2 * RT_MAX_DIMS], n, i, elem;
    double value;
    rt_pad_params p;
    RT_TRY(op_tensor(c, 0, &x));
    RT_TRY(op_elem(x.dtype, &elem));
    RT_TRY(rt_pte_arg_tensor(c, 3, x.dtype, &out));
    /* more than 2 * RT_MAX_DIMS entries: more than twice the rank, invalid either way */
    RT_TRY(rt_pte_arg_ints_in(c, 1, OP_I32_MIN, OP_I32_MAX, pad, 2 * RT_MAX_DIMS, &n));
    if (n % 2 != 0 || n / 2 > x.shape.rank || x.shape.rank > 6) {
        return RT_ERR_PTE_ARGS;
    }
    memset(&p, 0, sizeof p);
    for (i = 0; i < n / 2; i++) {
        p.before[x.shape.rank - 1 - i] = pad[2 * i];
    }
    if (x.dtype != OP_F32) {
        union {
            int64_t i64;
            uint8_t bytes[8];
        } v;
        for (i = 0; i < n; i++) {
            if (pad[i] < 0) {
                return RT_ERR_PTE_UNSUPPORTED;
            }
        }
        RT_TRY(rt_pte_arg_double(c, 2, &value));
        v.i64 = 0;
        fill_value(x.dtype, value, v.bytes);
        if (c->check) {
            return RT_OK;
        }
        /* before[:max(rank, 1)]: the kernel reads rank entries */
        return rt_constant_pad(elem, p.before, v.bytes, &x.shape, x.data, &out.shape, out.data);
    }
    RT_TRY(rt_pte_arg_double(c, 2, &value));
    p.value = rt_pte_f32(value);
    if (c->check) {
        return RT_OK;
    }
    return rt_constant_pad_f32(&p, &x.shape, (const float *)x.data, &out.shape,
                               (float *)out.data);
}
