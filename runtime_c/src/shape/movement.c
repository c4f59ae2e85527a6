/* movement.c - data movement of any element size (int8 maps, and any other dtype):
 * rt_permute, rt_constant_pad, rt_cat, rt_split, rt_slice. Elements are copied as elem_size
 * bytes; buffers of 4-byte elements are 4-byte aligned, as every tensor the planner places. */
#include "../core/rt_internal.h"

static int elem_ok(int32_t elem_size)
{
    return elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8;
}

/* Bytes from the start of a tensor to its element `index` (an element offset fits int32, as
 * every numel does; the byte offset may not). */
static size_t byte_offset(int32_t index, int32_t elem_size)
{
    return (size_t)index * (size_t)elem_size;
}

static void copy_elems(void *dst, const void *src, int32_t count, int32_t elem_size)
{
    if (count > 0) {
        memcpy(dst, src, (size_t)count * (size_t)elem_size);
    }
}

/* One element from src[si] to dst[di] (element indices). */
static void copy_elem(uint8_t *dst, int32_t di, const uint8_t *src, int32_t si,
                      int32_t elem_size)
{
    memcpy(dst + byte_offset(di, elem_size), src + byte_offset(si, elem_size), (size_t)elem_size);
}

/* len elements from src[si], s apart, to dst[di], d apart (element indices): rt_permute's
 * inner row. Every form reads an element before it writes it, and the byte one reads each
 * step's elements (up to 16) before it writes them: what planes_over needs. */
static void copy_row(uint8_t *dst, int32_t di, int32_t d, const uint8_t *src, int32_t si,
                     int32_t s, int32_t len, int32_t elem_size)
{
    int32_t i;
    if (elem_size == 1) {
        rt_copy_strided_u8(dst + di, d, src + si, s, len);
    } else if (elem_size == 4) {             /* float32 and int32: word copies */
        uint32_t *d32 = (uint32_t *)(void *)dst;
        const uint32_t *s32 = (const uint32_t *)(const void *)src;
        for (i = 0; i < len; ++i) {
            d32[di + i * d] = s32[si + i * s];
        }
    } else {
        for (i = 0; i < len; ++i) {
            copy_elem(dst, di + i * d, src, si + i * s, elem_size);
        }
    }
}

/* NCHW to NHWC with the output over the input, as the planner may put it (aot/overlap.py's
 * transpose_s8): ``images`` images of ``planes`` planes of ``pixels`` elements each, the
 * output ``below`` elements below the input (at least planes - 1). Each image runs in
 * phases. A phase moves the first k pixels of every plane out (k = below / (planes - 1), at
 * most the pixels left): their output ends at or below the first pixel of plane 0 not yet
 * moved, so it lands only on bytes already read. The planes' rest then moves up the input's
 * buffer, under the last plane's rest, which leaves ``below`` elements under it again. With
 * the output a plane below, a 3-plane image takes two phases and moves half a plane of each
 * of two planes: the input's buffer is the output's too, and only one plane more. */
static void planes_over(int32_t elem_size, int32_t images, int32_t planes, int32_t pixels,
                        int32_t below, uint8_t *dst)
{
    const size_t e = (size_t)elem_size;
    const int32_t step = below / (planes - 1);   /* pixels a phase */
    int32_t img, left, k, p;
    for (img = 0; img < images; ++img) {
        uint8_t *in = dst + (size_t)below * e;   /* this image's input, its output at dst */
        for (left = pixels; left > 0; left -= k) {
            k = step < left ? step : left;
            for (p = 0; p < planes; ++p) {
                copy_row(dst, p, planes, in, p * left, 1, k, elem_size);
            }
            dst += (size_t)k * (size_t)planes * e;
            for (p = planes - 2; p >= 0 && left > k; --p) {   /* the top plane stays */
                memmove(in + ((size_t)k * (size_t)planes + (size_t)p * (size_t)(left - k)) * e,
                        in + ((size_t)p * (size_t)left + (size_t)k) * e,
                        (size_t)(left - k) * e);
            }
            in += (size_t)k * (size_t)planes * e;
        }
    }
}

/* The permuted copy walks the output with one dim innermost: the output's last, or, where it
 * is longer, the dim the input holds contiguously (NCHW -> NHWC of a 3-channel image then
 * runs along its rows of pixels, not over three channels at a time); an odometer steps the
 * others. Output dims that follow each other in the input too are one dim first, and dims of
 * one dropped (that image's rows then are one row of all its pixels: three rows in all, not
 * 288). */
rt_status rt_permute(int32_t elem_size, const int32_t *perm, const rt_shape *in_s,
                     const void *in, const rt_shape *out_s, void *out)
{
    int32_t in_st[RT_MAX_DIMS], st[RT_MAX_DIMS], od[RT_MAX_DIMS], ost[RT_MAX_DIMS];
    int32_t idx[RT_MAX_DIMS];
    int32_t rank, m = 0, i, n, r, rows, len, s, d, q, si = 0, di = 0, stride = 1;
    uint32_t seen = 0u;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    RT_CHECK(perm != NULL && in_s != NULL && in != NULL && out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(elem_ok(elem_size), RT_ERR_PARAM);
    n = rt_shape_numel(in_s);
    RT_CHECK(n >= 0 && out_s->rank == in_s->rank && n == rt_shape_numel(out_s), RT_ERR_SHAPE);
    rank = in_s->rank;
    for (i = rank - 1; i >= 0; --i) {
        in_st[i] = stride;
        stride *= in_s->d[i];
    }
    for (i = 0; i < rank; ++i) {
        const int32_t p = rt_norm_dim(perm[i], rank), size = out_s->d[i];
        RT_CHECK(p >= 0 && (seen & (1u << p)) == 0u, RT_ERR_PARAM);
        RT_CHECK(size == in_s->d[p], RT_ERR_SHAPE);
        seen |= 1u << p;
        if (size == 1) {
            continue;
        }
        if (m > 0 && st[m - 1] == in_st[p] * size) {   /* the last dim's inner part */
            od[m - 1] *= size;
            st[m - 1] = in_st[p];
        } else {
            od[m] = size;
            st[m] = in_st[p];
            idx[m] = 0;
            ++m;
        }
    }
    if (rt_spans_overlap(src, byte_offset(n, elem_size), dst, byte_offset(n, elem_size))) {
        /* the output over the input: NCHW to NHWC only ([N,] C, H * W to [N,] H * W, C) */
        const int32_t planes = m >= 1 ? od[m - 1] : 0, pixels = m >= 2 ? od[m - 2] : 0;
        const uintptr_t below = (uintptr_t)src - (uintptr_t)dst;
        RT_CHECK((uintptr_t)dst < (uintptr_t)src && (m == 2 || m == 3) && planes >= 2 &&
                 st[m - 1] == pixels && st[m - 2] == 1 && (m == 2 || st[0] == planes * pixels) &&
                 below % (uintptr_t)elem_size == 0 &&
                 below / (uintptr_t)elem_size >= (uintptr_t)(planes - 1), RT_ERR_PARAM);
        planes_over(elem_size, m == 3 ? od[0] : 1, planes, pixels,
                    (int32_t)(below / (uintptr_t)elem_size), dst);
        return RT_OK;
    }
    if (m == 0 || n == 0) {
        copy_elems(dst, src, n, elem_size);
        return RT_OK;
    }
    q = m - 1;   /* the inner dim */
    stride = 1;
    for (i = m - 1; i >= 0; --i) {
        ost[i] = stride;
        stride *= od[i];
        q = st[i] == 1 && od[i] > od[q] ? i : q;
    }
    len = od[q];
    s = st[q];
    d = ost[q];
    rows = n / len;
    for (r = 0; r < rows; ++r) {
        copy_row(dst, di, d, src, si, s, len, elem_size);
        for (i = m - 1; i >= 0; --i) {    /* odometer over the other dims */
            if (i == q) {
                continue;
            }
            si += st[i];
            di += ost[i];
            if (++idx[i] < od[i]) {
                break;
            }
            si -= st[i] * od[i];
            di -= ost[i] * od[i];
            idx[i] = 0;
        }
    }
    return RT_OK;
}

/* count elements of value (elem_size bytes) at dst. */
static void fill_elems(uint8_t *dst, int32_t count, const void *value, int32_t elem_size)
{
    int32_t i;
    if (elem_size == 1) {
        if (count > 0) {
            memset(dst, *(const uint8_t *)value, (size_t)count);
        }
        return;
    }
    for (i = 0; i < count; ++i) {
        memcpy(dst + byte_offset(i, elem_size), value, (size_t)elem_size);
    }
}

/* The trailing dims the pad leaves whole are one element of `unit` elements, so each output
 * row is a run of value, a copied run of the input and a run of value: an NHWC map padded in
 * H and W copies whole rows of W x C bytes. */
rt_status rt_constant_pad(int32_t elem_size, const int32_t *before, const void *value,
                          const rt_shape *in_s, const void *in,
                          const rt_shape *out_s, void *out)
{
    int32_t idx[RT_MAX_DIMS], rank, i, n_out, o, rows, len, unit = 1, lo, mid, hi;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    RT_CHECK(before != NULL && value != NULL && in_s != NULL && in != NULL && out_s != NULL &&
             out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_ok(elem_size), RT_ERR_PARAM);
    rank = in_s->rank;
    n_out = rt_shape_numel(out_s);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && n_out >= 0 && out_s->rank == rank, RT_ERR_SHAPE);
    for (i = 0; i < rank; ++i) {
        RT_CHECK(before[i] >= 0 && out_s->d[i] >= in_s->d[i] + before[i], RT_ERR_SHAPE);
        idx[i] = 0;
    }
    while (rank > 0 && before[rank - 1] == 0 && out_s->d[rank - 1] == in_s->d[rank - 1]) {
        unit *= in_s->d[rank - 1];           /* a factor of numel(out): it fits int32 */
        --rank;
    }
    if (rank == 0) {
        copy_elems(dst, src, n_out, elem_size);
        return RT_OK;
    }
    len = out_s->d[rank - 1];
    lo = before[rank - 1];
    mid = in_s->d[rank - 1];
    hi = len - lo - mid;
    rows = len > 0 && unit > 0 ? n_out / (len * unit) : 0;
    for (o = 0; o < rows; ++o) {
        int32_t inside = 1, src_row = 0;
        for (i = 0; i < rank - 1; ++i) {     /* this output row's source row, if any */
            const int32_t k = idx[i] - before[i];
            if (k < 0 || k >= in_s->d[i]) {
                inside = 0;
            }
            src_row = src_row * in_s->d[i] + k;
        }
        fill_elems(dst, lo * unit, value, elem_size);
        if (inside) {
            copy_elems(dst + byte_offset(lo * unit, elem_size),
                       src + byte_offset(src_row * mid * unit, elem_size), mid * unit,
                       elem_size);
        } else {
            fill_elems(dst + byte_offset(lo * unit, elem_size), mid * unit, value, elem_size);
        }
        fill_elems(dst + byte_offset((lo + mid) * unit, elem_size), hi * unit, value, elem_size);
        dst += byte_offset(len * unit, elem_size);
        for (i = rank - 2; i >= 0; --i) {
            if (++idx[i] < out_s->d[i]) {
                break;
            }
            idx[i] = 0;
        }
    }
    return RT_OK;
}

rt_status rt_cat(int32_t elem_size, int32_t dim, int32_t n_in, const rt_shape *in_s,
                 const void *const *in, const rt_shape *out_s, void *out)
{
    int32_t k, i, outer, total = 0, d;
    uint8_t *dst = (uint8_t *)out;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL && n_in >= 0,
             RT_ERR_NULL);
    RT_CHECK(elem_ok(elem_size), RT_ERR_PARAM);
    d = rt_norm_dim(dim, out_s->rank);
    RT_CHECK(d >= 0, RT_ERR_PARAM);
    for (k = 0; k < n_in; ++k) {
        if (rt_cat_skips(&in_s[k], out_s)) {
            continue;
        }
        RT_CHECK(in[k] != NULL && in_s[k].rank == out_s->rank, RT_ERR_SHAPE);
        for (i = 0; i < out_s->rank; ++i) {
            RT_CHECK(i == d || in_s[k].d[i] == out_s->d[i], RT_ERR_SHAPE);
        }
        total += in_s[k].d[d];
    }
    RT_CHECK(total == out_s->d[d] && rt_shape_numel(out_s) >= 0, RT_ERR_SHAPE);
    outer = rt_dims_prod(out_s, 0, d);
    for (i = 0; i < outer; ++i) {
        for (k = 0; k < n_in; ++k) {
            int32_t chunk;
            if (rt_cat_skips(&in_s[k], out_s)) {
                continue;
            }
            chunk = rt_dims_prod(&in_s[k], d, in_s[k].rank);
            copy_elems(dst, (const uint8_t *)in[k] + byte_offset(i * chunk, elem_size), chunk,
                       elem_size);
            dst += (size_t)chunk * (size_t)elem_size;
        }
    }
    return RT_OK;
}

rt_status rt_split(int32_t elem_size, int32_t dim, int32_t n_out, const int32_t *sizes,
                   const rt_shape *in_s, const void *in, const rt_shape *out_s,
                   void *const *out)
{
    int32_t k, start = 0;
    RT_CHECK(sizes != NULL && out_s != NULL && out != NULL && n_out >= 0, RT_ERR_NULL);
    for (k = 0; k < n_out; ++k) {
        RT_CHECK(sizes[k] >= 0 && sizes[k] <= INT32_MAX - start, RT_ERR_PARAM);
        RT_TRY(rt_slice(elem_size, dim, start, start + sizes[k], 1, in_s, in, &out_s[k],
                        out[k]));
        start += sizes[k];
    }
    return RT_OK;
}

rt_status rt_slice(int32_t elem_size, int32_t dim, int32_t start, int32_t end, int32_t step,
                   const rt_shape *in_s, const void *in, const rt_shape *out_s, void *out)
{
    int32_t d, size, count, outer, inner, i, j;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(elem_ok(elem_size) && step >= 1, RT_ERR_PARAM);
    d = rt_norm_dim(dim, in_s->rank);
    RT_CHECK(d >= 0 && rt_shape_numel(in_s) >= 0, RT_ERR_PARAM);
    size = in_s->d[d];
    if (start < 0) {
        start = start + size < 0 ? 0 : start + size;
    }
    if (end < 0) {
        end = end + size < 0 ? 0 : end + size;
    }
    start = start > size ? size : start;
    end = end > size ? size : end;
    count = end > start ? (end - start + step - 1) / step : 0;
    outer = rt_dims_prod(in_s, 0, d);
    inner = rt_dims_prod(in_s, d + 1, in_s->rank);
    RT_CHECK(rt_shape_numel(out_s) == outer * count * inner, RT_ERR_SHAPE);
    for (i = 0; i < outer; ++i) {
        if (step == 1) {    /* the kept part of each outer row is one run of bytes */
            copy_elems(dst, src + byte_offset((i * size + start) * inner, elem_size),
                       count * inner, elem_size);
            dst += (size_t)count * (size_t)inner * (size_t)elem_size;
            continue;
        }
        for (j = 0; j < count; ++j) {
            copy_elems(dst, src + byte_offset((i * size + start + j * step) * inner, elem_size),
                       inner, elem_size);
            dst += (size_t)inner * (size_t)elem_size;
        }
    }
    return RT_OK;
}
