/* pte_fuzz.c - the .pte interpreter under a fuzzer: rt_pte_load, then rt_pte_run.
 *
 * The loader's contract (rt_pte.h): if rt_pte_load returns RT_OK, running the program reads and
 * writes only its arena, its state, its inputs and outputs and the file's bytes, with no
 * undefined behaviour. This harness holds it to that. Every block it hands the interpreter is
 * exactly the size the interpreter asked for (the file, rt_pte_state_size() bytes of state,
 * rt_pte_arena_size() bytes of arena, each unplanned input or output's nbytes), allocated on
 * its own, so AddressSanitizer reports a read or write one byte past any of them.
 *
 * Built three ways (bench/fuzz.py builds them all):
 *   - with clang -fsanitize=fuzzer,address,undefined: a libFuzzer target whose custom
 *     mutator knows the .pte's structure (see "structure-aware mutation" below);
 *   - with -DPTE_FUZZ_REPLAY and gcc or clang with ASan/UBSan: a program that runs every file
 *     named on its command line once and prints "<file> <status>", which `make test` runs on
 *     the checked-in corpus (tests/fuzz/corpus);
 * and the same replay program runs on a board (tests/qemu/test_pte_faults.py builds its own
 * driver around rt_pte_load from the same checks).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_pte.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTE_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PTE_FUZZ_ASAN 1
#endif
#if defined(PTE_FUZZ_ASAN)
#include <sanitizer/asan_interface.h>
#endif

extern const rt_pte_registry rt_pte_registry_default;

/* The most arena and state a run is given: a program that asks for more is given this much and
 * must be refused (RT_ERR_PTE_ARENA, RT_ERR_PTE_LIMIT), as on a device with so much RAM. */
#define MAX_ARENA (8u << 20)
#define MAX_STATE (1u << 20)
#define MAX_BOUND (1u << 20) /* bytes of one unplanned input or output */

/* ---- blocks of an exact size --------------------------------------------------------- */

/* `n` bytes, 16-byte aligned, a heap block of its own: with ASan, byte n is in a red zone. */
static uint8_t *exact_block(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 16, n > 0 ? n : 1) != 0) {
        abort();
    }
#if defined(PTE_FUZZ_ASAN)
    if (n == 0) {
        ASAN_POISON_MEMORY_REGION(p, 1);
    }
#endif
    return (uint8_t *)p;
}

static void free_block(void *p)
{
    free(p);
}

/* Input bytes that are the same for the same file: small floats, or any bytes. */
static void fill_input(uint8_t *data, int32_t nbytes, int32_t dtype, uint32_t seed)
{
    int32_t k;
    uint32_t x = seed | 1u;
    for (k = 0; k < nbytes; ++k) {
        x = x * 1664525u + 1013904223u;
        data[k] = (uint8_t)(x >> 24);
    }
    if (dtype == RT_DTYPE_F32) {
        for (k = 0; k + 4 <= nbytes; k += 4) {
            float f = (float)((int32_t)(data[k] & 0x7f) - 64) / 16.0f;
            memcpy(data + k, &f, 4);
        }
    }
}

/* ---- one file -------------------------------------------------------------------------- */

/* Load the file (and run it when it loads): the status of the first step that refused it. */
static rt_status pte_fuzz_one(const uint8_t *data, size_t size)
{
    uint8_t *pte, *arena = NULL;
    rt_pte_program *prog = NULL;
    void *bound[2 * RT_PTE_MAX_IO];
    int32_t n_bound = 0, k;
    uint32_t state_size, arena_size, given_arena, given_state;
    rt_status s, sa;
    if (size > 0xffffffffu) {
        return RT_ERR_PTE_LIMIT;
    }
    pte = exact_block(size);
    if (size > 0) {
        memcpy(pte, data, size);
    }
    state_size = rt_pte_state_size(pte, (uint32_t)size, &s);
    arena_size = rt_pte_arena_size(pte, (uint32_t)size, &sa);
    if (s != RT_OK || sa != RT_OK) {
        free_block(pte);
        return s != RT_OK ? s : sa;
    }
    given_state = state_size < MAX_STATE ? state_size : MAX_STATE;
    given_arena = arena_size < MAX_ARENA ? arena_size : MAX_ARENA;
    prog = (rt_pte_program *)(void *)exact_block(given_state);
    if (given_arena > 0) {
        arena = exact_block(given_arena);
    }
    s = rt_pte_load(prog, given_state, pte, (uint32_t)size, arena, given_arena,
                    &rt_pte_registry_default);
    if (s == RT_OK && (given_state < state_size || given_arena < arena_size)) {
        abort(); /* loaded with less state or arena than it reported needing */
    }
    for (k = 0; s == RT_OK && k < rt_pte_num_inputs(prog) + rt_pte_num_outputs(prog); ++k) {
        int out = k >= rt_pte_num_inputs(prog);
        int32_t i = out ? k - rt_pte_num_inputs(prog) : k;
        rt_pte_tensor t;
        s = out ? rt_pte_output(prog, i, &t) : rt_pte_input(prog, i, &t);
        if (s != RT_OK) {
            abort(); /* load checked every input and output */
        }
        if (t.data == NULL) { /* unplanned: the caller's own block, exactly nbytes */
            if ((uint32_t)t.nbytes > MAX_BOUND) {
                s = RT_ERR_PTE_LIMIT;
                break;
            }
            t.data = bound[n_bound++] = exact_block((size_t)t.nbytes);
            s = out ? rt_pte_bind_output(prog, i, t.data) : rt_pte_bind_input(prog, i, t.data);
            if (s != RT_OK) {
                break;
            }
        }
        if (!out) {
            fill_input((uint8_t *)t.data, t.nbytes, t.dtype, (uint32_t)size + (uint32_t)k);
        }
    }
    if (s == RT_OK) {
        s = rt_pte_run(prog);
    }
    while (n_bound > 0) {
        free_block(bound[--n_bound]);
    }
    free_block(arena);
    free_block(prog);
    free_block(pte);
    return s;
}

#if defined(PTE_FUZZ_REPLAY)

/* Run every file named on the command line; print its status. Exit 0 unless a file could not
 * be read (a sanitizer report aborts the process with its own exit code). */
int main(int argc, char **argv)
{
    int k;
    for (k = 1; k < argc; ++k) {
        FILE *f = fopen(argv[k], "rb");
        long n;
        uint8_t *data;
        rt_status s;
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "%s: cannot read\n", argv[k]);
            return 2;
        }
        data = (uint8_t *)malloc((size_t)n + 1u);
        if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "%s: cannot read\n", argv[k]);
            return 2;
        }
        fclose(f);
        s = pte_fuzz_one(data, (size_t)n);
        printf("%s %d %s\n", argv[k], (int)s, rt_status_name(s));
        fflush(stdout);
        free(data);
    }
    return 0;
}

#else /* libFuzzer */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)pte_fuzz_one(data, size);
    return 0;
}

/* ---- structure-aware mutation ------------------------------------------------------------
 * A walk of the .pte's flatbuffer (schema/program.fbs) that notes where each number of the
 * structure lies and what it is: a uoffset, a vtable entry, a vector's length, a value index, an
 * int64 (an Int's value, a list item, a buffer size, a constant's offset), a dtype or a union
 * tag. A mutation then sets one of them to a value chosen for its kind (one past the end, -1,
 * an odd offset, a shift of 32, ...), copies one slot's number into another slot of the same
 * kind, or leaves the bytes to libFuzzer's own mutations. The walk reads only inside the
 * buffer and visits a bounded number of items, whatever the bytes. */

enum slot_kind { S_OFFSET, S_VTABLE, S_LENGTH, S_INDEX, S_I64, S_U8, N_KINDS };

#define MAX_SLOTS 4096

typedef struct walk {
    const uint8_t *b;
    uint32_t n;
    uint32_t at[MAX_SLOTS];
    uint8_t kind[MAX_SLOTS];
    uint32_t count;
    uint32_t budget;
} walk;

static void note(walk *w, uint32_t pos, enum slot_kind kind)
{
    uint32_t width = kind == S_I64 ? 8u : kind == S_U8 ? 1u : kind == S_VTABLE ? 2u : 4u;
    if (w->count < MAX_SLOTS && pos <= w->n && w->n - pos >= width) {
        w->at[w->count] = pos;
        w->kind[w->count] = (uint8_t)kind;
        w->count++;
    }
}

static int has(const walk *w, uint32_t pos, uint32_t len)
{
    return pos <= w->n && w->n - pos >= len;
}

static uint32_t u32_at(const walk *w, uint32_t pos)
{
    uint32_t v = 0;
    if (has(w, pos, 4)) {
        memcpy(&v, w->b + pos, 4);
    }
    return v;
}

/* The position of field f of the table at t (0 when absent or unreadable); notes the
 * table's vtable entry for f. */
static uint32_t field(walk *w, uint32_t t, uint32_t f)
{
    uint32_t vt, vt_size, fo, at;
    int32_t soff;
    if (t == 0 || !has(w, t, 4) || w->budget == 0) {
        return 0;
    }
    w->budget--;
    soff = (int32_t)u32_at(w, t);
    if ((int64_t)t - soff < 0 || (int64_t)t - soff > (int64_t)w->n - 4) {
        return 0;
    }
    vt = (uint32_t)((int64_t)t - soff);
    vt_size = (uint32_t)w->b[vt] | ((uint32_t)w->b[vt + 1] << 8);
    at = 4u + 2u * f;
    if (at + 2u > vt_size || !has(w, vt + at, 2)) {
        return 0;
    }
    note(w, vt + at, S_VTABLE);
    fo = (uint32_t)w->b[vt + at] | ((uint32_t)w->b[vt + at + 1] << 8);
    return fo != 0 && has(w, t + fo, 1) ? t + fo : 0;
}

/* The table, vector or string a uoffset at `pos` refers to (noted as an offset). */
static uint32_t ref(walk *w, uint32_t pos)
{
    uint32_t off;
    if (pos == 0 || !has(w, pos, 4)) {
        return 0;
    }
    note(w, pos, S_OFFSET);
    off = u32_at(w, pos);
    return off != 0 && off < w->n - pos ? pos + off : 0;
}

static uint32_t table_field(walk *w, uint32_t t, uint32_t f)
{
    return ref(w, field(w, t, f));
}

/* A vector field: its first element and length (noted), at most what the buffer holds. */
static uint32_t vec(walk *w, uint32_t t, uint32_t f, uint32_t width, uint32_t *len)
{
    uint32_t v = table_field(w, t, f), n;
    *len = 0;
    if (v == 0 || !has(w, v, 4)) {
        return 0;
    }
    note(w, v, S_LENGTH);
    n = u32_at(w, v);
    if ((uint64_t)n * width > (uint64_t)(w->n - v - 4u)) {
        return 0;
    }
    *len = n;
    return v + 4u;
}

static void vec_items(walk *w, uint32_t t, uint32_t f, uint32_t width, enum slot_kind kind)
{
    uint32_t n, k, first = vec(w, t, f, width, &n);
    for (k = 0; k < n && w->budget > 0; ++k, --w->budget) {
        note(w, first + width * k, kind);
    }
}

static void scalar(walk *w, uint32_t t, uint32_t f, enum slot_kind kind)
{
    uint32_t p = field(w, t, f);
    if (p != 0) {
        note(w, p, kind);
    }
}

static void walk_tensor(walk *w, uint32_t t)
{
    uint32_t alloc;
    scalar(w, t, 0, S_U8);          /* scalar_type */
    scalar(w, t, 1, S_INDEX);       /* storage_offset */
    vec_items(w, t, 2, 4, S_INDEX); /* sizes */
    vec_items(w, t, 3, 1, S_U8);    /* dim_order */
    scalar(w, t, 5, S_INDEX);       /* data_buffer_idx */
    alloc = table_field(w, t, 6);
    scalar(w, alloc, 0, S_INDEX);   /* memory_id */
    scalar(w, alloc, 1, S_INDEX);   /* memory_offset_low */
    scalar(w, alloc, 2, S_INDEX);   /* memory_offset_high */
    scalar(w, t, 8, S_U8);          /* shape_dynamism */
}

static void walk_value(walk *w, uint32_t ev)
{
    uint32_t tag_at = field(w, ev, 0), tag, v;
    if (tag_at == 0) {
        return;
    }
    note(w, tag_at, S_U8);
    tag = w->b[tag_at];
    v = table_field(w, ev, 1);
    switch (tag) {
    case 2: /* Int */
    case 4: /* Double */
        scalar(w, v, 0, S_I64);
        break;
    case 3: /* Bool */
        scalar(w, v, 0, S_U8);
        break;
    case 5:
        walk_tensor(w, v);
        break;
    case 7: /* IntList: value indices as int64 */
        vec_items(w, v, 0, 8, S_I64);
        break;
    case 10: /* TensorList, OptionalTensorList: value indices */
    case 11:
        vec_items(w, v, 0, 4, S_INDEX);
        break;
    default:
        break;
    }
}

static void walk_plan(walk *w, uint32_t plan)
{
    uint32_t n, k, first, chains, n_chains, ins, n_ins;
    first = vec(w, plan, 2, 4, &n);
    for (k = 0; k < n && w->budget > 0; ++k) {
        walk_value(w, ref(w, first + 4u * k));
    }
    vec_items(w, plan, 3, 4, S_INDEX); /* inputs */
    vec_items(w, plan, 4, 4, S_INDEX); /* outputs */
    vec_items(w, plan, 8, 8, S_I64);   /* non_const_buffer_sizes */
    chains = vec(w, plan, 5, 4, &n_chains);
    if (n_chains == 0) {
        return;
    }
    first = vec(w, ref(w, chains), 2, 4, &n_ins);
    for (k = 0; k < n_ins && w->budget > 0; ++k) {
        uint32_t tag_at, body;
        ins = ref(w, first + 4u * k);
        tag_at = field(w, ins, 0);
        if (tag_at == 0) {
            continue;
        }
        note(w, tag_at, S_U8);
        body = table_field(w, ins, 1);
        scalar(w, body, 0, S_INDEX); /* op_index, delegate_index, move_from, cond, value */
        if (w->b[tag_at] <= 2) {
            vec_items(w, body, 1, 4, S_INDEX); /* args */
        } else {
            scalar(w, body, 1, S_INDEX);
        }
    }
}

static void walk_program(walk *w)
{
    uint32_t root = ref(w, 0), n, k, first, cs;
    first = vec(w, root, 1, 4, &n);
    if (n > 0) {
        walk_plan(w, ref(w, first));
    }
    first = vec(w, root, 4, 4, &n); /* segments */
    for (k = 0; k < n && w->budget > 0; ++k) {
        uint32_t seg = ref(w, first + 4u * k);
        scalar(w, seg, 0, S_I64);
        scalar(w, seg, 1, S_I64);
    }
    cs = table_field(w, root, 5); /* constant_segment */
    scalar(w, cs, 0, S_INDEX);
    vec_items(w, cs, 1, 8, S_I64);
}

static uint32_t next(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* A value for a slot of this kind that once held `old`. */
static uint64_t hostile(enum slot_kind kind, uint64_t old, uint32_t *x, uint32_t size)
{
    static const int64_t numbers[] = {0, 1, -1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, -31, -32,
                                      -33, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000,
                                      0x7fffffff, -0x7fffffff - 1, 0x80000000LL,
                                      0xffffffffLL, 0x100000000LL, 0x40000000,
                                      INT64_MAX, INT64_MIN};
    uint32_t r = next(x);
    switch (r % 8u) {
    case 0:
        return old + 1u;
    case 1:
        return old - 1u;
    case 2:
        return old ^ 1u; /* an odd offset, a neighbouring index */
    case 3:
        return (uint64_t)numbers[next(x) % (sizeof numbers / sizeof numbers[0])];
    case 4:
        return kind == S_U8 ? (uint64_t)(next(x) % 16u) : (uint64_t)size - (next(x) % 64u);
    case 5:
        return old * 2u;
    case 6:
        return old + (uint64_t)(next(x) % 64u) - 32u;
    default:
        return (uint64_t)next(x) | ((uint64_t)next(x) << 32);
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    static walk w;
    uint32_t x = seed * 2654435761u + 1u, pick, width;
    uint64_t old = 0, v;
    if (size < 16 || size > 0xffffffffu || next(&x) % 4u == 0) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    w.b = data;
    w.n = (uint32_t)size;
    w.count = 0;
    w.budget = 1u << 16;
    walk_program(&w);
    if (w.count == 0) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    pick = next(&x) % w.count;
    width = w.kind[pick] == S_I64 ? 8u : w.kind[pick] == S_U8 ? 1u
            : w.kind[pick] == S_VTABLE ? 2u : 4u;
    memcpy(&old, data + w.at[pick], width);
    if (next(&x) % 4u == 0) { /* another slot's number of the same kind */
        uint32_t other = next(&x) % w.count, k;
        for (k = 0; k < w.count && w.kind[other] != w.kind[pick]; ++k) {
            other = (other + 1u) % w.count;
        }
        v = 0;
        memcpy(&v, data + w.at[other], width);
    } else {
        v = hostile((enum slot_kind)w.kind[pick], old, &x, w.n);
    }
    memcpy(data + w.at[pick], &v, width); /* little-endian host */
    if (next(&x) % 16u == 0) {             /* and sometimes cut the file short */
        size = size / 2u + next(&x) % (size / 2u);
    }
    return size;
}

#endif /* PTE_FUZZ_REPLAY */
