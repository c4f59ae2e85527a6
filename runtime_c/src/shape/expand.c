/* expand.c - rt_expand_f32: broadcast in to out's shape (aten.expand_copy). */
#include "../core/rt_internal.h"

rt_status rt_expand_f32(RT_F32_UNARY_TENSORS)
{
    rt_bcast it;
    int32_t r, i;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_TRY(rt_bcast_init(&it, 1, &in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        const float *p = in + it.off[0];
        const int32_t s = it.inner_st[0];
        if (s == 1) {
            memcpy(out, p, (size_t)it.inner * sizeof(float));
        } else {
            for (i = 0; i < it.inner; ++i) {
                out[i] = p[i * s];
            }
        }
        out += it.inner;
        rt_bcast_next(&it);
    }
    return RT_OK;
}
