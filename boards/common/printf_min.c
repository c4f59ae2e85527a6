/* A small printf: see printf_min.h for what it supports.
 *
 * Floats are printed from their exact decimal expansion: a float is M * 2^E with M < 2^24, so
 * it equals N * 10^min(E, 0) with N = M * 2^E or M * 5^-E, an integer of at most 113 digits
 * that a few base-1e9 limbs hold. Those digits are then rounded half-to-even, which is what
 * glibc does, so both print the same text.
 */
#include "printf_min.h"

#include <stdint.h>

#include "platform.h"

/* Where characters go: a caller's buffer (snprintf) or a local one flushed to the console. */
struct sink {
    char *buf;
    size_t cap;   /* characters buf holds, not counting the NUL */
    size_t len;   /* characters stored so far */
    size_t total; /* characters produced, stored or not */
    int flush;    /* nonzero: write buf to plat_puts whenever it fills */
};

static void put(struct sink *s, char c)
{
    s->total++;
    if (s->len < s->cap) s->buf[s->len++] = c;
    if (s->flush && s->len == s->cap) {
        s->buf[s->len] = '\0';
        plat_puts(s->buf);
        s->len = 0;
    }
}

static void repeat(struct sink *s, char c, int n)
{
    while (n-- > 0) put(s, c);
}

static void put_n(struct sink *s, const char *p, int n)
{
    while (n-- > 0) put(s, *p++);
}

struct spec {
    int left, plus, space, zero; /* flags - + space 0 */
    int width;
    int prec; /* -1: none given */
};

/* One field: prefix (sign, 0x), then zero fill, then body, padded to the width. */
static void field(struct sink *s, const struct spec *sp, const char *prefix, int zeros,
                  const char *body, int body_len)
{
    int plen = 0;
    while (prefix[plen]) plen++;
    int pad = sp->width - (plen + zeros + body_len);
    if (pad < 0) pad = 0;
    if (sp->zero && !sp->left) {
        zeros += pad;
        pad = 0;
    }
    if (!sp->left) repeat(s, ' ', pad);
    put_n(s, prefix, plen);
    repeat(s, '0', zeros);
    put_n(s, body, body_len);
    if (sp->left) repeat(s, ' ', pad);
}

static const char *sign_prefix(const struct spec *sp, int neg)
{
    return neg ? "-" : sp->plus ? "+" : sp->space ? " " : "";
}

static void fmt_int(struct sink *s, struct spec sp, uint64_t v, int neg, unsigned base,
                    int upper, const char *prefix)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[24];
    int n = 0;
    while (v) {
        buf[sizeof buf - 1 - n++] = digits[v % base];
        v /= base;
    }
    int min_digits = sp.prec < 0 ? 1 : sp.prec;
    if (sp.prec >= 0) sp.zero = 0; /* C: the 0 flag is ignored when a precision is given */
    int zeros = min_digits > n ? min_digits - n : 0;
    field(s, &sp, *prefix ? prefix : sign_prefix(&sp, neg), zeros, buf + sizeof buf - n, n);
}

/* ---- floats ---- */

#define LIMBS 14 /* 14 * 9 digits > the 113 digits of 2^24 * 5^149 */
#define BASE 1000000000u

/* Multiply the base-1e9 number limb[0..*n) by mul (mul < 2^32). */
static void big_mul(uint32_t *limb, int *n, uint32_t mul)
{
    uint64_t carry = 0;
    for (int i = 0; i < *n; i++) {
        uint64_t t = (uint64_t)limb[i] * mul + carry;
        limb[i] = (uint32_t)(t % BASE);
        carry = t / BASE;
    }
    while (carry) {
        limb[(*n)++] = (uint32_t)(carry % BASE);
        carry /= BASE;
    }
}

/* Exact decimal digits of a finite float |f| > 0 into d (no leading zeros); returns the
 * number of digits and sets *exp10 so that |f| = 0.d[0]d[1]... * 10^*exp10. */
static int float_digits(float f, char *d, int *exp10)
{
    union { float f; uint32_t u; } bits = {f};
    uint32_t e = (bits.u >> 23) & 0xffu, m = bits.u & 0x7fffffu;
    int E = e ? (int)e - 150 : -149;
    if (e) m |= 0x800000u;

    uint32_t limb[LIMBS] = {m};
    int n = 1;
    int count = E >= 0 ? E : -E;
    while (count > 0) { /* times 2^E or 5^-E, in chunks that fit a 32-bit multiplier */
        int k = count > 13 ? 13 : count;
        uint32_t mul = 1;
        for (int i = 0; i < k; i++) mul *= E >= 0 ? 2u : 5u;
        big_mul(limb, &n, mul);
        count -= k;
    }

    int nd = 0;
    for (int i = n - 1; i >= 0; i--) {
        char tmp[9];
        uint32_t v = limb[i];
        for (int j = 8; j >= 0; j--) {
            tmp[j] = (char)('0' + v % 10);
            v /= 10;
        }
        int j = 0;
        if (i == n - 1)
            while (j < 8 && tmp[j] == '0') j++; /* no leading zeros in the top limb */
        while (j < 9) d[nd++] = tmp[j++];
    }
    *exp10 = nd + (E < 0 ? E : 0);
    return nd;
}

/* Keep `keep` significant digits of d[0..nd), rounding half-to-even. Returns the new digit
 * count; *x (the decimal exponent of d[0]) grows by one when the rounding carries out. */
static int round_digits(char *d, int nd, int keep, int *x)
{
    if (keep >= nd) return nd;
    if (keep < 0) return 0;
    int up = d[keep] > '5';
    if (d[keep] == '5') {
        for (int i = keep + 1; i < nd; i++) up |= d[i] != '0';
        if (!up) up = keep > 0 && ((d[keep - 1] - '0') & 1); /* a tie: round to even */
    }
    if (!up) return keep;
    int i = keep - 1;
    while (i >= 0 && d[i] == '9') d[i--] = '0';
    if (i >= 0) {
        d[i]++;
        return keep;
    }
    d[0] = '1'; /* 99.9 -> 100: one more digit before the point */
    (*x)++;
    return keep > 0 ? keep : 1;
}

/* The digit standing for 10^pos, given digits d[0..nd) with d[0] at 10^x. */
static char digit_at(const char *d, int nd, int x, int pos)
{
    int i = x - pos;
    return i >= 0 && i < nd ? d[i] : '0';
}

static void fmt_float(struct sink *s, struct spec sp, double arg, char conv)
{
    float f = (float)arg;
    union { float f; uint32_t u; } bits = {f};
    int neg = (int)(bits.u >> 31);
    int upper = conv == 'E' || conv == 'F' || conv == 'G';
    char lower = (char)(upper ? conv + ('a' - 'A') : conv);
    const char *prefix = sign_prefix(&sp, neg);
    if (((bits.u >> 23) & 0xffu) == 0xffu) { /* inf or nan */
        sp.zero = 0;
        const char *txt = (bits.u & 0x7fffffu) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
        field(s, &sp, prefix, 0, txt, 3);
        return;
    }

    char d[120];
    int x = 0, nd = 0;
    if (bits.u & 0x7fffffffu) {
        nd = float_digits(f, d, &x);
        x -= 1; /* now d[0] stands for 10^x */
    }
    int prec = sp.prec < 0 ? 6 : sp.prec;
    int exp_style = lower == 'e', strip = 0;
    if (lower == 'g') {
        int p = prec ? prec : 1, gx = x;
        char probe[120]; /* round a copy only to learn the exponent after rounding */
        for (int i = 0; i < nd; i++) probe[i] = d[i];
        if (round_digits(probe, nd, p, &gx) == 0) gx = 0;
        exp_style = !(p > gx && gx >= -4);
        prec = exp_style ? p - 1 : p - 1 - gx;
        strip = 1;
    }
    if (prec > 110) prec = 110; /* body[] holds 39 integer digits and 110 decimals */

    char body[160];
    int n = 0;
    if (exp_style) {
        nd = round_digits(d, nd, prec + 1, &x);
        if (nd == 0) x = 0;
        body[n++] = digit_at(d, nd, x, x);
        body[n++] = '.';
        for (int i = 1; i <= prec; i++) body[n++] = digit_at(d, nd, x, x - i);
    } else {
        nd = round_digits(d, nd, x + 1 + prec, &x);
        if (nd == 0) x = 0;
        for (int pos = x > 0 ? x : 0; pos >= 0; pos--) body[n++] = digit_at(d, nd, x, pos);
        body[n++] = '.';
        for (int i = 1; i <= prec; i++) body[n++] = digit_at(d, nd, x, -i);
    }
    if (strip)
        while (body[n - 1] == '0') n--;
    if (body[n - 1] == '.') n--;
    if (exp_style) {
        int ax = x < 0 ? -x : x;
        body[n++] = upper ? 'E' : 'e';
        body[n++] = x < 0 ? '-' : '+';
        if (ax >= 100) body[n++] = (char)('0' + ax / 100);
        body[n++] = (char)('0' + ax / 10 % 10);
        body[n++] = (char)('0' + ax % 10);
    }
    field(s, &sp, prefix, 0, body, n);
}

/* ---- the format loop ---- */

static int parse_num(const char **p)
{
    int v = 0;
    while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
    return v;
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put(s, *p);
            continue;
        }
        struct spec sp = {0, 0, 0, 0, 0, -1};
        for (;; p++) {
            char c = p[1];
            if (c == '-') sp.left = 1;
            else if (c == '+') sp.plus = 1;
            else if (c == ' ') sp.space = 1;
            else if (c == '0') sp.zero = 1;
            else break;
        }
        p++;
        if (*p == '*') {
            sp.width = va_arg(ap, int);
            if (sp.width < 0) {
                sp.left = 1;
                sp.width = -sp.width;
            }
            p++;
        } else {
            sp.width = parse_num(&p);
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                sp.prec = va_arg(ap, int);
                if (sp.prec < 0) sp.prec = -1;
                p++;
            } else {
                sp.prec = parse_num(&p);
            }
        }
        int longs = 0; /* 0: int, 1: long, 2: long long, 3: size_t/ptrdiff_t, 4: intmax_t */
        while (*p == 'h' || *p == 'l' || *p == 'z' || *p == 't' || *p == 'j') {
            if (*p == 'l') longs++;
            else if (*p != 'h') longs = *p == 'j' ? 4 : 3;
            p++;
        }
        char c = *p;
        if (c == 'd' || c == 'i') {
            int64_t v = longs == 0 ? va_arg(ap, int)
                        : longs == 1 ? va_arg(ap, long)
                        : longs == 2 ? va_arg(ap, long long)
                        : longs == 3 ? va_arg(ap, ptrdiff_t)
                                     : va_arg(ap, intmax_t);
            uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            fmt_int(s, sp, mag, v < 0, 10, 0, "");
        } else if (c == 'u' || c == 'x' || c == 'X' || c == 'o') {
            uint64_t v = longs == 0 ? va_arg(ap, unsigned)
                         : longs == 1 ? va_arg(ap, unsigned long)
                         : longs == 2 ? va_arg(ap, unsigned long long)
                         : longs == 3 ? va_arg(ap, size_t)
                                      : va_arg(ap, uintmax_t);
            sp.plus = sp.space = 0;
            fmt_int(s, sp, v, 0, c == 'u' ? 10 : c == 'o' ? 8 : 16, c == 'X', "");
        } else if (c == 'p') {
            sp.plus = sp.space = 0;
            fmt_int(s, sp, (uintptr_t)va_arg(ap, void *), 0, 16, 0, "0x");
        } else if (c == 'c') {
            char ch = (char)va_arg(ap, int);
            sp.zero = 0;
            field(s, &sp, "", 0, &ch, 1);
        } else if (c == 's') {
            const char *str = va_arg(ap, const char *);
            if (!str) str = "(null)";
            int n = 0;
            while (str[n] && (sp.prec < 0 || n < sp.prec)) n++;
            sp.zero = 0;
            field(s, &sp, "", 0, str, n);
        } else if (c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' || c == 'G') {
            fmt_float(s, sp, va_arg(ap, double), c);
        } else if (c == '%') {
            put(s, '%');
        } else { /* unknown conversion: print it as is */
            put(s, '%');
            if (!c) break;
            put(s, c);
        }
    }
}

int mini_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct sink s = {buf, size ? size - 1 : 0, 0, 0, 0};
    format(&s, fmt, ap);
    if (size) buf[s.len] = '\0';
    return (int)s.total;
}

int mini_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = mini_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

int mini_printf(const char *fmt, ...)
{
    char buf[128];
    struct sink s = {buf, sizeof buf - 1, 0, 0, 1};
    va_list ap;
    va_start(ap, fmt);
    format(&s, fmt, ap);
    va_end(ap);
    if (s.len) {
        buf[s.len] = '\0';
        plat_puts(buf);
    }
    return (int)s.total;
}
