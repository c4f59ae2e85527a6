/* The four memory functions GCC may call even in freestanding code (struct copies, array
 * initialisers). Build this file with -fno-tree-loop-distribute-patterns (firmware.mk does)
 * so GCC does not turn these loops back into calls to themselves. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t __attribute__((may_alias)) word_t; /* may alias any object, like char */

/* A source word: at any address on the Arm cores that load one so (ARMv7-M and ARMv8-M
 * mainline: the M3, M4, M7 and M55; not the M0, nor RISC-V here), else a word's. */
#if defined(__ARM_FEATURE_UNALIGNED)
#define SRC_ANY_ADDRESS 1
typedef uint32_t __attribute__((may_alias, aligned(1))) src_word_t;
#else
#define SRC_ANY_ADDRESS 0
typedef word_t src_word_t;
#endif

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    /* bytes up to dst's next word, then words: from src at any address where the core takes
       them, else where src is aligned too. (Short runs off a word are what a crop, a pad and
       a concatenation copy: --patches' rows of a few pixels.) */
    const int align = n >= 8 && (SRC_ANY_ADDRESS || (((uintptr_t)d ^ (uintptr_t)s) & 3u) == 0);
    for (; align && ((uintptr_t)d & 3u) != 0; --n) *d++ = *s++;
#if defined(__arm__) && defined(__thumb2__) && defined(__OPTIMIZE__) /* -O0 keeps r7 (frame) */
    /* both aligned (firmware copies big tensors: a model's input into its arena): eight words
       a turn, one LDM and one STM */
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        size_t turns = n >> 5;
        if (turns > 0) {
            __asm__ volatile("1:\n\t"
                             "ldmia %[s]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
                             "stmia %[d]!, {r2, r3, r4, r5, r6, r8, r9, r10}\n\t"
                             "subs %[t], %[t], #1\n\t"
                             "bne 1b"
                             : [s] "+r"(s), [d] "+r"(d), [t] "+r"(turns)
                             :
                             : "r2", "r3", "r4", "r5", "r6", "r8", "r9", "r10", "memory", "cc");
            n &= 31u;
        }
    }
#endif
    /* four words a turn (gcc writes them as four loads and four stores), then words */
    if (((uintptr_t)d & 3u) == 0 && (SRC_ANY_ADDRESS || ((uintptr_t)s & 3u) == 0)) {
        for (; n >= 16; n -= 16, d += 16, s += 16) {
            const src_word_t *sw = (const src_word_t *)(const void *)s;
            word_t *dw = (word_t *)(void *)d;
            const word_t a = sw[0], b = sw[1], c = sw[2], e = sw[3];
            dw[0] = a;
            dw[1] = b;
            dw[2] = c;
            dw[3] = e;
        }
        for (; n >= 4; n -= 4, d += 4, s += 4) {
            *(word_t *)(void *)d = *(const src_word_t *)(const void *)s;
        }
    }
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d == s || n == 0) return dst;
    if (d < s || d >= s + n) return memcpy(dst, src, n);
    while (n--) d[n] = s[n]; /* overlapping with dst above src: copy backwards */
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (n >= 8) {   /* whole words from the first aligned byte (a cleared arena, a pad's rows) */
        const word_t v = 0x01010101u * (unsigned char)c;
        for (; ((uintptr_t)d & 3u) != 0; --n) *d++ = (unsigned char)c;
        for (; n >= 16; n -= 16, d += 16) {
            word_t *dw = (word_t *)(void *)d;
            dw[0] = v;
            dw[1] = v;
            dw[2] = v;
            dw[3] = v;
        }
        for (; n >= 4; n -= 4, d += 4) *(word_t *)(void *)d = v;
    }
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y) return *x < *y ? -1 : 1;
    return 0;
}
