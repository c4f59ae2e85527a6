/* cell_row_s16.c (Cortex-M Helium) - the rows of cell_s16.c's kernels, bit-exact with
 * int8/cell_row_s16.c:
 *  - mul: four products a vector (|product| <= 255 * 32768 needs 32-bit lanes): the int8 gate
 *    and the int16 state (or int8 gate) widened as they load (VLDRB.S32, VLDRH.S32), offset,
 *    multiplied, requantized as rt_s8_requant (rt_mve_requant_n), saturated to int16 and
 *    stored as halfwords (VSTRH.32);
 *  - add: eight saturating int16 sums a vector (VQADD.S16);
 *  - step: eight binary searches a vector, by the portable row's halving: each candidate's
 *    step gathered (VLDRH gather, predicated to the candidates within count), compared, and
 *    taken where it is at or below x; first + the count stored as bytes (VSTRB.16).
 * The rows' tails are predicated (VCTP). */
#include "s8_mve.h"

static RT_MVE_INLINE int32x4_t sat16x4(int32x4_t v)
{
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(INT16_MIN)), vdupq_n_s32(INT16_MAX));
}

void rt_s16_mul_row(const rt_mul_s16_params *p, const int8_t *a, const void *b, int32_t b_elem,
                    int16_t *out, int32_t n)
{
    const int32_t off1 = p->in1_offset, off2 = p->in2_offset, mult = p->out_mult;
    const int32_t left = p->out_shift > 0 ? p->out_shift : 0;
    const int32_t right = p->out_shift > 0 ? 0 : p->out_shift, fix = right < 0;
    int32_t i;
    for (i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const int32x4_t x = vaddq_n_s32(vldrbq_z_s32(a + i, pr), off1);
        const int32x4_t y = b_elem == 2 ? vldrhq_z_s32((const int16_t *)b + i, pr)
                                        : vaddq_n_s32(vldrbq_z_s32((const int8_t *)b + i, pr),
                                                      off2);
        const int32x4_t v = rt_mve_requant_n(vmulq_s32(x, y), mult, left, right, fix);
        vstrhq_p_s32(out + i, sat16x4(v), pr);
    }
}

void rt_s16_add_row(const int16_t *a, const int16_t *b, int16_t *out, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i += 8) {
        const mve_pred16_t pr = vctp16q((uint32_t)(n - i));
        vstrhq_p_s16(out + i, vqaddq_s16(vldrhq_z_s16(a + i, pr), vldrhq_z_s16(b + i, pr)), pr);
    }
}

void rt_s16_step_row(const int16_t *steps, int32_t count, int32_t first, const int16_t *in,
                     int8_t *out, int32_t n)
{
    const uint16x8_t limit = vdupq_n_u16((uint16_t)count);
    int32_t top = count > 0 ? 1 : 0, i;
    while (top > 0 && top * 2 <= count) {
        top *= 2;
    }
    for (i = 0; i < n; i += 8) {
        const mve_pred16_t pr = vctp16q((uint32_t)(n - i));
        const int16x8_t x = vldrhq_z_s16(in + i, pr);
        uint16x8_t pos = vdupq_n_u16(0);
        int32_t bit;
        for (bit = top; bit > 0; bit >>= 1) {
            const uint16x8_t cand = vaddq_n_u16(pos, (uint16_t)bit);
            const mve_pred16_t within = vcmpcsq_u16(limit, cand);        /* cand <= count */
            const int16x8_t step = vldrhq_gather_shifted_offset_z_s16(
                steps, vsubq_n_u16(cand, 1), within);
            pos = vaddq_m_n_u16(pos, pos, (uint16_t)bit, vcmpleq_m_s16(step, x, within));
        }
        vstrbq_p_s16(out + i, vaddq_n_s16(vreinterpretq_s16_u16(pos), (int16_t)first), pr);
    }
}
