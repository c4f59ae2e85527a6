/* gemm.c (x86-64, SSE2) - internal GEMM shared by the matmul kernels; same
 * contract as src/matmul/gemm.c.
 *
 * b[K,N]: blocks of 4 rows x 8 columns of c (8 SSE accumulators) load 2
 * vectors of b and broadcast 4 values of a per k; a single row (matrix x
 * vector, the batch-1 linear layer) takes 16 columns at a time. Columns go
 * in tiles whose K x tile panel of b stays in L1 while every row block
 * sweeps it; ragged edges reuse the last full block shifted back. Every
 * output accumulates in k order, so results are bit-identical to the
 * portable kernel. b[N,K]: 4 dot products at a time, vectorized along k
 * (a different summation order, to float rounding). */
#include <emmintrin.h>

#include "../../core/rt_internal.h"

#define X86_INLINE static inline __attribute__((always_inline))

/* Floats of b per column tile: 16 KiB, a third of a typical L1D. */
#define TILE_FLOATS 4096

X86_INLINE void mk4x8(int32_t n, int32_t k, const float *a, const float *b,
                      float *c)
{
    __m128 acc[8];
    int32_t p, j;
    for (j = 0; j < 8; ++j) {
        acc[j] = _mm_setzero_ps();
    }
    for (p = 0; p < k; ++p) {
        const __m128 v0 = _mm_loadu_ps(b + p * n);
        const __m128 v1 = _mm_loadu_ps(b + p * n + 4);
        const __m128 a0 = _mm_set1_ps(a[p]);
        const __m128 a1 = _mm_set1_ps(a[k + p]);
        const __m128 a2 = _mm_set1_ps(a[2 * k + p]);
        const __m128 a3 = _mm_set1_ps(a[3 * k + p]);
        acc[0] = _mm_add_ps(acc[0], _mm_mul_ps(a0, v0));
        acc[1] = _mm_add_ps(acc[1], _mm_mul_ps(a0, v1));
        acc[2] = _mm_add_ps(acc[2], _mm_mul_ps(a1, v0));
        acc[3] = _mm_add_ps(acc[3], _mm_mul_ps(a1, v1));
        acc[4] = _mm_add_ps(acc[4], _mm_mul_ps(a2, v0));
        acc[5] = _mm_add_ps(acc[5], _mm_mul_ps(a2, v1));
        acc[6] = _mm_add_ps(acc[6], _mm_mul_ps(a3, v0));
        acc[7] = _mm_add_ps(acc[7], _mm_mul_ps(a3, v1));
    }
    for (j = 0; j < 4; ++j) {
        _mm_storeu_ps(c + j * n, acc[2 * j]);
        _mm_storeu_ps(c + j * n + 4, acc[2 * j + 1]);
    }
}

X86_INLINE void mk4x4(int32_t n, int32_t k, const float *a, const float *b,
                      float *c)
{
    __m128 acc0 = _mm_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    int32_t p;
    for (p = 0; p < k; ++p) {
        const __m128 v = _mm_loadu_ps(b + p * n);
        acc0 = _mm_add_ps(acc0, _mm_mul_ps(_mm_set1_ps(a[p]), v));
        acc1 = _mm_add_ps(acc1, _mm_mul_ps(_mm_set1_ps(a[k + p]), v));
        acc2 = _mm_add_ps(acc2, _mm_mul_ps(_mm_set1_ps(a[2 * k + p]), v));
        acc3 = _mm_add_ps(acc3, _mm_mul_ps(_mm_set1_ps(a[3 * k + p]), v));
    }
    _mm_storeu_ps(c, acc0);
    _mm_storeu_ps(c + n, acc1);
    _mm_storeu_ps(c + 2 * n, acc2);
    _mm_storeu_ps(c + 3 * n, acc3);
}

X86_INLINE void mk1x16(int32_t n, int32_t k, const float *a, const float *b,
                       float *c)
{
    __m128 acc0 = _mm_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    int32_t p;
    for (p = 0; p < k; ++p) {
        const float *br = b + p * n;
        const __m128 av = _mm_set1_ps(a[p]);
        acc0 = _mm_add_ps(acc0, _mm_mul_ps(av, _mm_loadu_ps(br)));
        acc1 = _mm_add_ps(acc1, _mm_mul_ps(av, _mm_loadu_ps(br + 4)));
        acc2 = _mm_add_ps(acc2, _mm_mul_ps(av, _mm_loadu_ps(br + 8)));
        acc3 = _mm_add_ps(acc3, _mm_mul_ps(av, _mm_loadu_ps(br + 12)));
    }
    _mm_storeu_ps(c, acc0);
    _mm_storeu_ps(c + 4, acc1);
    _mm_storeu_ps(c + 8, acc2);
    _mm_storeu_ps(c + 12, acc3);
}

X86_INLINE void mk1x4(int32_t n, int32_t k, const float *a, const float *b,
                      float *c)
{
    __m128 acc = _mm_setzero_ps();
    int32_t p;
    for (p = 0; p < k; ++p) {
        acc = _mm_add_ps(acc,
                         _mm_mul_ps(_mm_set1_ps(a[p]), _mm_loadu_ps(b + p * n)));
    }
    _mm_storeu_ps(c, acc);
}

/* Rows [i0, i0 + 4) over columns [j0, j1), j1 - j0 >= 4. */
static void rows4(int32_t n, int32_t k, const float *a, const float *b,
                  float *c, int32_t j0, int32_t j1)
{
    int32_t j = j0;
    for (; j + 8 <= j1; j += 8) {
        mk4x8(n, k, a, b + j, c + j);
    }
    while (j < j1) {
        const int32_t x = j + 4 <= j1 ? j : j1 - 4;
        mk4x4(n, k, a, b + x, c + x);
        j = x + 4;
    }
}

/* One row over columns [j0, j1), j1 - j0 >= 4. */
static void row1(int32_t n, int32_t k, const float *a, const float *b,
                 float *c, int32_t j0, int32_t j1)
{
    int32_t j = j0;
    for (; j + 16 <= j1; j += 16) {
        mk1x16(n, k, a, b + j, c + j);
    }
    while (j < j1) {
        const int32_t x = j + 4 <= j1 ? j : j1 - 4;
        mk1x4(n, k, a, b + x, c + x);
        j = x + 4;
    }
}

static void gemm_nn(int32_t m, int32_t n, int32_t k, const float *a,
                    const float *b, float *c)
{
    int32_t i, j, p, t0, tile;
    if (n < 4) { /* a few columns: rows of b */
        for (i = 0; i < m; ++i) {
            for (j = 0; j < n; ++j) {
                float s = 0.0f;
                for (p = 0; p < k; ++p) {
                    s += a[i * k + p] * b[p * n + j];
                }
                c[i * n + j] = s;
            }
        }
        return;
    }
    tile = m > 4 ? (TILE_FLOATS / (k > 0 ? k : 1)) & ~7 : n;
    tile = tile < 8 ? 8 : tile;
    for (t0 = 0; t0 < n; t0 += tile) {
        const int32_t t1 = t0 + tile < n ? t0 + tile : n;
        const int32_t j0 = t1 - t0 >= 4 ? t0 : t1 - 4;
        if (m >= 4) {
            for (i = 0; i < m; i += 4) {
                const int32_t r = i + 4 <= m ? i : m - 4;
                rows4(n, k, a + r * k, b, c + r * n, j0, t1);
            }
        } else {
            for (i = 0; i < m; ++i) {
                row1(n, k, a + i * k, b, c + i * n, j0, t1);
            }
        }
    }
}

/* Sum of the 4 lanes of each of s0..s3, as one vector. */
static __m128 hsum4(__m128 s0, __m128 s1, __m128 s2, __m128 s3)
{
    const __m128 t0 = _mm_unpacklo_ps(s0, s1); /* s0[0] s1[0] s0[1] s1[1] */
    const __m128 t1 = _mm_unpackhi_ps(s0, s1);
    const __m128 t2 = _mm_unpacklo_ps(s2, s3);
    const __m128 t3 = _mm_unpackhi_ps(s2, s3);
    const __m128 u0 = _mm_add_ps(t0, t1);      /* s0[0+2] s1[0+2] s0[1+3] s1[1+3] */
    const __m128 u1 = _mm_add_ps(t2, t3);
    return _mm_add_ps(_mm_movelh_ps(u0, u1), _mm_movehl_ps(u1, u0));
}

static void gemm_nt(int32_t m, int32_t n, int32_t k, const float *a,
                    const float *b, float *c)
{
    const int32_t k4 = k & ~3;
    int32_t i, j, p, q;
    for (i = 0; i < m; ++i) {
        const float *ar = a + i * k;
        float *cr = c + i * n;
        for (j = 0; j + 4 <= n; j += 4) {
            const float *b0 = b + j * k;
            __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            float t[4];
            for (p = 0; p < k4; p += 4) {
                const __m128 av = _mm_loadu_ps(ar + p);
                s0 = _mm_add_ps(s0, _mm_mul_ps(av, _mm_loadu_ps(b0 + p)));
                s1 = _mm_add_ps(s1, _mm_mul_ps(av, _mm_loadu_ps(b0 + k + p)));
                s2 = _mm_add_ps(s2, _mm_mul_ps(av, _mm_loadu_ps(b0 + 2 * k + p)));
                s3 = _mm_add_ps(s3, _mm_mul_ps(av, _mm_loadu_ps(b0 + 3 * k + p)));
            }
            _mm_storeu_ps(t, hsum4(s0, s1, s2, s3));
            for (q = 0; q < 4; ++q) {
                for (p = k4; p < k; ++p) {
                    t[q] += ar[p] * b0[q * k + p];
                }
                cr[j + q] = t[q];
            }
        }
        for (; j < n; ++j) {
            const float *br = b + j * k;
            float s = 0.0f;
            for (p = 0; p < k; ++p) {
                s += ar[p] * br[p];
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
