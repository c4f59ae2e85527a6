/* gemm.c (Cortex-M Helium, float32) - rt_gemm_f32, the matrix product behind rt_mm_f32,
 * rt_addmm_f32, rt_bmm_f32, rt_linear_f32 and rt_bmm_bt_f32; same contract as
 * src/matmul/gemm.c.
 *
 * b[K,N] (b_trans 0): gemm_mve.h, vectorized along the rows of b and c: tiles of 3 rows x
 * 8 columns keep 6 Q-register accumulators over the whole of K and take each k's 3 values
 * of a as scalars (VFMA.F32 Qd, Qn, Rm); one row (matrix x vector) goes 16 columns a tile.
 * b[N,K] (b_trans 1): 4 dot products at a time, vectorized along k: the 4 sums stay in Q
 * registers, each vector of a is loaded once for the 4 rows of b, the tail of k loads under
 * a lane predicate, and the 4 sums reduce together through one de-interleaving load
 * (VLD4). Fused multiply-adds, and the transposed case sums in another order: results
 * differ from the portable kernel's by float rounding. */
#define GEMM_MVE_EPILOGUE 0
#include "gemm_mve.h"

/* Lanes 0..3 of s0, s1, s2, s3 summed: (sum s0, sum s1, sum s2, sum s3). */
static float32x4_t sum4(float32x4_t s0, float32x4_t s1, float32x4_t s2, float32x4_t s3)
{
    float t[16];
    float32x4x4_t v;
    vst1q_f32(t, s0);
    vst1q_f32(t + 4, s1);
    vst1q_f32(t + 8, s2);
    vst1q_f32(t + 12, s3);
    v = vld4q_f32(t); /* v.val[i] = (s0[i], s1[i], s2[i], s3[i]) */
    return vaddq_f32(vaddq_f32(v.val[0], v.val[1]), vaddq_f32(v.val[2], v.val[3]));
}

/* c[0..3] = ar . b0, ar . b1, ar . b2, ar . b3: rows of b k apart. */
static MVE_NOINLINE void dots4(int32_t k, const float *ar, const float *b0, float *c)
{
    const float *b1 = b0 + k, *b2 = b1 + k, *b3 = b2 + k;
    float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
    int32_t p = k;
    for (; p >= 4; p -= 4) {
        const float32x4_t av = vld1q_f32(ar);
        s0 = vfmaq_f32(s0, av, vld1q_f32(b0));
        s1 = vfmaq_f32(s1, av, vld1q_f32(b1));
        s2 = vfmaq_f32(s2, av, vld1q_f32(b2));
        s3 = vfmaq_f32(s3, av, vld1q_f32(b3));
        ar += 4;
        b0 += 4;
        b1 += 4;
        b2 += 4;
        b3 += 4;
    }
    if (p > 0) {
        const mve_pred16_t m = vctp32q((uint32_t)p);
        const float32x4_t av = vldrwq_z_f32(ar, m);
        s0 = vfmaq_f32(s0, av, vldrwq_z_f32(b0, m));
        s1 = vfmaq_f32(s1, av, vldrwq_z_f32(b1, m));
        s2 = vfmaq_f32(s2, av, vldrwq_z_f32(b2, m));
        s3 = vfmaq_f32(s3, av, vldrwq_z_f32(b3, m));
    }
    vst1q_f32(c, sum4(s0, s1, s2, s3));
}

/* ar . br over k. */
static float dot1(int32_t k, const float *ar, const float *br)
{
    float32x4_t s = vdupq_n_f32(0.0f);
    int32_t p;
    for (p = 0; p < k; p += 4) {
        const mve_pred16_t m = vctp32q((uint32_t)(k - p));
        s = vfmaq_f32(s, vldrwq_z_f32(ar + p, m), vldrwq_z_f32(br + p, m));
    }
    return (vgetq_lane_f32(s, 0) + vgetq_lane_f32(s, 1)) +
           (vgetq_lane_f32(s, 2) + vgetq_lane_f32(s, 3));
}

static void gemm_nt(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    int32_t i, j;
    for (i = 0; i < m; ++i) {
        const float *ar = a + i * k;
        float *cr = c + i * n;
        for (j = 0; j + 4 <= n; j += 4) {
            dots4(k, ar, b + j * k, cr + j);
        }
        for (; j < n; ++j) {
            cr[j] = dot1(k, ar, b + j * k);
        }
    }
}

void rt_gemm_f32(int32_t m, int32_t n, int32_t k, const float *a,
                 const float *b, int b_trans, float *c)
{
    if (b_trans) {
        gemm_nt(m, n, k, a, b, c);
    } else {
        gemm_out o;
        o.c = c;
        o.ldc = n;
        o.bias = NULL;
        o.lo = -INFINITY;
        o.hi = INFINITY;
        mve_gemm(m, n, k, a, k, b, n, &o);
    }
}
