/* exec_counts: a QEMU TCG plugin that counts, per guest instruction address, how often it
 * ran, and how often control went from one instruction to another that does not follow it
 * (a taken branch, a call, a return, an exception). aot.cycles prices the counts.
 *
 *   qemu-system-arm ... -plugin exec_counts.so,mark=0x1234,out=counts.txt -d plugin
 *
 * Every time the instruction at `mark` (the entry of plat_cycles) is about to run, the counts
 * so far are written to `out` as one segment and reset, so segment k holds what ran between
 * the k-th and (k+1)-th reading of the clock. A segment is
 *   S <k>
 *   I <address> <size> <count>          one line per instruction that ran
 *   E <from> <to> <count>               one line per non-sequential transfer
 * with addresses in hex. The last segment is written when QEMU exits.
 *
 * Debian ships QEMU 7.2 with plugin support but no qemu-plugin.h, so the few parts of the
 * plugin API (version 1) used here are declared below, as that header declares them.
 * Host C, built with: cc -O2 -shared -fPIC exec_counts.c -o exec_counts.so */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the plugin API, version 1 (QEMU 7.2 include/qemu/qemu-plugin.h) ---- */
#define EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct {
    const char *target_name;
    struct { int min; int cur; } version;
    bool system_emulation;
    union { struct { int smp_vcpus; int max_vcpus; } system; } u;
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                               char **argv);

/* ---- counting ---- */
typedef struct {
    uint64_t addr;
    uint64_t count;
    uint32_t size;
} Insn;

typedef struct {
    uint64_t from, to, count;
    bool used;
} Edge;

/* Open addressing, linear probing, grown at half full. An instruction's record never moves
 * (QEMU holds a pointer to it): records live in fixed blocks and the table holds indices. */
#define BLOCK 4096
static Insn **blocks;
static size_t n_insns, n_blocks;
static size_t *insn_slots, insn_cap;         /* index + 1, 0 = empty */
static Edge *edges;
static size_t n_edges, edge_cap;

static FILE *out;
static uint64_t mark = UINT64_MAX;
static unsigned segment;
static const Insn *last;                      /* the instruction that ran last */
static bool thumb;                            /* Arm M-profile: T32 only */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "exec_counts: out of memory\n");
        exit(1);
    }
    return p;
}

static size_t hash(uint64_t a, uint64_t b)
{
    return (size_t)((a * 0x9E3779B97F4A7C15u) ^ (b * 0xC2B2AE3D27D4EB4Fu));
}

static Insn *insn_at(size_t i) { return &blocks[i / BLOCK][i % BLOCK]; }

static void insn_grow(void)
{
    size_t cap = insn_cap ? insn_cap * 2 : 8192;
    size_t *slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < n_insns; i++) {
        size_t h = hash(insn_at(i)->addr, 0) & (cap - 1);
        while (slots[h] != 0) h = (h + 1) & (cap - 1);
        slots[h] = i + 1;
    }
    free(insn_slots);
    insn_slots = slots;
    insn_cap = cap;
}

static Insn *find_insn(uint64_t addr, uint32_t size)
{
    if (2 * (n_insns + 1) > insn_cap) insn_grow();
    size_t h = hash(addr, 0) & (insn_cap - 1);
    while (insn_slots[h] != 0) {
        Insn *r = insn_at(insn_slots[h] - 1);
        if (r->addr == addr) return r;
        h = (h + 1) & (insn_cap - 1);
    }
    if (n_insns == n_blocks * BLOCK) {
        Insn **grown = xcalloc(n_blocks + 1, sizeof *grown);
        if (n_blocks) memcpy(grown, blocks, n_blocks * sizeof *grown);
        free(blocks);
        blocks = grown;
        blocks[n_blocks++] = xcalloc(BLOCK, sizeof(Insn));
    }
    Insn *r = insn_at(n_insns);
    r->addr = addr;
    r->size = size;
    insn_slots[h] = ++n_insns;
    return r;
}

static void edge_grow(void)
{
    size_t cap = edge_cap ? edge_cap * 2 : 4096;
    Edge *grown = xcalloc(cap, sizeof *grown);
    for (size_t i = 0; i < edge_cap; i++) {
        if (!edges[i].used) continue;
        size_t h = hash(edges[i].from, edges[i].to) & (cap - 1);
        while (grown[h].used) h = (h + 1) & (cap - 1);
        grown[h] = edges[i];
    }
    free(edges);
    edges = grown;
    edge_cap = cap;
}

/* An edge stays in the table once made: a segment's reset only zeroes its count. */
static void count_edge(uint64_t from, uint64_t to)
{
    if (2 * (n_edges + 1) > edge_cap) edge_grow();
    size_t h = hash(from, to) & (edge_cap - 1);
    while (edges[h].used && (edges[h].from != from || edges[h].to != to)) {
        h = (h + 1) & (edge_cap - 1);
    }
    if (!edges[h].used) {
        edges[h] = (Edge){from, to, 0, true};
        n_edges++;
    }
    edges[h].count++;
}

static void flush_segment(void)
{
    fprintf(out, "S %u\n", segment++);
    for (size_t i = 0; i < n_insns; i++) {
        Insn *r = insn_at(i);
        if (r->count == 0) continue;
        fprintf(out, "I %llx %u %llu\n", (unsigned long long)r->addr, r->size,
                (unsigned long long)r->count);
        r->count = 0;
    }
    for (size_t i = 0; i < edge_cap; i++) {
        Edge *e = &edges[i];
        if (e->count == 0) continue;
        fprintf(out, "E %llx %llx %llu\n", (unsigned long long)e->from,
                (unsigned long long)e->to, (unsigned long long)e->count);
        e->count = 0;
    }
}

static void on_exec(unsigned int vcpu, void *udata)
{
    Insn *r = udata;
    (void)vcpu;
    if (r->addr == mark) flush_segment();
    if (last != NULL && last->addr + last->size != r->addr) count_edge(last->addr, r->addr);
    r->count++;
    last = r;
}

/* The instruction's own length. QEMU's size also counts the bytes it reads past the
 * instruction to see whether the next one crosses a page (Arm, at the end of each 1 KB
 * page), so a T32 instruction's length comes from its first halfword instead. */
static uint32_t insn_size(const struct qemu_plugin_insn *insn)
{
    size_t size = qemu_plugin_insn_size(insn);
    if (thumb && size >= 2) {
        const uint8_t *bytes = qemu_plugin_insn_data(insn);
        unsigned first = (unsigned)bytes[0] | ((unsigned)bytes[1] << 8);
        return (first >> 11) >= 0x1Du ? 4u : 2u;
    }
    return (uint32_t)size;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        Insn *r = find_insn(qemu_plugin_insn_vaddr(insn), insn_size(insn));
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, r);
    }
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    flush_segment();
    fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                               char **argv)
{
    const char *path = NULL;
    thumb = strcmp(info->target_name, "arm") == 0;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "mark=", 5) == 0) {
            mark = strtoull(argv[i] + 5, NULL, 0);
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            path = argv[i] + 4;
        } else {
            fprintf(stderr, "exec_counts: unknown argument %s (takes mark=ADDR,out=PATH)\n",
                    argv[i]);
            return -1;
        }
    }
    if (path == NULL || (out = fopen(path, "w")) == NULL) {
        fprintf(stderr, "exec_counts: cannot write the counts (give out=PATH)\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, NULL);
    return 0;
}
