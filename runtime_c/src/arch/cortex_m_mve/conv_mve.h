/* conv_mve.h - the 2x2 tiles' output stage of the Helium convolutions (conv_s8.c and
 * conv_1x1_s8.c of this folder). */
#ifndef RT_CONV_MVE_H
#define RT_CONV_MVE_H

#include "s8_mve.h"
#include "../../int8/conv_s8.h"

/* A 2x2 tile's outputs: lanes (pixel a: filter oc, o1; pixel b: filter oc, o1), the bias in,
 * requantized in one vector (rt_mve_requant) and scattered as bytes to out[oc], out[oc + 1],
 * out[cout + oc], out[cout + oc + 1]. A lane is stored only for a second filter that exists
 * (o1 > oc) and a second pixel that exists (two). */
static inline void store_tile(const rt_conv_s8_params *p, const int32_t *acc, int32_t oc, int32_t o1,
                       int32_t two, int32_t cout, int8_t *out)
{
    const uint32_t offs[4] = {0u, 1u, (uint32_t)cout, (uint32_t)cout + 1u};
    const int32_t m[4] = {p->mult[oc], p->mult[o1], p->mult[oc], p->mult[o1]};
    const int32_t s[4] = {p->shift[oc], p->shift[o1], p->shift[oc], p->shift[o1]};
    const mve_pred16_t lanes = (mve_pred16_t)(0x000Fu | (o1 > oc ? 0x00F0u : 0u) |
                                              (two ? 0x0F00u | (o1 > oc ? 0xF000u : 0u) : 0u));
    const int32x4_t r = rt_mve_requant(vldrwq_s32(acc), vldrwq_s32(m), vldrwq_s32(s),
                                       p->output_offset, p->act_min, p->act_max);
    vstrbq_scatter_offset_p_s32(out + oc, vldrwq_u32(offs), r, lanes);
}

#endif /* RT_CONV_MVE_H */
