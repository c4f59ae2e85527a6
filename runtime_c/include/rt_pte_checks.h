/* rt_pte_checks.h - the kernels' preconditions, checked once, at load, by the interpreter's
 * adapters (those written by hand in src/pte/ and those generated from call specs).
 *
 * Where a kernel needs more of its arguments than their kinds, dtypes and shapes (shifts its
 * requantization can take, sums that fit int32, a window geometry whose products fit int32),
 * the op's entry in aot/ops.py names the precondition (OpDef.preconditions) and the op's
 * adapter calls the function of that name here, rt_pte_pre_<name>, while rt_pte_load checks the
 * call (c->check), after its own argument checks. The static C generator and aot.load_program
 * run the Python twin of each (aot/codegen/preconditions.py: same name, same rule). A call
 * that breaks one is refused with RT_ERR_PTE_ARGS. The kernels rely on them: nothing here is
 * checked again at run time.
 *
 * Every bound is computed in unsigned 64-bit arithmetic from values the adapter has already
 * range checked (int32 sizes, non-negative parameters), so no check can overflow itself.
 */
#ifndef RT_PTE_CHECKS_H
#define RT_PTE_CHECKS_H

#include <stdint.h>

#include "rt_pte.h"

#define RT_PTE_I32_LIMIT ((uint64_t)INT32_MAX)

/* The data of a constant tensor (the file's bytes, which load can read; a planned tensor's or
 * an input's values are not known before the program runs), or NULL. */
static inline const void *rt_pte_constant(const rt_pte_call *c, const rt_pte_tensor *t)
{
    const uintptr_t base = (uintptr_t)c->prog->fb.base, at = (uintptr_t)t->data;
    const uint32_t size = c->prog->file_size;
    if (t->data == NULL || t->nbytes < 0 || at < base || at - base > (uintptr_t)size) {
        return NULL;
    }
    return (uint32_t)t->nbytes <= size - (uint32_t)(at - base) ? t->data : NULL;
}

/* ---- accumulator_fits -------------------------------------------------------------------
 * An int8 kernel's int32 sum of `terms` products, each at most term_max in magnitude, plus a
 * bias (an int32 tensor of n items, or NULL: none), fits int32 in any order the kernels add
 * it: terms * term_max + |bias[i]| <= INT32_MAX for every i. term_max bounds
 * (x + input_offset) * w and the folds the vector kernels make of it (input_offset * sum(w)
 * apart: 2^15 where the weights are symmetric). The bias must be a constant. */
static inline rt_status rt_pte_pre_accumulator_fits(const rt_pte_call *c, uint64_t terms,
                                                    uint32_t term_max, const rt_pte_tensor *bias,
                                                    int32_t n)
{
    const int32_t *b;
    uint64_t room;
    int32_t k;
    if (term_max != 0 && terms > RT_PTE_I32_LIMIT / term_max) {
        return RT_ERR_PTE_ARGS;
    }
    room = RT_PTE_I32_LIMIT - terms * term_max;
    if (bias == NULL) {
        return RT_OK;
    }
    b = (const int32_t *)rt_pte_constant(c, bias);
    if (b == NULL || n < 0 || (int64_t)bias->nbytes < 4 * (int64_t)n) {
        return RT_ERR_PTE_ARGS;
    }
    for (k = 0; k < n; ++k) {
        const uint64_t mag = b[k] < 0 ? (uint64_t)(-(int64_t)b[k]) : (uint64_t)b[k];
        if (mag > room) {
            return RT_ERR_PTE_ARGS;
        }
    }
    return RT_OK;
}

/* The largest magnitude of a sum rt_pte_pre_accumulator_fits passed: terms * term_max plus the
 * largest |bias[i]|. */
static inline uint64_t rt_pte_accumulator_max(const rt_pte_call *c, uint64_t terms,
                                              uint32_t term_max, const rt_pte_tensor *bias,
                                              int32_t n)
{
    const int32_t *b = bias != NULL ? (const int32_t *)rt_pte_constant(c, bias) : NULL;
    uint64_t most = 0;
    int32_t k;
    for (k = 0; b != NULL && k < n; ++k) {
        const uint64_t mag = b[k] < 0 ? (uint64_t)(-(int64_t)b[k]) : (uint64_t)b[k];
        most = mag > most ? mag : most;
    }
    return terms * term_max + most;
}

/* ---- requant_shift ----------------------------------------------------------------------
 * The int8 requantization (rt_s8_requant, and every arch's copy of it) of values of up to
 * in_max in magnitude: its left shift wraps past 2^31 (its input is then any int32), its high
 * multiply rounds, its right shift rounds away from zero. The largest magnitude it gives: */
static inline uint64_t rt_pte_requant_max(uint64_t in_max, int32_t mult, int32_t shift)
{
    const uint64_t m = mult < 0 ? (uint64_t)(-(int64_t)mult) : (uint64_t)mult;
    const uint64_t top = (uint64_t)1 << 31;
    uint64_t y = in_max < top ? in_max : top, h;
    if (shift > 0) {
        y = y > (top >> shift) ? top : y << shift;
    }
    h = ((y * m) >> 31) + 1u;
    return shift < 0 ? (h >> -shift) + 1u : h;
}

/* A (multiplier, shift) pair the requantization takes: shift in [-31, 31] (its rounding right
 * shift goes up to 31 bits), multiplier in [mult_lo, INT32_MAX] (mult_lo: 0, or -INT32_MAX
 * where a negative multiplier subtracts, quantized_add's second input); and for inputs of up to
 * in_max in magnitude, results of at most out_max (INT32_MAX - 128 where the output offset is
 * added to them next, so that the sum fits int32). */
static inline rt_status rt_pte_pre_requant_shift(int32_t mult, int32_t shift, int32_t mult_lo,
                                                 uint64_t in_max, uint64_t out_max)
{
    return shift < -31 || shift > 31 || mult < mult_lo ||
                   rt_pte_requant_max(in_max, mult, shift) > out_max
               ? RT_ERR_PTE_ARGS
               : RT_OK;
}

/* n such pairs (a per-channel requantization), each for inputs of up to in_max. */
static inline rt_status rt_pte_requant_pairs(const int32_t *mult, const int32_t *shift, int32_t n,
                                             uint64_t in_max, uint64_t out_max)
{
    rt_status status = RT_OK;
    int32_t k;
    for (k = 0; k < n && status == RT_OK; ++k) {
        status = rt_pte_pre_requant_shift(mult[k], shift[k], 0, in_max, out_max);
    }
    return status;
}

/* What the int8 kernels add to a requantized value: an output offset in [-128, 127]. */
#define RT_PTE_REQUANT_OUT_MAX (RT_PTE_I32_LIMIT - 128u)

/* requant_shift of a layer's sums (form "tensors"): n pairs in two int32 tensors of n items
 * each (a convolution's requantize_multipliers and requantize_shifts, constants whose values
 * are known at load), each for sums of `terms` products of up to term_max plus the bias (the
 * sums rt_pte_pre_accumulator_fits passed). */
static inline rt_status rt_pte_pre_requant_shift_tensors(const rt_pte_call *c,
                                                         const rt_pte_tensor *mult,
                                                         const rt_pte_tensor *shift, int32_t n,
                                                         uint64_t terms, uint32_t term_max,
                                                         const rt_pte_tensor *bias)
{
    const int32_t *m = (const int32_t *)rt_pte_constant(c, mult);
    const int32_t *s = (const int32_t *)rt_pte_constant(c, shift);
    if (m == NULL || s == NULL || (int64_t)mult->nbytes < 4 * (int64_t)n ||
        (int64_t)shift->nbytes < 4 * (int64_t)n) {
        return RT_ERR_PTE_ARGS;
    }
    return rt_pte_requant_pairs(m, s, n, rt_pte_accumulator_max(c, terms, term_max, bias, n),
                                RT_PTE_REQUANT_OUT_MAX);
}

/* The same of n pairs given as int lists (form "lists": a linear layer's), for the sums of a
 * bias of `channels` items. */
static inline rt_status rt_pte_pre_requant_shift_lists(const rt_pte_call *c, const int32_t *mult,
                                                       const int32_t *shift, int32_t n,
                                                       uint64_t terms, uint32_t term_max,
                                                       const rt_pte_tensor *bias,
                                                       int32_t channels)
{
    return rt_pte_requant_pairs(mult, shift, n,
                                rt_pte_accumulator_max(c, terms, term_max, bias, channels),
                                RT_PTE_REQUANT_OUT_MAX);
}

/* ---- softmax_scaling_fits ---------------------------------------------------------------
 * The int8 softmax scales each difference d = x - max it keeps (d >= diff_min, so d in
 * [max(diff_min, -255), 0]) by 2^shift in int32 (d * (1 << shift)): shift in [0, 30] and
 * min(-diff_min, 255) * 2^shift <= 2^31. (diff_min <= 0: the adapter's range.) */
static inline rt_status rt_pte_pre_softmax_scaling_fits(int32_t shift, int32_t diff_min)
{
    const uint64_t reach = diff_min < -255 ? 255u : (uint64_t)(-(int64_t)diff_min);
    if (shift < 0 || shift > 30 || diff_min > 0) {
        return RT_ERR_PTE_ARGS;
    }
    return (reach << shift) <= ((uint64_t)1 << 31) ? RT_OK : RT_ERR_PTE_ARGS;
}

/* ---- resample_scale_fits ----------------------------------------------------------------
 * Bilinear upsampling converts each output pixel's source index, (dst + 0.5) * scale - 0.5 in
 * float, to int32: for the last (dst = out - 1) it is below 2^30, well inside int32 however
 * float rounds it (scale: the float the kernel gets, <= 0 or NaN for in / out, which always
 * fits; align_corners takes none of it). */
static inline rt_status rt_pte_pre_resample_scale_fits(int32_t size_h, int32_t size_w,
                                                       float scale_h, float scale_w,
                                                       int32_t align_corners)
{
    const int32_t size[2] = {size_h, size_w};
    const float scale[2] = {scale_h, scale_w};
    int32_t i;
    for (i = 0; i < 2 && !align_corners; ++i) {
        if (scale[i] > 0.0f && size[i] > 0 &&
            !(((double)size[i] - 0.5) * (double)scale[i] - 0.5 < 1073741824.0)) {
            return RT_ERR_PTE_ARGS;
        }
    }
    return RT_OK;
}

/* ---- window geometry (conv_geometry_fits, pool_geometry_fits) ----------------------------
 * One spatial axis of a convolution or a pooling window: the input's size, the taps, the
 * stride, the padding (each side), the dilation and the output's size. */
typedef struct rt_pte_window {
    int32_t in, k, stride, pad, dil, out;
} rt_pte_window;

/* The axis' reach: every index a kernel makes along it (o * stride - pad + k * dil, its row
 * steps) lies within +-reach. 0 for an axis outside the ranges every kernel takes. */
static inline uint64_t rt_pte_window_reach(const rt_pte_window *a)
{
    if (a->in < 0 || a->k < 1 || a->stride < 1 || a->pad < 0 || a->dil < 1 || a->out < 0) {
        return 0;
    }
    return (uint64_t)a->in + 2u * (uint64_t)a->pad + (uint64_t)a->stride +
           (uint64_t)a->dil * (uint64_t)a->k;
}

/* The window's dilated extent: dil * (k - 1) + 1 input positions. */
static inline int64_t rt_pte_window_span(const rt_pte_window *a)
{
    return (int64_t)a->dil * ((int64_t)a->k - 1) + 1;
}

/* batch * reach_h * reach_w * channels fits int32 (a batch or channel count of 0 counted as
 * 1): then so does every offset and step a kernel makes over the padded input, its batches,
 * its taps (kh * kw * Cin) and its output planes, however empty the tensors are. */
static inline int rt_pte_window_products_fit(uint64_t reach_h, uint64_t reach_w, int32_t batch,
                                             int32_t channels)
{
    const uint64_t ch = channels > 1 ? (uint64_t)channels : 1u;
    const uint64_t n = batch > 1 ? (uint64_t)batch : 1u;
    if (reach_h == 0 || reach_w == 0 || reach_h > RT_PTE_I32_LIMIT || reach_w > RT_PTE_I32_LIMIT ||
        reach_h * reach_w > RT_PTE_I32_LIMIT / ch) {
        return 0;
    }
    return reach_h * reach_w * ch <= RT_PTE_I32_LIMIT / n;
}

/* floor(num / den), den > 0 */
static inline int64_t rt_pte_floor_div(int64_t num, int64_t den)
{
    const int64_t q = num / den;
    return (num % den != 0 && num < 0) ? q - 1 : q;
}

/* The output size of a window axis, as PyTorch gives it (rt_pool_out_size in 64 bits): floor
 * of (in + 2 pad - dil (k - 1) - 1) / stride, plus one; with ceil_mode rounded up, less one
 * where the last window would start past the input and its left padding. */
static inline int64_t rt_pte_window_out(const rt_pte_window *a, int32_t ceil_mode)
{
    const int64_t s = a->stride;
    int64_t out = rt_pte_floor_div((int64_t)a->in + 2 * (int64_t)a->pad - rt_pte_window_span(a) +
                                   (ceil_mode ? s - 1 : 0), s) + 1;
    if (ceil_mode && (out - 1) * s >= (int64_t)a->in + a->pad) {
        --out;
    }
    return out;
}

/* A convolution's geometry: its two axes (a 1-D one as H = 1: in, k, stride 1, no padding, out
 * 1), its batch, its input and output channels and groups; transposed, with its output
 * padding. */
typedef struct rt_pte_conv_geometry {
    rt_pte_window h, w;
    int32_t batch, cin, cout, groups;
    int32_t transposed, out_pad_h, out_pad_w;
} rt_pte_conv_geometry;

/* conv_geometry_fits: groups in [1, max(Cin, 1)]; the products fit int32
 * (rt_pte_window_products_fit, over the batch and the larger of Cin and Cout); each output size
 * the one its input, taps, stride, padding and dilation give, at least 1. A transposed
 * convolution's output is (in - 1) * stride - 2 pad + dil (k - 1) + out_pad + 1, and its reach
 * that of the output it scatters into. */
static inline rt_status rt_pte_pre_conv_geometry_fits(const rt_pte_conv_geometry *g)
{
    uint64_t reach[2];
    int32_t i;
    if (g->cin < 0 || g->cout < 0 || g->groups < 1 || g->groups > (g->cin > 1 ? g->cin : 1)) {
        return RT_ERR_PTE_ARGS;
    }
    for (i = 0; i < 2; ++i) {
        const rt_pte_window *a = i == 0 ? &g->h : &g->w;
        const int32_t out_pad = g->transposed ? (i == 0 ? g->out_pad_h : g->out_pad_w) : 0;
        int64_t want;
        reach[i] = rt_pte_window_reach(a);
        if (reach[i] == 0 || out_pad < 0) {
            return RT_ERR_PTE_ARGS;
        }
        if (g->transposed) {
            reach[i] += (uint64_t)a->in * (uint64_t)a->stride + (uint64_t)out_pad;
            want = ((int64_t)a->in - 1) * a->stride - 2 * (int64_t)a->pad +
                   rt_pte_window_span(a) + out_pad;
        } else {
            want = rt_pte_window_out(a, 0);
        }
        if (want < 1 || (int64_t)a->out != want) {
            return RT_ERR_PTE_ARGS;
        }
    }
    return rt_pte_window_products_fit(reach[0], reach[1], g->batch,
                                      g->cin > g->cout ? g->cin : g->cout) ? RT_OK
                                                                           : RT_ERR_PTE_ARGS;
}

/* A pooling's geometry: its two axes, its batch and channels (NCHW's planes: N and C; CHW's: 1
 * and C), ceil_mode, and whether it averages. */
typedef struct rt_pte_pool_geometry {
    rt_pte_window h, w;
    int32_t batch, channels, ceil_mode, average;
} rt_pte_pool_geometry;

/* pool_geometry_fits: the products fit int32; each output size is PyTorch's (floor, or with
 * ceil_mode either rounding), at least 1; the padding at most half the window (an average's
 * k / 2, over a non-empty input, so that every window holds a tap and no average divides by
 * zero; a maximum's half its dilated extent). */
static inline rt_status rt_pte_pre_pool_geometry_fits(const rt_pte_pool_geometry *g)
{
    uint64_t reach[2];
    int32_t i;
    for (i = 0; i < 2; ++i) {
        const rt_pte_window *a = i == 0 ? &g->h : &g->w;
        const int64_t out = a->out, span = rt_pte_window_span(a);
        reach[i] = rt_pte_window_reach(a);
        if (reach[i] == 0 || (g->average ? (a->pad > a->k / 2 || a->in < 1)
                                         : (int64_t)a->pad > span / 2)) {
            return RT_ERR_PTE_ARGS;
        }
        if (out < 1 ||
            (out != rt_pte_window_out(a, 0) && !(g->ceil_mode && out == rt_pte_window_out(a, 1)))) {
            return RT_ERR_PTE_ARGS;
        }
    }
    return rt_pte_window_products_fit(reach[0], reach[1], g->batch, g->channels) ? RT_OK
                                                                               : RT_ERR_PTE_ARGS;
}

#endif /* RT_PTE_CHECKS_H */
