/* conv2d.c (x86-64, SSE2) - rt_conv2d_f32: same contract and results as
 * src/conv/conv2d.c.
 *
 * Direct convolution, vectorized over output columns. A block is 4 output
 * channels x 2 vectors of 4 columns of one output row (8 SSE accumulators);
 * every (input channel, ky, kx) tap loads the 2 input vectors and 4 weights
 * once and does 8 multiply-adds. Kernel rows outside the input are skipped
 * by a ky range computed per output row; a tap whose columns cross the
 * left/right border loads with zeros for the padding (sse_rows.h), all
 * others are plain (stride 1) or shuffled (stride 2) loads, without checks
 * in blocks whose taps all lie inside the row. A ragged row end
 * is one more vector shifted back to overlap its neighbour, not a scalar
 * tail. Accumulation per output is in (c, ky, kx) order, bias added last, as
 * in the reference, so the results are the same bits. SSE2 is baseline on
 * x86-64, so no flags are needed.
 *
 * Built with -mavx2 (aot.host adds it when the machine has AVX2), rows of 8
 * columns or more at stride 1 or 2 take vectors of 8 instead: 4 channels x
 * 2 x 8 columns in 8 AVX accumulators, border vectors assembled from two SSE
 * ones.
 * Each lane still multiplies, then adds, in the same order: same bits. */
#include "sse_rows.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

typedef struct conv_row {
    const rt_conv_geom *g;
    const float *in;    /* first input channel of the group */
    int32_t ky0, ky1;   /* valid kernel rows for this output row */
    int32_t iy0;        /* input row of ky = 0 */
} conv_row;

/* Runs the block given as the last argument (commas and all) once per tap of output row r's
 * window, in (c, ky, kx) order, for the filters at w0: row is the tap's input row, xk its
 * column offset (kx * dilation), wp the filter row (the tap's weight is wp[kx], the next
 * filters' wp[wst + kx], ...). The blocks below share it; g is r->g. */
#define FOR_EACH_TAP(r, w0, ...)                                                       \
    do {                                                                               \
        int32_t c_, ky_, kx;                                                           \
        for (c_ = 0; c_ < g->cin_g; ++c_) {                                            \
            for (ky_ = (r)->ky0; ky_ < (r)->ky1; ++ky_) {                              \
                const float *row = (r)->in + (c_ * g->h + (r)->iy0 + ky_ * g->dh) * g->w; \
                const float *wp = (w0) + (c_ * g->kh + ky_) * g->kw;                   \
                for (kx = 0; kx < g->kw; ++kx) {                                       \
                    const int32_t xk = kx * g->dw;                                     \
                    __VA_ARGS__                                                        \
                }                                                                      \
            }                                                                          \
        }                                                                              \
    } while (0)

/* 4 output channels (filters w0 + j*wst) x 2 vectors of 4 columns, from
 * columns xa and xb (xb may overlap xa). inside: every tap of both vectors
 * lies inside the input row, so the loads skip the border checks. */
X86_INLINE void block4x8(const conv_row *r, const float *w0, int32_t wst,
                         int32_t xa, int32_t xb, int32_t s, int32_t wide,
                         int32_t inside, __m128 acc[8])
{
    const rt_conv_geom *g = r->g;
    const int32_t x0 = xa * s - g->pw, x1 = xb * s - g->pw;
    int32_t j;
    for (j = 0; j < 8; ++j) {
        acc[j] = _mm_setzero_ps();
    }
    FOR_EACH_TAP(r, w0, {
        const __m128 v0 = inside ? x86_load4(row + x0 + xk, s)
                                 : x86_row4(row, x0 + xk, s, g->w, wide);
        const __m128 v1 = inside ? x86_load4(row + x1 + xk, s)
                                 : x86_row4(row, x1 + xk, s, g->w, wide);
        X86_MAC4X2(acc, v0, v1, wp[kx], wp[wst + kx], wp[2 * wst + kx], wp[3 * wst + kx]);
    });
}

/* 4 output channels x 4 columns. */
X86_INLINE void block4x4(const conv_row *r, const float *w0, int32_t wst,
                         int32_t ox, int32_t s, int32_t wide, __m128 acc[4])
{
    const rt_conv_geom *g = r->g;
    const int32_t x0 = ox * s - g->pw;
    acc[0] = acc[1] = acc[2] = acc[3] = _mm_setzero_ps();
    FOR_EACH_TAP(r, w0, {
        const __m128 v = x86_row4(row, x0 + xk, s, g->w, wide);
        acc[0] = _mm_add_ps(acc[0], _mm_mul_ps(v, _mm_set1_ps(wp[kx])));
        acc[1] = _mm_add_ps(acc[1], _mm_mul_ps(v, _mm_set1_ps(wp[wst + kx])));
        acc[2] = _mm_add_ps(acc[2], _mm_mul_ps(v, _mm_set1_ps(wp[2 * wst + kx])));
        acc[3] = _mm_add_ps(acc[3], _mm_mul_ps(v, _mm_set1_ps(wp[3 * wst + kx])));
    });
}

/* 1 output channel x 2 vectors of 4 columns from xa and xb (groups with
 * fewer than 4 channels). */
X86_INLINE void block1x8(const conv_row *r, const float *w0, int32_t xa,
                         int32_t xb, int32_t s, int32_t wide, __m128 acc[2])
{
    const rt_conv_geom *g = r->g;
    const int32_t x0 = xa * s - g->pw, x1 = xb * s - g->pw;
    acc[0] = acc[1] = _mm_setzero_ps();
    FOR_EACH_TAP(r, w0, {
        const __m128 wv = _mm_set1_ps(wp[kx]);
        const __m128 v0 = x86_row4(row, x0 + xk, s, g->w, wide);
        const __m128 v1 = x86_row4(row, x1 + xk, s, g->w, wide);
        acc[0] = _mm_add_ps(acc[0], _mm_mul_ps(v0, wv));
        acc[1] = _mm_add_ps(acc[1], _mm_mul_ps(v1, wv));
    });
}

#if defined(__AVX2__)
/* row[x + j * s], j < 8, of a row of w >= 4 * s values, zeros outside it; s is 1 or 2 (a
 * stride-2 vector is the even lanes of two loads, put in order across the 128-bit halves). */
X86_INLINE __m256 row8(const float *row, int32_t x, int32_t s, int32_t w, int32_t inside)
{
    if (inside || (x >= 0 && x + 8 * s - 1 < w)) {   /* every float the loads touch */
        if (s == 1) {
            return _mm256_loadu_ps(row + x);
        } else {
            const __m256 even = _mm256_shuffle_ps(_mm256_loadu_ps(row + x),
                                                  _mm256_loadu_ps(row + x + 8),
                                                  _MM_SHUFFLE(2, 0, 2, 0));
            return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even),
                                                          _MM_SHUFFLE(3, 1, 2, 0)));
        }
    }
    return _mm256_set_m128(x86_row4(row, x + 4 * s, s, w, 1), x86_row4(row, x, s, w, 1));
}

/* 4 output channels x nv (1 or 2) vectors of 8 columns from xa and xb. */
X86_INLINE void block4x16(const conv_row *r, const float *w0, int32_t wst,
                          int32_t xa, int32_t xb, int32_t nv, int32_t s,
                          int32_t inside, __m256 acc[8])
{
    const rt_conv_geom *g = r->g;
    const int32_t x0 = xa * s - g->pw, x1 = xb * s - g->pw;
    int32_t j;
    for (j = 0; j < 8; ++j) {
        acc[j] = _mm256_setzero_ps();
    }
    FOR_EACH_TAP(r, w0, {
        const __m256 v0 = row8(row, x0 + xk, s, g->w, inside);
        const __m256 wa = _mm256_set1_ps(wp[kx]);
        const __m256 wb = _mm256_set1_ps(wp[wst + kx]);
        const __m256 wc = _mm256_set1_ps(wp[2 * wst + kx]);
        const __m256 wd = _mm256_set1_ps(wp[3 * wst + kx]);
        acc[0] = _mm256_add_ps(acc[0], _mm256_mul_ps(v0, wa));
        acc[2] = _mm256_add_ps(acc[2], _mm256_mul_ps(v0, wb));
        acc[4] = _mm256_add_ps(acc[4], _mm256_mul_ps(v0, wc));
        acc[6] = _mm256_add_ps(acc[6], _mm256_mul_ps(v0, wd));
        if (nv == 2) {
            const __m256 v1 = row8(row, x1 + xk, s, g->w, inside);
            acc[1] = _mm256_add_ps(acc[1], _mm256_mul_ps(v1, wa));
            acc[3] = _mm256_add_ps(acc[3], _mm256_mul_ps(v1, wb));
            acc[5] = _mm256_add_ps(acc[5], _mm256_mul_ps(v1, wc));
            acc[7] = _mm256_add_ps(acc[7], _mm256_mul_ps(v1, wd));
        }
    });
}

X86_INLINE __m256 bias_act8(__m256 acc, float bias, const rt_conv_geom *g)
{
    const __m256 v = _mm256_add_ps(acc, _mm256_set1_ps(bias));
    return _mm256_min_ps(_mm256_set1_ps(g->hi), _mm256_max_ps(_mm256_set1_ps(g->lo), v));
}

/* conv_row_run for 4 channels of a row of at least 8 columns, stride 1 or 2, input rows at
 * least 4 strides wide: vectors of 8 at 0, 8, 16, ... and a ragged end shifted back, two at
 * a time. */
X86_INLINE void conv_row_run8(const conv_row *r, const float *w0, const float *bias,
                              float *o, int32_t s)
{
    const rt_conv_geom *g = r->g;
    const int32_t wst = g->cin_g * g->kh * g->kw;
    const int32_t plane = g->oplane;
    const int32_t nvec = (g->ow + 7) / 8;
    const float b[4] = {bias != NULL ? bias[0] : 0.0f, bias != NULL ? bias[1] : 0.0f,
                        bias != NULL ? bias[2] : 0.0f, bias != NULL ? bias[3] : 0.0f};
    __m256 acc[8];
    int32_t i, j;
    for (i = 0; i < nvec; i += 2) {
        const int32_t xa = 8 * i + 8 <= g->ow ? 8 * i : g->ow - 8;
        const int32_t xb = 8 * i + 16 <= g->ow ? 8 * i + 8 : g->ow - 8;
        const int32_t nv = i + 1 < nvec ? 2 : 1;
        const int32_t lo = xa * s - g->pw;
        /* the last input a load touches (a stride-2 load reads one float past its lanes) */
        const int32_t hi = (nv == 2 ? xb : xa) * s - g->pw + (g->kw - 1) * g->dw + 8 * s - 1;
        if (lo >= 0 && hi < g->w) {
            if (nv == 2) {
                block4x16(r, w0, wst, xa, xb, 2, s, 1, acc);
            } else {
                block4x16(r, w0, wst, xa, xa, 1, s, 1, acc);
            }
        } else {
            block4x16(r, w0, wst, xa, xb, nv, s, 0, acc);
        }
        for (j = 0; j < 4; ++j) {
            _mm256_storeu_ps(o + j * plane + xa, bias_act8(acc[2 * j], b[j], g));
            if (nv == 2) {
                _mm256_storeu_ps(o + j * plane + xb, bias_act8(acc[2 * j + 1], b[j], g));
            }
        }
    }
}
#endif

/* One output row oy of channels [oc, oc + nc) (nc = 4 or 1); o points at
 * output (oc, oy, 0). The row is covered by vectors of 4 columns at 0, 4,
 * 8, ... and, for a ragged end, one at ow - 4 overlapping its neighbour;
 * blocks take them two at a time. Rows narrower than 4 store part of one
 * vector. */
X86_INLINE void conv_row_run(const conv_row *r, const float *w0, int32_t nc,
                             const float *bias, float *o, int32_t s,
                             int32_t wide)
{
    const rt_conv_geom *g = r->g;
    const int32_t wst = g->cin_g * g->kh * g->kw;
    const int32_t plane = g->oplane;
    const int32_t nvec = (g->ow + 3) / 4;
    __m128 acc[8], bv[4];
    int32_t i, j;
#if defined(__AVX2__)
    if (s <= 2 && wide && nc == 4 && g->ow >= 8) {
        conv_row_run8(r, w0, bias, o, s);
        return;
    }
#endif
    for (j = 0; j < nc; ++j) {
        bv[j] = _mm_set1_ps(bias != NULL ? bias[j] : 0.0f);
    }
    if (g->ow < 4) {
        if (nc == 4) {
            block4x4(r, w0, wst, 0, s, wide, acc);
            for (j = 0; j < 4; ++j) {
                x86_store_part(o + j * plane, x86_bias_act(acc[j], bv[j], g), g->ow);
            }
        } else {
            block1x8(r, w0, 0, 0, s, wide, acc);
            x86_store_part(o, x86_bias_act(acc[0], bv[0], g), g->ow);
        }
        return;
    }
    for (i = 0; i < nvec; i += 2) {
        const int32_t xa = 4 * i + 4 <= g->ow ? 4 * i : g->ow - 4;
        const int32_t xb = 4 * i + 8 <= g->ow ? 4 * i + 4 : g->ow - 4;
        if (nc == 4 && i + 1 < nvec) {
            const int32_t lo = xa * s - g->pw;
            const int32_t hi = xb * s - g->pw + (g->kw - 1) * g->dw + 3 * s;
            if (lo >= 0 && hi < g->w) {
                block4x8(r, w0, wst, xa, xb, s, wide, 1, acc);
            } else {
                block4x8(r, w0, wst, xa, xb, s, wide, 0, acc);
            }
            for (j = 0; j < 4; ++j) {
                _mm_storeu_ps(o + j * plane + xa, x86_bias_act(acc[2 * j], bv[j], g));
                _mm_storeu_ps(o + j * plane + xb, x86_bias_act(acc[2 * j + 1], bv[j], g));
            }
        } else if (nc == 4) {
            block4x4(r, w0, wst, xa, s, wide, acc);
            for (j = 0; j < 4; ++j) {
                _mm_storeu_ps(o + j * plane + xa, x86_bias_act(acc[j], bv[j], g));
            }
        } else {
            block1x8(r, w0, xa, xb, s, wide, acc);
            _mm_storeu_ps(o + xa, x86_bias_act(acc[0], bv[0], g));
            _mm_storeu_ps(o + xb, x86_bias_act(acc[1], bv[0], g));
        }
    }
}

/* Every output row (of [g->oy0, g->oy1)) of channels [oc, oc + nc) of one group. */
X86_INLINE void conv_channels(const rt_conv_geom *g, const float *in_g,
                              const float *w0, int32_t nc, const float *bias,
                              float *o, int32_t s, int32_t wide)
{
    int32_t oy;
    for (oy = g->oy0; oy < g->oy1; ++oy) {
        conv_row r;
        const int32_t iy0 = oy * g->sh - g->ph;
        int32_t ky0 = 0, ky1 = g->kh;
        while (ky0 < ky1 && iy0 + ky0 * g->dh < 0) {
            ++ky0;
        }
        while (ky1 > ky0 && iy0 + (ky1 - 1) * g->dh >= g->h) {
            --ky1;
        }
        r.g = g;
        r.in = in_g;
        r.ky0 = ky0;
        r.ky1 = ky1;
        r.iy0 = iy0;
        conv_row_run(&r, w0, nc, bias, o + (oy - g->oy0) * g->ow, s, wide);
    }
}

X86_INLINE void conv_group(const rt_conv_geom *g, const float *in_g,
                           const float *w_g, const float *b_g, float *out_g,
                           int32_t s, int32_t wide)
{
    const int32_t wst = g->cin_g * g->kh * g->kw;
    const int32_t plane = g->oplane;
    int32_t oc;
    if (g->cout_g >= 4) {
        for (oc = 0; oc < g->cout_g; oc += 4) {
            const int32_t c0 = oc + 4 <= g->cout_g ? oc : g->cout_g - 4;
            conv_channels(g, in_g, w_g + c0 * wst, 4,
                          b_g != NULL ? b_g + c0 : NULL, out_g + c0 * plane, s,
                          wide);
        }
    } else {
        for (oc = 0; oc < g->cout_g; ++oc) {
            conv_channels(g, in_g, w_g + oc * wst, 1,
                          b_g != NULL ? b_g + oc : NULL, out_g + oc * plane, s,
                          wide);
        }
    }
}

/* conv_group_s1, _s2, _sn and _narrow (sse_rows.h) */
X86_STRIDE_VARIANTS(conv_group)

/* Image in_n's rows [g->oy0, g->oy1) of every channel, into out_n (g->oplane floats a
 * channel). */
void rt_conv2d_image_f32(const rt_conv_geom *g, const float *in_n, const float *w,
                         const float *b, float *out_n)
{
    int32_t grp;
    for (grp = 0; grp < g->groups; ++grp) {
        const float *in_g = in_n + grp * g->cin_g * g->h * g->w;
        const float *w_g = w + grp * g->cout_g * g->cin_g * g->kh * g->kw;
        const float *b_g = b != NULL ? b + grp * g->cout_g : NULL;
        X86_BY_STRIDE(conv_group, g, in_g, w_g, b_g, out_n + grp * g->cout_g * g->oplane);
    }
}

rt_status rt_conv2d_f32(const rt_conv2d_params *p, RT_F32_LAYER_TENSORS)
{
    rt_conv_geom g;
    int32_t n;
    RT_CONV2D_GEOM(g, p, in_s, in, w_s, w, b_s, b, out_s, out);
    for (n = 0; n < g.n; ++n) {
        rt_conv2d_image_f32(&g, in + n * g.cin * g.h * g.w, w, b, out + n * g.cout * g.oplane);
    }
    return RT_OK;
}
