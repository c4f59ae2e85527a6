/* add_s8.c - rt_add_s8 and rt_mul_s8: quantized elementwise add (or subtract) and multiply
 * with numpy broadcasting, as arm_elementwise_add_s8 / _mul_s8 and TFLite's ADD, SUB and MUL.
 * out may be an input of out's shape. */
#include "s8_internal.h"

static int8_t add_one(const rt_add_s8_params *p, int32_t m2, int sub, int8_t x, int8_t y)
{
    const int32_t a = rt_s8_requant(((int32_t)x + p->in1_offset) * (1 << p->left_shift),
                                    p->in1_mult, p->in1_shift);
    const int32_t b = rt_s8_requant(((int32_t)y + p->in2_offset) * (1 << p->left_shift),
                                    m2, p->in2_shift);
    const int32_t sum = sub ? a - b : a + b;
    return rt_s8_clamp(rt_s8_requant(sum, p->out_mult, p->out_shift) + p->out_offset,
                       p->act_min, p->act_max);
}

rt_status rt_add_s8(const rt_add_s8_params *p, const rt_shape *a_s, const int8_t *a,
                    const rt_shape *b_s, const int8_t *b,
                    const rt_shape *out_s, int8_t *out)
{
    int sub;
    int32_t m2;
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && p->left_shift >= 0 &&
             p->left_shift <= 20 && p->in2_mult != INT32_MIN, RT_ERR_PARAM);
    /* A negative in2_mult subtracts: b is scaled by |in2_mult|, then taken away (TFLite's
     * SUB), rather than scaled by a negative multiplier, which rounds ties the other way. */
    sub = p->in2_mult < 0;
    m2 = sub ? -p->in2_mult : p->in2_mult;
    RT_MAP_BINARY_T(int8_t, a_s, a, b_s, b, out_s, out, add_one(p, m2, sub, x, y));
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
