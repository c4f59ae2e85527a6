/* Reset and trap entry for RV32 under QEMU virt (-bios none starts here, at the start of
 * FLASH, in machine mode). */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax         /* gp must be loaded before the linker may use it */
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    la t0, trap_entry
    csrw mtvec, t0          /* direct mode: every trap goes to trap_entry */

    la a0, __data_load      /* copy .data from its load address in FLASH */
    la a1, __data_start
    la a2, __data_end
1:  bgeu a1, a2, 2f
    lw t0, 0(a0)
    sw t0, 0(a1)
    addi a0, a0, 4
    addi a1, a1, 4
    j 1b
2:  la a0, __bss_start      /* zero .bss */
    la a1, __bss_end
3:  bgeu a0, a1, 4f
    sw zero, 0(a0)
    addi a0, a0, 4
    j 3b
4:  call main
    call plat_exit          /* exit code = main's result, already in a0 */

/* Any exception: report it and exit. Nothing returns, so no registers are saved; the stack
 * is reset in case the fault came from a bad stack pointer. */
    .balign 4
trap_entry:
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    la sp, __stack_top
    call riscv_trap_report
