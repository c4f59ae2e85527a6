/* div_mode.c - division with a rounding mode, numpy broadcasting or a number divisor.
 *   rt_div_floor_f32 / rt_div_floor_scalar_f32: out = floor(a / b), computed from the exact
 *       remainder as Python's float // (and torch) does, so 0.3 // 0.1 is 2, not 3;
 *   rt_div_trunc_f32 / rt_div_trunc_scalar_f32: out = trunc(a / b).
 * A zero divisor gives a / b (+-inf or NaN), as torch.
 */
#include <math.h>

#include "../core/rt_internal.h"

static float floor_div(float a, float b)
{
    float rem, q, whole;
    if (b == 0.0f) {
        return a / b;
    }
    rem = fmodf(a, b);                 /* exact; has the sign of a */
    q = (a - rem) / b;                 /* a whole number, up to rounding */
    if (rem != 0.0f && ((rem < 0.0f) != (b < 0.0f))) {
        q -= 1.0f;                     /* the remainder takes b's sign */
    }
    if (q == 0.0f) {
        return copysignf(0.0f, a / b);
    }
    whole = floorf(q);
    return (q - whole > 0.5f) ? whole + 1.0f : whole;
}

RT_BINARY_F32_KERNELS(div_floor, floor_div(x, y))
RT_BINARY_F32_KERNELS(div_trunc, truncf(x / y))
