/* gemm_mve.h - the Helium float32 matrix product shared by gemm.c (rt_gemm_f32, b[K,N]) and
 * conv2d_1x1.c (a pointwise layer: out[Cout, HW] = w[Cout, Cin] x in[Cin, HW]).
 *
 * c[M,N] = a[M,K] x b[K,N], vectorized along the rows of b and c. A tile is 3 rows of c x 2
 * vectors (8 columns): its 6 accumulators stay in Q registers for the whole of K, and every k
 * loads 2 vectors of b and 3 scalars of a for 6 VFMAs (the loop is 12 instructions for 96
 * multiply-adds). A single row (matrix x vector) takes 4 vectors (16 columns) a tile. A
 * ragged edge reuses the last full tile shifted back (recomputing a few outputs, the same
 * bits); matrices narrower than a tile load and store under lane predicates. Each output
 * accumulates in k order with fused multiply-adds, then takes the bias of its row and the
 * fused activation (conv2d_1x1.c), as it is stored. */
#ifndef RT_GEMM_MVE_H
#define RT_GEMM_MVE_H

#include "f32_mve.h"

/* The file that includes this one says whether a tile's sums take a bias and the fused
 * activation as they are stored (1: conv2d_1x1.c) or are stored as they are (0: gemm.c). */
#ifndef GEMM_MVE_EPILOGUE
#error "define GEMM_MVE_EPILOGUE (0 or 1) before including gemm_mve.h"
#endif

/* Where a tile's sums go: c (row stride ldc); with the epilogue, each row r of c takes
 * bias[r] (0 for a NULL bias), then is clamped to [lo, hi] (mve_act; +-INFINITY: none). */
typedef struct gemm_out {
    float *c;
    int32_t ldc;
    const float *bias;
    float lo, hi;
} gemm_out;

/* Rows [0, R) of a (row stride lda) times vectors [0, V) of b (row stride ldb): c rows
 * [0, R), columns [0, 4V). With pred, only the first ncols columns exist: loads read 0 past
 * them and stores skip them. */
MVE_INLINE void gemm_tile(const int R, const int V, const int pred, int32_t ncols, int32_t k,
                          const float *a, int32_t lda, const float *b, int32_t ldb,
                          const gemm_out *o, int32_t row, int32_t col)
{
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda;
    float32x4_t acc[6];
    mve_pred16_t pv[6];
    int32_t p, v, r;
#pragma GCC unroll 6
    for (v = 0; v < 6; ++v) {
        const int32_t left = ncols - 4 * v;
        acc[v] = vdupq_n_f32(0.0f);
        pv[v] = vctp32q((uint32_t)(pred ? (left < 0 ? 0 : left) : 4));
    }
    for (p = 0; p < k; ++p) {
        const float w0 = *a0++;
        const float w1 = R > 1 ? *a1++ : 0.0f;
        const float w2 = R > 2 ? *a2++ : 0.0f;
        /* the last vector first: GCC then addresses them all from b, without a copy */
#pragma GCC unroll 6
        for (v = V - 1; v >= 0; --v) {
            const float32x4_t x = pred ? vldrwq_z_f32(b + 4 * v, pv[v]) : vld1q_f32(b + 4 * v);
            acc[v] = vfmaq_n_f32(acc[v], x, w0);
            if (R > 1) {
                acc[V + v] = vfmaq_n_f32(acc[V + v], x, w1);
            }
            if (R > 2) {
                acc[2 * V + v] = vfmaq_n_f32(acc[2 * V + v], x, w2);
            }
        }
        b += ldb;
    }
    {
        /* the stores may alias *o: its fields are read first */
        float *const c = o->c;
        const int32_t ldc = o->ldc;
        const float *const bias = o->bias;
        const float lo = o->lo, hi = o->hi;
#pragma GCC unroll 3
        for (r = 0; r < R; ++r) {
            float *cr = c + (row + r) * ldc + col;
            const float br = GEMM_MVE_EPILOGUE && bias != NULL ? bias[row + r] : 0.0f;
#pragma GCC unroll 6
            for (v = 0; v < V; ++v) {
                float32x4_t y = acc[r * V + v];
                if (GEMM_MVE_EPILOGUE) {
                    y = mve_act(vaddq_n_f32(y, br), lo, hi);
                }
                if (pred) {
                    vstrwq_p_f32(cr + 4 * v, y, pv[v]);
                } else {
                    vst1q_f32(cr + 4 * v, y);
                }
            }
        }
    }
}

/* The tiles, each out of line so that its loop has the core registers to itself. */
static MVE_NOINLINE void gemm_3x8(int32_t k, const float *a, int32_t lda, const float *b,
                                  int32_t ldb, const gemm_out *o, int32_t row, int32_t col)
{
    gemm_tile(3, 2, 0, 8, k, a, lda, b, ldb, o, row, col);
}

static MVE_NOINLINE void gemm_3xn(int32_t ncols, int32_t k, const float *a, int32_t lda,
                                  const float *b, int32_t ldb, const gemm_out *o, int32_t row)
{
    gemm_tile(3, 2, 1, ncols, k, a, lda, b, ldb, o, row, 0);
}

static MVE_NOINLINE void gemm_1x16(int32_t k, const float *a, const float *b, int32_t ldb,
                                   const gemm_out *o, int32_t row, int32_t col)
{
    gemm_tile(1, 4, 0, 16, k, a, 0, b, ldb, o, row, col);
}

static MVE_NOINLINE void gemm_1x8(int32_t k, const float *a, const float *b, int32_t ldb,
                                  const gemm_out *o, int32_t row, int32_t col)
{
    gemm_tile(1, 2, 0, 8, k, a, 0, b, ldb, o, row, col);
}

static MVE_NOINLINE void gemm_1xn(int32_t ncols, int32_t k, const float *a, const float *b,
                                  int32_t ldb, const gemm_out *o, int32_t row)
{
    gemm_tile(1, 2, 1, ncols, k, a, 0, b, ldb, o, row, 0);
}

/* c = a[m, k] (row stride lda) x b[k, n] (row stride ldb), stored through o. */
static void mve_gemm(int32_t m, int32_t n, int32_t k, const float *a, int32_t lda,
                     const float *b, int32_t ldb, const gemm_out *o)
{
    int32_t i, j;
    if (m <= 0 || n <= 0) {
        return;
    }
    if (m >= 3) {
        for (i = 0; i < m; i += 3) {
            const int32_t r = i + 3 <= m ? i : m - 3;
            if (n < 8) {
                gemm_3xn(n, k, a + r * lda, lda, b, ldb, o, r);
                continue;
            }
            for (j = 0; j < n; j += 8) {
                const int32_t x = j + 8 <= n ? j : n - 8;
                gemm_3x8(k, a + r * lda, lda, b + x, ldb, o, r, x);
            }
        }
        return;
    }
    for (i = 0; i < m; ++i) { /* one or two rows: a matrix x vector */
        if (n < 8) {
            gemm_1xn(n, k, a + i * lda, b, ldb, o, i);
            continue;
        }
        for (j = 0; j + 16 <= n; j += 16) {
            gemm_1x16(k, a + i * lda, b + j, ldb, o, i, j);
        }
        for (; j < n; j += 8) {
            const int32_t x = j + 8 <= n ? j : n - 8;
            gemm_1x8(k, a + i * lda, b + x, ldb, o, i, x);
        }
    }
}

#endif /* RT_GEMM_MVE_H */
