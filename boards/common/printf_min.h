/* A small printf for firmware without a C library; output goes to plat_puts().
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %% and %f %e %g (upper-case forms too), with the
 * flags - + space 0, a width and a precision (numbers or *), and the length modifiers
 * hh h l ll z t j. Floating-point arguments are printed as float: a double argument is first
 * rounded to float. The decimal digits are exact and rounded half-to-even, so output matches
 * glibc's printf for every float; "%.9g" round-trips every float exactly.
 */
#ifndef MCU_AOT_PRINTF_MIN_H
#define MCU_AOT_PRINTF_MIN_H

#include <stdarg.h>
#include <stddef.h>

int mini_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mini_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int mini_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
