/* sse_rows.h - private SSE2 helpers of the x86-64 conv kernels: load 4
 * strided values of one input row with zeros outside it (the padding), and
 * store part of a vector. Not part of the API. */
#ifndef RT_X86_SSE_ROWS_H
#define RT_X86_SSE_ROWS_H

#include <emmintrin.h>

#include "../../core/rt_internal.h"

/* The kernels' block functions are inlined into loops specialized on the
 * stride; GCC only reliably does that when told. */
#define X86_INLINE static inline __attribute__((always_inline))

/* 4 values p[0], p[s], p[2s], p[3s], all inside the row. */
X86_INLINE __m128 x86_load4(const float *p, int32_t s)
{
    if (s == 1) {
        return _mm_loadu_ps(p);
    }
    if (s == 2) { /* p[0..3] and p[3..6]: lanes 0,2 of one, 1,3 of the other */
        return _mm_shuffle_ps(_mm_loadu_ps(p), _mm_loadu_ps(p + 3),
                              _MM_SHUFFLE(3, 1, 2, 0));
    }
    return _mm_setr_ps(p[0], p[s], p[2 * s], p[3 * s]);
}

/* Lanes moved up (toward lane 3) / down by m (1..3), zeros shifted in. */
X86_INLINE __m128 x86_shift_up(__m128 v, int32_t m)
{
    const __m128i i = _mm_castps_si128(v);
    return _mm_castsi128_ps(m == 1   ? _mm_slli_si128(i, 4)
                            : m == 2 ? _mm_slli_si128(i, 8)
                                     : _mm_slli_si128(i, 12));
}

X86_INLINE __m128 x86_shift_down(__m128 v, int32_t m)
{
    const __m128i i = _mm_castps_si128(v);
    return _mm_castsi128_ps(m == 1   ? _mm_srli_si128(i, 4)
                            : m == 2 ? _mm_srli_si128(i, 8)
                                     : _mm_srli_si128(i, 12));
}

/* row[x + j*s], j < 4, when some lanes fall outside [0, w): those read 0.
 * wide (w >= 4 * s): the m lanes past one end are filled by loading the 4
 * lanes m places further in, which then lie inside the row, and shifting
 * zeros in. Narrower rows go lane by lane. */
X86_INLINE __m128 x86_row4_edge(const float *row, int32_t x, int32_t s,
                                int32_t w, int32_t wide)
{
    if (wide) {
        int32_t m;
        if (x < 0) {
            m = (-x + s - 1) / s; /* lanes left of the row */
            return m >= 4 ? _mm_setzero_ps()
                          : x86_shift_up(x86_load4(row + x + m * s, s), m);
        }
        m = 4 - (w - x + s - 1) / s; /* lanes right of the row */
        return m >= 4 ? _mm_setzero_ps()
                      : x86_shift_down(x86_load4(row + x - m * s, s), m);
    } else {
        const int32_t x1 = x + s, x2 = x + 2 * s, x3 = x + 3 * s;
        return _mm_setr_ps(x >= 0 && x < w ? row[x] : 0.0f,
                           x1 >= 0 && x1 < w ? row[x1] : 0.0f,
                           x2 >= 0 && x2 < w ? row[x2] : 0.0f,
                           x3 >= 0 && x3 < w ? row[x3] : 0.0f);
    }
}

/* row[x], row[x+s], row[x+2s], row[x+3s] of a row of w values, 0 outside;
 * wide must be w >= 4 * s (callers pass a constant, so the other branch of
 * x86_row4_edge drops out of their loops). */
X86_INLINE __m128 x86_row4(const float *row, int32_t x, int32_t s, int32_t w,
                           int32_t wide)
{
    if (x >= 0 && x + 3 * s < w) {
        return x86_load4(row + x, s);
    }
    return x86_row4_edge(row, x, s, w, wide);
}

/* acc[2j] += v0 * wj and acc[2j + 1] += v1 * wj for the weights W0-W3 (4 filters by 2 vectors
 * of 4 columns), each product rounded, then added, as the reference does. A macro: as an
 * inline function it made gcc keep the sums in memory in conv2d_1x1.c's loop. */
#define X86_MAC4X2(acc, v0, v1, W0, W1, W2, W3)                                              \
    do {                                                                                     \
        const __m128 wa_ = _mm_set1_ps(W0), wb_ = _mm_set1_ps(W1);                          \
        const __m128 wc_ = _mm_set1_ps(W2), wd_ = _mm_set1_ps(W3);                          \
        acc[0] = _mm_add_ps(acc[0], _mm_mul_ps(v0, wa_));                                    \
        acc[1] = _mm_add_ps(acc[1], _mm_mul_ps(v1, wa_));                                    \
        acc[2] = _mm_add_ps(acc[2], _mm_mul_ps(v0, wb_));                                    \
        acc[3] = _mm_add_ps(acc[3], _mm_mul_ps(v1, wb_));                                    \
        acc[4] = _mm_add_ps(acc[4], _mm_mul_ps(v0, wc_));                                    \
        acc[5] = _mm_add_ps(acc[5], _mm_mul_ps(v1, wc_));                                    \
        acc[6] = _mm_add_ps(acc[6], _mm_mul_ps(v0, wd_));                                    \
        acc[7] = _mm_add_ps(acc[7], _mm_mul_ps(v1, wd_));                                    \
    } while (0)

/* FN(g, in, w, b, out, s, wide) specialized on the stride (1, 2 or any) and on rows at least
 * 4 strides wide (border taps as shifted loads) or narrower (lane by lane): FN_s1, FN_s2,
 * FN_sn and FN_narrow. X86_BY_STRIDE(FN, g, in, w, b, out) calls the one for g. */
#define X86_STRIDE_VARIANT(FN, NAME, S, WIDE)                                                \
    static void FN##_##NAME(const rt_conv_geom *g, const float *in, const float *wt,         \
                            const float *b, float *out)                                      \
    {                                                                                        \
        FN(g, in, wt, b, out, S, WIDE);                                                      \
    }
#define X86_STRIDE_VARIANTS(FN)                                                              \
    X86_STRIDE_VARIANT(FN, s1, 1, 1)                                                         \
    X86_STRIDE_VARIANT(FN, s2, 2, 1)                                                         \
    X86_STRIDE_VARIANT(FN, sn, g->sw, 1)                                                     \
    X86_STRIDE_VARIANT(FN, narrow, g->sw, 0)
#define X86_BY_STRIDE(FN, g, ...)                                                            \
    do {                                                                                     \
        if ((g)->w < 4 * (g)->sw) {                                                          \
            FN##_narrow(g, __VA_ARGS__);                                                     \
        } else if ((g)->sw == 1) {                                                           \
            FN##_s1(g, __VA_ARGS__);                                                         \
        } else if ((g)->sw == 2) {                                                           \
            FN##_s2(g, __VA_ARGS__);                                                         \
        } else {                                                                             \
            FN##_sn(g, __VA_ARGS__);                                                         \
        }                                                                                    \
    } while (0)

/* Store lanes [0, n) of v, n <= 4. */
/* acc + bias, clamped to the conv's fused activation bounds as rt_act does
 * (max(lo, v) and min(hi, v) in that operand order keep NaN). */
static inline __m128 x86_bias_act(__m128 acc, __m128 bias, const rt_conv_geom *g)
{
    const __m128 v = _mm_add_ps(acc, bias);
    return _mm_min_ps(_mm_set1_ps(g->hi), _mm_max_ps(_mm_set1_ps(g->lo), v));
}

static inline void x86_store_part(float *o, __m128 v, int32_t n)
{
    float t[4];
    int32_t j;
    _mm_storeu_ps(t, v);
    for (j = 0; j < n; ++j) {
        o[j] = t[j];
    }
}

#endif /* RT_X86_SSE_ROWS_H */
