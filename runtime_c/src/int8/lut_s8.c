/* lut_s8.c - rt_lut_s8 (a 256-entry lookup table: sigmoid, tanh, hardswish, requantize, ...;
 * its row in lut_row_s8.c) and rt_clamp_s8. Both allow out == in. */
#include "s8_internal.h"

rt_status rt_lut_s8(const int8_t *table, const rt_shape *in_s, const int8_t *in,
                    const rt_shape *out_s, int8_t *out)
{
    int32_t n;
    RT_CHECK(table != NULL, RT_ERR_NULL);
    RT_TRY(rt_elementwise_numel(in_s, in, out_s, out, &n));
    rt_s8_lut_row(table, in, out, n);
    return RT_OK;
}

rt_status rt_clamp_s8(int32_t lo, int32_t hi, const rt_shape *in_s, const int8_t *in,
                      const rt_shape *out_s, int8_t *out)
{
    const int32_t n = rt_shape_numel(in_s);
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(lo, hi), RT_ERR_PARAM);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        out[i] = rt_s8_clamp(in[i], lo, hi);
    }
    return RT_OK;
}
