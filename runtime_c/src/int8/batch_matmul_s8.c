/* batch_matmul_s8.c - rt_batch_matmul_s8: int8 lhs [B, M, K] times rhs [B, K, N], the rhs given
 * transposed [B, N, K] so that both walk K contiguously; sums of offset products, requantized,
 * as TensorFlow Lite Micro's BATCH_MATMUL (with adj_y) computes them. */
#include "batch_matmul_s8.h"

rt_status rt_batch_matmul_s8(const rt_bmm_s8_params *p, const rt_shape *lhs_s,
                             const int8_t *lhs, const rt_shape *rhs_s, const int8_t *rhs,
                             const rt_shape *out_s, int8_t *out)
{
    rt_bmm_s8_dims d;
    int32_t b, m, n;
    RT_TRY(rt_bmm_s8_check(p, lhs_s, lhs, rhs_s, rhs, out_s, out, &d));
    /* sum (l + lo)(r + ro) = sum (l + lo) r + ro sum (l + lo): the first through the dot
     * products every int8 layer runs on (an arch's SMLAD or Helium ones), four columns at a
     * time, so that each lhs row is loaded once for four rhs rows. */
    for (b = 0; b < d.batch; ++b) {
        const int8_t *rb = rhs + b * d.cols * d.inner;
        for (m = 0; m < d.rows; ++m, lhs += d.inner) {
            int32_t row = d.inner * p->lhs_offset, k, a[4];
            for (k = 0; k < d.inner; ++k) {
                row += lhs[k];
            }
            row *= p->rhs_offset;
            for (n = 0; n < d.cols; n += 4) {
                const int32_t run = d.cols - n < 4 ? d.cols - n : 4;
                a[0] = a[1] = a[2] = a[3] = row;
                rt_s8_dot_run(lhs, rb + n * d.inner, d.inner, d.inner, p->lhs_offset, run, a);
                for (k = 0; k < run; ++k) {
                    *out++ = rt_s8_clamp(rt_s8_requant(a[k], p->out_mult, p->out_shift) +
                                         p->out_offset, -128, 127);
                }
            }
        }
    }
    return RT_OK;
}
