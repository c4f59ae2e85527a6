/* pad_modes.h - private to reflection_pad.c and replication_pad.c: the
 * loop both share, which differs only in how an index outside the input
 * is brought back into it. */
#ifndef RT_PAD_MODES_H
#define RT_PAD_MODES_H

#include "../core/rt_internal.h"

#define RT_PAD_REFLECT 0
#define RT_PAD_REPLICATE 1

/* Output element j of dim i reads input index map(j - before[i]): reflect
 * mirrors about the first and last element (without repeating them),
 * replicate clamps to [0, n - 1]. Checks pointers, ranks and that every
 * mapped index lands inside the input. */
rt_status rt_pad_by_mode(int32_t mode, int32_t elem_size,
                         const int32_t *before, const rt_shape *in_s,
                         const void *in, const rt_shape *out_s, void *out);

#endif /* RT_PAD_MODES_H */
