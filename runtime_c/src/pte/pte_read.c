/* pte_read.c - checked reads of a flatbuffer (see pte_read.h): what the loader, the delegate
 * calls and the fused epilogues read through while a file is not yet known good.
 */
#include "pte_internal.h"

PTE_FOR_SIZE

/* 1 if [pos, pos + len) lies in the buffer (and reading is still allowed). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int rt_rd_has(rt_rd *r, uint32_t pos, uint32_t len)
{
    if (r->err != RT_OK) {
        return 0;
    }
    if (pos > r->n || r->n - pos < len) {
        rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
        return 0;
    }
    return 1;
}

uint32_t rt_rd_u8(rt_rd *r, uint32_t pos)
{
    return rt_rd_has(r, pos, 1) ? r->b[pos] : 0u;
}

uint32_t rt_rd_u16(rt_rd *r, uint32_t pos)
{
    return rt_rd_has(r, pos, 2) ? (uint32_t)r->b[pos] | ((uint32_t)r->b[pos + 1] << 8) : 0u;
}

uint32_t rt_rd_u32(rt_rd *r, uint32_t pos)
{
    uint32_t v = 0;
    if (rt_rd_has(r, pos, 4)) {
        __builtin_memcpy(&v, r->b + pos, 4); /* little-endian targets (Arm, RISC-V, x86) */
    }
    return v;
}

uint64_t rt_rd_u64(rt_rd *r, uint32_t pos)
{
    uint64_t v = 0;
    if (rt_rd_has(r, pos, 8)) {
        __builtin_memcpy(&v, r->b + pos, 8);
    }
    return v;
}

uint32_t rt_rd_ref(rt_rd *r, uint32_t pos)
{
    uint32_t off = rt_rd_u32(r, pos);
    if (r->err != RT_OK) {
        return 0;
    }
    if (off == 0 || off > r->n - pos) {
        rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
        return 0;
    }
    return pos + off;
}

/* Look up the vtable of the table at `t` (once per table: see rt_rd.tab). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int rt_rd_table(rt_rd *r, uint32_t t)
{
    uint32_t soff, vt, vt_size, t_size;
    int32_t s;
    if (t == 0) { /* a table that is not there */
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    soff = rt_rd_u32(r, t);
    s = (int32_t)soff;
    if (r->err != RT_OK) {
        return 0;
    }
    /* vtable = table - soffset, inside the buffer */
    if ((s > 0 && (uint32_t)s > t) || (s < 0 && (uint32_t)(-(int64_t)s) > r->n - t)) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    vt = (uint32_t)((int64_t)t - s);
    vt_size = rt_rd_u16(r, vt);
    t_size = rt_rd_u16(r, vt + 2);
    if (r->err != RT_OK || vt_size < 4 || (vt_size & 1u) || t_size < 4) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    if (!rt_rd_has(r, vt, vt_size) || !rt_rd_has(r, t, t_size)) {
        return 0;
    }
    r->tab = t;
    r->vt = vt;
    r->vt_size = vt_size;
    r->tab_size = t_size;
    return 1;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
uint32_t rt_rd_field(rt_rd *r, uint32_t t, uint32_t f)
{
    uint32_t fo, at;
    if (r->err != RT_OK || (t != r->tab && !rt_rd_table(r, t))) {
        return 0;
    }
    at = 4u + 2u * f;
    if (at + 2u > r->vt_size) {
        return 0;
    }
    at += r->vt; /* inside the vtable, which rt_rd_table checked */
    fo = (uint32_t)r->b[at] | ((uint32_t)r->b[at + 1] << 8);
    if (fo == 0) {
        return 0;
    }
    if (fo >= r->tab_size) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return 0;
    }
    return t + fo;
}

uint32_t rt_rd_fu8(rt_rd *r, uint32_t t, uint32_t f, uint32_t dflt)
{
    uint32_t p = rt_rd_field(r, t, f);
    return p ? rt_rd_u8(r, p) : dflt;
}

uint32_t rt_rd_fu32(rt_rd *r, uint32_t t, uint32_t f, uint32_t dflt)
{
    uint32_t p = rt_rd_field(r, t, f);
    return p ? rt_rd_u32(r, p) : dflt;
}

uint64_t rt_rd_fu64(rt_rd *r, uint32_t t, uint32_t f)
{
    uint32_t p = rt_rd_field(r, t, f);
    return p ? rt_rd_u64(r, p) : 0u;
}

uint32_t rt_rd_fref(rt_rd *r, uint32_t t, uint32_t f)
{
    uint32_t p = rt_rd_field(r, t, f);
    return p ? rt_rd_ref(r, p) : 0u;
}

uint32_t rt_rd_fvec(rt_rd *r, uint32_t t, uint32_t f, uint32_t width, int32_t *len)
{
    uint32_t v = rt_rd_fref(r, t, f);
    uint32_t n;
    *len = 0;
    if (v == 0) {
        return 0;
    }
    n = rt_rd_u32(r, v);
    if (r->err != RT_OK) {
        return 0;
    }
    if (n > 0x7fffffffu || (uint64_t)n * width > (uint64_t)(r->n - v - 4u)) {
        rt_rd_fail(r, RT_ERR_PTE_TRUNCATED);
        return 0;
    }
    *len = (int32_t)n;
    return v + 4u;
}

uint32_t rt_rd_elem(rt_rd *r, uint32_t first, int32_t i)
{
    return rt_rd_ref(r, first + 4u * (uint32_t)i);
}

const char *rt_rd_fstr(rt_rd *r, uint32_t t, uint32_t f, uint32_t *len)
{
    int32_t n;
    uint32_t p = rt_rd_fvec(r, t, f, 1, &n);
    *len = 0;
    if (p == 0 || !rt_rd_has(r, p, (uint32_t)n + 1u)) {
        return NULL;
    }
    if (r->b[p + (uint32_t)n] != 0) {
        rt_rd_fail(r, RT_ERR_PTE_CORRUPT);
        return NULL;
    }
    *len = (uint32_t)n;
    return (const char *)(r->b + p);
}

