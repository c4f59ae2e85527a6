/* strided_u8.c (Cortex-M DSP) - rt_copy_strided_u8: len bytes from src, s apart, to dst, d
 * apart (the inner row of rt_permute; same contract as src/shape/strided_u8.c). A row read
 * contiguously takes four bytes a load (LDR, unaligned words; the boards are little-endian)
 * and stores them a byte at a time: NCHW to NHWC of a 3-channel image (VWW's input, d = 3)
 * sixteen bytes a turn, each store at an immediate offset, in about 2.4 cycles a byte on the
 * M4; other strides four bytes a turn. */
#include "../../core/rt_internal.h"
#include "s8_dsp.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "runtime_c/src/arch/cortex_m_dsp/strided_u8.c takes a word's bytes little-endian"
#endif

/* A word's four bytes to dst, dst + d, dst + 2 d, dst + 3 d. */
#define RT_STRIDED_PUT4(dst, d, v) \
    do { \
        (dst)[0] = (uint8_t)(v); \
        (dst)[d] = (uint8_t)((v) >> 8); \
        (dst)[2 * (d)] = (uint8_t)((v) >> 16); \
        (dst)[3 * (d)] = (uint8_t)((v) >> 24); \
    } while (0)

void rt_copy_strided_u8(uint8_t *dst, int32_t d, const uint8_t *src, int32_t s, int32_t len)
{
    int32_t i = 0;
    if (s == 1 && d == 3) {   /* a constant stride: every store at an immediate offset */
        for (; i + 16 <= len; i += 16, src += 16, dst += 48) {
            const uint32_t v0 = (uint32_t)rt_dsp_load4((const int8_t *)src);
            const uint32_t v1 = (uint32_t)rt_dsp_load4((const int8_t *)src + 4);
            const uint32_t v2 = (uint32_t)rt_dsp_load4((const int8_t *)src + 8);
            const uint32_t v3 = (uint32_t)rt_dsp_load4((const int8_t *)src + 12);
            RT_STRIDED_PUT4(dst, 3, v0);
            RT_STRIDED_PUT4(dst + 12, 3, v1);
            RT_STRIDED_PUT4(dst + 24, 3, v2);
            RT_STRIDED_PUT4(dst + 36, 3, v3);
        }
    }
    if (s == 1) {
        for (; i + 4 <= len; i += 4, src += 4, dst += 4 * d) {
            const uint32_t v = (uint32_t)rt_dsp_load4((const int8_t *)src);
            RT_STRIDED_PUT4(dst, d, v);
        }
    }
    for (; i < len; ++i, src += s, dst += d) {
        *dst = *src;
    }
}
