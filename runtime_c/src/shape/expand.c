/* expand.c - rt_expand: broadcast in to out's shape (aten.expand_copy), for elements of any
 * width (float32 maps, int8 maps: nearest upsampling by whole factors is an expand). */
#include "../core/rt_internal.h"

rt_status rt_expand(int32_t elem_size, const rt_shape *in_s, const void *in,
                    const rt_shape *out_s, void *out)
{
    rt_bcast it;
    int32_t r, i;
    char *o = (char *)out;
    const size_t width = (size_t)elem_size;
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_size > 0, RT_ERR_PARAM);
    RT_TRY(rt_bcast_init(&it, 1, &in_s, out_s));
    for (r = 0; r < it.rows; ++r) {
        const char *p = (const char *)in + (size_t)it.off[0] * width;
        const int32_t s = it.inner_st[0];
        if (s == 1) {
            memcpy(o, p, (size_t)it.inner * width);
        } else {
            for (i = 0; i < it.inner; ++i) {
                memcpy(o + (size_t)i * width, p + (size_t)(i * s) * width, width);
            }
        }
        o += (size_t)it.inner * width;
        rt_bcast_next(&it);
    }
    return RT_OK;
}
