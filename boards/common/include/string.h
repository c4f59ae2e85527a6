/* string.h for freestanding builds: what boards/common/libc_min.c provides. */
#ifndef MCU_AOT_STRING_H
#define MCU_AOT_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif
