/* depthwise_conv_3x3_s8.c (Cortex-M DSP) - rt_depthwise_conv2d_3x3_s8 a channel at a time
 * along the rows. Four channels' input rows are widened once each into planes of halfwords
 * (offset added, padding as zeros), so that two neighbouring columns of one channel are one
 * word; with a filter row's taps packed as (k0, k1) and (k1, k2), four outputs of a row take
 * eight SMLAD/SMLAxy, twelve multiply-accumulates, per filter row, and one asm loop makes a
 * row's outputs four at a time, requantizes (SMMLAR, the taps pre-scaled as the quads of
 * depthwise_conv_s8.c have them) and stores them: 61 instructions per 36 MACs. When a small
 * map's whole padded plane fits (flat mode): output (oy, ox) is then output oy * row + ox of
 * one long row, so one loop of eight-output steps runs once a channel (125 instructions per
 * 72 MACs, the taps and constants reloaded from the stack); a map taller than wide (KWS's
 * 25x5) is laid out down its columns, the filter transposed, so that fewer outputs past the
 * lines' ends are made; at stride 2 the even padded rows and the odd ones lie in two blocks,
 * so that the long row's lines are ow + 1 outputs (137 instructions per 72 MACs). Otherwise a
 * ring of three rows a channel holds the rows an output row reads (stride 1 or 2 across, any
 * stride down; rows of 8 outputs or more), a row of 24 or more in flat mode's eight-output
 * steps. Layers this does not fit (shifts or sums out of range, clamped activations, other
 * shapes) take rt_depthwise_conv2d_s8. Same sums, same requantization: bit-exact with
 * int8/depthwise_conv_s8.c. */
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
    int32_t steps;     /* four-output steps a row (flat mode: eight-output steps a lane) */
    int32_t pw;        /* a plane row's (flat mode: line's) halfwords (even) */
    int32_t flat;      /* 1: each lane's whole padded plane at once (small maps) */
    int32_t tall;      /* 1: flat mode down the columns (rt_dsp_dw3_tall, stride 1) */
} dw3_ctx;

/* Channels oc..oc + lanes - 1's constants (w [1, 3, 3, Cout]); flat mode on a tall map reads
 * the filter transposed, as its planes lie. */
static void dw3_setup(const dw3_ctx *c, const int8_t *w, int32_t oc, int32_t lanes,
                      dw3_lane *l)
{
    const rt_conv_s8_params *p = c->p;
    /* the taps of a filter row (flat mode on a tall map: of a filter column) tap on */
    const int32_t row = c->tall ? c->g.cout : 3 * c->g.cout;
    const int32_t tap = 4 * c->g.cout - row, off = p->output_offset;
    int32_t j, ky;
    for (j = 0; j < lanes; ++j, ++l) {
        const int32_t s = p->shift[oc + j], e = s < 0 ? -s : 0, m = 1 << (1 + (s > 0 ? s : 0));
        const int8_t *v = w + oc + j;
        for (ky = 0; ky < 3; ++ky, v += row) {
            const uint32_t k0 = (uint32_t)(v[0] * m), k1 = (uint32_t)(v[tap] * m);
            const uint32_t k2 = (uint32_t)(v[2 * tap] * m);
            l->fg[ky][0] = (int32_t)((k0 & 0xFFFFu) | k1 << 16);
            l->fg[ky][1] = (int32_t)((k1 & 0xFFFFu) | k2 << 16);
        }
        l->bias = (c->bias != NULL ? c->bias[oc + j] : 0) * m;
        l->rq[0] = -(e > 0);
        l->rq[1] = ((1 << e) >> 1) + off * (1 << e);
        l->rq[2] = p->mult[oc + j];
        l->rq[3] = e;
    }
}

/* Lines of n inputs (input x of line i at src + i * lstep + x * step bytes, channel oc on:
 * input rows, or columns) widened into the lanes' planes: lane j's line i at d + j * lane +
 * i * pw halfwords, input x at halfword pad + x; the padding keeps the zeros the planes
 * started with. Four lanes take two inputs a turn: two words, their halfwords (SXTAB16) paired
 * by lane (PKHBT, PKHTB) and stored a word a lane. */
static void dw3_widen(const dw3_ctx *c, const int8_t *src, int32_t step, int32_t n, int32_t pad,
                      int32_t lines, int32_t lstep, int32_t lanes, int16_t *d, int32_t lane)
{
    const int32_t x_off = c->p->input_offset;
    const int16x2_t off2 = rt_dsp_pair(x_off);
    int32_t i, x, j;
    for (i = 0; i < lines; ++i, src += lstep, d += c->pw) {
        const int8_t *s = src;
        int16_t *d0 = d + pad, *d1 = d0 + lane, *d2 = d1 + lane, *d3 = d2 + lane;
        if (lanes < DW3_LANES) {
            for (j = 0; j < lanes; ++j) {
                for (x = 0; x < n; ++x) {
                    d0[j * lane + x] = (int16_t)(s[x * step + j] + x_off);
                }
            }
            continue;
        }
        x = n & ~1;
#if defined(__OPTIMIZE__)
        if (n >= 2) {
            const int8_t *const end = s + x * step;
            int16_t *p0 = d0, *p1 = d1, *p2 = d2, *p3 = d3;
            int32_t u, v, eu, ou, ev, ov;
            __asm__ volatile(   /* sixteen instructions per two inputs */
                "1:\n\t"
                "ldr %[v], [%[s], %[step]]\n\t"
                "ldr %[u], [%[s]]\n\t"
                "add %[s], %[s], %[step], lsl #1\n\t"
                "sxtab16 %[eu], %[off], %[u]\n\t"
                "sxtab16 %[ou], %[off], %[u], ror #8\n\t"
                "sxtab16 %[ev], %[off], %[v]\n\t"
                "sxtab16 %[ov], %[off], %[v], ror #8\n\t"
                "pkhbt %[u], %[eu], %[ev], lsl #16\n\t"
                "str %[u], [%[p0]], #4\n\t"
                "pkhbt %[u], %[ou], %[ov], lsl #16\n\t"
                "str %[u], [%[p1]], #4\n\t"
                "pkhtb %[u], %[ev], %[eu], asr #16\n\t"
                "str %[u], [%[p2]], #4\n\t"
                "pkhtb %[u], %[ov], %[ou], asr #16\n\t"
                "str %[u], [%[p3]], #4\n\t"
                "cmp %[s], %[end]\n\t"
                "bne 1b"
                : [u] "=&r"(u), [v] "=&r"(v), [eu] "=&r"(eu), [ou] "=&r"(ou), [ev] "=&r"(ev),
                  [ov] "=&r"(ov), [s] "+r"(s), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2),
                  [p3] "+r"(p3)
                : [off] "r"(off2), [step] "r"(step), [end] "r"(end)
                : "cc", "memory");
        }
#else
        for (j = 0; j < x; j += 2, s += 2 * step) {
            const int32_t u = rt_dsp_load4(s), v = rt_dsp_load4(s + step);
            const uint32_t eu = (uint32_t)rt_dsp_even(off2, u), ou = (uint32_t)rt_dsp_odd(off2, u);
            const uint32_t ev = (uint32_t)rt_dsp_even(off2, v), ov = (uint32_t)rt_dsp_odd(off2, v);
            const uint32_t w0 = (eu & 0xFFFFu) | ev << 16, w2 = (eu >> 16) | (ev & 0xFFFF0000u);
            const uint32_t w1 = (ou & 0xFFFFu) | ov << 16, w3 = (ou >> 16) | (ov & 0xFFFF0000u);
            __builtin_memcpy(d0 + j, &w0, sizeof w0);
            __builtin_memcpy(d1 + j, &w1, sizeof w1);
            __builtin_memcpy(d2 + j, &w2, sizeof w2);
            __builtin_memcpy(d3 + j, &w3, sizeof w3);
        }
#endif
        if (x < n) {
            const int32_t u = rt_dsp_load4(src + x * step);
            const int32_t e = (int32_t)rt_dsp_even(off2, u), o = (int32_t)rt_dsp_odd(off2, u);
            d0[x] = (int16_t)e;
            d2[x] = (int16_t)(e >> 16);
            d1[x] = (int16_t)o;
            d3[x] = (int16_t)(o >> 16);
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

/* A sum's requantization (s8_dsp.h): c in g, mult in w0, e in w1, w2 scratch; where e is 0
 * (a shift left, the taps pre-scaled by it), SMMLAR and SSAT alone. */
#define DW3_RQ_RIGHT(a) RT_DSP_RQ_RIGHT_ASM(#a, "w2", "g", "w0", "w1")
#define DW3_RQ_LEFT(a) \
    "smmlar %[" #a "], %[" #a "], %[w0], %[g]\n\t" \
    "ssat %[" #a "], #8, %[" #a "]\n\t"

/* The loop around the rows: three filter rows (the first adds to the bias, b), the
 * requantization (the shift right's, or out of line the left's), four stores (ostep apart),
 * until row 0 reaches end. */
#define DW3_LOOP(ROW) \
    ".p2align 2\n" \
    "1:\n\t" \
    ROW("r0", "fg0", "b", "b", "b", "b") \
    ROW("r1", "fg1", "a0", "a1", "a2", "a3") \
    ROW("r2", "fg2", "a0", "a1", "a2", "a3") \
    "ldr %[g], %[c]\n\t" \
    "ldr %[w0], %[mult]\n\t" \
    "ldr %[w1], %[e]\n\t" \
    "cmp %[w1], #0\n\t" \
    "beq 4f\n\t" \
    DW3_RQ_RIGHT(a0) DW3_RQ_RIGHT(a1) DW3_RQ_RIGHT(a2) DW3_RQ_RIGHT(a3) \
    "3:\n\t" \
    "ldr %[w0], %[ostep]\n\t" \
    "strb %[a0], [%[o]]\n\t" \
    "strb %[a1], [%[o], %[w0]]\n\t" \
    "add %[o], %[o], %[w0], lsl #1\n\t" \
    "strb %[a2], [%[o]]\n\t" \
    "strb %[a3], [%[o], %[w0]]\n\t" \
    "add %[o], %[o], %[w0], lsl #1\n\t" \
    "ldr %[w0], %[end]\n\t" \
    "cmp %[r0], %[w0]\n\t" \
    "bne 1b\n\t" \
    "b 5f\n\t" \
    "4:\n\t" \
    DW3_RQ_LEFT(a0) DW3_RQ_LEFT(a1) DW3_RQ_LEFT(a2) DW3_RQ_LEFT(a3) \
    "b 3b\n\t" \
    "5:"

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
      [b] "r"(k.bias), [c] "m"(k.rq[1]), [mult] "m"(k.rq[2]), [e] "m"(k.rq[3]), \
      [ostep] "m"(ostep), [end] "m"(end) \
    : "cc", "memory"
        if (stride == 1) {
            __asm__ volatile(DW3_LOOP(DW3_ROW1) DW3_OPERANDS);
        } else {
            __asm__ volatile(DW3_LOOP(DW3_ROW2) DW3_OPERANDS);
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

static void dw3_run(const dw3_lane *l, const int16_t *plane, int32_t d1, int32_t d2,
                    int32_t steps, int8_t *out);
static void dw3_run2(const dw3_lane *l, const int16_t *plane, int32_t d1, int32_t d2,
                     int32_t steps, int8_t *out);
static void dw3_copy(int8_t *d, int32_t step, const int8_t *f, int32_t n);

/* Channels oc..oc + lanes - 1 of every output pixel: the lanes' planes (three ring rows
 * each, lane j's row iy in slot j * 3 + iy % 3, widened when an output row first reads it)
 * and a row of zeros for the padding rows (zeroed by the caller, as are the padding
 * columns, which no row's widening writes). A row's outputs go eight at a time as flat
 * mode's do (dw3_run, dw3_run2: its rows where the ring has them), into flat, a pixel's lanes
 * a word, then copied out; the last ow % 8 (and all of shorter rows) four at a time
 * (dw3_row). */
static void dw3_channels(const dw3_ctx *c, const int8_t *in, const int8_t *w, int32_t oc,
                         int32_t lanes, int8_t *out, int16_t *planes, int8_t *flat)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t h = c->g.h, ow = c->g.ow, cout = c->g.cout, pw = c->pw;
    const int32_t row = c->g.w * c->g.cin, orow = ow * cout;
    /* the outputs of a row in eight-output steps (on rows of 24 or more: a run's call and
       copy cost about two steps' gain), and in four-output ones */
    const int32_t runs = ow >= 24 ? ow / 8 : 0, whole = (ow - 8 * runs) / 4, sw = p->stride_w;
    const int32_t n_in = c->g.w < pw - p->pad_w ? c->g.w : pw - p->pad_w;
    int16_t *const zero = planes + DW3_LANES * 3 * pw;
    dw3_lane l[DW3_LANES];
    int32_t n, oy, ky, j, i, x;
    dw3_setup(c, w, oc, lanes, l);
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
                    dw3_widen(c, img + iy * row, c->g.cin, n_in, p->pad_w, 1, 0, lanes,
                              planes + iy % 3 * pw, 3 * pw);
                }
            }
            for (ky = 0; ky < 3; ++ky) {   /* lane 0's rows; lane j's are 3 * pw on */
                iy = iy0 + ky;
                ld[ky] = iy >= 0 && iy < h;
                rows[ky] = ld[ky] ? planes + iy % 3 * pw : zero;
            }
            if (runs > 0) {
                for (j = 0; j < lanes; ++j) {
                    const int16_t *r0 = rows[0] + j * ld[0] * 3 * pw;
                    const int32_t d1 = (int32_t)(rows[1] + j * ld[1] * 3 * pw - r0);
                    const int32_t d2 = (int32_t)(rows[2] + j * ld[2] * 3 * pw - r0);
                    if (sw == 1) {
                        dw3_run(&l[j], r0, d1, d2, runs, flat + j);
                    } else {
                        dw3_run2(&l[j], r0, d1, d2, runs, flat + j);
                    }
                }
                if (lanes == DW3_LANES) {
                    dw3_copy(o, cout, flat, 8 * runs);
                } else {
                    for (x = 0; x < 8 * runs; ++x) {
                        for (j = 0; j < lanes; ++j) {
                            o[x * cout + j] = flat[x * DW3_LANES + j];
                        }
                    }
                }
                for (ky = 0; ky < 3; ++ky) {   /* on past the runs' outputs */
                    rows[ky] += 8 * runs * sw;
                }
                o += 8 * runs * cout;
            }
            if (whole > 0) {
                dw3_row(l, rows, ld, lanes, 3 * pw, p->stride_w, whole, o, cout);
            }
            if (ow > 8 * runs + 4 * whole) {   /* the last outputs: a step into a scratch */
                const int32_t skip = 4 * whole * p->stride_w;
                int8_t last[4 * DW3_LANES];
                const int16_t *tail[3];
                for (ky = 0; ky < 3; ++ky) {
                    tail[ky] = rows[ky] + skip;
                }
                dw3_row(l, tail, ld, lanes, 3 * pw, p->stride_w, 1, last, DW3_LANES);
                for (i = 0; i < ow - 8 * runs - 4 * whole; ++i) {
                    for (j = 0; j < lanes; ++j) {
                        o[(4 * whole + i) * cout + j] = last[i * DW3_LANES + j];
                    }
                }
            }
        }
    }
}

/* Flat mode's filter row of eight outputs (taps f, g; the first touch of a sum adds s, the
 * bias or the sum itself): words 0..4 of the line at r (p, or b), each read once into w or q
 * and taken by the two outputs it starts and the two it ends. */
#define DW3_R8(r, s0, s1, s2, s3, s4, s5, s6, s7) \
    "ldr %[w], [%[" r "]]\n\t" \
    "ldr %[q], [%[" r "], #4]\n\t" \
    "smlad %[a0], %[w], %[f], %[" s0 "]\n\t" \
    "smlatb %[a1], %[w], %[f], %[" s1 "]\n\t" \
    "smlabt %[a0], %[q], %[g], %[a0]\n\t" \
    "smlad %[a1], %[q], %[g], %[a1]\n\t" \
    "smlad %[a2], %[q], %[f], %[" s2 "]\n\t" \
    "smlatb %[a3], %[q], %[f], %[" s3 "]\n\t" \
    "ldr %[w], [%[" r "], #8]\n\t" \
    "ldr %[q], [%[" r "], #12]\n\t" \
    "smlabt %[a2], %[w], %[g], %[a2]\n\t" \
    "smlad %[a3], %[w], %[g], %[a3]\n\t" \
    "smlad %[a4], %[w], %[f], %[" s4 "]\n\t" \
    "smlatb %[a5], %[w], %[f], %[" s5 "]\n\t" \
    "smlabt %[a4], %[q], %[g], %[a4]\n\t" \
    "smlad %[a5], %[q], %[g], %[a5]\n\t" \
    "smlad %[a6], %[q], %[f], %[" s6 "]\n\t" \
    "smlatb %[a7], %[q], %[f], %[" s7 "]\n\t" \
    "ldr %[w], [%[" r "], #16]\n\t"

/* Word 4's two products, after whatever load the caller slips in. */
#define DW3_R8_END \
    "smlabt %[a6], %[w], %[g], %[a6]\n\t" \
    "smlad %[a7], %[w], %[g], %[a7]\n\t"

#define DW3_R8_ACC(r) DW3_R8(r, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7")
#define DW3_RQ8(RQ) RQ(a0) RQ(a1) RQ(a2) RQ(a3) RQ(a4) RQ(a5) RQ(a6) RQ(a7)
#define DW3_RQ8_RIGHT(a) RT_DSP_RQ_RIGHT_ASM(#a, "b", "f", "g", "w")
#define DW3_RQ8_LEFT(a) \
    "smmlar %[" #a "], %[" #a "], %[g], %[f]\n\t" \
    "ssat %[" #a "], #8, %[" #a "]\n\t"

/* The end of a flat run's step, after its three filter rows (p a step on): the
 * requantization (its shift right, e > 0, or not at all: SMMLAR and SSAT), the eight outputs
 * at base + p shifted by `scale` (the step's outputs a word apart), and the loop back to 1
 * until p reaches end; the bias back in b. */
#define DW3_RUN_TAIL(scale) \
    "ldr %[f], %[c]\n\t" \
    "ldr %[g], %[mult]\n\t" \
    "ldr %[w], %[e]\n\t" \
    "ldr %[q], %[base]\n\t" \
    "add %[q], %[q], %[p], " scale "\n\t" \
    "cmp %[w], #0\n\t" \
    "beq 4f\n\t" \
    DW3_RQ8(DW3_RQ8_RIGHT) \
    "3:\n\t" \
    "strb %[a0], [%[q]]\n\t" \
    "strb %[a1], [%[q], #4]\n\t" \
    "strb %[a2], [%[q], #8]\n\t" \
    "strb %[a3], [%[q], #12]\n\t" \
    "strb %[a4], [%[q], #16]\n\t" \
    "strb %[a5], [%[q], #20]\n\t" \
    "strb %[a6], [%[q], #24]\n\t" \
    "strb %[a7], [%[q], #28]\n\t" \
    "ldr %[w], %[end]\n\t" \
    "ldr %[b], %[bias]\n\t" \
    "cmp %[p], %[w]\n\t" \
    "bne 1b\n\t" \
    "b 5f\n\t" \
    "4:\n\t" \
    DW3_RQ8(DW3_RQ8_LEFT) \
    "b 3b\n\t" \
    "5:"

/* A flat run's asm operands (but its pitches). */
#define DW3_RUN_OUTPUTS \
    [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [a4] "=&r"(a4), \
    [a5] "=&r"(a5), [a6] "=&r"(a6), [a7] "=&r"(a7), [f] "=&r"(f), [g] "=&r"(g), \
    [w] "=&r"(w), [q] "=&r"(q), [b] "+&r"(b), [p] "+&r"(p)
#define DW3_RUN_INPUTS \
    [f0] "m"(k.fg[0][0]), [g0] "m"(k.fg[0][1]), [f1] "m"(k.fg[1][0]), \
    [g1] "m"(k.fg[1][1]), [f2] "m"(k.fg[2][0]), [g2] "m"(k.fg[2][1]), \
    [bias] "m"(k.bias), [c] "m"(k.rq[1]), [mult] "m"(k.rq[2]), [e] "m"(k.rq[3]), \
    [base] "m"(base), [end] "m"(end)

/* Flat mode's run of one lane (and a ring row's, stride 1): steps x 8 outputs of its plane at
 * plane, output i of the long row reading halfwords i..i + 2 of its filter rows, at plane,
 * plane + d1 and plane + d2 (flat mode: lines 0..2, pw halfwords apart), into out[4 i]. One
 * asm loop: per step three filter rows (rows 1 and 2 at b, d1 and d2 on from p), the
 * requantization (its shift right, e > 0, or not at all: SMMLAR and SSAT), eight stores;
 * 125 instructions per 72 MACs. */
static RT_DSP_NOINLINE void dw3_run(const dw3_lane *l, const int16_t *plane, int32_t d1,
                                    int32_t d2, int32_t steps, int8_t *out)
{
#if defined(__OPTIMIZE__)
    const dw3_lane k = *l;   /* on the stack, with the loop's other constants */
    const int32_t r1 = 2 * d1, r2 = 2 * d2;   /* bytes */
    const int16_t *const end = plane + 8 * steps;
    /* the step's outputs at base + 2 p, p already a step on */
    const uint32_t base = (uint32_t)(uintptr_t)out - 2u * (uint32_t)(uintptr_t)plane - 32u;
    const int16_t *p = plane;
    int32_t a0, a1, a2, a3, a4, a5, a6, a7, f, g, w, q, b = k.bias;
    __asm__ volatile(
        ".p2align 2\n"   /* the loop's head, a 32-bit load, on a word */
        "1:\n\t"
        "ldr %[f], %[f0]\n\t"
        "ldr %[g], %[g0]\n\t"
        DW3_R8("p", "b", "b", "b", "b", "b", "b", "b", "b")
        "ldr %[b], %[r1]\n\t"
        DW3_R8_END
        "add %[b], %[p], %[b]\n\t"   /* filter row 1's, then row 2's, row at b */
        "ldr %[f], %[f1]\n\t"
        "ldr %[g], %[g1]\n\t"
        DW3_R8_ACC("b")
        "ldr %[b], %[r2]\n\t"
        DW3_R8_END
        "add %[b], %[p], %[b]\n\t"
        "ldr %[f], %[f2]\n\t"
        "ldr %[g], %[g2]\n\t"
        DW3_R8_ACC("b")
        DW3_R8_END
        "add %[p], %[p], #16\n\t"
        DW3_RUN_TAIL("lsl #1")
        : DW3_RUN_OUTPUTS
        : DW3_RUN_INPUTS, [r1] "m"(r1), [r2] "m"(r2)
        : "cc", "memory");
#else
    int32_t i, ky, kx;
    for (i = 0; i < 8 * steps; ++i) {
        int32_t acc = l->bias, v;
        for (ky = 0; ky < 3; ++ky) {
            const int16_t *x = plane + (ky == 0 ? 0 : ky == 1 ? d1 : d2) + i;
            const int32_t t[3] = {(int16_t)l->fg[ky][0], l->fg[ky][0] >> 16,
                                  l->fg[ky][1] >> 16};
            for (kx = 0; kx < 3; ++kx) {
                acc += x[kx] * t[kx];
            }
        }
        v = rt_dsp_smmulr(acc, l->rq[2]) + l->rq[1] + (l->rq[0] & (acc >> 31));
        out[4 * i] = rt_dsp_sat8(v >> l->rq[3]);
    }
#endif
}

/* Flat mode's filter row of eight outputs at stride 2 (taps f, g; the first touch of a sum
 * adds s): words 0..8 of the line at r (p, or b), two loads at a time, output j taking word j (its
 * first two taps) and the low half of word j + 1 (its third). */
#define DW3_S8(r, s0, s1, s2, s3, s4, s5, s6, s7) \
    "ldr %[w], [%[" r "]]\n\t" \
    "ldr %[q], [%[" r "], #4]\n\t" \
    "smlad %[a0], %[w], %[f], %[" s0 "]\n\t" \
    "smlabt %[a0], %[q], %[g], %[a0]\n\t" \
    "smlad %[a1], %[q], %[f], %[" s1 "]\n\t" \
    "ldr %[w], [%[" r "], #8]\n\t" \
    "ldr %[q], [%[" r "], #12]\n\t" \
    "smlabt %[a1], %[w], %[g], %[a1]\n\t" \
    "smlad %[a2], %[w], %[f], %[" s2 "]\n\t" \
    "smlabt %[a2], %[q], %[g], %[a2]\n\t" \
    "smlad %[a3], %[q], %[f], %[" s3 "]\n\t" \
    "ldr %[w], [%[" r "], #16]\n\t" \
    "ldr %[q], [%[" r "], #20]\n\t" \
    "smlabt %[a3], %[w], %[g], %[a3]\n\t" \
    "smlad %[a4], %[w], %[f], %[" s4 "]\n\t" \
    "smlabt %[a4], %[q], %[g], %[a4]\n\t" \
    "smlad %[a5], %[q], %[f], %[" s5 "]\n\t" \
    "ldr %[w], [%[" r "], #24]\n\t" \
    "ldr %[q], [%[" r "], #28]\n\t" \
    "smlabt %[a5], %[w], %[g], %[a5]\n\t" \
    "smlad %[a6], %[w], %[f], %[" s6 "]\n\t" \
    "smlabt %[a6], %[q], %[g], %[a6]\n\t" \
    "smlad %[a7], %[q], %[f], %[" s7 "]\n\t" \
    "ldr %[w], [%[" r "], #32]\n\t"

/* Word 8's product, after whatever load the caller slips in. */
#define DW3_S8_END "smlabt %[a7], %[w], %[g], %[a7]\n\t"
#define DW3_S8_ACC(r) DW3_S8(r, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7")

/* dw3_run at stride 2 (flat mode's, rt_dsp_dw3_flat2_pw, and a ring row's): output i of the
 * long row reads halfwords 2 i..2 i + 2 of its filter rows, at plane, plane + d1 and plane +
 * d2 (flat mode: the even lines, the odd ones, the even ones a line on). The same loop with
 * rows of nine words (DW3_S8): 137 instructions per 72 MACs. */
static RT_DSP_NOINLINE __attribute__((unused)) void dw3_run2(const dw3_lane *l,
                                                             const int16_t *plane, int32_t d1,
                                                             int32_t d2, int32_t steps,
                                                             int8_t *out)
{
#if defined(__OPTIMIZE__)
    const dw3_lane k = *l;   /* on the stack, with the loop's other constants */
    const int32_t r1 = 2 * d1, r2 = 2 * d2;   /* bytes */
    const int16_t *const end = plane + 16 * steps;
    /* the step's outputs at base + p, p already a step on */
    const uint32_t base = (uint32_t)(uintptr_t)out - (uint32_t)(uintptr_t)plane - 32u;
    const int16_t *p = plane;
    int32_t a0, a1, a2, a3, a4, a5, a6, a7, f, g, w, q, b = k.bias;
    __asm__ volatile(
        ".p2align 2\n"   /* the loop's head, a 32-bit load, on a word */
        "1:\n\t"
        "ldr %[f], %[f0]\n\t"
        "ldr %[g], %[g0]\n\t"
        DW3_S8("p", "b", "b", "b", "b", "b", "b", "b", "b")
        "ldr %[b], %[r1]\n\t"
        DW3_S8_END
        "add %[b], %[p], %[b]\n\t"   /* filter row 1's, then row 2's, row at b */
        "ldr %[f], %[f1]\n\t"
        "ldr %[g], %[g1]\n\t"
        DW3_S8_ACC("b")
        "ldr %[b], %[r2]\n\t"
        DW3_S8_END
        "add %[b], %[p], %[b]\n\t"
        "ldr %[f], %[f2]\n\t"
        "ldr %[g], %[g2]\n\t"
        DW3_S8_ACC("b")
        DW3_S8_END
        "add %[p], %[p], #32\n\t"
        DW3_RUN_TAIL("lsl #0")
        : DW3_RUN_OUTPUTS
        : DW3_RUN_INPUTS, [r1] "m"(r1), [r2] "m"(r2)
        : "cc", "memory");
#else
    int32_t i, ky, kx;
    for (i = 0; i < 8 * steps; ++i) {
        int32_t acc = l->bias, v;
        for (ky = 0; ky < 3; ++ky) {
            const int16_t *x = plane + (ky == 0 ? 0 : ky == 1 ? d1 : d2) + 2 * i;
            const int32_t t[3] = {(int16_t)l->fg[ky][0], l->fg[ky][0] >> 16,
                                  l->fg[ky][1] >> 16};
            for (kx = 0; kx < 3; ++kx) {
                acc += x[kx] * t[kx];
            }
        }
        v = rt_dsp_smmulr(acc, l->rq[2]) + l->rq[1] + (l->rq[0] & (acc >> 31));
        out[4 * i] = rt_dsp_sat8(v >> l->rq[3]);
    }
#endif
}

/* n words a word apart from f to d, step bytes apart: four a turn, loaded together. */
static void dw3_copy(int8_t *d, int32_t step, const int8_t *f, int32_t n)
{
#if defined(__OPTIMIZE__)
    if (n >= 4) {
        const int8_t *const end = f + 4 * (n & ~3);
        int32_t u, v, x, y;
        __asm__ volatile(
            "1:\n\t"
            "ldr %[u], [%[f]]\n\t"
            "ldr %[v], [%[f], #4]\n\t"
            "ldr %[x], [%[f], #8]\n\t"
            "ldr %[y], [%[f], #12]\n\t"
            "adds %[f], %[f], #16\n\t"
            "str %[u], [%[d]]\n\t"
            "str %[v], [%[d], %[s]]\n\t"
            "add %[d], %[d], %[s], lsl #1\n\t"
            "cmp %[f], %[end]\n\t"
            "str %[x], [%[d]]\n\t"
            "str %[y], [%[d], %[s]]\n\t"
            "add %[d], %[d], %[s], lsl #1\n\t"
            "bne 1b"
            : [u] "=&r"(u), [v] "=&r"(v), [x] "=&r"(x), [y] "=&r"(y), [f] "+r"(f), [d] "+r"(d)
            : [s] "r"(step), [end] "r"(end)
            : "cc", "memory");
        n &= 3;
    }
#endif
    for (; n > 0; --n, f += 4, d += step) {
        __builtin_memcpy(d, f, 4);
    }
}

/* Flat mode: lane j's padded plane whole at planes + j * DW3_FLAT, lines of pw halfwords
 * (line r: input column r - pad_w of a tall map, else input row r - pad_h), so that output
 * (line, x) is output line * pw + x of one long row whose filter rows are pw and 2 pw on: one
 * run of eight-output steps a lane (the outputs past a line's end come out as bytes nobody
 * reads), into flat, a pixel's lanes a word, then the valid outputs copied out. */
static void dw3_flat(const dw3_ctx *c, const int8_t *in, const int8_t *w, int32_t oc,
                     int32_t lanes, int8_t *out, int16_t *planes, int8_t *flat)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t tall = rt_dsp_dw3_tall(&c->g), cin = c->g.cin, cout = c->g.cout, pw = c->pw;
    const int32_t row = c->g.w * cin, orow = c->g.ow * cout;
    /* a line's inputs: their count, step, padding; the lines' count, step, padding */
    const int32_t n_in = tall ? c->g.h : c->g.w, step = tall ? row : cin;
    const int32_t pad = tall ? p->pad_h : p->pad_w;
    const int32_t lines = tall ? c->g.w : c->g.h, lstep = tall ? cin : row;
    const int32_t lpad = tall ? p->pad_w : p->pad_h;
    /* the output lines: their count and length, and the steps down and along them */
    const int32_t olines = tall ? c->g.ow : c->g.oh, olen = tall ? c->g.oh : c->g.ow;
    const int32_t ol = tall ? cout : orow, oe = tall ? orow : cout;
    dw3_lane l[DW3_LANES];
    int32_t n, i, j, x;
    dw3_setup(c, w, oc, lanes, l);
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * c->g.h * row + oc;
        int8_t *o = out + n * c->g.oh * orow + oc;
        dw3_widen(c, img, step, n_in, pad, lines, lstep, lanes, planes + lpad * pw, DW3_FLAT);
        for (j = 0; j < lanes; ++j) {
            dw3_run(&l[j], planes + j * DW3_FLAT, pw, 2 * pw, c->steps, flat + j);
        }
        for (i = 0; i < olines; ++i) {
            const int8_t *f = flat + i * pw * DW3_LANES;
            int8_t *d = o + i * ol;
            if (lanes == DW3_LANES) {
                dw3_copy(d, oe, f, olen);
            } else {
                for (x = 0; x < olen; ++x, f += DW3_LANES, d += oe) {
                    for (j = 0; j < lanes; ++j) {
                        d[j] = f[j];
                    }
                }
            }
        }
    }
}

/* Flat mode at stride 2 (rt_dsp_dw3_flat2_pw): lane j's plane at planes + j * DW3_FLAT, the
 * padded input rows of even index (row 0 the first padding row) in lines 0..oh, the odd
 * ones' in lines from halfword odd on, lines of pw halfwords; one run of eight-output steps a
 * lane (dw3_run2; the output past each line's end comes out as a byte nobody reads) into
 * flat, a pixel's lanes a word, then the valid outputs copied out. */
static __attribute__((unused)) void dw3_flat2(const dw3_ctx *c, const int8_t *in,
                                              const int8_t *w, int32_t oc, int32_t lanes,
                                              int8_t *out, int16_t *planes, int8_t *flat)
{
    const rt_conv_s8_params *p = c->p;
    const int32_t cin = c->g.cin, cout = c->g.cout, pw = c->pw, h = c->g.h, ow = c->g.ow;
    const int32_t row = c->g.w * cin, orow = ow * cout, odd = rt_dsp_dw3_flat2_odd(&c->g);
    const int32_t n_in = c->g.w < pw - p->pad_w ? c->g.w : pw - p->pad_w;
    /* the last input row an output reads */
    const int32_t last = 2 * c->g.oh - p->pad_h < h - 1 ? 2 * c->g.oh - p->pad_h : h - 1;
    dw3_lane l[DW3_LANES];
    int32_t n, i, j, x, k;
    dw3_setup(c, w, oc, lanes, l);
    for (n = 0; n < c->g.n; ++n) {
        const int8_t *img = in + n * h * row + oc;
        int8_t *o = out + n * c->g.oh * orow + oc;
        for (k = 0; k < 2; ++k) {   /* the even padded rows, then the odd ones */
            const int32_t r0 = (p->pad_h + k) % 2;   /* the first input row of the kind */
            if (r0 <= last) {
                dw3_widen(c, img + r0 * row, cin, n_in, p->pad_w, (last - r0) / 2 + 1, 2 * row,
                          lanes, planes + k * odd + (r0 + p->pad_h) / 2 * pw, DW3_FLAT);
            }
        }
        for (j = 0; j < lanes; ++j) {
            dw3_run2(&l[j], planes + j * DW3_FLAT, odd, pw, c->steps, flat + j);
        }
        for (i = 0; i < c->g.oh; ++i) {
            const int8_t *f = flat + i * (pw / 2) * DW3_LANES;
            int8_t *d = o + i * orow;
            if (lanes == DW3_LANES) {
                dw3_copy(d, cout, f, ow);
            } else {
                for (x = 0; x < ow; ++x, f += DW3_LANES, d += cout) {
                    for (j = 0; j < lanes; ++j) {
                        d[j] = f[j];
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
    c.pw = rt_dsp_dw3_flat_pw(&c.g, p);
    c.flat = c.pw != 0;
    c.steps = c.flat ? rt_dsp_dw3_flat_steps(&c.g, p, c.pw) : (c.g.ow + 3) / 4;
    c.tall = c.flat && p->stride_w == 1 && rt_dsp_dw3_tall(&c.g);
    c.pw = c.flat ? c.pw : (4 * c.steps * p->stride_w + 3) & ~1;
    if (!rt_dsp_dw3_takes(&c.g, p, bias)) {   /* (always, in a build without the planes) */
        return rt_depthwise_conv2d_s8(p, in_s, in, w_s, w, b_s, bias, out_s, out);
    }
    {
        int16_t planes[DW3_PLANES] __attribute__((aligned(4)));
        /* flat mode's outputs (and ring rows' eight-output steps'), a pixel's lanes a word */
        int8_t flat[DW3_LANES * DW3_FLAT] __attribute__((aligned(4)));
        int32_t i;
        for (i = 0; i < DW3_PLANES; i += 2) {
            planes[i] = planes[i + 1] = 0;
        }
        for (oc = 0; oc < c.g.cout; oc += DW3_LANES) {
            const int32_t lanes = c.g.cout - oc < DW3_LANES ? c.g.cout - oc : DW3_LANES;
            if (RT_DSP_HAS(RT_DSP_U_DW3_ROWS) && c.flat && p->stride_w == 2) {
                dw3_flat2(&c, in, w, oc, lanes, out, planes, flat);
            } else if (c.flat || !RT_DSP_HAS(RT_DSP_U_DW3_ROWS)) {   /* (no rings: flat) */
                dw3_flat(&c, in, w, oc, lanes, out, planes, flat);
            } else {
                dw3_channels(&c, in, w, oc, lanes, out, planes, flat);
            }
        }
    }
    return RT_OK;
}
