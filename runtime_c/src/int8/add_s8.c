/* add_s8.c - rt_add_s8 and rt_mul_s8: quantized elementwise add (or subtract) and multiply
 * with numpy broadcasting, as arm_elementwise_add_s8 / _mul_s8 and TFLite's ADD, SUB and MUL.
 * out may be an input of out's shape. The add's rows go to rt_s8_add_row (add_row_s8.c). */
#include "s8_internal.h"

rt_status rt_add_s8(const rt_add_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out)
{
    const rt_shape *in_s[2];
    rt_bcast it;
    int32_t r;
    RT_CHECK(p != NULL && a != NULL && b != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && p->left_shift >= 0 &&
             p->left_shift <= 20 && p->in2_mult != INT32_MIN, RT_ERR_PARAM);
    in_s[0] = a_s;
    in_s[1] = b_s;
    RT_TRY(rt_bcast_init(&it, 2, in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        rt_s8_add_row(p, a + it.off[0], it.inner_st[0], b + it.off[1], it.inner_st[1], out,
                      it.inner);
        out += it.inner;
        rt_bcast_next(&it);
    }
    return RT_OK;
}

static int8_t mul_one(const rt_mul_s8_params *p, int8_t x, int8_t y)
{
    const int32_t prod = ((int32_t)x + p->in1_offset) * ((int32_t)y + p->in2_offset);
    return rt_s8_clamp(rt_s8_requant(prod, p->out_mult, p->out_shift) + p->out_offset,
                       p->act_min, p->act_max);
}

rt_status rt_mul_s8(const rt_mul_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out)
{
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max), RT_ERR_PARAM);
    RT_MAP_BINARY_T(int8_t, a_s, a, b_s, b, out_s, out, mul_one(p, x, y));
    return RT_OK;
}
