/* reflection_pad.c - rt_reflection_pad: reflection_pad1d/2d/3d for any
 * element size (the loop is in pad_modes.c). */
#include "pad_modes.h"

rt_status rt_reflection_pad(int32_t elem_size, const int32_t *before,
                            const rt_shape *in_s, const void *in,
                            const rt_shape *out_s, void *out)
{
    return rt_pad_by_mode(RT_PAD_REFLECT, elem_size, before, in_s, in, out_s,
                          out);
}
