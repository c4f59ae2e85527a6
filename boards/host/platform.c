/* Platform for the host board: the firmware's main.c runs as a normal process. Console is
 * stdout, exit is exit(), cycles are monotonic nanoseconds (not deterministic), and fatal
 * signals print a FAULT line like the boards' fault handlers do. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

static void on_fault(int sig)
{
    char msg[] = "FAULT: signal 00\n";
    msg[14] = (char)('0' + sig / 10 % 10);
    msg[15] = (char)('0' + sig % 10);
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing more can be done */
    }
    _exit(PLAT_EXIT_FAULT);
}

void plat_init(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    struct sigaction sa = {0};
    sa.sa_handler = on_fault;
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines reach the pipe before any fault line */
}

void plat_puts(const char *s) { fputs(s, stdout); }

void plat_exit(int code)
{
    fflush(stdout);
    exit(code);
}

uint64_t plat_cycles(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
