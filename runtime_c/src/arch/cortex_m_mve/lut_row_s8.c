/* lut_row_s8.c (Cortex-M Helium) - rt_s8_lut_row sixteen bytes a turn: each byte's table
 * index (x + 128, the byte with its top bit flipped) taken as an unsigned offset of one byte
 * gather (VLDRB.U8 with offsets); the tail predicated. Loads come before stores within a
 * turn, so out == in holds. */
#include "s8_mve.h"

void rt_s8_lut_row(const int8_t *table, const int8_t *in, int8_t *out, int32_t n)
{
    const uint8_t *t = (const uint8_t *)table;
    int32_t i;
    for (i = 0; i < n; i += 16) {
        const mve_pred16_t p = rt_mve_tail8(n - i);
        const uint8x16_t idx = veorq_u8(vldrbq_z_u8((const uint8_t *)in + i, p),
                                        vdupq_n_u8(0x80));
        vstrbq_p_u8((uint8_t *)out + i, vldrbq_gather_offset_z_u8(t, idx, p), p);
    }
}
