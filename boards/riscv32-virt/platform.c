/* Platform for RV32 under QEMU virt: console and exit through RISC-V semihosting, cycles
 * from the mcycle CSR (under -icount, QEMU derives it from the instruction count). */
#include <stdint.h>

#include "platform.h"
#include "printf_min.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

/* The semihosting call is an ebreak between two marker instructions, uncompressed and in
 * one page (16-byte alignment keeps the 12 bytes together). */
static long semihost(long op, const void *arg)
{
    register long a0 __asm__("a0") = op;
    register const void *a1 __asm__("a1") = arg;
    __asm__ volatile(
        ".option push\n"
        ".option norvc\n"
        ".balign 16\n"
        "slli x0, x0, 0x1f\n"
        "ebreak\n"
        "srai x0, x0, 7\n"
        ".option pop\n"
        : "+r"(a0)
        : "r"(a1)
        : "memory");
    return a0;
}

void plat_init(void) {}

void plat_puts(const char *s) { semihost(SYS_WRITE0, s); }

void plat_exit(int code)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    semihost(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}

/* The assembler needs Zicsr for csrr; GCC's own -march must not name it (it would pick the
 * wrong libgcc), and the .attribute line GCC writes overrides -Wa,-march, so enable it here. */
#define CSRR(var, csr) \
    __asm__ volatile(".option push\n.option arch, +zicsr\ncsrr %0, " #csr "\n.option pop" : "=r"(var))

uint64_t plat_cycles(void)
{
    uint32_t hi, lo, hi2;
    do { /* the high half must not change while the low half is read */
        CSRR(hi, mcycleh);
        CSRR(lo, mcycle);
        CSRR(hi2, mcycleh);
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
}

void riscv_trap_report(uint32_t mcause, uint32_t mepc, uint32_t mtval) __attribute__((noreturn));
void riscv_trap_report(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
    mini_printf("FAULT: trap mcause=0x%08lx mepc=0x%08lx mtval=0x%08lx\n", (unsigned long)mcause,
                (unsigned long)mepc, (unsigned long)mtval);
    plat_exit(PLAT_EXIT_FAULT);
}
