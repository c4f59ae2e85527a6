/* lut_row_s8.c - rt_s8_lut_row, the row of rt_lut_s8 (see s8_internal.h): a byte at a time. */
#include "s8_internal.h"

void rt_s8_lut_row(const int8_t *table, const int8_t *in, int8_t *out, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        out[i] = table[(int32_t)in[i] + 128];
    }
}
