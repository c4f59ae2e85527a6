/* mm.c - rt_mm_f32: out[M,N] = a[M,K] @ b[K,N]. */
#include "../core/rt_internal.h"

rt_status rt_mm_f32(RT_F32_BINARY_TENSORS)
{
    RT_CHECK(a_s != NULL && a != NULL && b_s != NULL && b != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(a_s->rank == 2 && b_s->rank == 2 && out_s->rank == 2,
             RT_ERR_RANK);
    RT_CHECK(a_s->d[1] == b_s->d[0] && out_s->d[0] == a_s->d[0] &&
             out_s->d[1] == b_s->d[1] && rt_shape_numel(out_s) >= 0 &&
             rt_shape_numel(a_s) >= 0 && rt_shape_numel(b_s) >= 0,
             RT_ERR_SHAPE);
    rt_gemm_f32(a_s->d[0], b_s->d[1], a_s->d[1], a, b, 0, out);
    return RT_OK;
}
