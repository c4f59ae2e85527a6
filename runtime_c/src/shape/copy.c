/* copy.c - rt_copy_<dtype>: view_copy / reshape / squeeze / unsqueeze /
 * flatten / clone. Same element count, memmove semantics (in and out may
 * overlap). One entry point per element type so the byte count is right. */
#include "../core/rt_internal.h"

static rt_status copy_elems(const rt_shape *in_s, const void *in,
                            const rt_shape *out_s, void *out, size_t elem)
{
    const int32_t n = rt_shape_numel(in_s);
    RT_CHECK(in != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(n >= 0 && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    if (in != out) {
        memmove(out, in, (size_t)n * elem);
    }
    return RT_OK;
}

rt_status rt_copy_f32(RT_F32_UNARY_TENSORS)
{
    return copy_elems(in_s, in, out_s, out, sizeof(float));
}

rt_status rt_copy_u8(const rt_shape *in_s, const void *in, const rt_shape *out_s, void *out)
{
    return copy_elems(in_s, in, out_s, out, sizeof(uint8_t));
}

rt_status rt_copy_i32(const rt_shape *in_s, const int32_t *in,
                      const rt_shape *out_s, int32_t *out)
{
    return copy_elems(in_s, in, out_s, out, sizeof(int32_t));
}

rt_status rt_copy_i64(const rt_shape *in_s, const int64_t *in,
                      const rt_shape *out_s, int64_t *out)
{
    return copy_elems(in_s, in, out_s, out, sizeof(int64_t));
}
