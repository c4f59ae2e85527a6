/* permute.c - rt_permute_f32: out.d[i] = in.d[perm[i]], general N-d: the element-size generic
 * rt_permute (movement.c) on 4-byte elements. */
#include "../core/rt_internal.h"

rt_status rt_permute_f32(const int32_t *perm, RT_F32_UNARY_TENSORS)
{
    return rt_permute((int32_t)sizeof(float), perm, in_s, in, out_s, out);
}
