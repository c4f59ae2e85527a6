/* add_row_s8.c (Cortex-M Helium) - rt_s8_add_row four elements a vector:
 *  - each operand's bytes gathered at offsets k * step (VLDRB gather: contiguous, broadcast
 *    (step 0) and strided rows alike; addresses wrap, so a negative step works too) and
 *    rescaled as rt_s8_requant does it, four lanes at once (rq4); a row of at least
 *    GATHER_TABLE_MIN elements rescales the 256 byte values once into a table per operand,
 *    then looks each byte up (VLDRW gather, the byte as an unsigned index);
 *  - their sum (or difference) requantized, offset and clamped, stored as bytes (VSTRB.32);
 *    whole vectors unpredicated, the row's tail predicated.
 * Bit-exact with int8/add_row_s8.c. */
#include "s8_mve.h"

/* Rows at least this long gather their rescaled inputs from two tables of the 256 bytes. */
#define GATHER_TABLE_MIN 512

/* rt_s8_requant of four lanes by one multiplier and shift, with scalar operands (no vector
 * constants for the loop to keep): the left shift (VSHL by register, wrapping like the
 * portable one); VQRDMULH, the rounding doubling high multiply (ties toward +inf, INT32_MIN
 * squared saturating to INT32_MAX, as rt_s8_high_mul); then, where there is a right shift, a
 * negative value less one (saturating) and VRSHL, the rounding right shift (ties up): the
 * division rounded half away from zero (at INT32_MIN the saturation changes nothing). */
typedef struct add_rq {
    int32_t mult, left, right, fix;   /* right <= 0 (VRSHL's count); fix: 1 if right < 0 */
} add_rq;

static add_rq rq_make(int32_t mult, int32_t shift)
{
    add_rq q;
    q.mult = mult;
    q.left = shift > 0 ? shift : 0;
    q.right = shift > 0 ? 0 : shift;
    q.fix = q.right < 0;
    return q;
}

static RT_MVE_INLINE int32x4_t rq4(const add_rq *q, int32x4_t x)
{
    return rt_mve_requant_n(x, q->mult, q->left, q->right, q->fix);
}

/* One operand rescaled: its offset, the add's left shift (both shifts in one VSHL: the
 * portable code's two wrapping shifts are one), its multiplier. */
static RT_MVE_INLINE int32x4_t rescale(const add_rq *q, int32_t off, int32_t up, int32x4_t x)
{
    add_rq r = *q;
    r.left += up;
    return rq4(&r, vaddq_n_s32(x, off));
}

/* t[u] = the rescaled value of the byte u read as int8, u < 256, negated (wrapping, as the
 * portable subtraction wraps) for the subtracted operand. */
static void fill_table(const add_rq *q, int32_t off, int32_t up, int neg, int32_t *t)
{
    int32x4_t u = vreinterpretq_s32_u32(vidupq_n_u32(0, 1));
    int32_t i;
    for (i = 0; i < 256; i += 4, u = vaddq_n_s32(u, 4)) {
        const int32x4_t v = rescale(q, off, up, vsubq_n_s32(veorq_s32(u, vdupq_n_s32(128)), 128));
        vst1q_s32(t + i, neg ? vsubq_s32(vdupq_n_s32(0), v) : v);
    }
}

/* What a row's loop keeps: the parameters copied out of rt_add_s8_params (stores to the
 * int8 output may alias it, so gcc would reload them every turn) and the vector constants. */
typedef struct add_row {
    add_rq qa, qb, qo;
    int32_t off1, off2, up, out_off;
    int32x4_t lo, hi;
    uint32x4_t ka, kb;          /* lane offsets: k * a_step, k * b_step */
    const int32_t *ta, *tb;     /* the tables, or NULL */
} add_row;

/* An operand's four bytes at offsets k from x, as table indices (unsigned) or values
 * (signed): all lanes, or those of pr (full: a constant). */
static RT_MVE_INLINE uint32x4_t bytes_u(const int8_t *x, uint32x4_t k, mve_pred16_t pr,
                                        const int full)
{
    return full ? vldrbq_gather_offset_u32((const uint8_t *)x, k)
                : vldrbq_gather_offset_z_u32((const uint8_t *)x, k, pr);
}

static RT_MVE_INLINE int32x4_t bytes_s(const int8_t *x, uint32x4_t k, mve_pred16_t pr,
                                       const int full)
{
    return full ? vldrbq_gather_offset_s32(x, k) : vldrbq_gather_offset_z_s32(x, k, pr);
}

static RT_MVE_INLINE int32x4_t words(const int32_t *t, uint32x4_t u, mve_pred16_t pr,
                                     const int full)
{
    return full ? vldrwq_gather_shifted_offset_s32(t, u)
                : vldrwq_gather_shifted_offset_z_s32(t, u, pr);
}

/* Four outputs from a and b: rescaled (or looked up in the tables, the subtraction already
 * in tb), summed, requantized, stored (lanes pr unless full). */
static RT_MVE_INLINE void add4(const add_row *r, const int8_t *a, const int8_t *b, int8_t *out,
                               mve_pred16_t pr, const int full, const int sub, const int table)
{
    int32x4_t x, y;
    if (table) {
        x = words(r->ta, bytes_u(a, r->ka, pr, full), pr, full);
        y = words(r->tb, bytes_u(b, r->kb, pr, full), pr, full);
    } else {
        x = rescale(&r->qa, r->off1, r->up, bytes_s(a, r->ka, pr, full));
        y = rescale(&r->qb, r->off2, r->up, bytes_s(b, r->kb, pr, full));
    }
    x = vaddq_n_s32(rq4(&r->qo, sub ? vsubq_s32(x, y) : vaddq_s32(x, y)), r->out_off);
    x = vminq_s32(vmaxq_s32(x, r->lo), r->hi);
    if (full) {
        vstrbq_s32(out, x);
    } else {
        vstrbq_p_s32(out, x, pr);
    }
}

/* The row: operand k at a + k * a_step (any step >= 0: 0 broadcasts one byte), b alike; whole
 * vectors with every lane on, then the tail predicated. sub and table are constants where
 * this is inlined. */
static RT_MVE_INLINE void add_loop(const add_row *r, const int8_t *a, int32_t a_step,
                                   const int8_t *b, int32_t b_step, int8_t *out, int32_t n,
                                   const int sub, const int table)
{
    const add_row row = *r;
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4, a += 4 * a_step, b += 4 * b_step, out += 4) {
        add4(&row, a, b, out, 0, 1, sub, table);
    }
    if (i < n) {
        add4(&row, a, b, out, vctp32q((uint32_t)(n - i)), 0, sub, table);
    }
}

void rt_s8_add_row(const rt_add_s8_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                   int32_t b_step, int8_t *out, int32_t n)
{
    /* a negative in2_mult subtracts b scaled by |in2_mult| (as the portable row does) */
    const int sub = p->in2_mult < 0;
    add_row r;
    r.qa = rq_make(p->in1_mult, p->in1_shift);
    r.qb = rq_make(sub ? -p->in2_mult : p->in2_mult, p->in2_shift);
    r.qo = rq_make(p->out_mult, p->out_shift);
    r.off1 = p->in1_offset;
    r.off2 = p->in2_offset;
    r.up = p->left_shift;
    r.out_off = p->out_offset;
    r.lo = vdupq_n_s32(p->act_min);
    r.hi = vdupq_n_s32(p->act_max);
    r.ka = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)a_step);
    r.kb = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)b_step);
    r.ta = r.tb = NULL;
    if (n >= GATHER_TABLE_MIN) {
        int32_t ta[256], tb[256];
        fill_table(&r.qa, r.off1, r.up, 0, ta);
        fill_table(&r.qb, r.off2, r.up, sub, tb);
        r.ta = ta;
        r.tb = tb;
        add_loop(&r, a, a_step, b, b_step, out, n, 0, 1);
    } else if (sub) {
        add_loop(&r, a, a_step, b, b_step, out, n, 1, 0);
    } else {
        add_loop(&r, a, a_step, b, b_step, out, n, 0, 0);
    }
}
