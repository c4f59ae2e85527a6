/* int_compare.c - comparisons of int64 tensors, bool (uint8_t 0/1) out, exact:
 *   rt_int_compare_i64:        out = a <cmp> b, numpy broadcasting;
 *   rt_int_compare_scalar_i64: out = in <cmp> other.
 * cmp is an rt_int_cmp code (eq ne lt le gt ge). */
#include "../core/rt_internal.h"

static uint8_t compare(int32_t cmp, int64_t a, int64_t b)
{
    switch (cmp) {
    case RT_INT_EQ: return (uint8_t)(a == b);
    case RT_INT_NE: return (uint8_t)(a != b);
    case RT_INT_LT: return (uint8_t)(a < b);
    case RT_INT_LE: return (uint8_t)(a <= b);
    case RT_INT_GT: return (uint8_t)(a > b);
    default: return (uint8_t)(a >= b);
    }
}

rt_status rt_int_compare_i64(int32_t cmp, const rt_shape *a_s, const int64_t *a,
                             const rt_shape *b_s, const int64_t *b,
                             const rt_shape *out_s, uint8_t *out)
{
    RT_CHECK(cmp >= RT_INT_EQ && cmp <= RT_INT_GE, RT_ERR_PARAM);
    RT_MAP_BINARY_T(int64_t, a_s, a, b_s, b, out_s, out, compare(cmp, x, y));
    return RT_OK;
}

rt_status rt_int_compare_scalar_i64(int32_t cmp, int64_t other,
                                    const rt_shape *in_s, const int64_t *in,
                                    const rt_shape *out_s, uint8_t *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(cmp >= RT_INT_EQ && cmp <= RT_INT_GE, RT_ERR_PARAM);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        out[i] = compare(cmp, in[i], other);
    }
    return RT_OK;
}
