"""Build firmware for a board with make, and run it under QEMU (natively for the host board).

Firmware talks to us through stdout only (see boards/common/platform.h):
  * "mcu-aot cycles: N" lines report measured regions, read from plat_cycles();
  * a "FAULT: ..." line and exit code 70 report a CPU fault;
  * the exit code is main()'s result, passed through semihosting SYS_EXIT_EXTENDED.

Counting: QEMU runs with -icount shift=0, so each guest instruction advances virtual time by
exactly 1 ns and the board's cycle counter (SysTick on Arm, mcycle on RISC-V) follows the
instruction count, the same on every run. instructions = cycles * 1e9 / board.cpu_hz: exact on
RISC-V (cpu_hz 1 GHz), to within one SysTick tick (40 instructions at the MPS2's 25 MHz,
31.25 at the AN547's 32 MHz) on Arm.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from .boards import Board, check_toolchain
from .errors import BoardError

CYCLES_MARKER = "mcu-aot cycles: "
FAULT_MARKER = "FAULT: "
FAULT_EXIT_CODE = 70
ICOUNT_SHIFT = 0  # 2^shift ns of virtual time per guest instruction

# Semihosting output goes to stdout through a chardev; nothing else is attached.
QEMU_COMMON = ("-display", "none", "-monitor", "none", "-serial", "none",
               "-chardev", "stdio,id=sh0",
               "-semihosting-config", "enable=on,target=native,chardev=sh0",
               "-icount", f"shift={ICOUNT_SHIFT}")

_CYCLES_RE = re.compile("^" + re.escape(CYCLES_MARKER) + r"(\d+)\s*$", re.M)


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stdout: str
    stderr: str
    cycles: tuple[int, ...]     # every "mcu-aot cycles: N" line, in order
    instructions: int | None    # guest instructions of the last measured region; None on host
    fault: str | None           # the FAULT line, if the firmware faulted


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def build_firmware(project_dir: str | Path, board: Board, *, build_dir: str | Path | None = None,
                   make_vars: dict[str, str] | None = None, timeout: float = 600) -> Path:
    """Run make in project_dir (whose Makefile includes boards/common/firmware.mk) for the
    board; returns the ELF. build_dir defaults to <project_dir>/build/<board>."""
    check_toolchain(board, run=False)
    project_dir = Path(project_dir).resolve()
    build_dir = Path(build_dir).resolve() if build_dir else project_dir / "build" / board.name
    make_vars = dict(make_vars or {})
    cmd = ["make", f"-j{os.cpu_count() or 1}", "-C", str(project_dir),
           f"BOARD_DIR={board.path}", f"BUILD_DIR={build_dir}",
           f"PYTHON={sys.executable}", *(f"{k}={v}" for k, v in make_vars.items())]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BoardError(f"building firmware for {board.name} took over {timeout:.0f} s") from None
    if proc.returncode != 0:
        raise BoardError(f"building firmware for {board.name} failed ({' '.join(cmd)}):\n"
                         f"{_tail(proc.stdout + proc.stderr)}")
    return build_dir / f"{make_vars.get('TARGET', 'firmware')}.elf"


def qemu_command(board: Board, elf: str | Path) -> list[str]:
    """The command that runs elf: QEMU for a board, the ELF itself for the host board."""
    if board.qemu is None:
        return [str(elf)]
    return [board.qemu.system, "-machine", board.qemu.machine, *board.qemu.options,
            *QEMU_COMMON, "-kernel", str(elf)]


def cycles_to_instructions(board: Board, cycles: int) -> int | None:
    if board.qemu is None or not board.cpu_hz:
        return None
    return round(Fraction(cycles * 10**9, board.cpu_hz * 2**ICOUNT_SHIFT))


def run_elf(elf: str | Path, board: Board, timeout: float = 60.0,
            extra_args: Sequence[str] = ()) -> RunResult:
    """Run the firmware to its exit. BoardError if it hangs past timeout or locks up the CPU;
    a non-zero exit or a reported fault is returned in the RunResult, not raised.
    ``extra_args`` go on QEMU's command line (e.g. ``-device loader,...`` to write a program
    into the ELF's flash before it starts)."""
    check_toolchain(board, build=False)
    if not Path(elf).is_file():
        raise BoardError(f"no firmware at {elf}")
    cmd = qemu_command(board, elf) + list(extra_args)
    if extra_args and board.qemu is None:
        raise BoardError(f"board {board.name} runs natively: QEMU options do not apply")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        raise BoardError(f"{board.name}: firmware {elf} did not exit within {timeout:g} s "
                         f"(an endless loop or a hang); its output:\n{_tail(out)}") from None
    if "Lockup" in proc.stderr or proc.returncode < 0:
        raise BoardError(f"{board.name}: the CPU locked up or the process died (status "
                         f"{proc.returncode}): a fault with no working handler?\n"
                         f"{_tail(proc.stderr)}\n{_tail(proc.stdout)}")
    cycles = tuple(int(n) for n in _CYCLES_RE.findall(proc.stdout))
    fault = next((line for line in proc.stdout.splitlines() if line.startswith(FAULT_MARKER)),
                 None)
    return RunResult(exit_code=proc.returncode, stdout=proc.stdout, stderr=proc.stderr,
                     cycles=cycles,
                     instructions=cycles_to_instructions(board, cycles[-1]) if cycles else None,
                     fault=fault)
