/* reduce_s8.c - int8 reductions over the middle dim of an (A, R, B) tensor, into (A, 1, B):
 *   rt_reduce_sum_s8: TFLite Micro's SUM, the sum of (x - z_in) requantized to the output's
 *                     qparams (one multiplier, s_in / s_out) and clamped;
 *   rt_reduce_min_s8: its REDUCE_MIN, exact (input and output share qparams).
 * Any reduction over dims that are one run in memory is one of these over a view. */
#include "s8_internal.h"

static rt_status rows_check(const rt_shape *in_s, const int8_t *in, const rt_shape *out_s,
                            const int8_t *out)
{
    RT_CHECK(in_s != NULL && in != NULL && out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(in_s->rank == 3 && out_s->rank == 3, RT_ERR_RANK);
    RT_CHECK(rt_shape_numel(in_s) >= 0 && in_s->d[1] >= 1 && out_s->d[0] == in_s->d[0] &&
             out_s->d[1] == 1 && out_s->d[2] == in_s->d[2], RT_ERR_SHAPE);
    return RT_OK;
}

rt_status rt_reduce_sum_s8(const rt_reduce_s8_params *p, const rt_shape *in_s,
                           const int8_t *in, const rt_shape *out_s, int8_t *out)
{
    int32_t a, r, b;
    RT_CHECK(p != NULL, RT_ERR_NULL);
    RT_TRY(rows_check(in_s, in, out_s, out));
    RT_CHECK(p->in_offset >= -127 && p->in_offset <= 128 && p->out_offset >= -128 &&
             p->out_offset <= 127 && in_s->d[1] <= INT32_MAX / 255, RT_ERR_PARAM);
    for (a = 0; a < in_s->d[0]; ++a) {
        const int8_t *rows = in + a * in_s->d[1] * in_s->d[2];
        for (b = 0; b < in_s->d[2]; ++b) {
            int32_t acc = 0;
            for (r = 0; r < in_s->d[1]; ++r) {
                acc += rows[r * in_s->d[2] + b] + p->in_offset;
            }
            *out++ = rt_s8_clamp(rt_s8_requant(acc, p->mult, p->shift) + p->out_offset,
                                 -128, 127);
        }
    }
    return RT_OK;
}

rt_status rt_reduce_min_s8(const rt_shape *in_s, const int8_t *in, const rt_shape *out_s,
                           int8_t *out)
{
    int32_t a, r, b;
    RT_TRY(rows_check(in_s, in, out_s, out));
    for (a = 0; a < in_s->d[0]; ++a) {
        const int8_t *rows = in + a * in_s->d[1] * in_s->d[2];
        for (b = 0; b < in_s->d[2]; ++b) {
            int8_t least = rows[b];
            for (r = 1; r < in_s->d[1]; ++r) {
                const int8_t v = rows[r * in_s->d[2] + b];
                least = v < least ? v : least;
            }
            *out++ = least;
        }
    }
    return RT_OK;
}
