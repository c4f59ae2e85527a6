/* cell_s16.c - the int16 cell state of an int8 LSTM, kept in int16 as TFLite Micro keeps it
 * (symmetric, zero point 0), and the ops on it:
 *   rt_mul_s8_s16:  a gate (int8) times the cell state (int16) or another gate (int8), the
 *                   product of the offset inputs requantized to int16 and saturated;
 *   rt_add_s16:     the saturating sum of two int16 tensors of one scale;
 *   rt_step_s16_s8: a non-decreasing function of an int16, such as tanh of the cell state,
 *                   into int8: first + the number of its steps at or below x. The steps are
 *                   the lowest code of each output above the first, at most 255 of them.
 * The checks are here; the rows are in cell_row_s16.c, which an arch folder may replace. */
#include "s8_internal.h"

rt_status rt_mul_s8_s16(const rt_mul_s16_params *p, const rt_shape *a_s, const int8_t *a,
                        const rt_shape *b_s, const void *b, int32_t b_elem,
                        const rt_shape *out_s, int16_t *out)
{
    RT_CHECK(p != NULL && a_s != NULL && a != NULL && b_s != NULL && b != NULL &&
             out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(rt_same_shape(a_s, out_s) && rt_same_shape(b_s, out_s), RT_ERR_SHAPE);
    RT_CHECK(b_elem == 1 || b_elem == 2, RT_ERR_PARAM);
    RT_CHECK(p->in1_offset >= -127 && p->in1_offset <= 128 && p->in2_offset >= -127 &&
             p->in2_offset <= 128 && (b_elem == 1 || p->in2_offset == 0), RT_ERR_PARAM);
    rt_s16_mul_row(p, a, b, b_elem, out, rt_shape_numel(out_s));
    return RT_OK;
}

rt_status rt_add_s16(const rt_shape *a_s, const int16_t *a, const rt_shape *b_s,
                     const int16_t *b, const rt_shape *out_s, int16_t *out)
{
    RT_CHECK(a_s != NULL && a != NULL && b_s != NULL && b != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(rt_same_shape(a_s, out_s) && rt_same_shape(b_s, out_s), RT_ERR_SHAPE);
    rt_s16_add_row(a, b, out, rt_shape_numel(out_s));
    return RT_OK;
}

rt_status rt_step_s16_s8(const int16_t *steps, int32_t count, int32_t first,
                         const rt_shape *in_s, const int16_t *in, const rt_shape *out_s,
                         int8_t *out)
{
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL &&
             (steps != NULL || count == 0), RT_ERR_NULL);
    RT_CHECK(rt_same_shape(in_s, out_s), RT_ERR_SHAPE);
    RT_CHECK(count >= 0 && first >= INT8_MIN && first + count <= INT8_MAX, RT_ERR_PARAM);
    rt_s16_step_row(steps, count, first, in, out, rt_shape_numel(out_s));
    return RT_OK;
}
