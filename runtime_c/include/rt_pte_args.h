/* rt_pte_args.h - argument readers of the interpreter's adapters.
 *
 * The adapters are generated from the op table's call specs (aot/opspec.py,
 * aot/codegen/adapters.py) into the kernel table's source. Each reader is one of the static C
 * generator's checked accessors (aot/codegen/context.py's CallContext) over a KernelCall's
 * argument, with the same checks: what the generator refuses as invalid is RT_ERR_PTE_ARGS
 * here, what no kernel takes RT_ERR_PTE_UNSUPPORTED. Numbers are read as the generator reads
 * them: a Scalar as a double, a float parameter as the float32 literal the generator writes.
 */
#ifndef RT_PTE_ARGS_H
#define RT_PTE_ARGS_H

#include <math.h>
#include <stdint.h>

#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"
#include "rt_pte.h"

/* A tensor argument of any dtype the runtime takes. */
#define RT_PTE_ANY_DTYPE ((int32_t)-1)

/* A number as the float32 the generator writes (np.float32 of it; beyond the float range an
 * infinity, with no undefined conversion; NaN is NAN). */
static inline float rt_pte_to_f32(double x)
{
    return x != x ? NAN : rt_pte_f32(x);
}

/* ctx.float: a number argument as a float32. */
static inline rt_status rt_pte_arg_f32(const rt_pte_call *c, int32_t i, float *v)
{
    double d;
    RT_TRY(rt_pte_arg_double(c, i, &d));
    *v = rt_pte_to_f32(d);
    return RT_OK;
}

/* ctx.int(name, lo, hi): an Int in [lo, hi], else RT_ERR_PTE_ARGS. */
static inline rt_status rt_pte_arg_int_in(const rt_pte_call *c, int32_t i, int64_t lo,
                                          int64_t hi, int64_t *v)
{
    RT_TRY(rt_pte_arg_int(c, i, v));
    return *v < lo || *v > hi ? RT_ERR_PTE_ARGS : RT_OK;
}

/* A number operand of an int64 tensor, which must be whole: a fraction (and NaN, an
 * infinity, or a whole number outside int64, which the generator cannot write as an int64
 * literal either) is RT_ERR_PTE_UNSUPPORTED. */
static inline rt_status rt_pte_arg_whole(const rt_pte_call *c, int32_t i, int64_t *v)
{
    double d;
    RT_TRY(rt_pte_arg_double(c, i, &d));
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    *v = (int64_t)d;
    return (double)*v == d ? RT_OK : RT_ERR_PTE_UNSUPPORTED;
}

/* A string argument among `names` (n of them), as its code; None reads as `none_code` (< 0:
 * refused); another string is RT_ERR_PTE_ARGS. */
static inline rt_status rt_pte_arg_choice(const rt_pte_call *c, int32_t i,
                                          const char *const *names, const int32_t *codes,
                                          int32_t n, int32_t none_code, int32_t *v)
{
    const char *s;
    uint32_t len, k;
    int32_t j;
    if (rt_pte_arg_is_none(c, i)) {
        *v = none_code;
        return none_code < 0 ? RT_ERR_PTE_ARGS : RT_OK;
    }
    RT_TRY(rt_pte_arg_string(c, i, &s, &len));
    for (j = 0; j < n; ++j) {
        for (k = 0; k < len; ++k) {
            if (names[j][k] == '\0' || names[j][k] != s[k]) {
                break;
            }
        }
        if (k == len && names[j][k] == '\0') {
            *v = codes[j];
            return RT_OK;
        }
    }
    return RT_ERR_PTE_ARGS;
}

#endif /* RT_PTE_ARGS_H */
