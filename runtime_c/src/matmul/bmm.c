/* bmm.c - rt_bmm_f32: out[B,M,N] = a[B,M,K] @ b[B,K,N]. */
#include "../core/rt_internal.h"

rt_status rt_bmm_f32(RT_F32_BINARY_TENSORS)
{
    int32_t m, n, k, i;
    RT_CHECK(a_s != NULL && a != NULL && b_s != NULL && b != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(a_s->rank == 3 && b_s->rank == 3 && out_s->rank == 3,
             RT_ERR_RANK);
    m = a_s->d[1];
    k = a_s->d[2];
    n = b_s->d[2];
    RT_CHECK(b_s->d[0] == a_s->d[0] && out_s->d[0] == a_s->d[0] &&
             b_s->d[1] == k && out_s->d[1] == m && out_s->d[2] == n &&
             rt_shape_numel(out_s) >= 0 && rt_shape_numel(a_s) >= 0 &&
             rt_shape_numel(b_s) >= 0,
             RT_ERR_SHAPE);
    for (i = 0; i < a_s->d[0]; ++i) {
        rt_gemm_f32(m, n, k, a + i * m * k, b + i * k * n, 0, out + i * m * n);
    }
    return RT_OK;
}
