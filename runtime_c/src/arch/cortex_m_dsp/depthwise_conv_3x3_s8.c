/* depthwise_conv_3x3_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_3x3_s8 a channel at a time
 * along the rows. Four channels' input rows are widened once each into planes of halfwords
 * (offset added, padding as zeros), so that two neighbouring columns of one channel are one
 * word; with a filter row's taps packed as (k0, k1) and (k1, k2), four outputs of a row take
 * eight SMLAD/SMLAxy, twelve multiply-accumulates, per filter row, and one asm loop makes a
 * row's outputs four at a time, requantizes (SMMLAR, the taps pre-scaled as the quads of
 * depthwise_conv_s8.c have them) and stores them: 61 instructions per 36 MACs. At stride 1 a
 * small map's whole padded plane fits (flat mode): output (oy, ox) is then output
 * oy * row + ox of one long row, so the loop runs once a channel, not once a row. Otherwise
 * a ring of three rows a channel holds the rows an output row reads (stride 1 or 2 across,
 * any stride down; rows of 8 outputs or more). Layers this does not fit (shifts or sums out
 * of range, clamped activations, other shapes) take rt_depthwise_conv2d_s8. Same sums, same
 * requantization: bit-exact with int8/depthwise_conv_s8.c. */
#include "dw_dsp.h"

/* One channel's constants, in the order the asm reads them: per filter row the taps as
 * (k0, k1) and (k1, k2), pre-scaled by 2^pre (pre = 1 + max(shift, 0), so the sum is the
 * SMMLAR input), then the bias times 2^pre and neg, c, mult, e of the requantization (see
 * rt_dsp_pw_pair). */
typedef struct dw3_lane {
    int32_t fg[3][2];
    int32_t bias;
    int32_t rq[4];
} dw3_lane;

/* What stays fixed across a layer. */
typedef struct dw3_ctx {
    const rt_conv_s8_params *p;
    rt_conv_s8_geom g;
    const int32_t *bias;
    int32_t steps;     /* four-output steps a row */
    int32_t pw;        /* a plane row's halfwords (even) */
    int32_t flat;      /* 1: each lane's whole padded plane at once (stride 1, small maps) */
} dw3_ctx;

/* Channel oc's constants (w [1, 3, 3, Cout]). */
static void dw3_setup(const dw3_ctx *c, const int8_t *w, int32_t oc, dw3_lane *l)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t s = p->shift[oc], e = s < 0 ? -s : 0, pre = 1 + (s > 0 ? s : 0);
    int32_t ky;
    for (ky = 0; ky < 3; ++ky) {
        const int32_t k0 = w[(3 * ky) * c->g.cout + oc] * (1 << pre);
        const int32_t k1 = w[(3 * ky + 1) * c->g.cout + oc] * (1 << pre);
        const int32_t k2 = w[(3 * ky + 2) * c->g.cout + oc] * (1 << pre);
        l->fg[ky][0] = (int32_t)((uint32_t)(uint16_t)k0 | (uint32_t)k1 << 16);
        l->fg[ky][1] = (int32_t)((uint32_t)(uint16_t)k1 | (uint32_t)k2 << 16);
    }
    l->bias = (c->bias != NULL ? c->bias[oc] : 0) * (1 << pre);
    l->rq[0] = -(e > 0);
    l->rq[1] = ((1 << e) >> 1) + p->output_offset * (1 << e);
    l->rq[2] = p->mult[oc];
    l->rq[3] = e;
}

/* Input row src (channel oc on) widened into the lanes' plane rows dst[]: column x at
 * halfword pad_w + x; the padding columns keep the zeros the planes started with. Four
 * lanes take two columns a turn: two words of inputs, their halfwords (SXTAB16) paired by
 * lane (PKHBT, PKHTB) and stored a word a lane; the lanes' rows are one stride apart. */
static void dw3_widen(const dw3_ctx *c, const int8_t *src, int32_t lanes, int16_t *const *dst)
{
    const int32_t cin = c->g.cin, x_off = c->p->input_offset, pad = c->p->pad_w;
    const int32_t n = c->g.w < c->pw - pad ? c->g.w : c->pw - pad;
    int32_t x = 0, j;
    if (lanes == DW3_LANES) {
        const int16x2_t off2 = rt_dsp_pair(x_off);
        int16_t *d0 = dst[0] + pad, *d1 = dst[1] + pad, *d2 = dst[2] + pad, *d3 = dst[3] + pad;
#if defined(__OPTIMIZE__)
        /* dst[1..3] are dst[0] + 1, 2, 3 lane strides (lbytes) on */
        const int32_t lbytes = (int32_t)((const char *)d1 - (const char *)d0);
        const int8_t *const end = src + (n & ~1) * cin;
        int16_t *a = d0, *b = d2;
        int32_t u, v, eu, ou, ev, ov;
        if (n >= 2) {
            __asm__ volatile(   /* seventeen instructions per two columns */
                "1:\n\t"
                "ldr %[v], [%[src], %[cin]]\n\t"
                "ldr %[u], [%[src]]\n\t"
                "add %[src], %[src], %[cin], lsl #1\n\t"
                "sxtab16 %[eu], %[off], %[u]\n\t"
                "sxtab16 %[ou], %[off], %[u], ror #8\n\t"
                "sxtab16 %[ev], %[off], %[v]\n\t"
                "sxtab16 %[ov], %[off], %[v], ror #8\n\t"
                "pkhbt %[u], %[ou], %[ov], lsl #16\n\t"
                "str %[u], [%[a], %[lb]]\n\t"
                "pkhbt %[u], %[eu], %[ev], lsl #16\n\t"
                "str %[u], [%[a]], #4\n\t"
                "pkhtb %[u], %[ov], %[ou], asr #16\n\t"
                "str %[u], [%[b], %[lb]]\n\t"
                "pkhtb %[u], %[ev], %[eu], asr #16\n\t"
                "str %[u], [%[b]], #4\n\t"
                "ldr %[v], %[end]\n\t"
                "cmp %[src], %[v]\n\t"
                "bne 1b"
                : [u] "=&r"(u), [v] "=&r"(v), [eu] "=&r"(eu), [ou] "=&r"(ou), [ev] "=&r"(ev),
                  [ov] "=&r"(ov), [src] "+r"(src), [a] "+r"(a), [b] "+r"(b)
                : [off] "r"(off2), [cin] "r"(cin), [lb] "r"(lbytes), [end] "m"(end)
                : "cc", "memory");
        }
        x = n & ~1;
#else
        for (; x + 2 <= n; x += 2, src += 2 * cin) {
            const int32_t u = rt_dsp_load4(src), v = rt_dsp_load4(src + cin);
            const uint32_t eu = (uint32_t)rt_dsp_even(off2, u), ou = (uint32_t)rt_dsp_odd(off2, u);
            const uint32_t ev = (uint32_t)rt_dsp_even(off2, v), ov = (uint32_t)rt_dsp_odd(off2, v);
            const uint32_t w0 = (eu & 0xFFFFu) | ev << 16, w2 = (eu >> 16) | (ev & 0xFFFF0000u);
            const uint32_t w1 = (ou & 0xFFFFu) | ov << 16, w3 = (ou >> 16) | (ov & 0xFFFF0000u);
            __builtin_memcpy(d0 + x, &w0, sizeof w0);
            __builtin_memcpy(d1 + x, &w1, sizeof w1);
            __builtin_memcpy(d2 + x, &w2, sizeof w2);
            __builtin_memcpy(d3 + x, &w3, sizeof w3);
        }
#endif
        if (x < n) {
            const int32_t u = rt_dsp_load4(src);
            const int32_t e = (int32_t)rt_dsp_even(off2, u), o = (int32_t)rt_dsp_odd(off2, u);
            d0[x] = (int16_t)e;
            d2[x] = (int16_t)(e >> 16);
            d1[x] = (int16_t)o;
            d3[x] = (int16_t)(o >> 16);
        }
    } else {
        for (j = 0; j < lanes; ++j) {
            for (x = 0; x < n; ++x) {
                dst[j][pad + x] = (int16_t)(src[x * cin + j] + x_off);
            }
        }
    }
}

/* Four outputs of a stride-1 row from filter row r (taps fg): its columns 0..5 as words w0,
 * w1, w2 (r steps on by four columns). */
#define DW3_ROW1(r, fg, s0, s1, s2, s3) \
    "ldrd %[w0], %[w1], [%[" r "]], #8\n\t" \
    "ldr %[w2], [%[" r "]]\n\t" \
    "ldrd %[f], %[g], %[" fg "]\n\t" \
    "smlad %[a0], %[w0], %[f], %[" s0 "]\n\t" \
    "smlabt %[a0], %[w1], %[g], %[a0]\n\t" \
    "smlatb %[a1], %[w0], %[f], %[" s1 "]\n\t" \
    "smlad %[a1], %[w1], %[g], %[a1]\n\t" \
    "smlad %[a2], %[w1], %[f], %[" s2 "]\n\t" \
    "smlabt %[a2], %[w2], %[g], %[a2]\n\t" \
    "smlatb %[a3], %[w1], %[f], %[" s3 "]\n\t" \
    "smlad %[a3], %[w2], %[g], %[a3]\n\t"

/* The same at stride 2: columns 0..8, eight columns on. */
#define DW3_ROW2(r, fg, s0, s1, s2, s3) \
    "ldrd %[f], %[g], %[" fg "]\n\t" \
    "ldrd %[w0], %[w1], [%[" r "]], #8\n\t" \
    "smlad %[a0], %[w0], %[f], %[" s0 "]\n\t" \
    "smlabt %[a0], %[w1], %[g], %[a0]\n\t" \
    "smlad %[a1], %[w1], %[f], %[" s1 "]\n\t" \
    "ldrd %[w0], %[w2], [%[" r "]], #8\n\t" \
    "smlabt %[a1], %[w0], %[g], %[a1]\n\t" \
    "smlad %[a2], %[w0], %[f], %[" s2 "]\n\t" \
    "smlabt %[a2], %[w2], %[g], %[a2]\n\t" \
    "smlad %[a3], %[w2], %[f], %[" s3 "]\n\t" \
    "ldr %[w0], [%[" r "]]\n\t" \
    "smlabt %[a3], %[w0], %[g], %[a3]\n\t"

/* A sum's requantization (s8_dsp.h): neg in f, c in g, mult in w0, e in w1, w2 scratch. */
#define DW3_RQ(a) RT_DSP_RQ_ASM(#a, "w2", "f", "g", "w0", "w1")
#define DW3_RQ_RIGHT(a) RT_DSP_RQ_RIGHT_ASM(#a, "w2", "g", "w0", "w1")

/* The loop around the rows: three filter rows (the first adds to the bias, b), the
 * requantization (RQ), four stores (ostep apart), until row 0 reaches end. */
#define DW3_LOOP(ROW, RQ) \
    "1:\n\t" \
    ROW("r0", "fg0", "b", "b", "b", "b") \
    ROW("r1", "fg1", "a0", "a1", "a2", "a3") \
    ROW("r2", "fg2", "a0", "a1", "a2", "a3") \
    "ldrd %[f], %[g], %[rq]\n\t" \
    "ldrd %[w0], %[w1], %[rq2]\n\t" \
    RQ(a0) RQ(a1) RQ(a2) RQ(a3) \
    "ldr %[w0], %[ostep]\n\t" \
    "strb %[a0], [%[o]]\n\t" \
    "strb %[a1], [%[o], %[w0]]\n\t" \
    "add %[o], %[o], %[w0], lsl #1\n\t" \
    "strb %[a2], [%[o]]\n\t" \
    "strb %[a3], [%[o], %[w0]]\n\t" \
    "add %[o], %[o], %[w0], lsl #1\n\t" \
    "ldr %[w0], %[end]\n\t" \
    "cmp %[r0], %[w0]\n\t" \
    "bne 1b"

/* steps x 4 outputs of a row of each of the lanes: lane j's filter row ky reads its plane
 * row at rows[ky] + j * lstep halfwords (rows[ky] + skip for the zero row: ld[ky] = 0), from
 * the first column on; its outputs at o + j, o + j + ostep, ... */
static RT_DSP_NOINLINE void dw3_row(const dw3_lane *l, const int16_t *const *rows,
                                    const int32_t *ld, int32_t lanes, int32_t lstep,
                                    int32_t stride, int32_t steps, int8_t *out, int32_t ostep)
{
    int32_t j;
    for (j = 0; j < lanes; ++j, ++l) {
        const int16_t *r0 = rows[0] + j * ld[0] * lstep, *r1 = rows[1] + j * ld[1] * lstep;
        const int16_t *r2 = rows[2] + j * ld[2] * lstep;
        int8_t *o = out + j;
#if defined(__OPTIMIZE__)
        const dw3_lane k = *l;   /* on the stack: the asm has no register left for l */
        const int16_t *const end = r0 + 4 * stride * steps;
        int32_t a0, a1, a2, a3, w0, w1, w2, f, g;
#define DW3_OPERANDS \
    : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [w0] "=&r"(w0), \
      [w1] "=&r"(w1), [w2] "=&r"(w2), [f] "=&r"(f), [g] "=&r"(g), [r0] "+r"(r0), \
      [r1] "+r"(r1), [r2] "+r"(r2), [o] "+r"(o) \
    : [fg0] "m"(k.fg[0][0]), [fg1] "m"(k.fg[1][0]), [fg2] "m"(k.fg[2][0]), \
      [b] "r"(k.bias), [rq] "m"(k.rq[0]), [rq2] "m"(k.rq[2]), [ostep] "m"(ostep), \
      [end] "m"(end) \
    : "cc", "memory"
        if (stride == 1 && l->rq[0] != 0) {
            __asm__ volatile(DW3_LOOP(DW3_ROW1, DW3_RQ_RIGHT) DW3_OPERANDS);
        } else if (stride == 1) {
            __asm__ volatile(DW3_LOOP(DW3_ROW1, DW3_RQ) DW3_OPERANDS);
        } else if (l->rq[0] != 0) {
            __asm__ volatile(DW3_LOOP(DW3_ROW2, DW3_RQ_RIGHT) DW3_OPERANDS);
        } else {
            __asm__ volatile(DW3_LOOP(DW3_ROW2, DW3_RQ) DW3_OPERANDS);
        }
#undef DW3_OPERANDS
#else
        const int16_t *rj[3];
        int32_t i, ky, kx;
        rj[0] = r0;
        rj[1] = r1;
        rj[2] = r2;
        for (i = 0; i < 4 * steps; ++i, o += ostep) {
            int32_t acc = l->bias, v;
            for (ky = 0; ky < 3; ++ky) {
                const int16_t *x = rj[ky] + i * stride;
                const int32_t k[3] = {(int16_t)l->fg[ky][0], l->fg[ky][0] >> 16,
                                      l->fg[ky][1] >> 16};
                for (kx = 0; kx < 3; ++kx) {
                    acc += x[kx] * k[kx];
                }
            }
            v = rt_dsp_smmulr(acc, l->rq[2]) + l->rq[1] + (l->rq[0] & (acc >> 31));
            *o = rt_dsp_sat8(v >> l->rq[3]);
        }
#endif
    }
}

/* Channels oc..oc + lanes - 1 of every output pixel: the lanes' planes (three ring rows
 * each, lane j's row iy in slot j * 3 + iy % 3, widened when an output row first reads it)
 * and a row of zeros for the padding rows (zeroed by the caller, as are the padding
 * columns, which no row's widening writes). */
static void dw3_channels(const dw3_ctx *c, const int8_t *in, const int8_t *w, int32_t oc,
                         int32_t lanes, int8_t *out, int16_t *planes)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t h = c->g.h, ow = c->g.ow, cout = c->g.cout, pw = c->pw;
    const int32_t row = c->g.w * c->g.cin, orow = ow * cout, whole = ow / 4;
    int16_t *const zero = planes + DW3_LANES * 3 * pw;
    dw3_lane l[DW3_LANES];
    int32_t n, oy, ky, j, i;
    for (j = 0; j < lanes; ++j) {
        dw3_setup(c, w, oc + j, &l[j]);
    }
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * h * row + oc;
        int32_t top = -p->pad_h;   /* the rows above it are widened */
        for (oy = 0; oy < c->g.oh; ++oy) {
            const int32_t iy0 = oy * p->stride_h - p->pad_h;
            int8_t *o = out + (n * c->g.oh + oy) * orow + oc;
            const int16_t *rows[3];
            int32_t ld[3], iy = top > iy0 ? top : iy0;
            for (top = iy0 + 3; iy < top; ++iy) {
                if (iy >= 0 && iy < h) {
                    int16_t *dst[DW3_LANES];
                    for (j = 0; j < DW3_LANES; ++j) {
                        dst[j] = planes + (j * 3 + iy % 3) * pw;
                    }
                    dw3_widen(c, img + iy * row, lanes, dst);
                }
            }
            for (ky = 0; ky < 3; ++ky) {   /* lane 0's rows; lane j's are 3 * pw on */
                iy = iy0 + ky;
                ld[ky] = iy >= 0 && iy < h;
                rows[ky] = ld[ky] ? planes + iy % 3 * pw : zero;
            }
            if (whole > 0) {
                dw3_row(l, rows, ld, lanes, 3 * pw, p->stride_w, whole, o, cout);
            }
            if (ow > 4 * whole) {   /* the last outputs: a step into a scratch row */
                const int32_t skip = 4 * whole * p->stride_w;
                int8_t last[4 * DW3_LANES];
                const int16_t *tail[3];
                for (ky = 0; ky < 3; ++ky) {
                    tail[ky] = rows[ky] + skip;
                }
                dw3_row(l, tail, ld, lanes, 3 * pw, p->stride_w, 1, last, DW3_LANES);
                for (i = 0; i < ow - 4 * whole; ++i) {
                    for (j = 0; j < lanes; ++j) {
                        o[(4 * whole + i) * cout + j] = last[i * DW3_LANES + j];
                    }
                }
            }
        }
    }
}

/* Flat mode: lane j's padded plane whole at planes + j * DW3_FLAT, rows of pw halfwords
 * (plane row r is input row r - pad_h), so that output (oy, ox) is flat output oy * pw + ox
 * of one long row whose filter rows are pw and 2 pw on: one run of four-output steps a lane
 * (the columns past ow come out as bytes nobody reads), into flat, then the valid outputs
 * copied out a pixel's lanes at a time. */
static void dw3_flat(const dw3_ctx *c, const int8_t *in, const int8_t *w, int32_t oc,
                     int32_t lanes, int8_t *out, int16_t *planes, int8_t *flat)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t h = c->g.h, oh = c->g.oh, ow = c->g.ow, cout = c->g.cout, pw = c->pw;
    const int32_t row = c->g.w * c->g.cin, steps = (oh * pw + 3) / 4;
    static const int32_t ld[3] = {1, 1, 1};
    const int16_t *rows[3];
    dw3_lane l[DW3_LANES];
    int32_t n, iy, j, oy, ox;
    for (j = 0; j < lanes; ++j) {
        dw3_setup(c, w, oc + j, &l[j]);
    }
    rows[0] = planes;
    rows[1] = planes + pw;
    rows[2] = planes + 2 * pw;
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * h * row + oc;
        int8_t *o = out + n * oh * ow * cout + oc;
        for (iy = 0; iy < h && iy + p->pad_h < oh + 2; ++iy) {
            int16_t *dst[DW3_LANES];
            for (j = 0; j < DW3_LANES; ++j) {
                dst[j] = planes + j * DW3_FLAT + (iy + p->pad_h) * pw;
            }
            dw3_widen(c, img + iy * row, lanes, dst);
        }
        dw3_row(l, rows, ld, lanes, DW3_FLAT, 1, steps, flat, DW3_LANES);
        for (oy = 0; oy < oh; ++oy) {
            const int8_t *f = flat + oy * pw * DW3_LANES;
            for (ox = 0; ox < ow; ++ox, f += DW3_LANES, o += cout) {
                if (lanes == DW3_LANES) {
                    __builtin_memcpy(o, f, DW3_LANES);
                } else {
                    for (j = 0; j < lanes; ++j) {
                        o[j] = f[j];
                    }
                }
            }
        }
    }
}

rt_status rt_depthwise_conv2d_3x3_s8(const rt_conv_s8_params *p, RT_S8_LAYER_TENSORS)
{
    dw3_ctx c;
    int32_t oc;
    RT_TRY(rt_conv_s8_geom_init(&c.g, p, in_s, in, w_s, w, b_s, bias, out_s, out, 1));
    RT_CHECK(rt_conv_s8_is_dw3x3(&c.g, p), RT_ERR_PARAM);
    c.p = p;
    c.bias = bias;
    c.steps = (c.g.ow + 3) / 4;
    c.pw = rt_dsp_dw3_flat_pw(&c.g, p);
    c.flat = c.pw != 0;
    c.pw = c.flat ? c.pw : (4 * c.steps * p->stride_w + 3) & ~1;
    if (!rt_dsp_dw3_takes(&c.g, p, bias)) {
        return rt_depthwise_conv2d_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    {
        int16_t planes[DW3_PLANES] __attribute__((aligned(4)));
        int8_t flat[DW3_LANES * DW3_FLAT];   /* flat mode's outputs, a pixel's lanes a word */
        int32_t i;
        for (i = 0; i < DW3_PLANES; i += 2) {
            planes[i] = planes[i + 1] = 0;
        }
        for (oc = 0; oc < c.g.cout; oc += DW3_LANES) {
            const int32_t lanes = c.g.cout - oc < DW3_LANES ? c.g.cout - oc : DW3_LANES;
            if (c.flat) {
                dw3_flat(&c, in, w, oc, lanes, out, planes, flat);
            } else {
                dw3_channels(&c, in, w, oc, lanes, out, planes);
            }
        }
    }
    return RT_OK;
}
