"""Where a model's instructions go on a board: guest instructions per function, and per
instruction of one function, from QEMU's log of the translation blocks it runs.

    .venv/bin/python bench/hot_spots.py MODEL.pt2 [--board mps2-an386] [--int8-io]
                                        [--top 25] [--annotate FUNCTION]

Generates the static-C firmware for the model (as `aot firmware` does), builds it, and runs it
once under QEMU with `-d in_asm,exec,nochain`: every block QEMU translates is logged once with
its instructions, and every time a block runs (no chaining, so every time) its start address.
A block's instructions times its runs, summed per symbol of the ELF, is the table; --annotate
prints the function's disassembly (objdump) with each instruction's count beside it. Counts
cover the whole run, start-up and output printing included (`aot run --profile` gives the
per-layer view of the inference alone). On the M4 the total is the -icount figure plus the
start-up and printing (about 26 K instructions for int8 KWS); on the M55 the block counts run
about a third higher than -icount (1.09 M for int8 KWS, whose inference -icount counts as
0.78 M), so read them there as shares, not as instructions.
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

from aot.boards import load_board
from aot.firmware import generate_firmware
from aot.firmware.run import _build
from aot.qemu import qemu_command
from aot.quiet import quiet_third_party

_ADDR = re.compile(r"0x([0-9a-f]+):")


def block_counts(log: Path) -> collections.Counter:
    """Guest instructions run per instruction address, from an in_asm,exec,nochain log."""
    blocks: dict[int, list[int]] = {}
    runs: collections.Counter = collections.Counter()
    current = None
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                current = []
                continue
            if current is not None:
                m = _ADDR.match(line)
                if m:
                    current.append(int(m.group(1), 16))
                    continue
                if current:
                    blocks[current[0]] = current
                current = None
            if line.startswith("Trace "):
                # Trace 0: 0x7f.. [cs_base/pc/flags/...] symbol
                runs[int(line.split("[", 1)[1].split("/")[1], 16)] += 1
    if current:
        blocks[current[0]] = current
    per_pc: collections.Counter = collections.Counter()
    for pc, n in runs.items():
        for a in blocks.get(pc, (pc,)):
            per_pc[a] += n
    return per_pc


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


def annotate(elf: Path, prefix: str, name: str, per_pc: collections.Counter) -> str:
    dump = subprocess.run([f"{prefix}objdump", "-d", "--no-show-raw-insn", str(elf)],
                          capture_output=True, text=True, check=True).stdout
    lines, inside = [], False
    for line in dump.splitlines():
        if line.endswith(f"<{name}>:"):
            inside = True
        elif inside and not line.strip():
            break
        if inside:
            m = re.match(r"\s*([0-9a-f]+):", line)
            count = per_pc.get(int(m.group(1), 16), 0) if m else None
            lines.append(f"{count:>12,} {line}" if count is not None else line)
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
    with tempfile.TemporaryDirectory() as tmp:
        project = generate_firmware(args.model, board.name, Path(tmp) / "fw",
                                    int8_io=args.int8_io)
        elf = _build(project.directory, project.project_board)
        log = Path(tmp) / "blocks.log"
        run = subprocess.run([*qemu_command(board, elf), "-d", "in_asm,exec,nochain",
                              "-D", str(log)], capture_output=True, text=True, timeout=1800)
        if run.returncode != 0:
            print(run.stdout + run.stderr, file=sys.stderr)
            raise SystemExit(f"the firmware exited with {run.returncode}")
        per_pc = block_counts(log)
        fn = per_function(per_pc, symbols(elf, board.prefix))
        total = sum(fn.values())
        print(f"{args.model} on {board.name} ({board.cpu}): {total:,} guest instructions, "
              f"whole run")
        print(f"{'instructions':>14}  {'share':>6}  function")
        for name, n in fn.most_common(args.top):
            print(f"{n:>14,}  {100 * n / total:5.1f}%  {name}")
        if args.annotate:
            print()
            print(annotate(elf, board.prefix, args.annotate, per_pc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
