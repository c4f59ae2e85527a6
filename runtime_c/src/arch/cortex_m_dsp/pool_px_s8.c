/* pool_px_s8.c (Cortex-M DSP) - rt_s8_avg_px and rt_s8_max_px four channels a word: the
 * maximum by SSUB8 and SEL on the four bytes at once, the average (windows of up to 256 taps,
 * whose sums fit halfwords) by SXTAB16 into halfword pairs, eight channels a loop. Other
 * channels and windows take the portable one-channel loop. Bit-exact with int8/pool_px_s8.c. */
#include "s8_dsp.h"

/* The bytewise signed maximum and minimum of a and b. */
static inline int32_t max4(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b));
    return r;
}

static inline int32_t min4(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("ssub8 %0, %1, %2\n\tsel %0, %2, %1" : "=&r"(r) : "r"(a), "r"(b));
    return r;
}

/* The sums of channels 0..7 at x over the window, |sum| <= 32768 (count <= 256): bytes 0 and
 * 2 of each word into one halfword pair, 1 and 3 into another. */
static RT_DSP_NOINLINE void sum8(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                                 int32_t col_step, int32_t *s)
{
    int16x2_t e0 = 0, o0 = 0, e1 = 0, o1 = 0;
    int32_t r, k;
    for (r = 0; r < rows; ++r, x += row_step) {
        const int8_t *t = x;
        for (k = 0; k < cols; ++k, t += col_step) {
            const int32_t v0 = rt_dsp_load4(t), v1 = rt_dsp_load4(t + 4);
            e0 = __sxtab16(e0, v0);
            o0 = rt_dsp_odd(o0, v0);
            e1 = __sxtab16(e1, v1);
            o1 = rt_dsp_odd(o1, v1);
        }
    }
    /* (a halfword pair's low half, then its high half, as signed values) */
    s[0] = (int16_t)(e0 & 0xffff);
    s[1] = (int16_t)(o0 & 0xffff);
    s[2] = e0 >> 16;
    s[3] = o0 >> 16;
    s[4] = (int16_t)(e1 & 0xffff);
    s[5] = (int16_t)(o1 & 0xffff);
    s[6] = e1 >> 16;
    s[7] = o1 >> 16;
}

void rt_s8_avg_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    const int32_t count = rows * cols;
    int32_t c, j;
    for (c = 0; c < ch; c += 8) {
        const int32_t n = ch - c < 8 ? ch - c : 8;
        int32_t s[8];
        if (n == 8 && count <= 256) {
            sum8(x + c, rows, cols, row_step, col_step, s);
        } else {
            for (j = 0; j < n; ++j) {
                s[j] = rt_s8_pool_channel(x + c + j, rows, cols, row_step, col_step, 0);
            }
        }
        for (j = 0; j < n; ++j) {
            out[c + j] = rt_s8_avg_out(s[j], count, lo, hi);
        }
    }
}

void rt_s8_max_px(const int8_t *x, int32_t rows, int32_t cols, int32_t row_step,
                  int32_t col_step, int32_t ch, int32_t lo, int32_t hi, int8_t *out)
{
    const int32_t lo4 = (int32_t)(0x01010101u * (uint8_t)lo);
    const int32_t hi4 = (int32_t)(0x01010101u * (uint8_t)hi);
    int32_t c = 0, r, k;
    for (; c + 4 <= ch; c += 4) {
        const int8_t *row = x + c;
        int32_t m = (int32_t)0x80808080u;
        for (r = 0; r < rows; ++r, row += row_step) {
            const int8_t *t = row;
            for (k = 0; k < cols; ++k, t += col_step) {
                m = max4(rt_dsp_load4(t), m);
            }
        }
        m = min4(max4(m, lo4), hi4);
        __builtin_memcpy(out + c, &m, sizeof m);
    }
    for (; c < ch; ++c) {
        out[c] = rt_s8_clamp(rt_s8_pool_channel(x + c, rows, cols, row_step, col_step, 1), lo,
                             hi);
    }
}
