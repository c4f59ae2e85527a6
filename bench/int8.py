"""int8 against float32 on the MLPerf Tiny zoo: arena, flash and instructions per inference.

    .venv/bin/python bench/int8.py [--boards mps2-an386 ...] [--no-boards]

Per network, quantized with aot.quantize (Int8Quantizer, 16 seeded calibration inputs):
  arena      the planned int8 arena with int8 I/O, against the int8 liveness bound of the
             issue and TensorFlow Lite Micro's arena for the same network (the tflite-micro
             interpreter's recorded allocation, same run); then the float-I/O int8 arena and
             the float32 arena
  flash      text + data of the firmware on mps2-an386, int8 (float I/O) and float32
  board      guest instructions per inference (QEMU -icount) and per MAC, int8 and float32,
             on every board (portable C kernels; the Cortex-M fast paths are a later issue)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

import aot
from aot.config import EdgeCompileConfig
from aot.report import op_rows
from aot.zoo import ZOO, calibration_set

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

BOUNDS = {"kws": 16_000, "vww": 55_296, "resnet8": 49_152, "autoencoder": 768}
BOARDS = ("mps2-an385", "mps2-an386", "mps2-an500", "mps3-an547", "riscv32-virt")


def _tflm_arena(manager) -> str:
    try:
        import tflm
    except ImportError:
        return "n/a"
    import numpy as np
    model, first, _ = tflm.to_tflite(manager.lowered())
    g = manager.lowered().graph
    x = np.zeros(g.tensors[first].shape, np.int8)
    return f"{tflm.run_tflm(model, [x])[1]:,}"


def _run(model, board, **kw):
    """A RunReport, or None where the network does not fit the board."""
    from aot.errors import BoardError
    from aot.firmware import run_on_board
    try:
        return run_on_board(model, board, timeout=300, **kw)
    except BoardError as e:
        if "does not fit" not in str(e):
            raise
        return None


def _instr(r, macs) -> str:
    if r is None:
        return f"{'does not fit':>18}"
    return f"{r.instructions or 0:>12,}{(r.instructions or 0) / macs:>6.2f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", nargs="*", default=list(BOARDS))
    ap.add_argument("--no-boards", action="store_true")
    args = ap.parse_args()
    boards = [] if args.no_boards else args.boards
    arena_rows, run_rows = [], []
    for name, build in ZOO.items():
        model, example = build()
        ep = aot.quantize(model, example, calibration_set(name))
        int8_io = aot.to_edge(ep, compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()
        q = aot.to_edge(ep).to_executorch()
        f = aot.to_edge(torch.export.export(model, example)).to_executorch()
        macs = sum(r.macs for r in op_rows(f.lowered()))
        arena = int8_io.lowered().plan.arena_size
        arena_rows.append((name, arena, BOUNDS[name], _tflm_arena(int8_io),
                           q.lowered().plan.arena_size, f.lowered().plan.arena_size))
        if boards:
            for board in boards:
                run_rows.append((name, board, macs, _run(ep, board),
                                 _run(f, board, reference=model)))
    head = (f"{'model':<12}{'int8 arena':>11}{'bound':>9}{'TFLM arena':>11}"
            f"{'float I/O':>11}{'float32':>10}")
    print("arena bytes (int8 with int8 I/O; then int8 with float I/O; then float32)")
    print(head + "\n" + "-" * len(head))
    for name, arena, bound, tflm_arena, qf, f32 in arena_rows:
        ok = "ok" if arena <= bound else "OVER"
        print(f"{name:<12}{arena:>11,}{bound:>9,}{tflm_arena:>11}{qf:>11,}{f32:>10,}  {ok}")
    if not run_rows:
        return
    print()
    head = (f"{'model':<12}{'board':<14}{'int8 instr':>12}{'/MAC':>6}{'float instr':>13}"
            f"{'/MAC':>6}{'ratio':>7}{'int8 flash':>12}{'f32 flash':>11}{'LSB err':>9}")
    print("instructions per inference (QEMU -icount), flash = text + data")
    print(head + "\n" + "-" * len(head))
    for name, board, macs, ri, rf in run_rows:
        lsb = max((v for v in ri.lsb if v is not None), default=float("nan")) if ri else \
            float("nan")
        ratio = f"{rf.instructions / ri.instructions:>7.2f}" if ri and rf and \
            ri.instructions and rf.instructions else f"{'-':>7}"
        flash = lambda r: f"{r.text + r.data:,}" if r else "-"
        print(f"{name:<12}{board:<14}{_instr(ri, macs)} {_instr(rf, macs)}{ratio}"
              f"{flash(ri):>12}{flash(rf):>11}{lsb:>9.2f}")


if __name__ == "__main__":
    main()
