"""Instructions per inference on every board, float32 and int8, beside the published anchors.

    .venv/bin/python bench/board_cycles.py [--boards mps2-an386 ...] [--nets kws ...]

For each zoo network (MLPerf Tiny's four), built float32 (torch.export) and int8
(aot.quantize, int8 inputs and outputs, as the MLPerf Tiny submissions run), on each QEMU board:
  instructions  guest instructions per inference (QEMU -icount, one <name>_run)
  per MAC       instructions / multiply-accumulates of the network
  code          code bytes of runtime + model (text minus constants, from the link map;
                the board's startup, printf and C library aside)
  anchor        the best published Cortex-M result for that row, in cycles: MLPerf Tiny v1.2,
                X-CUBE-AI 9.0 on an STM32L4R5 (Cortex-M4, 120 MHz), int8. Cycles and QEMU
                instructions are different units (a load or a taken branch costs the M4 two or
                more cycles; QEMU counts one instruction): the anchor is a yardstick, not a claim
                of equality.
  target        the figure issue 11 asks of that row (M4 int8, M55 int8, M4 float32).

Each board runs its own runtime arch: the DSP kernels (SMLAD) on the M4, M7 and M55 boards,
the portable C on the M3 and RISC-V.
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
TARGETS = {  # (dtype, board): per network, QEMU instructions
    ("int8", "mps2-an386"): ANCHOR_M4_INT8,
    ("int8", "mps3-an547"): {"kws": 0.66e6, "vww": 1.9e6, "resnet8": 3.1e6,
                             "autoencoder": 0.07e6},
    ("float32", "mps2-an386"): {"kws": 4.0e6, "vww": 11.2e6, "resnet8": 18.8e6,
                                "autoencoder": 0.40e6},
}


def _run(program, board, int8_io):
    """A RunReport, or None where the network does not fit the board."""
    from aot.errors import BoardError
    from aot.firmware import run_on_board
    try:
        return run_on_board(program, board, timeout=600, int8_io=int8_io)
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
    head = (f"{'network':<12} {'dtype':<8} {'board':<13} {'instructions':>13} {'per MAC':>8} "
            f"{'code B':>7} {'anchor (cycles)':>16} {'target':>9}")
    print(head)
    print("-" * len(head))
    for name, dtype, board, macs, r in rows:
        anchor = ANCHOR_M4_INT8[name] if (dtype, board) == ("int8", "mps2-an386") else None
        target = TARGETS.get((dtype, board), {}).get(name)
        if r is None:
            print(f"{name:<12} {dtype:<8} {board:<13} {'does not fit':>13}")
            continue
        n = r.instructions or 0
        code = f"{r.code.runtime_and_model:,}" if r.code else "-"
        mark = "" if target is None else (" ok" if n <= target else " over")
        print(f"{name:<12} {dtype:<8} {board:<13} {n:>13,} {n / macs:>8.2f} {code:>7} "
              f"{_m(anchor):>16} {_m(target):>9}{mark}")


if __name__ == "__main__":
    main()
