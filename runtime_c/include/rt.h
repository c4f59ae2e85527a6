/* rt.h - umbrella header of the mcu-aot C runtime (include this one). */
#ifndef RT_H
#define RT_H

#include "rt_types.h"
#include "rt_check.h"
#include "rt_kernels.h"
#include "rt_kernels_s8.h"

#endif /* RT_H */
