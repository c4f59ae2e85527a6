/* f32_mve.h - Helium (MVE with floating point) building blocks of this folder's float32
 * kernels (conv2d.c, conv2d_1x1.c, conv2d_depthwise.c, gemm.c, gemm_mve.h): Cortex-M55, M85,
 * intrinsics from gcc's arm_mve.h.
 *
 * A vector holds four outputs of one row (pixels of an output row, columns of a matrix); a
 * weight multiplies it as a scalar (VFMA.F32 Qd, Qn, Rm), so a weight costs a core register
 * and a plain load, and the eight Q registers are left to accumulators and inputs. A conv
 * input small enough is copied zero-padded onto the stack first (mve_pad_copy), so that no
 * load needs a check; otherwise loads that cross the edge of a row go under a lane
 * predicate (VCTP): the lanes outside read nothing and hold 0, as zero padding does. Sums use
 * the fused multiply-add, so results differ from the portable kernels' (product rounded,
 * then sum) by float rounding only. (A tap in the padding then adds 0 x weight where the
 * portable kernels skip it: the same, but for a weight that is not finite.) */
#ifndef RT_F32_MVE_H
#define RT_F32_MVE_H

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#else
#error "cortex_m_mve's float32 kernels need Helium with floating point (-mcpu=cortex-m55)"
#endif

#include <stdint.h>

#include "../../core/rt_internal.h"

/* The kernels' tile functions take their shape (channels, vectors, stride) as constants from
 * the call sites, and GCC only reliably specializes them when they are inlined. */
#define MVE_INLINE static inline __attribute__((always_inline))
#define MVE_NOINLINE __attribute__((noinline))

/* x clamped to [lo, hi] as rt_act does it: the lanes with x < lo become lo, then those with
 * x > hi become hi; NaN passes. Careful: VCMP.F32 LT (vcmpltq_f32) is "not greater or
 * equal", true for NaN; GT is the ordered compare. So x < lo is asked as lo > x, with lo in
 * a Q register, and x > hi as it is (VMAXNM/VMINNM would drop NaN as well, and turn -0 into
 * +0). Written as two VPT blocks: GCC 12 moves every intrinsic predicate through a core
 * register (VMRS, SXTH, VMSR), which triples the cost of a clamp. VPR ("p0") is declared
 * clobbered. */
MVE_INLINE float32x4_t mve_act(float32x4_t x, float lo, float hi)
{
    const float32x4_t vlo = vdupq_n_f32(lo);
    __asm__("vpt.f32 gt, %q1, %q0\n\t"
            "vdupt.32 %q0, %2\n\t"
            "vpt.f32 gt, %q0, %3\n\t"
            "vdupt.32 %q0, %3"
            : "+w"(x)
            : "w"(vlo), "r"(lo), "r"(hi)
            : "p0");
    return x;
}

/* acc + bias, then the fused activation. */
MVE_INLINE float32x4_t mve_bias_act(float32x4_t acc, float bias, float lo, float hi)
{
    return mve_act(vaddq_n_f32(acc, bias), lo, hi);
}

/* The lanes j < n (n <= 4) whose input column x + j * s lies in [0, w). */
MVE_INLINE mve_pred16_t mve_cols(int32_t x, int32_t s, int32_t w, int32_t n)
{
    int32_t j0 = x >= 0 ? 0 : (-x + s - 1) / s;
    int32_t j1 = x < w ? (w - x + s - 1) / s : 0;
    j1 = j1 < n ? j1 : n;
    j0 = j0 < j1 ? j0 : j1;
    return (mve_pred16_t)(vctp32q((uint32_t)j1) & (mve_pred16_t)~vctp32q((uint32_t)j0));
}

/* row + x as an address only: x may lie left of the row (a padded border), where only the
 * lanes a predicate keeps are read. Integer arithmetic, so that no pointer leaves its array. */
MVE_INLINE const float *mve_at(const float *row, int32_t x)
{
    return (const float *)((uintptr_t)row + (uintptr_t)(intptr_t)x * sizeof(float));
}

/* p[i], a weight for VFMA's scalar operand: loaded as an integer, so that GCC addresses it
 * as [p, i] in one LDR (a float load there takes an ADD first). */
MVE_INLINE float mve_weight(const float *p, int32_t i)
{
    union {
        uint32_t u;
        float f;
    } x;
    x.u = ((const uint32_t *)(const void *)p)[i];
    return x.f;
}

/* {0, s, 2s, 3s}: the lane offsets (in floats) of a strided load. */
MVE_INLINE uint32x4_t mve_lane_offsets(int32_t s)
{
    return vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)s);
}

/* p[0], p[s], p[2s], p[3s]: a plain load when contig (stride 1; a constant at the call
 * site), else a gather at offs (mve_lane_offsets(s)). */
MVE_INLINE float32x4_t mve_load(const float *p, const int contig, uint32x4_t offs)
{
    return contig ? vld1q_f32(p) : vldrwq_gather_shifted_offset_f32(p, offs);
}

/* The same lanes, those outside predicate m read as 0 (and not read at all). */
MVE_INLINE float32x4_t mve_load_z(const float *p, const int contig, uint32x4_t offs,
                                  mve_pred16_t m)
{
    return contig ? vldrwq_z_f32(p, m) : vldrwq_gather_shifted_offset_z_f32(p, offs, m);
}

/* A conv's geometry as the conv kernels walk it (rt_conv_geom, 1-D already as H = 1), which
 * mve_pad_copy may switch to a zero-padded copy of the input. */
typedef struct mve_view {
    int32_t h, w, oh, ow;          /* input and output planes */
    int32_t kh, kw, sh, sw, ph, pw, dh, dw;
    int32_t plane, oplane, fplane; /* floats per input, output, filter channel */
    int32_t oy0, oy1;              /* the output rows computed (rt_conv_geom's) */
    float lo, hi;                  /* the fused activation */
} mve_view;

MVE_INLINE void mve_view_init(mve_view *v, const rt_conv_geom *g)
{
    v->h = g->h;   v->w = g->w;   v->oh = g->oh; v->ow = g->ow;
    v->kh = g->kh; v->kw = g->kw; v->sh = g->sh; v->sw = g->sw;
    v->ph = g->ph; v->pw = g->pw; v->dh = g->dh; v->dw = g->dw;
    v->plane = g->h * g->w;
    v->oplane = g->oplane;
    v->oy0 = g->oy0;
    v->oy1 = g->oy1;
    v->fplane = g->kh * g->kw;
    v->lo = g->lo;
    v->hi = g->hi;
}

/* The kernel rows inside the input for an output row whose ky = 0 reads input row iy0:
 * [*ky0, returned). */
MVE_INLINE int32_t mve_krows(const mve_view *v, int32_t iy0, int32_t *ky0)
{
    const int32_t k0 = iy0 >= 0 ? 0 : (-iy0 + v->dh - 1) / v->dh;
    int32_t k1 = v->h - iy0 > 0 ? (v->h - iy0 - 1) / v->dh + 1 : 0;
    k1 = k1 < v->kh ? k1 : v->kh;
    *ky0 = k0;
    return k1 > k0 ? k1 : k0;
}

/* Floats of the stack buffer that takes a padded copy of the input planes a conv kernel
 * reads (4 KB), and the zeros after the copy beyond 8 sw (conv2d_depthwise.c's flat tiles
 * reach that far past the plane's end). */
#define MVE_PAD_FLOATS 1024
#define MVE_PAD_SLACK 24

/* Copies nplanes input planes of v (in, one after the other) into pad with their padding
 * as zeros, followed by 8 sw + MVE_PAD_SLACK zeros (the farthest a tile's lanes reach past
 * the last row), and makes v describe the copy: no padding, so that every tile reads inside
 * it without lane predicates, rows narrower than a tile included. Done only when there is
 * padding to fill or rows narrower than a tile, and when the copy fits in MVE_PAD_FLOATS;
 * returns whether it was (v unchanged if not). fill: zero the borders (the first copy into
 * pad; the next ones, of the same shape, overwrite the inside only). */
static inline int mve_pad_copy(mve_view *v, const float *in, int32_t nplanes, float *pad,
                               int fill)
{
    /* fields read once: GCC assumes the stores below may change *v */
    const int32_t h = v->h, w = v->w, ph = v->ph, pw = v->pw;
    const int32_t hp = h + 2 * ph, wp = w + 2 * pw;
    int32_t i, y, x, c, total;
    if ((ph == 0 && pw == 0 && v->ow >= 8) || hp > MVE_PAD_FLOATS || wp > MVE_PAD_FLOATS ||
        nplanes > MVE_PAD_FLOATS || v->sw > 64) {
        return 0;
    }
    total = nplanes * hp * wp + 8 * v->sw + MVE_PAD_SLACK;
    if (total > MVE_PAD_FLOATS) {
        return 0;
    }
    if (fill) {
        for (i = 0; i < total; i += 4) {
            vstrwq_p_f32(pad + i, vdupq_n_f32(0.0f), vctp32q((uint32_t)(total - i)));
        }
    }
    for (c = 0; c < nplanes; ++c) {
        const float *src = in + c * h * w;
        float *dst = pad + (c * hp + ph) * wp + pw;
        for (y = 0; y < h; ++y, src += w, dst += wp) {
            if (w < 4) {
                for (x = 0; x < w; ++x) {
                    dst[x] = src[x];
                }
                continue;
            }
            for (x = 0; x < w; x += 4) { /* the last 4 shifted back */
                const int32_t xx = x + 4 <= w ? x : w - 4;
                vst1q_f32(dst + xx, vld1q_f32(src + xx));
            }
        }
    }
    v->h = hp;
    v->w = wp;
    v->ph = 0;
    v->pw = 0;
    v->plane = hp * wp;
    return 1;
}

/* y to o[0..3]; with pred, only the lanes of m. */
MVE_INLINE void mve_store(float *o, float32x4_t y, int pred, mve_pred16_t m)
{
    if (pred) {
        vstrwq_p_f32(o, y, m);
    } else {
        vst1q_f32(o, y);
    }
}

#endif /* RT_F32_MVE_H */
