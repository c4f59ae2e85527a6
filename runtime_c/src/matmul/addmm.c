/* addmm.c - rt_addmm_f32: out[M,N] = beta * self + alpha * (a @ b), self
 * broadcast to [M,N]; beta == 0 ignores self entirely (as torch does). A
 * fused activation (act) clamps each output in the same pass. */
#include "../core/rt_internal.h"

rt_status rt_addmm_f32(const rt_act_f32 *act, float beta, float alpha,
                       const rt_shape *self_s, const float *self, RT_F32_BINARY_TENSORS)
{
    const float lo = rt_act_lo(act), hi = rt_act_hi(act);
    int32_t m, n, sm, sn, i, j;
    RT_CHECK(self_s != NULL && self != NULL && a_s != NULL && a != NULL &&
             b_s != NULL && b != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(a_s->rank == 2 && b_s->rank == 2 && out_s->rank == 2 &&
             self_s->rank >= 0 && self_s->rank <= 2,
             RT_ERR_RANK);
    m = a_s->d[0];
    n = b_s->d[1];
    sm = self_s->rank == 2 ? self_s->d[0] : 1;
    sn = self_s->rank >= 1 ? self_s->d[self_s->rank - 1] : 1;
    RT_CHECK(a_s->d[1] == b_s->d[0] && out_s->d[0] == m &&
             out_s->d[1] == n && (sm == m || sm == 1) &&
             (sn == n || sn == 1) && rt_shape_numel(out_s) >= 0 &&
             rt_shape_numel(a_s) >= 0 && rt_shape_numel(b_s) >= 0,
             RT_ERR_SHAPE);
    rt_gemm_f32(m, n, a_s->d[1], a, b, 0, out);
    for (i = 0; i < m; ++i) {
        const float *sr = self + (sm == 1 ? 0 : i * sn);
        float *o = out + i * n;
        for (j = 0; j < n; ++j) {
            const float prod = alpha * o[j];
            o[j] = rt_act(beta == 0.0f ? prod : beta * sr[sn == 1 ? 0 : j] + prod, lo, hi);
        }
    }
    return RT_OK;
}
