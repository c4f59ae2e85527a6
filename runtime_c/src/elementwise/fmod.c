/* fmod.c - C-style modulus: the result has the dividend's sign (or is 0).
 *   rt_fmod_f32: out = fmod(a, b), numpy broadcasting; rt_fmod_scalar_f32: fmod(in, other).
 */
#include <math.h>

#include "../core/rt_internal.h"

RT_BINARY_F32_KERNELS(fmod, fmodf(x, y))
