/* rt_check.h - argument validation macros used by the kernels.
 *
 * Kernels validate shapes/params at their top with RT_CHECK (O(rank) work,
 * no loops over data). A build that has validated every call at generation
 * time may define RT_CONFIG_NO_CHECKS to compile the checks out; the
 * conditions are then not evaluated (only type-checked via sizeof).
 */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#include "rt_types.h"

/* A check on the data itself (an index value, a zero divisor): the generator cannot have
 * validated it, so it is never compiled out. Returns `status` from the current function
 * unless `cond` holds. */
#define RT_CHECK_DATA(cond, status) \
    do { \
        if (!(cond)) { \
            return (status); \
        } \
    } while (0)

#ifndef RT_CONFIG_NO_CHECKS
/* Return `status` from the current function unless `cond` holds. */
#define RT_CHECK(cond, status) RT_CHECK_DATA(cond, status)
#else
#define RT_CHECK(cond, status) \
    do { \
        (void)sizeof(cond); \
        (void)sizeof(status); \
    } while (0)
#endif

/* Propagate a non-OK status from a call (never compiled out). */
#define RT_TRY(expr) \
    do { \
        rt_status rt_try_s_ = (expr); \
        if (rt_try_s_ != RT_OK) { \
            return rt_try_s_; \
        } \
    } while (0)

#endif /* RT_CHECK_H */
