/* gemm.c (Cortex-M with a single-precision FPU) - rt_gemm_f32, the internal GEMM of the
 * matmul kernels; same contract as src/matmul/gemm.c.
 *
 * b[K,N]: blocks of 4 rows x 5 columns of c keep 20 accumulators in s registers
 * (f32_dsp.h: one VLDM per row of b, one load per value of a); fewer than 4 rows (matrix x
 * vector) take 12 columns a block (one VLDM of 12 b values per k, a loaded 8 at a time).
 * Ragged edges reuse the last full block shifted back; narrower matrices take the portable
 * blocks (4x4, 4 columns). b[N,K]: 4 dot products at a time share each a value. Every
 * output accumulates in k order, as a plain triple loop would: results are bit for bit the
 * portable kernel's. */
#include "f32_dsp.h"

/* c = a x b (b[K,N]) by f32_dsp.h's blocks, when the shape takes them (1), else 0. */
static int gemm_nn_dsp(int32_t m, int32_t n, int32_t k, const float *a, const float *b,
                       float *c)
{
    int32_t i, j;
    if (k >= 1 && m >= 4 && n >= 5) {
        for (i = 0; i < m; i += 4) {
            const int32_t i0 = i + 4 <= m ? i : m - 4;
            for (j = 0; j < n; j += 5) {
                const int32_t j0 = j + 5 <= n ? j : n - 5;
                rt_f32_dsp_4x5(k, a + i0 * k, k, b + j0, n, c + i0 * n + j0, n);
            }
        }
        return 1;
    }
    if (m < 4 && n >= 12) {
        for (i = 0; i < m; ++i) {
            for (j = 0; j < n; j += 12) {
                const int32_t j0 = j + 12 <= n ? j : n - 12;
                rt_f32_dsp_1x12(k, a + i * k, b + j0, n, c + i * n + j0);
            }
        }
        return 1;
    }
    return 0;
}

#define RT_GEMM_NN_FAST(m, n, k, a, b, c) gemm_nn_dsp(m, n, k, a, b, c)
#include "../../matmul/gemm.c"
