/* fully_connected_s8.c - rt_fully_connected_s8: int8 x int8 -> int32 dot products per
 * output, requantized per tensor or per output channel (arm_fully_connected_s8). The checks;
 * each input row goes to rt_s8_fc_row (fc_row_s8.c, which an arch folder may replace). */
#include "s8_internal.h"

rt_status rt_fully_connected_s8(const rt_fc_s8_params *p, RT_S8_LAYER_TENSORS)
{
    int32_t rows, k, cout, r;
    RT_CHECK(p != NULL && in_s != NULL && in != NULL && w_s != NULL && w != NULL &&
             out_s != NULL && out != NULL && p->mult != NULL && p->shift != NULL,
             RT_ERR_NULL);
    RT_CHECK(in_s->rank >= 1 && w_s->rank == 2 && out_s->rank == in_s->rank, RT_ERR_RANK);
    k = w_s->d[1];
    cout = w_s->d[0];
    RT_CHECK(k >= 0 && cout >= 0 && in_s->d[in_s->rank - 1] == k &&
             out_s->d[out_s->rank - 1] == cout, RT_ERR_SHAPE);
    rows = k > 0 ? rt_shape_numel(in_s) / k : rt_shape_numel(out_s) / (cout > 0 ? cout : 1);
    RT_CHECK(rows >= 0 && rt_shape_numel(out_s) == rows * cout, RT_ERR_SHAPE);
    RT_CHECK(bias == NULL || (b_s != NULL && rt_shape_numel(b_s) == cout), RT_ERR_SHAPE);
    RT_CHECK(RT_S8_RANGE_OK(p->act_min, p->act_max) && (p->per_channel == 0 ||
             p->per_channel == 1), RT_ERR_PARAM);
    for (r = 0; r < rows; ++r) {
        rt_s8_fc_row(p, in + r * k, w, k, cout, bias, out + r * cout);
    }
    return RT_OK;
}
