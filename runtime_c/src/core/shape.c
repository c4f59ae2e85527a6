/* shape.c - shape helpers (rt_shape_numel is public, the rest internal). */
#include "rt_internal.h"

int32_t rt_shape_numel(const rt_shape *s)
{
    int32_t n = 1;
    int32_t i;
    if (s == NULL || s->rank < 0 || s->rank > RT_MAX_DIMS) {
        return -1;
    }
    for (i = 0; i < s->rank; ++i) {
        const int32_t d = s->d[i];
        if (d < 0 || (d > 0 && n > INT32_MAX / d)) {
            return -1;
        }
        n *= d;
    }
    return n;
}

int32_t rt_norm_dim(int32_t dim, int32_t rank)
{
    if (dim < -rank || dim >= rank) {
        return -1;
    }
    return dim < 0 ? dim + rank : dim;
}

int32_t rt_dims_prod(const rt_shape *s, int32_t lo, int32_t hi)
{
    int32_t n = 1;
    int32_t i;
    for (i = lo; i < hi; ++i) {
        n *= s->d[i];
    }
    return n;
}

int rt_same_numel(const rt_shape *a, const rt_shape *b)
{
    const int32_t na = rt_shape_numel(a);
    return na >= 0 && na == rt_shape_numel(b);
}

int rt_bcast_flat(const rt_shape *in, const rt_shape *out)
{
    const int32_t lead = out->rank - in->rank;
    int32_t i;
    if (lead < 0 || in->rank < 0 || out->rank > RT_MAX_DIMS) {
        return 0;
    }
    for (i = 0; i < out->rank; ++i) {
        if (out->d[i] != (i < lead ? 1 : in->d[i - lead])) {
            return 0;
        }
    }
    return 1;
}

int rt_same_shape(const rt_shape *a, const rt_shape *b)
{
    int32_t i;
    if (rt_shape_numel(a) < 0 || a->rank != b->rank) {
        return 0;
    }
    for (i = 0; i < a->rank; ++i) {
        if (a->d[i] != b->d[i]) {
            return 0;
        }
    }
    return 1;
}

/* floor(a / b) for b > 0 (C division truncates toward zero). */
static int32_t div_floor(int32_t a, int32_t b)
{
    const int32_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

int32_t rt_pool_out_size(int32_t in, int32_t k, int32_t s, int32_t pad,
                         int32_t dil, int32_t ceil_mode)
{
    int32_t out;
    if (s < 1) {
        return -1;
    }
    out = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? s - 1 : 0),
                    s) + 1;
    /* ceil_mode: the last window must start inside the input or left pad */
    if (ceil_mode && (out - 1) * s >= in + pad) {
        --out;
    }
    return out;
}
