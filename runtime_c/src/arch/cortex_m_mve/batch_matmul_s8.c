/* batch_matmul_s8.c (Cortex-M Helium) - rt_batch_matmul_s8, four outputs a pass:
 *  - sum over k of (l + lo)(r + ro) = sum l r + (lo sum r + K lo ro) + ro sum l. The middle
 *    term belongs to a column (an rhs row): taken once per group of four columns, it starts
 *    that column's sum in every row;
 *  - per lhs row, one pass over K gives the group's four sums l r (VMLADAVA, sixteen products
 *    an instruction, the lhs bytes loaded once for the four) and sum l (VADDVA): whole vectors
 *    unpredicated (an asm loop past 31 bytes), the tail's loads predicated (zeros past K,
 *    nothing read beyond it); for K <= 16 the four columns stay in registers across rows;
 *  - the four sums in one vector, requantized four lanes at once bit for bit as rt_s8_requant
 *    (rq4: add_row_s8.c's), offset, clamped and stored as bytes (VSTRB.32). A ragged end of
 *    columns takes the last four again; fewer than four columns repeat the last in the lanes
 *    they lack (no read past rhs) and store only their own.
 * Integer sums in another order are the same sums: bit-exact with int8/batch_matmul_s8.c. */
#include "../../int8/batch_matmul_s8.h"
#include "s8_mve.h"

/* What a group's rows share: its four columns (rhs rows), their terms, the requantization
 * (copied out of rt_bmm_s8_params: stores to the int8 output may alias it, so gcc would reload
 * it every row). The shift as add_row_s8.c's rq4 takes it: left >= 0, right <= 0 (VRSHL's
 * count), fix 1 where right < 0. */
typedef struct bmm_group {
    const int8_t *w[4];   /* the columns' K bytes; fewer than four columns repeat the last */
    int32_t base[4];      /* lo sum r + K lo ro, per column: where the sums start */
    int32_t inner, rhs_off;
    int32_t mult, left, right, fix, out_off;
} bmm_group;

/* sum x[i], i < n */
static int32_t sum_s8(const int8_t *x, int32_t n)
{
    int32_t s = 0;
    for (; n > 0; n -= 16, x += 16) {
        const mve_pred16_t p = rt_mve_tail8(n);
        s = vaddvaq_p_s8(s, vldrbq_z_s8(x, p), p);
    }
    return s;
}

#if defined(__OPTIMIZE__)   /* (at -O0 gcc cannot give the asm its twelve registers) */
/* a0..a3 += sum over the next turns * 16 bytes of x times those of w0..w3, s += their sum x,
 * the pointers advanced past them: 11 instructions for 64 products in a low-overhead loop (gcc
 * would address the five streams from one index, a subtraction per load). */
#define BMM_WHOLE_TURNS(x, w0, w1, w2, w3, turns, a0, a1, a2, a3, s) \
    __asm__ volatile( \
        "dls lr, %[t]\n\t" \
        "1:\n\t" \
        "vldrb.8 q0, [%[x]], #16\n\t" \
        "vldrb.8 q1, [%[w0]], #16\n\t" \
        "vldrb.8 q2, [%[w1]], #16\n\t" \
        "vaddva.s8 %[s], q0\n\t" \
        "vmlava.s8 %[a0], q0, q1\n\t" \
        "vldrb.8 q3, [%[w2]], #16\n\t" \
        "vmlava.s8 %[a1], q0, q2\n\t" \
        "vldrb.8 q1, [%[w3]], #16\n\t" \
        "vmlava.s8 %[a2], q0, q3\n\t" \
        "vmlava.s8 %[a3], q0, q1\n\t" \
        "le lr, 1b" \
        : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [s] "+Te"(s), \
          [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3) \
        : [t] "r"(turns) \
        : "cc", "memory", "lr", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7")
#endif

/* One turn of sixteen bytes: a0..a3 += the products of x's with w0..w3's, s += sum x. LOAD
 * is BMM_ALL (every lane) or BMM_PART (the lanes of p; the others load as zero, add nothing
 * and read nothing). */
#define BMM_ALL(ptr, p) vldrbq_s8(ptr)
#define BMM_PART(ptr, p) vldrbq_z_s8(ptr, p)
#define BMM_TURN(LOAD, x, w0, w1, w2, w3, p, a0, a1, a2, a3, s) \
    do { \
        const int8x16_t x_ = LOAD(x, p); \
        s = vaddvaq_s8(s, x_); \
        a0 = vmladavaq_s8(a0, x_, LOAD(w0, p)); \
        a1 = vmladavaq_s8(a1, x_, LOAD(w1, p)); \
        a2 = vmladavaq_s8(a2, x_, LOAD(w2, p)); \
        a3 = vmladavaq_s8(a3, x_, LOAD(w3, p)); \
    } while (0)

/* The sums of x's row with the group's four columns, each started at its base, in the lanes
 * of a vector; sum x in *sx. At -O1 and up: past 31 bytes the whole vectors in the asm loop,
 * else one whole turn if there is one; then one predicated turn for the rest (no C loop: near
 * one, gcc finds the asm no registers). At -O0, predicated turns. */
static RT_MVE_INLINE int32x4_t dots4(const bmm_group *g, const int8_t *x, int32_t *sx)
{
    const int8_t *w0 = g->w[0], *w1 = g->w[1], *w2 = g->w[2], *w3 = g->w[3];
    int32_t n = g->inner, s = 0;
    int32_t a0 = g->base[0], a1 = g->base[1], a2 = g->base[2], a3 = g->base[3];
    int32x4_t v;
#if defined(__OPTIMIZE__)
    if (n >= 32) {
        BMM_WHOLE_TURNS(x, w0, w1, w2, w3, n >> 4, a0, a1, a2, a3, s);
        n &= 15;
    } else if (n >= 16) {
        BMM_TURN(BMM_ALL, x, w0, w1, w2, w3, 0, a0, a1, a2, a3, s);
        x += 16;
        w0 += 16;
        w1 += 16;
        w2 += 16;
        w3 += 16;
        n -= 16;
    }
    if (n > 0) {
        BMM_TURN(BMM_PART, x, w0, w1, w2, w3, rt_mve_tail8(n), a0, a1, a2, a3, s);
    }
#else
    for (; n > 0; n -= 16, x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        BMM_TURN(BMM_PART, x, w0, w1, w2, w3, rt_mve_tail8(n), a0, a1, a2, a3, s);
    }
#endif
    *sx = s;
    v = vdupq_n_s32(a0);
    v = vsetq_lane_s32(a1, v, 1);
    v = vsetq_lane_s32(a2, v, 2);
    return vsetq_lane_s32(a3, v, 3);
}

/* rt_s8_requant of four lanes, as add_row_s8.c's rq4 (see there): VSHL (wrapping), VQRDMULH,
 * the sign fix, VRSHL; then the output offset and the clamp to int8: shifted to the top byte
 * saturating and back (no vector constants to keep). */
static RT_MVE_INLINE int32x4_t rq4_out(const bmm_group *g, int32x4_t x)
{
    const int32x4_t q = vaddq_n_s32(rt_mve_requant_n(x, g->mult, g->left, g->right, g->fix),
                                    g->out_off);
    return vshrq_n_s32(vqshlq_n_s32(q, 24), 24);
}

/* Four outputs stored: all lanes (full: a constant where this is inlined), or those of pr. */
static RT_MVE_INLINE void store4(int8_t *out, int32x4_t o, mve_pred16_t pr, const int full)
{
    if (full) {
        vstrbq_s32(out, o);
    } else {
        vstrbq_p_s32(out, o, pr);
    }
}

/* The group's outputs for rows lhs rows from x on, one output row step apart. */
static RT_MVE_INLINE void group_rows_for(const bmm_group *r, const int8_t *x, int32_t rows,
                                         int8_t *out, int32_t step, mve_pred16_t pr,
                                         const int full)
{
    const bmm_group g = *r;
    int32_t m, sx;
    for (m = 0; m < rows; ++m, x += g.inner, out += step) {
        const int32x4_t acc = dots4(&g, x, &sx);
        store4(out, rq4_out(&g, vaddq_n_s32(acc, g.rhs_off * sx)), pr, full);
    }
}

/* The same for K <= 16 (attention's scores over short heads): the four columns loaded once,
 * kept in registers for every row (lanes past K zero), VMLADAV and VADDV straight into the
 * sums, the column terms added as a vector. */
static RT_MVE_INLINE void group_rows_short(const bmm_group *r, const int8_t *x, int32_t rows,
                                           int8_t *out, int32_t step, mve_pred16_t pr,
                                           const int full)
{
    const bmm_group g = *r;
    const mve_pred16_t pk = rt_mve_tail8(g.inner);
    const int8x16_t w0 = vldrbq_z_s8(g.w[0], pk), w1 = vldrbq_z_s8(g.w[1], pk);
    const int8x16_t w2 = vldrbq_z_s8(g.w[2], pk), w3 = vldrbq_z_s8(g.w[3], pk);
    const int32x4_t base = vld1q_s32(g.base);
    int32_t m;
    for (m = 0; m < rows; ++m, x += g.inner, out += step) {
        const int8x16_t xv = vldrbq_z_s8(x, pk);
        int32x4_t v = vdupq_n_s32(vmladavq_s8(xv, w0));
        v = vsetq_lane_s32(vmladavq_s8(xv, w1), v, 1);
        v = vsetq_lane_s32(vmladavq_s8(xv, w2), v, 2);
        v = vsetq_lane_s32(vmladavq_s8(xv, w3), v, 3);
        v = vaddq_n_s32(vaddq_s32(v, base), g.rhs_off * vaddvq_s8(xv));
        store4(out, rq4_out(&g, v), pr, full);
    }
}

/* The group's rows out of line, so that the dot products' asm finds its registers: K <= 16
 * and longer apart, four columns or fewer (the lanes pr stored). */
static RT_DSP_NOINLINE void rows_short(const bmm_group *g, const int8_t *x, int32_t rows,
                                       int8_t *out, int32_t step)
{
    group_rows_short(g, x, rows, out, step, 0, 1);
}

static RT_DSP_NOINLINE void rows_short_part(const bmm_group *g, const int8_t *x, int32_t rows,
                                            int8_t *out, int32_t step, mve_pred16_t pr)
{
    group_rows_short(g, x, rows, out, step, pr, 0);
}

static RT_DSP_NOINLINE void rows_long(const bmm_group *g, const int8_t *x, int32_t rows,
                                      int8_t *out, int32_t step)
{
    group_rows_for(g, x, rows, out, step, 0, 1);
}

static RT_DSP_NOINLINE void rows_long_part(const bmm_group *g, const int8_t *x, int32_t rows,
                                           int8_t *out, int32_t step, mve_pred16_t pr)
{
    group_rows_for(g, x, rows, out, step, pr, 0);
}

rt_status rt_batch_matmul_s8(const rt_bmm_s8_params *p, const rt_shape *lhs_s,
                             const int8_t *lhs, const rt_shape *rhs_s, const int8_t *rhs,
                             const rt_shape *out_s, int8_t *out)
{
    rt_bmm_s8_dims d;
    bmm_group g;
    int32_t b, n, j, k_lo_ro;
    RT_TRY(rt_bmm_s8_check(p, lhs_s, lhs, rhs_s, rhs, out_s, out, &d));
    k_lo_ro = d.inner * p->lhs_offset * p->rhs_offset;
    g.inner = d.inner;
    g.rhs_off = p->rhs_offset;
    g.mult = p->out_mult;
    g.left = p->out_shift > 0 ? p->out_shift : 0;
    g.right = p->out_shift > 0 ? 0 : p->out_shift;
    g.fix = g.right < 0;
    g.out_off = p->out_offset;
    for (b = 0; b < d.batch; ++b) {
        for (n = 0; n < d.cols; n += 4) {
            int32_t run = d.cols - n < 4 ? d.cols - n : 4;
            if (run < 4 && d.cols >= 4) {   /* a ragged end: the last four again */
                n = d.cols - 4;
                run = 4;
            }
            for (j = 0; j < 4; ++j) {
                g.w[j] = rhs + (n + (j < run ? j : run - 1)) * d.inner;
                g.base[j] = p->lhs_offset * sum_s8(g.w[j], d.inner) + k_lo_ro;
            }
            if (run == 4 && d.inner <= 16) {
                rows_short(&g, lhs, d.rows, out + n, d.cols);
            } else if (run == 4) {
                rows_long(&g, lhs, d.rows, out + n, d.cols);
            } else if (d.inner <= 16) {
                rows_short_part(&g, lhs, d.rows, out + n, d.cols, vctp32q((uint32_t)run));
            } else {
                rows_long_part(&g, lhs, d.rows, out + n, d.cols, vctp32q((uint32_t)run));
            }
        }
        lhs += d.rows * d.inner;
        rhs += d.cols * d.inner;
        out += d.rows * d.cols;
    }
    return RT_OK;
}
