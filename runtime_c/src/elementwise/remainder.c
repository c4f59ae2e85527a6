/* remainder.c - Python-style modulus: the result has the divisor's sign (or is 0).
 *   rt_remainder_f32: out = a mod b, numpy broadcasting; rt_remainder_scalar_f32: in mod other.
 * A zero divisor gives NaN, as torch.remainder.
 */
#include <math.h>

#include "../core/rt_internal.h"

static float py_mod(float a, float b)
{
    const float r = fmodf(a, b);
    return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}

RT_BINARY_F32_KERNELS(remainder, py_mod(x, y))
