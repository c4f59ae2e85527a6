/* to_copy.c - rt_to_copy: an elementwise dtype conversion (aten._to_copy,
 * ExecuTorch's _to_dim_order_copy). Every value goes through one of two
 * carriers, int64_t or float, so each source type is read once and each
 * destination type written once (no per-pair code). */
#include "../core/rt_internal.h"

typedef struct value {
    int is_float;
    float f;
    int64_t i;
} value;

static value load(int32_t dtype, const void *p, int32_t i)
{
    value v = {0, 0.0f, 0};
    switch (dtype) {
    case RT_DTYPE_U8: case RT_DTYPE_BOOL: v.i = ((const uint8_t *)p)[i]; break;
    case RT_DTYPE_I8: v.i = ((const int8_t *)p)[i]; break;
    case RT_DTYPE_I16: v.i = ((const int16_t *)p)[i]; break;
    case RT_DTYPE_I32: v.i = ((const int32_t *)p)[i]; break;
    case RT_DTYPE_I64: v.i = ((const int64_t *)p)[i]; break;
    default: v.is_float = 1; v.f = ((const float *)p)[i]; break;
    }
    return v;
}

/* Truncate toward zero, saturating at [lo, hi]; NaN gives 0. */
static int64_t float_to_int(float f, int64_t lo, int64_t hi)
{
    if (!(f == f)) {
        return 0;
    }
    if (f <= (float)lo) {
        return lo;
    }
    if (f >= (float)hi) {
        return hi;
    }
    return (int64_t)f;
}

/* The low `bits` bits of v as a two's complement number. */
static int64_t wrap_signed(int64_t v, int bits)
{
    const uint64_t mask = (((uint64_t)1) << bits) - 1u;
    const uint64_t u = (uint64_t)v & mask;
    return (u >> (bits - 1)) ? (int64_t)u - (int64_t)(mask + 1u) : (int64_t)u;
}

/* v as a signed integer of `bits` bits (< 64): a float truncated and saturated to [lo, hi],
 * an integer wrapped. */
static int64_t to_signed(value v, int64_t lo, int64_t hi, int bits)
{
    return v.is_float ? float_to_int(v.f, lo, hi) : wrap_signed(v.i, bits);
}

static void store(int32_t dtype, void *p, int32_t i, value v)
{
    switch (dtype) {
    case RT_DTYPE_BOOL:
        ((uint8_t *)p)[i] = (uint8_t)(v.is_float ? v.f != 0.0f : v.i != 0);
        break;
    case RT_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)((uint64_t)(v.is_float ? float_to_int(v.f, 0, 255) : v.i)
                                      & 0xffu);
        break;
    case RT_DTYPE_I8:
        ((int8_t *)p)[i] = (int8_t)to_signed(v, INT8_MIN, INT8_MAX, 8);
        break;
    case RT_DTYPE_I16:
        ((int16_t *)p)[i] = (int16_t)to_signed(v, INT16_MIN, INT16_MAX, 16);
        break;
    case RT_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)to_signed(v, INT32_MIN, INT32_MAX, 32);
        break;
    case RT_DTYPE_I64:
        ((int64_t *)p)[i] = v.is_float ? float_to_int(v.f, INT64_MIN, INT64_MAX) : v.i;
        break;
    default:
        ((float *)p)[i] = v.is_float ? v.f : (float)v.i;
        break;
    }
}

rt_status rt_to_copy(int32_t in_dtype, int32_t out_dtype,
                     const rt_shape *in_s, const void *in,
                     const rt_shape *out_s, void *out)
{
    const int32_t n = rt_shape_numel(in_s);
    const int32_t in_size = rt_dtype_size(in_dtype);
    const int32_t out_size = rt_dtype_size(out_dtype);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(in_size > 0 && out_size > 0, RT_ERR_PARAM);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    RT_CHECK(in != out || in_size == out_size, RT_ERR_PARAM);
    if (in_dtype == out_dtype || (in_size == 1 && out_size == 1 && in_dtype != RT_DTYPE_BOOL &&
                                  out_dtype != RT_DTYPE_BOOL)) {
        if (in != out) {
            memmove(out, in, (size_t)n * (size_t)in_size);
        }
        return RT_OK;
    }
    for (i = 0; i < n; ++i) {
        store(out_dtype, out, i, load(in_dtype, in, i));
    }
    return RT_OK;
}
