/* fc_row_s8.c - rt_s8_fc_row: one input row of rt_fully_connected_s8, every output. With
 * symmetric weights (the common case) four outputs share each input load (rt_s8_dot4). */
#include "s8_internal.h"

void rt_s8_fc_row(const rt_fc_s8_params *p, const int8_t *x, const int8_t *w, int32_t k,
                  int32_t cout, const int32_t *bias, int8_t *out)
{
    int32_t oc, i;
    for (oc = 0; oc < cout;) {
        const int32_t block = (p->filter_offset == 0 && cout - oc >= 4) ? 4 : 1;
        const int8_t *wr = w + oc * k;
        int32_t acc[4] = {0, 0, 0, 0}, j;
        if (block == 4) {
            rt_s8_dot4(x, wr, k, k, p->input_offset, acc);
        } else if (p->filter_offset == 0) {
            acc[0] = rt_s8_dot(x, wr, k, p->input_offset);
        } else {
            for (i = 0; i < k; ++i) {
                acc[0] += ((int32_t)x[i] + p->input_offset) * ((int32_t)wr[i] + p->filter_offset);
            }
        }
        for (j = 0; j < block; ++j, ++oc) {
            const int32_t c = p->per_channel ? oc : 0;
            const int32_t v = rt_s8_requant(acc[j] + (bias != NULL ? bias[oc] : 0),
                                            p->mult[c], p->shift[c]) + p->output_offset;
            *out++ = rt_s8_clamp(v, p->act_min, p->act_max);
        }
    }
}
