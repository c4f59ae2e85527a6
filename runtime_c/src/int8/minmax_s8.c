/* minmax_s8.c - rt_maximum_s8 / rt_minimum_s8: elementwise max / min of int8 tensors that
 * share qparams, with broadcasting (TFLite's MAXIMUM / MINIMUM). */
#include "s8_internal.h"

rt_status rt_maximum_s8(const rt_shape *a_s, const int8_t *a, const rt_shape *b_s,
                        const int8_t *b, const rt_shape *out_s, int8_t *out)
{
    RT_MAP_BINARY_T(int8_t, a_s, a, b_s, b, out_s, out, (int8_t)(x > y ? x : y));
    return RT_OK;
}

rt_status rt_minimum_s8(const rt_shape *a_s, const int8_t *a, const rt_shape *b_s,
                        const int8_t *b, const rt_shape *out_s, int8_t *out)
{
    RT_MAP_BINARY_T(int8_t, a_s, a, b_s, b, out_s, out, (int8_t)(x < y ? x : y));
    return RT_OK;
}
