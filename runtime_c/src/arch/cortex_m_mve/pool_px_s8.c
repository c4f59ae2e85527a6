/* pool_px_s8.c (Cortex-M Helium) - rt_s8_avg_px and rt_s8_max_px sixteen channels a vector,
 * the last ones predicated: the maximum by VMAX.S8; the average (windows of up to 256 taps,
 * whose sums fit 16 bits) by widening loads added into two halfword vectors, then divided four
 * lanes at a time by a reciprocal: for 2 <= count <= 256, 0 <= v <= 32896 and
 * recip = floor(2^32 / count) + 1, floor(v / count) = (v * recip) >> 32 exactly (the error,
 * below v / 2^32 < 1 / count, cannot reach the next integer), so the rounding half away from
 * zero is sign(s) * ((|s| + count / 2) * recip >> 32). Larger windows take the portable
 * one-channel loop. Bit-exact with int8/pool_px_s8.c. */
#include "s8_mve.h"

/* Predicates for n lanes of 8 or 16 bits (none where n <= 0). */
static inline mve_pred16_t lanes16(int32_t n)
{
    return vctp16q((uint32_t)(n < 0 ? 0 : n));
}

static inline mve_pred16_t lanes32(int32_t n)
{
    return vctp32q((uint32_t)(n < 0 ? 0 : n));
}

/* Four sums s of count taps: their averages, rounded half away from zero. */
static inline int32x4_t avg4(int32x4_t s, int32_t count)
{
    uint32x4_t a;
    int32x4_t q;
    if (count == 1) {
        return s;
    }
    a = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(s), count / 2));
    q = vreinterpretq_s32_u32(
        vmulhq_u32(a, vdupq_n_u32((uint32_t)(((uint64_t)1 << 32) / (uint32_t)count + 1))));
    return vpselq_s32(vnegq_s32(q), q, vcmpltq_n_s32(s, 0));
}

void rt_s8_avg_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    const int32_t count = rows * cols;
    int32_t c, r, k, j;
    if (count > 256) {
        for (c = 0; c < ch; ++c) {
            out[c] = rt_s8_avg_out(rt_s8_pool_channel(x + c, rows, cols, row_step, col_step,
                                                      0), count, lo, hi);
        }
        return;
    }
    for (c = 0; c < ch; c += 16) {
        const mve_pred16_t p0 = lanes16(ch - c), p1 = lanes16(ch - c - 8);
        const int8_t *row = x + c;
        int16x8_t a0 = vdupq_n_s16(0), a1 = a0;
        int16_t s[16];
        for (r = 0; r < rows; ++r, row += row_step) {
            const int8_t *t = row;
            if (ch - c >= 16) {   /* whole vectors: no predicate */
                for (k = 0; k < cols; ++k, t += col_step) {
                    a0 = vaddq_s16(a0, vldrbq_s16(t));
                    a1 = vaddq_s16(a1, vldrbq_s16(t + 8));
                }
                continue;
            }
            for (k = 0; k < cols; ++k, t += col_step) {
                a0 = vaddq_s16(a0, vldrbq_z_s16(t, p0));
                a1 = vaddq_s16(a1, vldrbq_z_s16(t + 8, p1));
            }
        }
        vst1q_s16(s, a0);
        vst1q_s16(s + 8, a1);
        for (j = 0; j < 16 && c + j < ch; j += 4) {
            const int32x4_t v = vmaxq_s32(vminq_s32(avg4(vldrhq_s32(s + j), count),
                                                    vdupq_n_s32(hi)), vdupq_n_s32(lo));
            vstrbq_p_s32(out + c + j, v, lanes32(ch - c - j));
        }
    }
}

void rt_s8_max_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    int32_t c, r, k;
    for (c = 0; c < ch; c += 16) {
        const mve_pred16_t p = rt_mve_tail8(ch - c);
        const int8_t *row = x + c;
        int8x16_t m = vdupq_n_s8(-128);
        for (r = 0; r < rows; ++r, row += row_step) {
            const int8_t *t = row;
            for (k = 0; k < cols; ++k, t += col_step) {
                m = vmaxq_s8(m, vldrbq_z_s8(t, p));
            }
        }
        m = vminq_s8(vmaxq_s8(m, vdupq_n_s8((int8_t)lo)), vdupq_n_s8((int8_t)hi));
        vstrbq_p_s8(out + c, m, p);
    }
}
