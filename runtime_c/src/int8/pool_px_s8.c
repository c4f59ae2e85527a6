/* pool_px_s8.c - one output pixel of the int8 pooling kernels (rt_s8_avg_px, rt_s8_max_px):
 * four channels at a time with their sums or maxima in registers across the window, then one
 * at a time. An arch folder may replace this file (four bytes a word on the DSP cores,
 * sixteen a vector on Helium). */
#include "s8_internal.h"

void rt_s8_avg_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    const int32_t count = rows * cols;
    int32_t c = 0, r, k;
    for (; c + 4 <= ch; c += 4) {
        const int8_t *row = x + c;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (r = 0; r < rows; ++r, row += row_step) {
            const int8_t *t = row;
            for (k = 0; k < cols; ++k, t += col_step) {
                a0 += t[0];
                a1 += t[1];
                a2 += t[2];
                a3 += t[3];
            }
        }
        out[c] = rt_s8_avg_out(a0, count, lo, hi);
        out[c + 1] = rt_s8_avg_out(a1, count, lo, hi);
        out[c + 2] = rt_s8_avg_out(a2, count, lo, hi);
        out[c + 3] = rt_s8_avg_out(a3, count, lo, hi);
    }
    for (; c < ch; ++c) {
        out[c] = rt_s8_avg_out(rt_s8_pool_channel(x + c, rows, cols, row_step, col_step, 0),
                               count, lo, hi);
    }
}

void rt_s8_max_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    int32_t c = 0, r, k;
    for (; c + 4 <= ch; c += 4) {
        const int8_t *row = x + c;
        int32_t a0 = -128, a1 = -128, a2 = -128, a3 = -128;
        for (r = 0; r < rows; ++r, row += row_step) {
            const int8_t *t = row;
            for (k = 0; k < cols; ++k, t += col_step) {
                a0 = t[0] > a0 ? t[0] : a0;
                a1 = t[1] > a1 ? t[1] : a1;
                a2 = t[2] > a2 ? t[2] : a2;
                a3 = t[3] > a3 ? t[3] : a3;
            }
        }
        out[c] = rt_s8_clamp(a0, lo, hi);
        out[c + 1] = rt_s8_clamp(a1, lo, hi);
        out[c + 2] = rt_s8_clamp(a2, lo, hi);
        out[c + 3] = rt_s8_clamp(a3, lo, hi);
    }
    for (; c < ch; ++c) {
        out[c] = rt_s8_clamp(rt_s8_pool_channel(x + c, rows, cols, row_step, col_step, 1), lo,
                             hi);
    }
}
