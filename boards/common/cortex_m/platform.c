/* Platform for Cortex-M under QEMU: console and exit through Arm semihosting, cycles from
 * SysTick.
 *
 * SysTick counts down 24 bits at the core clock; its interrupt counts the wraps, so
 * plat_cycles() is wraps * 2^24 + (2^24 - 1 - current value). A wrap that has happened but
 * whose interrupt has not run yet shows as SysTick pending in ICSR, and is counted too.
 */
#include <stdint.h>

#include "platform.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)
#define SYST_MAX 0x00FFFFFFu

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static volatile uint32_t systick_wraps;

static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void SysTick_Handler(void) { systick_wraps++; }

void plat_init(void)
{
    SYST_RVR = SYST_MAX;
    SYST_CVR = 0;          /* any write clears it; it reloads on the next clock */
    SYST_CSR = 1u | 2u | 4u; /* enable, interrupt on wrap, core clock */
    while (SYST_CVR == 0u) {
        /* wait for the first reload: until then CVR reads 0, which looks like a wrap */
    }
}

void plat_puts(const char *s) { semihost(SYS_WRITE0, s); }

void plat_exit(int code)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    semihost(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}

uint64_t plat_cycles(void)
{
    for (;;) {
        uint32_t wraps = systick_wraps;
        uint32_t now = SYST_CVR;
        int pending = (SCB_ICSR & ICSR_PENDSTSET) != 0;
        if (pending) now = SYST_CVR; /* read again: it is surely past the wrap now */
        uint32_t after = systick_wraps;
        /* retry if the interrupt ran between the reads, unless it ran for the wrap we saw */
        if (after == wraps || (pending && after == wraps + 1)) {
            return ((uint64_t)(wraps + (uint32_t)pending) << 24) + (SYST_MAX - now);
        }
    }
}
