/* pte_read.h - checked reads of a flatbuffer (private to src/pte/).
 *
 * A reader carries the buffer and a sticky status: the first read outside the buffer sets
 * RT_ERR_PTE_TRUNCATED, the first inconsistent structure RT_ERR_PTE_CORRUPT, and every later
 * read returns 0. Callers read a whole table and test the status once. Positions are byte
 * offsets from the start of the buffer; 0 means "absent" (the root offset lives there, so no
 * table, vector or string can).
 *
 * Loads go through __builtin_memcpy: one load instruction on every target, even in a
 * freestanding build (where a plain memcpy stays a library call).
 */
#ifndef RT_PTE_READ_H
#define RT_PTE_READ_H

#include <string.h>

#include "rt_pte.h"

typedef struct rt_rd {
    const uint8_t *b;
    uint32_t n;
    rt_status err;
    /* The table read last, its vtable and their sizes (both checked to lie in the buffer):
     * the fields of one table are read one after another, its vtable looked up once. */
    uint32_t tab, vt, vt_size, tab_size;
} rt_rd;

static inline rt_rd rt_rd_of(const rt_fb *fb)
{
    rt_rd r;
    r.b = fb->base;
    r.n = fb->size;
    r.err = RT_OK;
    r.tab = 0;
    r.vt = 0;
    r.vt_size = 0;
    r.tab_size = 0;
    return r;
}

static inline void rt_rd_fail(rt_rd *r, rt_status s)
{
    if (r->err == RT_OK) {
        r->err = s;
    }
}

/* Bytes at `pos`, little-endian (0 when outside the buffer). */
uint32_t rt_rd_u8(rt_rd *r, uint32_t pos);
uint32_t rt_rd_u16(rt_rd *r, uint32_t pos);
uint32_t rt_rd_u32(rt_rd *r, uint32_t pos);
uint64_t rt_rd_u64(rt_rd *r, uint32_t pos);
/* The position a uoffset at `pos` refers to. */
uint32_t rt_rd_ref(rt_rd *r, uint32_t pos);
/* The position of field `f` of the table at `t`, or 0 when the table leaves it out. */
uint32_t rt_rd_field(rt_rd *r, uint32_t t, uint32_t f);
/* Scalar fields, with the schema's default when absent. */
uint32_t rt_rd_fu8(rt_rd *r, uint32_t t, uint32_t f, uint32_t dflt);
uint32_t rt_rd_fu32(rt_rd *r, uint32_t t, uint32_t f, uint32_t dflt);
uint64_t rt_rd_fu64(rt_rd *r, uint32_t t, uint32_t f);
/* The table, vector or string an offset field refers to, or 0 when absent. */
uint32_t rt_rd_fref(rt_rd *r, uint32_t t, uint32_t f);
/* A vector field: position of its first element and its length (elements of `width`
 * bytes, all inside the buffer); 0 and *len = 0 when absent. */
uint32_t rt_rd_fvec(rt_rd *r, uint32_t t, uint32_t f, uint32_t width, int32_t *len);
/* Element i of a vector of tables (or strings) that starts at `first`. */
uint32_t rt_rd_elem(rt_rd *r, uint32_t first, int32_t i);
/* A string field: its bytes (NUL-terminated, checked) and length; NULL when absent. */
const char *rt_rd_fstr(rt_rd *r, uint32_t t, uint32_t f, uint32_t *len);

#endif /* RT_PTE_READ_H */
