/* cell_row_s16.c - the rows of cell_s16.c's kernels (s8_internal.h), element by element. An
 * arch folder may replace this file. */
#include "s8_internal.h"

static int16_t sat16(int32_t v)
{
    return (int16_t)(v < INT16_MIN ? INT16_MIN : (v > INT16_MAX ? INT16_MAX : v));
}

void rt_s16_mul_row(const rt_mul_s16_params *p, const int8_t *a, const void *b, int32_t b_elem,
                    int16_t *out, int32_t n)
{
    const int32_t off1 = p->in1_offset, off2 = p->in2_offset;
    const int32_t mult = p->out_mult, shift = p->out_shift;
    int32_t i;
    if (b_elem == 2) {
        const int16_t *b16 = (const int16_t *)b;
        for (i = 0; i < n; ++i) {
            out[i] = sat16(rt_s8_requant(((int32_t)a[i] + off1) * b16[i], mult, shift));
        }
    } else {
        const int8_t *b8 = (const int8_t *)b;
        for (i = 0; i < n; ++i) {
            out[i] = sat16(rt_s8_requant(((int32_t)a[i] + off1) * ((int32_t)b8[i] + off2), mult,
                                         shift));
        }
    }
}

void rt_s16_add_row(const int16_t *a, const int16_t *b, int16_t *out, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        out[i] = sat16((int32_t)a[i] + (int32_t)b[i]);
    }
}

/* The number of steps at or below x by halving: from the largest power of two at most count
 * down, a candidate count is taken where its last step is at or below x. */
void rt_s16_step_row(const int16_t *steps, int32_t count, int32_t first, const int16_t *in,
                     int8_t *out, int32_t n)
{
    int32_t top = count > 0 ? 1 : 0, i;
    while (top > 0 && top * 2 <= count) {
        top *= 2;
    }
    for (i = 0; i < n; ++i) {
        const int32_t x = in[i];
        int32_t pos = 0, bit;
        for (bit = top; bit > 0; bit >>= 1) {
            if (pos + bit <= count && steps[pos + bit - 1] <= x) {
                pos += bit;
            }
        }
        out[i] = (int8_t)(first + pos);
    }
}
