/* tanh.c - rt_tanh_f32: out = tanh(in). */
#include <math.h>

#include "../core/rt_internal.h"

rt_status rt_tanh_f32(RT_F32_UNARY_TENSORS)
{
    RT_MAP_UNARY(in_s, in, out_s, out, tanhf(x));
    return RT_OK;
}
