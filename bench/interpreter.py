"""The .pte interpreter against the static C, on mps2-an386 (Cortex-M4F): speed, code, RAM.

    .venv/bin/python bench/interpreter.py [--nets kws ...] [--board mps2-an386]

For each zoo network, float32 and int8 (aot.quantize; float inputs and outputs), the same
program run two ways on the same board and inputs:
  static        QEMU instructions per inference of the generated C (aot run)
  interpreter   the same for the .pte run by runtime_c's interpreter (aot run --interpreter),
                rt_pte_run alone (loading is not in the count)
  ratio         interpreter / static (issue 12: within 5%, 1.05)
  code          code bytes (text minus constants, from the link map: runtime, and the model
                or the kernel table; the board's startup, printf and C library aside)
  RAM           data + bss beyond the arena and the stack: the interpreter's state (its fixed
                part and the program's cached int lists) against the static C's nothing
ExecuTorch's own runtime is about 116 KB of code bare metal (issue 12's figure).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

import aot
from aot.zoo import ZOO, calibration_set

NETS = ("kws", "vww", "resnet8", "autoencoder")


def _pte(name: str, int8: bool, work: Path) -> Path:
    module, example = ZOO[name]()
    ep = aot.quantize(module, example, calibration_set(name, 8)) if int8 else \
        torch.export.export(module.eval(), example)
    path = work / f"{name}{'_int8' if int8 else ''}.pte"
    path.write_bytes(aot.to_edge(ep).to_executorch().buffer)
    return path


def _ram(report) -> int:
    return report.data + report.bss - report.arena_bytes - (report.stack_bytes or 0)


def main(argv=None) -> int:
    from aot.errors import BoardError
    from aot.firmware import run_on_board
    from aot.firmware.interp import run_interpreter
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nets", nargs="+", default=list(NETS), choices=NETS)
    ap.add_argument("--board", default="mps2-an386")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.nets:
            for int8 in (False, True):
                pte = _pte(name, int8, Path(tmp))
                try:
                    static = run_on_board(pte, args.board, timeout=900)
                    interp = run_interpreter(pte, args.board, timeout=900)
                except BoardError as e:
                    print(f"{pte.name}: {e}", file=sys.stderr)
                    continue
                same = all(a.tobytes() == b.tobytes()
                           for a, b in zip(static.outputs, interp.outputs))
                rows.append((pte.stem, static, interp, same))
    print("| program | static | interpreter | ratio | code static | code interpreter | "
          "RAM static | RAM interpreter | outputs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, s, i, same in rows:
        ratio = i.instructions / s.instructions if s.instructions else float("nan")
        print(f"| {label} | {s.instructions / 1e6:.3f} M | {i.instructions / 1e6:.3f} M | "
              f"{ratio:.3f} | {s.code.runtime_and_model:,} | {i.code.runtime_and_model:,} | "
              f"{_ram(s):,} | {_ram(i):,} | {'same bits' if same else 'DIFFER'} |")
    return 0 if all(same for *_, same in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
