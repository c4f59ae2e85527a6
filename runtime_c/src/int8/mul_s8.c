/* mul_s8.c - rt_mul_s8: quantized elementwise multiply with numpy broadcasting, as
 * arm_elementwise_mul_s8 and TFLite's MUL. out may be an input of out's shape. Its rows go to
 * rt_s8_mul_row (mul_row_s8.c); operands of out's elements (rt_bcast_flat) are one row. */
#include "s8_internal.h"

rt_status rt_mul_s8(const rt_mul_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out)
{
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max), RT_ERR_PARAM);
    RT_CHECK(a_s != NULL && a != NULL && b_s != NULL && b != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_S8_BINARY_ROWS(rt_s8_mul_row, p, a_s, a, b_s, b, out_s, out);
    return RT_OK;
}
