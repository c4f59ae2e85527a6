"""Where a model's inference goes on a board: guest instructions (and, on the Cortex-M4 and
M55, estimated cycles) per function, and per instruction of one function.

    .venv/bin/python bench/hot_spots.py MODEL.pt2 [--board mps2-an386] [--int8-io]
                                        [--top 25] [--annotate FUNCTION]

Generates the static-C firmware for the model (as `aot firmware` does), builds it, and runs it
once under QEMU with the counting plugin of aot.cycles: the exact executions of every
instruction address between the plat_cycles() readings around <name>_run, so the inference
alone, with start-up and printing left out. The counts, summed per symbol of the ELF, are the
table; on a board a cycle model prices (the M4, the M55) each function's estimated cycles
are beside them. --annotate prints the function's disassembly (objdump) with each
instruction's count (and cycles) beside it.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from aot import cycles
from aot.boards import load_board
from aot.firmware import generate_firmware
from aot.firmware.run import _build
from aot.qemu import run_elf
from aot.quiet import quiet_third_party


def symbols(elf: Path, prefix: str) -> list[tuple[int, str]]:
    """The ELF's code symbols, by address (the Thumb bit cleared)."""
    out = subprocess.run([f"{prefix}nm", "-n", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16) & ~1, parts[2]))
    return sorted(syms)


def per_function(per_pc: collections.Counter, syms: list[tuple[int, str]]) -> collections.Counter:
    starts = [a for a, _ in syms]
    fn: collections.Counter = collections.Counter()
    for a, n in per_pc.items():
        i = bisect.bisect_right(starts, a) - 1
        fn[syms[i][1] if i >= 0 else "?"] += n
    return fn


def annotate(elf: Path, board, name: str, per_pc: collections.Counter,
             cyc: collections.Counter | None) -> str:
    dump = subprocess.run([*cycles.objdump_command(elf, board), "--no-show-raw-insn"],
                          capture_output=True, text=True, check=True).stdout
    lines, inside = [], False
    for line in dump.splitlines():
        if line.endswith(f"<{name}>:"):
            inside = True
        elif inside and not line.strip():
            break
        if inside:
            m = re.match(r"\s*([0-9a-f]+):", line)
            if m is None:
                lines.append(line)
                continue
            a = int(m.group(1), 16)
            extra = f"{cyc.get(a, 0):>12,} " if cyc is not None else ""
            lines.append(f"{per_pc.get(a, 0):>12,} {extra}{line}")
    if not lines:
        raise SystemExit(f"no function {name!r} in {elf}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a .pt2 file (torch.export.save)")
    ap.add_argument("--board", default="mps2-an386")
    ap.add_argument("--int8-io", action="store_true", help="int8 inputs and outputs")
    ap.add_argument("--top", type=int, default=25, help="functions to list")
    ap.add_argument("--annotate", metavar="FUNCTION",
                    help="per-instruction counts of one function")
    args = ap.parse_args()
    quiet_third_party()
    board = load_board(args.board)
    if board.qemu is None:
        raise SystemExit(f"board {board.name} runs natively, not under QEMU")
    model = cycles.cycle_model(board)
    with tempfile.TemporaryDirectory() as tmp:
        project = generate_firmware(args.model, board.name, Path(tmp) / "fw",
                                    int8_io=args.int8_io)
        elf = _build(project.directory, project.project_board)
        counts = Path(tmp) / "counts.txt"
        run = run_elf(elf, board, timeout=1800,
                      extra_args=cycles.counting_args(elf, board, counts))
        if run.exit_code != 0:
            print(run.stdout + run.stderr, file=sys.stderr)
            raise SystemExit(f"the firmware exited with {run.exit_code}")
        inference = cycles.read_segments(counts)[1]      # between the two clock readings
        per_pc = collections.Counter(inference.counts)
        cyc = cycles.cycles_by_address(inference, cycles.disassemble(elf, board), model) \
            if model is not None else None
        syms = symbols(elf, board.prefix)
        fn = per_function(per_pc, syms)
        fn_cycles = per_function(cyc, syms) if cyc is not None else None
        total = sum(fn.values())
        whole = sum(cyc.values()) if cyc is not None else None
        print(f"{args.model} on {board.name} ({board.cpu}): {total:,} guest instructions"
              + (f", {whole:,} estimated cycles" if whole else "") + ", one inference")
        print(f"{'instructions':>14}  {'share':>6}" + (f"  {'cycles':>12}  {'share':>6}"
                                                         if whole else "") + "  function")
        ranked = (fn_cycles or fn).most_common(args.top)
        for name, _ in ranked:
            n = fn[name]
            extra = f"  {fn_cycles[name]:>12,}  {100 * fn_cycles[name] / whole:5.1f}%" \
                if whole else ""
            print(f"{n:>14,}  {100 * n / total:5.1f}%{extra}  {name}")
        if args.annotate:
            print()
            print(annotate(elf, board, args.annotate, per_pc, cyc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
