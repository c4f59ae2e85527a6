/* demo.c - "DemoBackend": runs a tiny elementwise program, one element at a time.
 *
 * The delegate blob (made by aot/backends/demo.py) is ASCII, whitespace-separated:
 *
 *   demo 1 <n_inputs> <n_outputs> <numel>
 *   sin <d> <a>            r[d] = sin(r[a])
 *   add <d> <a> <b>        r[d] = r[a] + r[b]
 *   mul <d> <a> <b>        r[d] = r[a] * r[b]
 *   addc <d> <a> <bits>    r[d] = r[a] + c   (c: the float32 with these 8 hex digits)
 *   mulc <d> <a> <bits>    r[d] = r[a] * c
 *   ret <r> ...            output k is r[<r>] (n_outputs registers)
 *
 * Registers 0..n_inputs-1 hold element i of each input; instruction j writes register
 * n_inputs + j. Every tensor is float32 with <numel> elements. Each element goes through the
 * whole program in registers, so no intermediate tensor is ever stored.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memcpy */

#include "rt_backend.h"
#include "rt_check.h"

#define DEMO_MAX_REGS 32
#define DEMO_WORD 12

/* The blob is data: its checks stay in every build (RT_CHECK may be compiled out). */
#define DEMO_NEED(cond, status) RT_CHECK_DATA(cond, status)

enum { DEMO_SIN, DEMO_ADD, DEMO_MUL, DEMO_ADDC, DEMO_MULC };

typedef struct demo_instr {
    int32_t op;
    int32_t a;
    int32_t b;
    float c;
} demo_instr;

typedef struct demo_prog {
    int32_t n_in;
    int32_t n_out;
    int32_t numel;
    int32_t n_instr;
    demo_instr code[DEMO_MAX_REGS];
    int32_t ret[DEMO_MAX_REGS];
} demo_prog;

typedef struct demo_reader {
    const uint8_t *p;
    const uint8_t *end;
} demo_reader;

static int demo_is_space(uint8_t ch)
{
    return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
}

/* The next whitespace-separated word into buf (NUL-terminated); 0 at the end or if too long. */
static int demo_word(demo_reader *r, char *buf)
{
    size_t n = 0;
    while (r->p < r->end && demo_is_space(*r->p)) {
        r->p++;
    }
    while (r->p < r->end && !demo_is_space(*r->p)) {
        if (n + 1 >= DEMO_WORD) {
            return 0;
        }
        buf[n++] = (char)*r->p++;
    }
    buf[n] = '\0';
    return n > 0;
}

/* A decimal number below `limit`, or -1. */
static int32_t demo_int(demo_reader *r, int32_t limit)
{
    char w[DEMO_WORD];
    int32_t v = 0;
    const char *q;
    if (!demo_word(r, w)) {
        return -1;
    }
    for (q = w; *q != '\0'; ++q) {
        if (*q < '0' || *q > '9' || v > (limit - (*q - '0')) / 10) {
            return -1;
        }
        v = v * 10 + (*q - '0');
    }
    return v < limit ? v : -1;
}

/* Eight hex digits: the bits of a float32. */
static int demo_float(demo_reader *r, float *out)
{
    char w[DEMO_WORD];
    uint32_t bits = 0;
    size_t i;
    if (!demo_word(r, w)) {
        return 0;
    }
    for (i = 0; i < 8; ++i) { /* exactly 8 digits: a NUL before the 8th fails below */
        char ch = w[i];
        uint32_t d;
        if (ch >= '0' && ch <= '9') {
            d = (uint32_t)(ch - '0');
        } else if (ch >= 'a' && ch <= 'f') {
            d = (uint32_t)(ch - 'a' + 10);
        } else {
            return 0;
        }
        bits = (bits << 4) | d;
    }
    if (w[8] != '\0') {
        return 0;
    }
    memcpy(out, &bits, sizeof bits);
    return 1;
}

static rt_status demo_parse(const rt_delegate *d, demo_prog *prog)
{
    demo_reader r;
    char w[DEMO_WORD];
    int32_t k;
    DEMO_NEED(d != NULL && d->processed != NULL, RT_ERR_NULL);
    r.p = d->processed;
    r.end = d->processed + d->processed_size;
    DEMO_NEED(demo_word(&r, w) && rt_str_equal(w, "demo"), RT_ERR_PARAM);
    DEMO_NEED(demo_int(&r, 2) == 1, RT_ERR_PARAM);
    prog->n_in = demo_int(&r, DEMO_MAX_REGS);
    prog->n_out = demo_int(&r, DEMO_MAX_REGS);
    prog->numel = demo_int(&r, INT32_MAX);
    DEMO_NEED(prog->n_in >= 0 && prog->n_out > 0 && prog->numel >= 0, RT_ERR_PARAM);
    DEMO_NEED(prog->n_in == d->n_inputs && prog->n_out == d->n_outputs, RT_ERR_PARAM);
    prog->n_instr = 0;
    for (;;) {
        int32_t regs = prog->n_in + prog->n_instr;
        demo_instr *in;
        DEMO_NEED(demo_word(&r, w), RT_ERR_PARAM);
        if (rt_str_equal(w, "ret")) {
            break;
        }
        DEMO_NEED(regs < DEMO_MAX_REGS, RT_ERR_PARAM);
        in = &prog->code[prog->n_instr];
        if (rt_str_equal(w, "sin")) {
            in->op = DEMO_SIN;
        } else if (rt_str_equal(w, "add")) {
            in->op = DEMO_ADD;
        } else if (rt_str_equal(w, "mul")) {
            in->op = DEMO_MUL;
        } else if (rt_str_equal(w, "addc")) {
            in->op = DEMO_ADDC;
        } else if (rt_str_equal(w, "mulc")) {
            in->op = DEMO_MULC;
        } else {
            return RT_ERR_PARAM;
        }
        DEMO_NEED(demo_int(&r, DEMO_MAX_REGS) == regs, RT_ERR_PARAM); /* writes the next one */
        in->a = demo_int(&r, regs);
        in->b = 0;
        in->c = 0.0f;
        DEMO_NEED(in->a >= 0, RT_ERR_PARAM);
        if (in->op == DEMO_ADD || in->op == DEMO_MUL) {
            in->b = demo_int(&r, regs);
            DEMO_NEED(in->b >= 0, RT_ERR_PARAM);
        } else if (in->op == DEMO_ADDC || in->op == DEMO_MULC) {
            DEMO_NEED(demo_float(&r, &in->c), RT_ERR_PARAM);
        }
        prog->n_instr++;
    }
    for (k = 0; k < prog->n_out; ++k) {
        prog->ret[k] = demo_int(&r, prog->n_in + prog->n_instr);
        DEMO_NEED(prog->ret[k] >= 0, RT_ERR_PARAM);
    }
    DEMO_NEED(!demo_word(&r, w), RT_ERR_PARAM); /* nothing after ret */
    return RT_OK;
}

/* sin in float32 without libm: reduce to [-pi/4, pi/4] by multiples of pi/2 (two-part
 * constant), then a Taylor polynomial of sin or cos. Error about 1e-7 for |x| < 1e5. */
static float demo_sin(float x)
{
    float k, r, r2, s;
    int32_t q;
    if (!(x > -1.0e5f && x < 1.0e5f)) {
        return x != x ? x : x - x; /* NaN stays NaN; huge or infinite: NaN (demo range) */
    }
    k = x * 0.636619772f;
    q = (int32_t)(k >= 0.0f ? k + 0.5f : k - 0.5f);
    k = (float)q;
    r = (x - k * 1.57079625129699707031f) - k * 7.54978995489188216e-8f;
    r2 = r * r;
    if ((q & 1) == 0) {
        s = r + r * r2 * (-1.0f / 6.0f + r2 * (1.0f / 120.0f + r2 * (-1.0f / 5040.0f +
                                                                      r2 * (1.0f / 362880.0f))));
    } else {
        s = 1.0f + r2 * (-0.5f + r2 * (1.0f / 24.0f + r2 * (-1.0f / 720.0f +
                                                            r2 * (1.0f / 40320.0f))));
    }
    return (q & 2) ? -s : s;
}

rt_status rt_demo_init(const rt_delegate *delegate)
{
    demo_prog prog;
    return demo_parse(delegate, &prog);
}

rt_status rt_demo_execute(const rt_delegate *delegate, const rt_tensor *inputs,
                          const rt_tensor *outputs)
{
    demo_prog prog;
    float r[DEMO_MAX_REGS];
    int32_t i, j, k;
    RT_TRY(demo_parse(delegate, &prog));
    RT_CHECK(inputs != NULL || prog.n_in == 0, RT_ERR_NULL);
    RT_CHECK(outputs != NULL, RT_ERR_NULL);
    for (k = 0; k < prog.n_in + prog.n_out; ++k) {
        const rt_tensor *t = k < prog.n_in ? &inputs[k] : &outputs[k - prog.n_in];
        int32_t n = 1, dim;
        RT_CHECK(t->data != NULL && t->shape != NULL, RT_ERR_NULL);
        RT_CHECK(t->dtype == RT_DTYPE_F32, RT_ERR_PARAM);
        for (dim = 0; dim < t->shape->rank; ++dim) {
            n *= t->shape->d[dim];
        }
        RT_CHECK(n == prog.numel, RT_ERR_SHAPE);
    }
    for (i = 0; i < prog.numel; ++i) {
        for (k = 0; k < prog.n_in; ++k) {
            r[k] = ((const float *)inputs[k].data)[i];
        }
        for (j = 0; j < prog.n_instr; ++j) {
            const demo_instr *in = &prog.code[j];
            float v;
            switch (in->op) {
            case DEMO_SIN:
                v = demo_sin(r[in->a]);
                break;
            case DEMO_ADD:
                v = r[in->a] + r[in->b];
                break;
            case DEMO_MUL:
                v = r[in->a] * r[in->b];
                break;
            case DEMO_ADDC:
                v = r[in->a] + in->c;
                break;
            default:
                v = r[in->a] * in->c;
                break;
            }
            r[prog.n_in + j] = v;
        }
        for (k = 0; k < prog.n_out; ++k) {
            ((float *)outputs[k].data)[i] = r[prog.ret[k]];
        }
    }
    return RT_OK;
}

const rt_backend rt_backend_demo = {"DemoBackend", rt_demo_init, rt_demo_execute};
