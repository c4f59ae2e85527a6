"""int8 on the models people bring (issue 37): torchvision's classifiers and user-style 1-D,
recurrent, attention and U-Net models (tests/user_models.py), each quantized with aot.quantize.

    .venv/bin/python bench/int8_models.py [names ...] [--boards] [--no-executorch]

Per model:
  fallback  float ops left in the int8 program (aot report's FALLBACK rows), by op
  LSB       the largest distance, in output steps, between the C (float I/O) and the PT2E
            reference (the converted torch model) over 20 seeded inputs; "top", on how many
            of them the top class agreed (classifiers only); "spread", how far the reference
            itself moves, in output steps, when its inputs move by 0.1% (where that is large,
            the network amplifies any rounding and LSB measures the network, not the C)
  arena     int8 arena with int8 I/O, our float32 arena and the ratio (target <= 0.3), and the
            arena ExecuTorch's cortex_m flow plans for the same model (CortexMQuantizer,
            to_edge, CortexMPassManager, to_executorch: its planned non-constant buffers),
            measured in this run
  instr     with --boards: guest instructions per inference of int8 and float32 on the M3
            (mps2-an385, no FPU) and the M55 (mps3-an547) (target int8 <= 0.5x float32)
"""
from __future__ import annotations

import argparse
import collections
import logging
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

import aot
import aot.host
from aot.config import EdgeCompileConfig
from aot.firmware import output_scales
from aot.report import op_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from user_models import USER_MODELS  # noqa: E402

CLASSIFIERS = {"mobilenet_v2", "mobilenet_v3_small", "mnasnet0_5", "shufflenet_v2_x0_5",
               "squeezenet1_1", "resnet18", "activity_conv1d", "gru_keywords",
               "keyword_transformer"}


def fallbacks(manager) -> dict:
    return dict(collections.Counter(r.op.split("::")[-1].split(".")[0]
                                    for r in op_rows(manager.lowered()) if r.fallback))


def lsb_distance(name: str, ep, float_io, example, count: int = 20) -> tuple[float, int, float]:
    """Over ``count`` inputs: the largest |C - PT2E| in output steps, on how many inputs the top
    class agrees, and the reference's own spread: the largest move of PT2E's output, in steps,
    when each input is scaled by 1 + 0.001 N(0, 1) (how much any rounding can be amplified)."""
    (scale,) = output_scales(float_io.executorch_program)
    host = aot.host.build(aot.generate_c(float_io, name=f"u_{name}"))
    reference = ep.module()
    worst, same_top, spread = 0.0, 0, 0.0
    for seed in range(count):
        gen = torch.Generator().manual_seed(1000 + seed)
        xs = [torch.randn(t.shape, generator=gen) for t in example]
        nudged = [x * (1 + 1e-3 * torch.randn(x.shape, generator=gen)) for x in xs]
        with torch.no_grad():
            want = reference(*xs).detach().numpy()
            moved = reference(*nudged).detach().numpy()
        (got,) = host(*[x.numpy() for x in xs])
        worst = max(worst, float(np.abs(got - want).max()) / scale)
        spread = max(spread, float(np.abs(moved - want).max()) / scale)
        same_top += bool((got.reshape(want.shape).argmax(-1) == want.argmax(-1)).all())
    return worst, same_top, spread


def executorch_arena(model, example, cal) -> int | None:
    """The planned arena of ExecuTorch's own cortex_m flow for the model, or None where
    ExecuTorch is not installed or cannot lower it."""
    try:
        from executorch.backends.arm.scripts.aot_arm_compiler import _to_edge_cortex_m
        from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig
    except ImportError:
        return None
    try:
        ep = torch.export.export(model, example)
        _, edge, _ = _to_edge_cortex_m(
            ep, SimpleNamespace(cortex_m_explicit_layout=False, quantize=True,
                                strict_export=False),
            ep.module(), example, [tuple(c) for c in cal], CortexMTargetConfig(cpu=CortexM.M4))
        plan = edge.to_executorch().executorch_program.execution_plan[0]
        return int(sum(plan.non_const_buffer_sizes[1:]))
    except Exception as e:       # noqa: BLE001  (their flow's limits are a column, not a crash)
        print(f"  (ExecuTorch's cortex_m flow: {type(e).__name__}: {str(e)[:120]})")
        return None


def instructions(manager, board: str) -> int | None:
    from aot.errors import BoardError
    from aot.firmware import run_on_board
    try:
        return run_on_board(manager, board, timeout=600).instructions
    except BoardError as e:
        if "does not fit" not in str(e):
            raise
        return None


def measure(name: str, boards: bool, with_et: bool) -> dict:
    model, example, cal = USER_MODELS[name]()
    ep = aot.quantize(model, example, cal)
    int8 = aot.to_edge(ep, compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()
    float_io = aot.to_edge(ep).to_executorch()
    f32 = aot.to_edge(aot.export(model, example)).to_executorch()
    lsb, top, spread = lsb_distance(name, ep, float_io, example)
    row = dict(name=name, fallbacks=fallbacks(int8), lsb=lsb, top=top, spread=spread,
               arena=int8.lowered().plan.arena_size, f32=f32.lowered().plan.arena_size,
               et=executorch_arena(model, example, cal) if with_et else None)
    if boards:
        for board in ("mps2-an385", "mps3-an547"):
            row[board] = (instructions(int8, board), instructions(f32, board))
    return row


def _n(v) -> str:
    return "-" if v is None else f"{v:,}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=list(USER_MODELS))
    ap.add_argument("--boards", action="store_true", help="count instructions under QEMU")
    ap.add_argument("--no-executorch", action="store_true",
                    help="skip ExecuTorch's cortex_m flow (its arena column)")
    args = ap.parse_args(argv)
    logging.disable(logging.WARNING)     # ExecuTorch's flow logs each pass and input it converts
    head = (f"{'model':20} {'fallbacks':>9} {'LSB':>5} {'spread':>6} {'top':>5} "
            f"{'int8 arena':>11} {'f32 arena':>10} {'ratio':>6} {'ET cortex_m':>12}")
    if args.boards:
        head += f" {'M3 int8/f32':>24} {'M55 int8/f32':>24}"
    print(head)
    for name in args.names:
        t = time.time()
        r = measure(name, args.boards, not args.no_executorch)
        top = f"{r['top']}/20" if name in CLASSIFIERS else "-"
        line = (f"{name:20} {sum(r['fallbacks'].values()):>9} {r['lsb']:>5.0f} "
                f"{r['spread']:>6.0f} {top:>5} "
                f"{r['arena']:>11,} {r['f32']:>10,} {r['arena'] / r['f32']:>6.2f} "
                f"{_n(r['et']):>12}")
        if args.boards:
            for board in ("mps2-an385", "mps3-an547"):
                i8, f = r[board]
                ratio = f" {i8 / f:.2f}x" if i8 and f else ""
                line += f" {_n(i8):>11}/{_n(f):>10}{ratio}"
        print(line, f"  {r['fallbacks'] or ''} ({time.time() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
