/* pad_modes.c - the loop behind rt_reflection_pad and rt_replication_pad
 * (see pad_modes.h). Rows of the last dim are copied as one block where
 * they hit the input, element by element at the mirrored/clamped edges. */
#include "pad_modes.h"

static int32_t map_index(int32_t mode, int32_t src, int32_t n)
{
    if (mode == RT_PAD_REFLECT) {
        if (src < 0) {
            src = -src;
        }
        if (src > n - 1) {
            src = 2 * (n - 1) - src;
        }
        return src;
    }
    return src < 0 ? 0 : (src > n - 1 ? n - 1 : src);
}

/* Every output index of a dim of in-size n, out-size m, maps into [0, n). */
static int dim_ok(int32_t mode, int32_t n, int32_t m, int32_t before)
{
    int32_t lo, hi;
    if (m == 0) {
        return 1;
    }
    if (n <= 0) {
        return 0;
    }
    lo = -before;                 /* source index of output 0 */
    hi = m - 1 - before;          /* source index of output m - 1 */
    if (before < -n || before > m) {  /* keeps lo, hi from overflowing */
        return 0;
    }
    if (mode == RT_PAD_REFLECT) {
        return lo >= -(n - 1) && hi <= 2 * (n - 1) && lo <= 2 * (n - 1) &&
               hi >= -(n - 1);
    }
    return 1;
}

rt_status rt_pad_by_mode(int32_t mode, int32_t elem_size,
                         const int32_t *before, const rt_shape *in_s,
                         const void *in, const rt_shape *out_s, void *out)
{
    int32_t in_st[RT_MAX_DIMS];
    int32_t rank, n, i, r, j, rows, len, w, b, lo, hi, stride = 1;
    const size_t es = (size_t)elem_size;
    const unsigned char *src = (const unsigned char *)in;
    unsigned char *dst = (unsigned char *)out;
    RT_CHECK(before != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL,
             RT_ERR_NULL);
    RT_CHECK(elem_size == 1 || elem_size == 2 || elem_size == 4 ||
             elem_size == 8,
             RT_ERR_PARAM);
    RT_CHECK(in_s->rank >= 1 && in_s->rank <= RT_MAX_DIMS &&
             out_s->rank == in_s->rank,
             RT_ERR_RANK);
    n = rt_shape_numel(out_s);
    RT_CHECK(n >= 0 && rt_shape_numel(in_s) >= 0, RT_ERR_SHAPE);
    rank = in_s->rank;
    for (i = 0; i < rank; ++i) {
        RT_CHECK(dim_ok(mode, in_s->d[i], out_s->d[i], before[i]),
                 RT_ERR_SHAPE);
    }
    if (n == 0) {
        return RT_OK;
    }
    for (i = rank - 1; i >= 0; --i) {
        in_st[i] = stride;
        stride *= in_s->d[i];
    }
    len = out_s->d[rank - 1];
    w = in_s->d[rank - 1];
    b = before[rank - 1];
    rows = n / len;
    /* output columns [lo, hi) read input columns [lo - b, hi - b) as is */
    lo = b > 0 ? b : 0;
    hi = b + w < len ? b + w : len;
    if (hi < lo) {
        hi = lo;
    }
    for (r = 0; r < rows; ++r, dst += (size_t)len * es) {
        int32_t rem = r, off = 0;
        const unsigned char *row;
        for (i = rank - 2; i >= 0; --i) {
            const int32_t o = rem % out_s->d[i];
            rem /= out_s->d[i];
            off += map_index(mode, o - before[i], in_s->d[i]) * in_st[i];
        }
        row = src + (size_t)off * es;
        for (j = 0; j < lo; ++j) {
            memcpy(dst + (size_t)j * es,
                   row + (size_t)map_index(mode, j - b, w) * es, es);
        }
        if (hi > lo) {
            memcpy(dst + (size_t)lo * es, row + (size_t)(lo - b) * es,
                   (size_t)(hi - lo) * es);
        }
        for (j = hi; j < len; ++j) {
            memcpy(dst + (size_t)j * es,
                   row + (size_t)map_index(mode, j - b, w) * es, es);
        }
    }
    return RT_OK;
}
