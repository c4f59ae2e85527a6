/* batch_matmul_s8.c - rt_batch_matmul_s8: int8 lhs [B, M, K] times rhs [B, K, N], the rhs given
 * transposed [B, N, K] so that both walk K contiguously; sums of offset products, requantized,
 * as TensorFlow Lite Micro's BATCH_MATMUL (with adj_y) computes them. */
#include "s8_internal.h"

rt_status rt_batch_matmul_s8(const rt_bmm_s8_params *p, const rt_shape *lhs_s,
                             const int8_t *lhs, const rt_shape *rhs_s, const int8_t *rhs,
                             const rt_shape *out_s, int8_t *out)
{
    int32_t b, m, n, batch, rows, cols, inner;
    RT_CHECK(p != NULL && lhs_s != NULL && lhs != NULL && rhs_s != NULL && rhs != NULL &&
             out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(lhs_s->rank == 3 && rhs_s->rank == 3 && out_s->rank == 3, RT_ERR_RANK);
    batch = lhs_s->d[0];
    rows = lhs_s->d[1];
    inner = lhs_s->d[2];
    cols = rhs_s->d[1];
    RT_CHECK(rhs_s->d[0] == batch && rhs_s->d[2] == inner && out_s->d[0] == batch &&
             out_s->d[1] == rows && out_s->d[2] == cols, RT_ERR_SHAPE);
    RT_CHECK(p->lhs_offset >= -127 && p->lhs_offset <= 128 && p->rhs_offset >= -127 &&
             p->rhs_offset <= 128 && p->out_offset >= -128 && p->out_offset <= 127,
             RT_ERR_PARAM);
    /* sum (l + lo)(r + ro) = sum (l + lo) r + ro sum (l + lo): the first through the dot
     * products every int8 layer runs on (an arch's SMLAD or Helium ones), four columns at a
     * time, so that each lhs row is loaded once for four rhs rows. */
    for (b = 0; b < batch; ++b) {
        const int8_t *rb = rhs + b * cols * inner;
        for (m = 0; m < rows; ++m, lhs += inner) {
            int32_t row = inner * p->lhs_offset, k, a[4];
            for (k = 0; k < inner; ++k) {
                row += lhs[k];
            }
            row *= p->rhs_offset;
            for (n = 0; n < cols; n += 4) {
                const int32_t run = cols - n < 4 ? cols - n : 4;
                a[0] = a[1] = a[2] = a[3] = row;
                rt_s8_dot_run(lhs, rb + n * inner, inner, inner, p->lhs_offset, run, a);
                for (k = 0; k < run; ++k) {
                    *out++ = rt_s8_clamp(rt_s8_requant(a[k], p->out_mult, p->out_shift) +
                                         p->out_offset, -128, 127);
                }
            }
        }
    }
    return RT_OK;
}
