/* where.c - rt_where_f32: out = cond ? a : b, all broadcast to out. */
#include "../core/rt_internal.h"

rt_status rt_where_f32(const rt_shape *cond_s, const uint8_t *cond, RT_F32_BINARY_TENSORS)
{
    const rt_shape *in_s[3];
    rt_bcast it;
    int32_t r, i;
    in_s[0] = cond_s;
    in_s[1] = a_s;
    in_s[2] = b_s;
    RT_CHECK(cond != NULL && a != NULL && b != NULL && out != NULL,
             RT_ERR_NULL);
    RT_TRY(rt_bcast_init(&it, 3, in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        const uint8_t *pc = cond + it.off[0];
        const float *pa = a + it.off[1];
        const float *pb = b + it.off[2];
        const int32_t sc = it.inner_st[0];
        const int32_t sa = it.inner_st[1];
        const int32_t sb = it.inner_st[2];
        for (i = 0; i < it.inner; ++i) {
            out[i] = pc[i * sc] ? pa[i * sa] : pb[i * sb];
        }
        out += it.inner;
        rt_bcast_next(&it);
    }
    return RT_OK;
}
