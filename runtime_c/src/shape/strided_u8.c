/* strided_u8.c - rt_copy_strided_u8, the inner row of a byte permute (rt_permute in
 * movement.c): len bytes from src, s bytes apart, to dst, d bytes apart. A file of its own so
 * that an arch can replace it (the Helium one moves 16 bytes a vector). */
#include "../core/rt_internal.h"

void rt_copy_strided_u8(uint8_t *dst, int32_t d, const uint8_t *src, int32_t s, int32_t len)
{
    int32_t i;
    for (i = 0; i + 2 <= len; i += 2, src += 2 * s, dst += 2 * d) {
        const uint8_t a = src[0], b = src[s];
        dst[0] = a;
        dst[d] = b;
    }
    if (i < len) {
        *dst = *src;
    }
}
