/* constant_pad.c - rt_constant_pad_f32: constant_pad_nd. Output element at
 * index j of dim i reads input index j - before[i]; outside the input it is
 * value. Negative padding crops.
 *
 * The trailing dims the pad leaves whole are one row of the dim before them (an NCHW map
 * padded in H alone: a row is a plane, its middle one copy). Each output row is a run of
 * value, a copied run of the input and a run of value, or all value where its leading
 * indices fall outside the input; the rows are walked with an odometer, not divisions. */
#include "../core/rt_internal.h"

static void fill_f32(float *out, int32_t n, float value)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        out[i] = value;
    }
}

rt_status rt_constant_pad_f32(const int32_t *before, float value, RT_F32_UNARY_TENSORS)
{
    int32_t in_st[RT_MAX_DIMS], idx[RT_MAX_DIMS];
    int32_t rank, n, i, r, rows, len, lo, hi, shift, unit = 1, stride = 1;
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
    while (rank > 1 && before[rank - 1] == 0 && out_s->d[rank - 1] == in_s->d[rank - 1]) {
        unit *= in_s->d[rank - 1];     /* a factor of numel(in) and numel(out) */
        --rank;
    }
    for (i = rank - 1; i >= 0; --i) {
        in_st[i] = stride;
        stride *= in_s->d[i];
        idx[i] = 0;
    }
    len = out_s->d[rank - 1] * unit;
    rows = len > 0 ? n / len : 0;
    /* elements [lo, hi) of every output row that hits the input, from input element
       lo - shift of its row */
    shift = before[rank - 1] * unit;
    lo = shift > 0 ? shift : 0;
    hi = shift + in_s->d[rank - 1] * unit;
    hi = hi < len ? hi : len;
    for (r = 0; r < rows; ++r, out += len) {
        int32_t off = 0, inside = lo < hi;
        for (i = rank - 2; i >= 0 && inside; --i) {
            const int32_t src = idx[i] - before[i];
            inside = src >= 0 && src < in_s->d[i];
            off += src * in_st[i];
        }
        if (inside) {
            fill_f32(out, lo, value);
            memcpy(out + lo, in + off * unit + (lo - shift), (size_t)(hi - lo) * sizeof(float));
            fill_f32(out + hi, len - hi, value);
        } else {
            fill_f32(out, len, value);
        }
        for (i = rank - 2; i >= 0 && ++idx[i] == out_s->d[i]; --i) {
            idx[i] = 0;
        }
    }
    return RT_OK;
}
