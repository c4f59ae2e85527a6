"""Instructions and estimated cycles per inference on every board, float32 and int8, beside the
published anchors.

    .venv/bin/python bench/board_cycles.py [--boards mps2-an386 ...] [--nets kws ...]

For each zoo network (MLPerf Tiny's four), built float32 (torch.export) and int8
(aot.quantize, int8 inputs and outputs, as the MLPerf Tiny submissions run), on each QEMU board:
  instructions  guest instructions per inference (QEMU -icount, one <name>_run)
  cycles        estimated cycles (aot.cycles: exact per-instruction counts priced with the
                Cortex-M4 TRM's timings, zero wait states; on the M55 a first-order model
                of Helium's beats); on the M4 and M55 boards only
  per MAC       cycles (else instructions) / multiply-accumulates of the network
  code          code bytes of runtime + model (text minus constants, from the link map;
                the board's startup, printf and C library aside)
  anchor        MLPerf Tiny v1.2's published cycles for the row: X-CUBE-AI 9.0 on an
                STM32L4R5 (Cortex-M4, 120 MHz), int8. Cycles are compared with cycles only.
  target        what issue 38 asks of the row: M4 int8 estimated cycles at most 0.9x the
                anchor (the margin stands for the flash wait states the model does not see),
                M4 float32 at most 2x that, M55 int8 instructions no worse than before.
  code target   int8 KWS runtime + model code: at most 12 KB on the M4, 24 KB on the M55.

Each board runs its own runtime arch: the DSP kernels (SMLAD) on the M4, M7 and M55 boards
(Helium on the M55), the portable C on the M3 and RISC-V.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

import aot
from aot.report import op_rows
from aot.zoo import ZOO, calibration_set

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

BOARDS = ("mps2-an385", "mps2-an386", "mps2-an500", "mps3-an547", "riscv32-virt")
# MLPerf Tiny v1.2, closed division, X-CUBE-AI 9.0, NUCLEO-L4R5ZI (Cortex-M4 @ 120 MHz), int8.
ANCHOR_M4_INT8 = {"kws": 5.18e6, "vww": 10.67e6, "resnet8": 19.82e6, "autoencoder": 0.49e6}
M4_INT8_CYCLES = {"kws": 4.66e6, "vww": 9.60e6, "resnet8": 17.8e6, "autoencoder": 0.44e6}
TARGETS = {  # (dtype, board): per network, (estimated cycles on the M4, else instructions)
    ("int8", "mps2-an386"): M4_INT8_CYCLES,
    ("float32", "mps2-an386"): {k: 2 * v for k, v in M4_INT8_CYCLES.items()},
    ("int8", "mps3-an547"): {"kws": 0.603e6, "vww": 1.88e6, "resnet8": 2.76e6},
}
INSTRUCTION_TARGETS = {("int8", "mps3-an547")}   # targets on instructions, not cycles
CODE_TARGETS = {("kws", "int8", "mps2-an386"): 12 * 1024,
                ("kws", "int8", "mps3-an547"): 24 * 1024}


def _run(program, board, int8_io):
    """A RunReport (with estimated cycles where the board's core is priced), or None where
    the network does not fit the board."""
    from aot.boards import load_board
    from aot.cycles import cycle_model
    from aot.errors import BoardError
    from aot.firmware import run_on_board
    priced = cycle_model(load_board(board)) is not None
    try:
        return run_on_board(program, board, timeout=600, int8_io=int8_io, cycles=priced)
    except BoardError as e:
        if "does not fit" not in str(e):
            raise
        return None


def _m(v) -> str:
    return f"{v / 1e6:.2f} M" if v else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", nargs="*", default=list(BOARDS))
    ap.add_argument("--nets", nargs="*", default=list(ZOO))
    args = ap.parse_args()
    rows = []
    for name in args.nets:
        model, example = ZOO[name]()
        f32 = torch.export.export(model, example)
        q = aot.quantize(model, example, calibration_set(name))
        macs = sum(r.macs for r in op_rows(aot.to_edge(f32).to_executorch().lowered()))
        for dtype, program in (("int8", q), ("float32", f32)):
            for board in args.boards:
                r = _run(program, board, int8_io=dtype == "int8")
                rows.append((name, dtype, board, macs, r))
                print(f"  {name} {dtype} {board}: "
                      f"{r.instructions if r else 'does not fit'}", file=sys.stderr, flush=True)
    head = (f"{'network':<12} {'dtype':<8} {'board':<13} {'instructions':>13} "
            f"{'cycles (est.)':>14} {'per MAC':>8} {'code B':>7}    {'anchor (cycles)':>13} "
            f"{'target':>12}")
    print(head)
    print("-" * len(head))
    for name, dtype, board, macs, r in rows:
        anchor = ANCHOR_M4_INT8[name] if (dtype, board) == ("int8", "mps2-an386") else None
        target = TARGETS.get((dtype, board), {}).get(name)
        if r is None:
            print(f"{name:<12} {dtype:<8} {board:<13} {'does not fit':>13}")
            continue
        n = r.instructions or 0
        cyc = r.estimate.cycles if r.estimate else None
        measure = cyc if cyc is not None else n
        checked = n if (dtype, board) in INSTRUCTION_TARGETS else measure
        code = r.code.runtime_and_model if r.code else None
        mark = "" if target is None else (" ok" if checked <= target else " over")
        code_target = CODE_TARGETS.get((name, dtype, board))
        code_mark = "" if code_target is None or code is None else \
            (" ok" if code <= code_target else " over")
        print(f"{name:<12} {dtype:<8} {board:<13} {n:>13,} {_m(cyc):>14} "
              f"{measure / macs:>8.2f} {f'{code:,}' if code else '-':>7}{code_mark:<3} "
              f"{_m(anchor):>13} {_m(target):>12}{mark}")


if __name__ == "__main__":
    main()
