/* add_s8.c - rt_add_s8: quantized elementwise add (or subtract) with numpy broadcasting, as
 * arm_elementwise_add_s8 and TFLite's ADD and SUB. out may be an input of out's shape. Its rows
 * go to rt_s8_add_row (add_row_s8.c); operands of out's elements (rt_bcast_flat) are one row. */
#include "s8_internal.h"

rt_status rt_add_s8(const rt_add_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out)
{
    RT_CHECK(p != NULL && a_s != NULL && a != NULL && b_s != NULL && b != NULL &&
             out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && p->left_shift >= 0 &&
             p->left_shift <= 20 && p->in2_mult != INT32_MIN, RT_ERR_PARAM);
    RT_S8_BINARY_ROWS(rt_s8_add_row, p, a_s, a, b_s, b, out_s, out);
    return RT_OK;
}
