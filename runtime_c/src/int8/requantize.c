/* requantize.c - rt_requantize: the int8 kernels' requantization, public for tests. */
#include "s8_internal.h"

int32_t rt_requantize(int32_t x, int32_t mult, int32_t shift)
{
    return rt_s8_requant(x, mult, shift);
}
