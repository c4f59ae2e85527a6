/* The platform interface every board implements (one platform.c per board family).
 *
 * Firmware calls plat_init() first thing in main(). The board's startup code has already
 * copied .data, zeroed .bss and enabled the FPU; when main() returns, startup calls
 * plat_exit() with its result (on the host board, the C runtime exits with it).
 */
#ifndef MCU_AOT_PLATFORM_H
#define MCU_AOT_PLATFORM_H

#include <stdint.h>

/* Exit code of the fault handlers (HardFault, RISC-V trap, host signals): EX_SOFTWARE. */
#define PLAT_EXIT_FAULT 70

/* A line "mcu-aot cycles: <n>" on stdout reports one measured region; aot.qemu parses it
 * and converts cycles to guest instructions with the board's cpu_hz (see board.json). */
#define PLAT_CYCLES_MARKER "mcu-aot cycles: "

/* Set up the console and the cycle counter. */
void plat_init(void);

/* Write a NUL-terminated string to the console as is (no newline added). */
void plat_puts(const char *s);

/* Stop the program; the code becomes QEMU's (or the host process's) exit status. */
void plat_exit(int code) __attribute__((noreturn));

/* A free-running 64-bit counter of CPU clock cycles at the board's cpu_hz. Under QEMU with
 * -icount shift=0 it follows guest instructions exactly and the same ELF gives the same
 * count on every run; on the host board it is monotonic nanoseconds. */
uint64_t plat_cycles(void);

#endif
