/* gemm.c - internal reference GEMM shared by the matmul kernels. */
#include "../core/rt_internal.h"

void rt_gemm_f32(int32_t m, int32_t n, int32_t k, const float *a,
                 const float *b, int b_trans, float *c)
{
    int32_t i, j, p;
    for (i = 0; i < m; ++i) {
        const float *ar = a + i * k;
        float *cr = c + i * n;
        if (b_trans) { /* b[N,K]: contiguous dot products */
            for (j = 0; j < n; ++j) {
                const float *br = b + j * k;
                float acc = 0.0f;
                for (p = 0; p < k; ++p) {
                    acc += ar[p] * br[p];
                }
                cr[j] = acc;
            }
        } else { /* b[K,N]: accumulate rows of b (same k order per c) */
            for (j = 0; j < n; ++j) {
                cr[j] = 0.0f;
            }
            for (p = 0; p < k; ++p) {
                const float av = ar[p];
                const float *br = b + p * n;
                for (j = 0; j < n; ++j) {
                    cr[j] += av * br[j];
                }
            }
        }
    }
}
