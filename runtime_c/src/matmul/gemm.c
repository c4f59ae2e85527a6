/* gemm.c - internal GEMM shared by the matmul kernels.
 *
 * b[K,N]: blocks of 4 rows x 4 columns of c keep 16 accumulators in
 * registers (a Cortex-M4 has 32 single-precision registers) and load each a
 * and b value once per block; ragged edges reuse the last full block
 * shifted back; fewer than 4 rows (matrix x vector) take 4 columns at a
 * time. b[N,K]: 4 dot products at a time share each a value. Every
 * output accumulates in k order, as a plain triple loop would. */
#include "../core/rt_internal.h"

/* c[i][j] for i < 4, j < 4 of the block at a (row stride k), b (row
 * stride n), c (row stride n). The 16 accumulators are spelled out: GCC at
 * -O2 keeps a float[4][4] in memory. */
static void block4x4(int32_t n, int32_t k, const float *a, const float *b,
                     float *c)
{
    float c00 = 0.0f, c01 = 0.0f, c02 = 0.0f, c03 = 0.0f;
    float c10 = 0.0f, c11 = 0.0f, c12 = 0.0f, c13 = 0.0f;
    float c20 = 0.0f, c21 = 0.0f, c22 = 0.0f, c23 = 0.0f;
    float c30 = 0.0f, c31 = 0.0f, c32 = 0.0f, c33 = 0.0f;
    const float *a1 = a + k, *a2 = a + 2 * k, *a3 = a + 3 * k;
    int32_t p;
    for (p = 0; p < k; ++p) {
        const float *br = b + p * n;
        const float b0 = br[0], b1 = br[1], b2 = br[2], b3 = br[3];
        const float v0 = a[p], v1 = a1[p], v2 = a2[p], v3 = a3[p];
        RT_MAC_4X4(c, b0, b1, b2, b3, v0, v1, v2, v3);
    }
    c[0] = c00; c[1] = c01; c[2] = c02; c[3] = c03;
    c += n;
    c[0] = c10; c[1] = c11; c[2] = c12; c[3] = c13;
    c += n;
    c[0] = c20; c[1] = c21; c[2] = c22; c[3] = c23;
    c += n;
    c[0] = c30; c[1] = c31; c[2] = c32; c[3] = c33;
}

static void gemm_nn(int32_t m, int32_t n, int32_t k, const float *a,
                    const float *b, float *c)
{
    int32_t i, j, p;
#ifdef RT_GEMM_NN_FAST   /* an arch's blocks (runtime_c/src/arch/cortex_m_dsp/gemm.c) */
    if (RT_GEMM_NN_FAST(m, n, k, a, b, c)) {
        return;
    }
#endif
    if (m >= 4 && n >= 4) {
        for (i = 0; i < m; i += 4) {
            const int32_t i0 = i + 4 <= m ? i : m - 4;
            for (j = 0; j < n; j += 4) {
                const int32_t j0 = j + 4 <= n ? j : n - 4;
                block4x4(n, k, a + i0 * k, b + j0, c + i0 * n + j0);
            }
        }
        return;
    }
    for (i = 0; i < m; ++i) { /* a few rows (matrix x vector) or columns */
        const float *ar = a + i * k;
        float *cr = c + i * n;
        for (j = 0; j + 4 <= n; j += 4) {
            const float *bc = b + j;
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            for (p = 0; p < k; ++p) {
                const float av = ar[p];
                s0 = rt_mac_f32(s0, av, bc[p * n]);
                s1 = rt_mac_f32(s1, av, bc[p * n + 1]);
                s2 = rt_mac_f32(s2, av, bc[p * n + 2]);
                s3 = rt_mac_f32(s3, av, bc[p * n + 3]);
            }
            cr[j] = s0;
            cr[j + 1] = s1;
            cr[j + 2] = s2;
            cr[j + 3] = s3;
        }
        for (; j < n; ++j) {
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s = rt_mac_f32(s, ar[p], b[p * n + j]);
            }
            cr[j] = s;
        }
    }
}

static void gemm_nt(int32_t m, int32_t n, int32_t k, const float *a,
                    const float *b, float *c)
{
    int32_t i, j, p;
    for (i = 0; i < m; ++i) {
        const float *ar = a + i * k;
        float *cr = c + i * n;
        for (j = 0; j + 4 <= n; j += 4) {
            const float *b0 = b + j * k;
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            for (p = 0; p < k; ++p) {
                const float av = ar[p];
                s0 = rt_mac_f32(s0, av, b0[p]);
                s1 = rt_mac_f32(s1, av, b0[k + p]);
                s2 = rt_mac_f32(s2, av, b0[2 * k + p]);
                s3 = rt_mac_f32(s3, av, b0[3 * k + p]);
            }
            cr[j] = s0;
            cr[j + 1] = s1;
            cr[j + 2] = s2;
            cr[j + 3] = s3;
        }
        for (; j < n; ++j) {
            const float *br = b + j * k;
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s = rt_mac_f32(s, ar[p], br[p]);
            }
            cr[j] = s;
        }
    }
}

void rt_gemm_f32(int32_t m, int32_t n, int32_t k, const float *a,
                 const float *b, int b_trans, float *c)
{
    if (b_trans) {
        gemm_nt(m, n, k, a, b, c);
    } else {
        gemm_nn(m, n, k, a, b, c);
    }
}
