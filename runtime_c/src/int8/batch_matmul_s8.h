/* batch_matmul_s8.h - what every rt_batch_matmul_s8 (batch_matmul_s8.c, and an arch folder's
 * twin of it) checks before it runs (internal). */
#ifndef RT_BATCH_MATMUL_S8_H
#define RT_BATCH_MATMUL_S8_H

#include "s8_internal.h"

/* The batch matmul's dims, read from its shapes once they are checked. */
typedef struct rt_bmm_s8_dims {
    int32_t batch, rows, cols, inner;   /* B, M, N, K */
} rt_bmm_s8_dims;

/* The arguments of rt_batch_matmul_s8 checked (no NULL, rank 3, lhs [B, M, K], rhs [B, N, K],
 * out [B, M, N], offsets in range) and its dims read into d. */
static inline rt_status rt_bmm_s8_check(const rt_bmm_s8_params *p, const rt_shape *lhs_s,
                                        const int8_t *lhs, const rt_shape *rhs_s,
                                        const int8_t *rhs, const rt_shape *out_s,
                                        const int8_t *out, rt_bmm_s8_dims *d)
{
    RT_CHECK(p != NULL && lhs_s != NULL && lhs != NULL && rhs_s != NULL && rhs != NULL &&
             out_s != NULL && out != NULL, RT_ERR_NULL);
    RT_CHECK(lhs_s->rank == 3 && rhs_s->rank == 3 && out_s->rank == 3, RT_ERR_RANK);
    d->batch = lhs_s->d[0];
    d->rows = lhs_s->d[1];
    d->inner = lhs_s->d[2];
    d->cols = rhs_s->d[1];
    RT_CHECK(rhs_s->d[0] == d->batch && rhs_s->d[2] == d->inner && out_s->d[0] == d->batch &&
             out_s->d[1] == d->rows && out_s->d[2] == d->cols, RT_ERR_SHAPE);
    RT_CHECK(p->lhs_offset >= -127 && p->lhs_offset <= 128 && p->rhs_offset >= -127 &&
             p->rhs_offset <= 128 && p->out_offset >= -128 && p->out_offset <= 127,
             RT_ERR_PARAM);
    return RT_OK;
}

#endif /* RT_BATCH_MATMUL_S8_H */
