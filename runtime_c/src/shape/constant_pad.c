/* constant_pad.c - rt_constant_pad_f32: constant_pad_nd. Output element at
 * index j of dim i reads input index j - before[i]; outside the input it is
 * value. Negative padding crops. */
#include "../core/rt_internal.h"

rt_status rt_constant_pad_f32(const int32_t *before, float value, RT_F32_UNARY_TENSORS)
{
    int32_t in_st[RT_MAX_DIMS];
    int32_t rank, n, i, r, rows, len, lo, hi, stride = 1;
    RT_CHECK(before != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL,
             RT_ERR_NULL);
    n = rt_shape_numel(out_s);
    RT_CHECK(n >= 0 && rt_shape_numel(in_s) >= 0 &&
             out_s->rank == in_s->rank,
             RT_ERR_SHAPE);
    rank = in_s->rank;
    if (rank == 0) {
        out[0] = in[0];
        return RT_OK;
    }
    for (i = rank - 1; i >= 0; --i) {
        in_st[i] = stride;
        stride *= in_s->d[i];
    }
    len = out_s->d[rank - 1];
    rows = len > 0 ? n / len : 0;
    /* columns [lo, hi) of every output row that hits the input */
    lo = before[rank - 1] > 0 ? before[rank - 1] : 0;
    hi = before[rank - 1] + in_s->d[rank - 1];
    hi = hi < len ? hi : len;
    for (r = 0; r < rows; ++r, out += len) {
        int32_t rem = r, off = 0, inside = lo < hi;
        for (i = rank - 2; i >= 0 && inside; --i) {
            const int32_t src = rem % out_s->d[i] - before[i];
            rem /= out_s->d[i];
            inside = src >= 0 && src < in_s->d[i];
            off += src * in_st[i];
        }
        for (i = 0; i < len; ++i) {
            out[i] = value;
        }
        if (inside) {
            memcpy(out + lo, in + off + (lo - before[rank - 1]),
                   (size_t)(hi - lo) * sizeof(float));
        }
    }
    return RT_OK;
}
