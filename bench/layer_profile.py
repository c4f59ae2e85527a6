"""Per-layer profile of a zoo network on a board: the table `aot run --profile` prints, and its
bar chart.

    .venv/bin/python bench/layer_profile.py [--net kws] [--board mps2-an386] [--float]
                                      [--cycles] [--svg bench/kws-profile.svg]

Quantizes the network (aot.quantize, int8 I/O) unless --float, runs it on the board with the
profile built in (guest instructions per kernel call under QEMU -icount; the same as
`aot run MODEL --board B --int8-io --profile --svg F`) and prints the table; --cycles adds the
estimated Cortex-M4 cycles of each call (aot.cycles). docs/benchmarks.md's
profile figure and bench/kws-profile.svg come from the defaults.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

import aot
from aot.firmware import run_on_board
from aot.profile import format_profile, render_profile_svg
from aot.zoo import ZOO, calibration_set


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--net", default="kws", choices=sorted(ZOO))
    ap.add_argument("--board", default="mps2-an386")
    ap.add_argument("--float", action="store_true", help="the float32 network, not int8")
    ap.add_argument("--cycles", action="store_true", help="estimated Cortex-M4 cycles too")
    ap.add_argument("--svg", default=str(Path(__file__).resolve().parent / "kws-profile.svg"))
    args = ap.parse_args()
    module, example = ZOO[args.net]()
    if args.float:
        ep = torch.export.export(module, example)
    else:
        ep = aot.quantize(module, example, calibration_set(args.net))
    report = run_on_board(ep, args.board, name=args.net, int8_io=not args.float,
                          profile=True, timeout=600, cycles=args.cycles)
    if not report.ok or report.profile is None:
        print(f"the run failed: status {report.status}, exit code {report.exit_code}")
        return 1
    print(format_profile(report.profile))
    Path(args.svg).write_text(render_profile_svg(report.profile))
    print(f"chart: {args.svg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
