/* linear.c - rt_linear_f32: out[..., N] = in[..., K] @ w[N,K]^T + bias[N].
 * The weight stays in PyTorch's [out, in] layout, so this is also the
 * matmul-with-pre-transposed-B kernel (bias = NULL). */
#include "../core/rt_internal.h"

rt_status rt_linear_f32(RT_F32_LAYER_TENSORS)
{
    int32_t rows, n, k, i, j;
    RT_CHECK(in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL,
             RT_ERR_NULL);
    RT_CHECK(in_s->rank >= 1 && w_s->rank == 2 && out_s->rank == in_s->rank,
             RT_ERR_RANK);
    n = w_s->d[0];
    k = w_s->d[1];
    RT_CHECK(rt_shape_numel(in_s) >= 0 && rt_shape_numel(w_s) >= 0 &&
             in_s->d[in_s->rank - 1] == k &&
             out_s->d[out_s->rank - 1] == n,
             RT_ERR_SHAPE);
    for (i = 0; i + 1 < in_s->rank; ++i) {
        RT_CHECK(out_s->d[i] == in_s->d[i], RT_ERR_SHAPE);
    }
    RT_CHECK((b_s == NULL) == (b == NULL), RT_ERR_NULL);
    RT_CHECK(b == NULL || rt_shape_numel(b_s) == n, RT_ERR_SHAPE);
    rows = rt_dims_prod(in_s, 0, in_s->rank - 1);
    rt_gemm_f32(rows, n, k, in, w, 1, out);
    if (b != NULL) {
        for (i = 0; i < rows; ++i) {
            for (j = 0; j < n; ++j) {
                out[i * n + j] += b[j];
            }
        }
    }
    return RT_OK;
}
