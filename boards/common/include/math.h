/* math.h for boards without a C library: the float functions of boards/common/mathf_min.c.
 * Double-precision functions are not provided: a call to one fails to link. */
#ifndef MCU_AOT_MATH_H
#define MCU_AOT_MATH_H

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VALF (__builtin_huge_valf())
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)

float fabsf(float x);
float copysignf(float x, float y);
float truncf(float x);
float floorf(float x);
float ceilf(float x);
float roundf(float x); /* halfway cases away from zero (C) */
float rintf(float x);  /* halfway cases to even (torch.round) */
float fminf(float x, float y);
float fmaxf(float x, float y);
float sqrtf(float x);
float expf(float x);
float expm1f(float x);
float logf(float x);
float log2f(float x);
float log10f(float x);
float log1pf(float x);
float tanhf(float x);
float sinf(float x);
float cosf(float x);
float erff(float x);
float powf(float x, float y);
float fmodf(float x, float y);

/* -ffreestanding turns off GCC's builtins; these two are single instructions on FPU cores. */
#ifndef MCU_AOT_MATHF_IMPL
#define fabsf(x) __builtin_fabsf(x)
#define sqrtf(x) __builtin_sqrtf(x)
#endif

#endif
