/* strided_u8.c (Cortex-M Helium) - rt_copy_strided_u8: len bytes from src, s apart, to dst,
 * d apart (the inner row of rt_permute; same contract as src/shape/strided_u8.c). A row
 * read or written contiguously, the other side at most 17 bytes a step (16 steps within a
 * byte offset), moves 16 bytes a vector: contiguous loads scattered (VSTRB.8 with byte
 * offsets), or gathered then stored; the tail under a lane predicate. NCHW to NHWC of a
 * 3-channel image (VWW's input) is such a row: 2 instructions per 16 bytes, against about
 * 8 per 2 bytes a byte at a time. Others go a byte at a time. */
#include "../../core/rt_internal.h"

#include <arm_mve.h>

/* Byte steps a vector's lanes can span: 15 steps fit a byte offset. */
#define STRIDED_MAX_STEP 17

void rt_copy_strided_u8(uint8_t *dst, int32_t d, const uint8_t *src, int32_t s, int32_t len)
{
    int32_t i = 0;
    if (s == 1 && d > 0 && d <= STRIDED_MAX_STEP) {
        const uint8x16_t offs = vmulq_n_u8(vidupq_n_u8(0u, 1), (uint8_t)d);
        for (; i + 16 <= len; i += 16, src += 16, dst += 16 * d) {
            vstrbq_scatter_offset_u8(dst, offs, vldrbq_u8(src));
        }
        if (i < len) {
            const mve_pred16_t t = vctp8q((uint32_t)(len - i));
            vstrbq_scatter_offset_p_u8(dst, offs, vldrbq_z_u8(src, t), t);
        }
        return;
    }
    if (d == 1 && s > 1 && s <= STRIDED_MAX_STEP) {
        const uint8x16_t offs = vmulq_n_u8(vidupq_n_u8(0u, 1), (uint8_t)s);
        for (; i + 16 <= len; i += 16, src += 16 * s, dst += 16) {
            vstrbq_u8(dst, vldrbq_gather_offset_u8(src, offs));
        }
        if (i < len) {
            const mve_pred16_t t = vctp8q((uint32_t)(len - i));
            vstrbq_p_u8(dst, vldrbq_gather_offset_z_u8(src, offs, t), t);
        }
        return;
    }
    for (; i < len; ++i, src += s, dst += d) {
        *dst = *src;
    }
}
