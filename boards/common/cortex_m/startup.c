/* Reset and exception handling for the Cortex-M boards (M3, M4F, M7, M55).
 *
 * The vector table sits at the start of FLASH (the linker script puts .vectors first), which
 * is where these cores fetch the initial stack pointer and reset address from.
 */
#include <stdint.h>
#include <string.h>

#include "platform.h"
#include "printf_min.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u) /* MemManage, BusFault, UsageFault status */
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
int main(void);

void Reset_Handler(void);
void HardFault_Handler(void);
void Default_Handler(void);
void SysTick_Handler(void); /* in platform.c */

typedef void (*vector_t)(void);

/* 16 system exceptions; no external interrupt is ever enabled, so none has an entry. */
__attribute__((section(".vectors"), used)) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, /* initial main stack pointer */
    Reset_Handler,
    Default_Handler,   /* NMI */
    HardFault_Handler, /* every fault escalates here: the others are not enabled */
    Default_Handler,   /* MemManage */
    Default_Handler,   /* BusFault */
    Default_Handler,   /* UsageFault */
    Default_Handler,   /* SecureFault (Armv8-M) */
    0, 0, 0,
    Default_Handler,   /* SVCall */
    Default_Handler,   /* DebugMonitor */
    0,
    Default_Handler,   /* PendSV */
    SysTick_Handler,
};

/* The FPU must be on before the first floating-point instruction, so this runs before any
 * compiled C: grant CP10/CP11 (the FPU, and MVE on M55) full access, then call reset_c. */
__attribute__((naked)) void Reset_Handler(void)
{
    __asm__ volatile(
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
        "ldr r0, =0xE000ED88\n"
        "ldr r1, [r0]\n"
        "orr r1, r1, #(0xF << 20)\n"
        "str r1, [r0]\n"
        "dsb\n"
        "isb\n"
#endif
        "b reset_c\n");
}

__attribute__((noreturn, used)) static void reset_c(void)
{
    SCB_VTOR = (uint32_t)(uintptr_t)vectors;
    memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
    memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
    plat_exit(main());
}

/* Report a fault from the exception frame the core pushed: r0-r3, r12, lr, pc, xpsr. */
__attribute__((noreturn, used)) static void fault_report(const uint32_t *frame)
{
    mini_printf("FAULT: HardFault pc=0x%08lx lr=0x%08lx cfsr=0x%08lx hfsr=0x%08lx "
                "bfar=0x%08lx mmfar=0x%08lx\n",
                (unsigned long)frame[6], (unsigned long)frame[5], (unsigned long)SCB_CFSR,
                (unsigned long)SCB_HFSR, (unsigned long)SCB_BFAR, (unsigned long)SCB_MMFAR);
    plat_exit(PLAT_EXIT_FAULT);
}

/* Find the frame on whichever stack was in use (bit 2 of EXC_RETURN in lr). */
__attribute__((naked)) void HardFault_Handler(void)
{
    __asm__ volatile(
        "tst lr, #4\n"
        "ite eq\n"
        "mrseq r0, msp\n"
        "mrsne r0, psp\n"
        "b fault_report\n");
}

void Default_Handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    mini_printf("FAULT: unexpected exception %lu\n", (unsigned long)(ipsr & 0x1ffu));
    plat_exit(PLAT_EXIT_FAULT);
}
