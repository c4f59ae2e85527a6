/* eq.c - rt_eq_f32: out = a == b (bool as uint8_t), numpy broadcasting;
 * rt_eq_scalar_f32: out = in == other.
 */
#include "../core/rt_internal.h"

rt_status rt_eq_f32(const rt_shape *a_s, const float *a,
                    const rt_shape *b_s, const float *b,
                    const rt_shape *out_s, uint8_t *out)
{
    const rt_shape *in_s[2];
    rt_bcast it;
    int32_t r, i;
    in_s[0] = a_s;
    in_s[1] = b_s;
    RT_CHECK(a != NULL && b != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(rt_bcast_init(&it, 2, in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        const float *pa = a + it.off[0];
        const float *pb = b + it.off[1];
        const int32_t sa = it.inner_st[0];
        const int32_t sb = it.inner_st[1];
        for (i = 0; i < it.inner; ++i) {
            const float x = pa[i * sa];
            const float y = pb[i * sb];
            out[i] = (uint8_t)(x == y);
        }
        out += it.inner;
        rt_bcast_next(&it);
    }
    return RT_OK;
}

rt_status rt_eq_scalar_f32(float other,
                           const rt_shape *in_s, const float *in,
                           const rt_shape *out_s, uint8_t *out)
{
    const int32_t n = rt_shape_numel(in_s);
    const float v = other;
    int32_t i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    for (i = 0; i < n; ++i) {
        const float x = in[i];
        out[i] = (uint8_t)(x == v);
    }
    return RT_OK;
}
