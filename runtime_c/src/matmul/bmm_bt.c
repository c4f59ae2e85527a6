/* bmm_bt.c - rt_bmm_bt_f32: out[B,M,N] = a[B,M,K] @ bt[B,N,K]^T, for a B
 * operand that is a transposed view (e.g. attention's q @ k^T). */
#include "../core/rt_internal.h"

rt_status rt_bmm_bt_f32(const rt_shape *a_s, const float *a,
                        const rt_shape *bt_s, const float *bt,
                        const rt_shape *out_s, float *out)
{
    int32_t m, n, k, i;
    RT_CHECK(a_s != NULL && a != NULL && bt_s != NULL && bt != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(a_s->rank == 3 && bt_s->rank == 3 && out_s->rank == 3,
             RT_ERR_RANK);
    m = a_s->d[1];
    k = a_s->d[2];
    n = bt_s->d[1];
    RT_CHECK(bt_s->d[0] == a_s->d[0] && out_s->d[0] == a_s->d[0] &&
             bt_s->d[2] == k && out_s->d[1] == m && out_s->d[2] == n &&
             rt_shape_numel(out_s) >= 0 && rt_shape_numel(a_s) >= 0 &&
             rt_shape_numel(bt_s) >= 0,
             RT_ERR_SHAPE);
    for (i = 0; i < a_s->d[0]; ++i) {
        rt_gemm_f32(m, n, k, a + i * m * k, bt + i * n * k, 1,
                    out + i * m * n);
    }
    return RT_OK;
}
