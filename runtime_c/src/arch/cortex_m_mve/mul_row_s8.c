/* mul_row_s8.c (Cortex-M Helium) - rt_s8_mul_row four elements a vector:
 *  - each operand's bytes gathered at offsets k * step (VLDRB gather: contiguous, broadcast
 *    (step 0) and strided rows alike) and offset; their product (|product| <= 255 * 255, no
 *    overflow) in 32-bit lanes;
 *  - the product requantized as add_row_s8.c's rq4 does it (VSHL, VQRDMULH, the sign fix,
 *    VRSHL), offset, clamped and stored as bytes (VSTRB.32); whole vectors unpredicated, the
 *    row's tail predicated. Loads come before stores within a turn, so out may be an input.
 * Bit-exact with int8/mul_row_s8.c. */
#include "s8_mve.h"

/* What a row's loop keeps: the parameters copied out of rt_mul_s8_params (stores to the int8
 * output may alias it, so gcc would reload them every turn) and the vector constants. */
typedef struct mul_row {
    int32_t off1, off2, out_off;
    int32_t mult, left, right, fix;   /* right <= 0 (VRSHL's count); fix: 1 if right < 0 */
    int32x4_t lo, hi;
    uint32x4_t ka, kb;                /* lane offsets: k * a_step, k * b_step */
} mul_row;

/* rt_s8_requant of four lanes (rt_mve_requant_n, s8_mve.h). */
static RT_MVE_INLINE int32x4_t rq4(const mul_row *r, int32x4_t x)
{
    return rt_mve_requant_n(x, r->mult, r->left, r->right, r->fix);
}

/* Four outputs from a and b: offset, multiplied, requantized, offset, clamped, stored (lanes
 * pr unless full: a constant where this is inlined). */
static RT_MVE_INLINE void mul4(const mul_row *r, const int8_t *a, const int8_t *b, int8_t *out,
                               mve_pred16_t pr, const int full)
{
    const int32x4_t x = full ? vldrbq_gather_offset_s32(a, r->ka)
                             : vldrbq_gather_offset_z_s32(a, r->ka, pr);
    const int32x4_t y = full ? vldrbq_gather_offset_s32(b, r->kb)
                             : vldrbq_gather_offset_z_s32(b, r->kb, pr);
    int32x4_t v = vmulq_s32(vaddq_n_s32(x, r->off1), vaddq_n_s32(y, r->off2));
    v = vaddq_n_s32(rq4(r, v), r->out_off);
    v = vminq_s32(vmaxq_s32(v, r->lo), r->hi);
    if (full) {
        vstrbq_s32(out, v);
    } else {
        vstrbq_p_s32(out, v, pr);
    }
}

void rt_s8_mul_row(const rt_mul_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    mul_row r;
    int32_t i;
    r.off1 = p->in1_offset;
    r.off2 = p->in2_offset;
    r.out_off = p->out_offset;
    r.mult = p->out_mult;
    r.left = p->out_shift > 0 ? p->out_shift : 0;
    r.right = p->out_shift > 0 ? 0 : p->out_shift;
    r.fix = r.right < 0;
    r.lo = vdupq_n_s32(p->act_min);
    r.hi = vdupq_n_s32(p->act_max);
    r.ka = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)a_step);
    r.kb = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)b_step);
    for (i = 0; i + 4 <= n; i += 4, a += 4 * a_step, b += 4 * b_step, out += 4) {
        mul4(&r, a, b, out, 0, 1);
    }
    if (i < n) {
        mul4(&r, a, b, out, vctp32q((uint32_t)(n - i)), 0);
    }
}
