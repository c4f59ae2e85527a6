"""Arena and lowering time on the MLPerf Tiny zoo, beside ExecuTorch 1.5.1's defaults, and the
arena below the whole-tensor bound (outputs over their inputs' dead bytes).

    .venv/bin/python bench/arena.py [--no-executorch]

Prints two tables.

1. float32, the default plan (stages patch by patch where that lowers it): our planned
   arena, its liveness lower bound, the planner that won, ExecuTorch's planned arena for the
   same model (its default to_edge().to_executorch()), and both lowering times measured in this run.
2. Below the whole-tensor bound, int8 (int8 I/O) and float32 beside it, for the zoo and
   torchvision's mobilenet_v2 (0.35, 96x96): the whole-tensor bound (no two live tensors
   share a byte), the default arena (a stage patch by patch where that lowers it, no
   overlaps), the bound with the op table's overlaps (aot/overlap.py: what any plan with
   them could reach), the arena planned with MemoryPlanningPass(overlap=True) and no
   patches, the same with patches (EdgeCompileConfig(patches=True), the default), the issue's
   target, and for mobilenet_v2 the arena ExecuTorch's cortex_m flow plans (and the target
   of half of it).
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path

import torch

import aot
from aot.config import EdgeCompileConfig, backend_config
from aot.quiet import quiet_third_party
from aot.zoo import ZOO, calibration_set

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TARGETS = {"kws": 64_000, "vww": 221_184, "resnet8": 196_608, "autoencoder": 3_072}
# int8 (int8 I/O) arenas issue 39 asks for; mobilenet_v2's is half ExecuTorch's cortex_m arena
OVERLAP_TARGETS = {"kws": 8_700, "vww": 40_000, "resnet8": 34_000, "autoencoder": 768}


def _executorch(model, example):
    try:
        from executorch.exir import to_edge
    except ImportError:
        return None, None
    t = time.perf_counter()
    prog = to_edge(torch.export.export(model, example)).to_executorch()
    dt = time.perf_counter() - t
    plan = prog.executorch_program.execution_plan[0]
    return plan.non_const_buffer_sizes[1], dt


def float_table(with_et: bool) -> None:
    warm_model, warm_example = ZOO["autoencoder"]()   # first export pays torch's start-up costs
    aot.to_edge(torch.export.export(warm_model, warm_example)).to_executorch()
    if with_et:
        _executorch(warm_model, warm_example)
    rows = []
    for name, build in ZOO.items():
        model, example = build()
        t = time.perf_counter()
        manager = aot.to_edge(torch.export.export(model, example)).to_executorch()
        ours_s = time.perf_counter() - t
        plan = manager.lowered().plan
        et_arena, et_s = _executorch(model, example) if with_et else (None, None)
        rows.append((name, plan.arena_size, plan.lower_bound, TARGETS[name], plan.planner,
                     et_arena, ours_s, et_s))
    head = (f"{'model':<12}{'arena B':>10}{'bound B':>10}{'target B':>10}  {'planner':<16}"
            f"{'ET arena B':>11}{'lower s':>9}{'ET s':>7}")
    print(head)
    print("-" * len(head))
    for name, arena, bound, target, planner, et_arena, ours_s, et_s in rows:
        ok = "ok" if arena <= target else "OVER"
        et_a = f"{et_arena:,}" if et_arena is not None else "n/a"
        et_t = f"{et_s:.2f}" if et_s is not None else "n/a"
        print(f"{name:<12}{arena:>10,}{bound:>10,}{target:>10,}  {planner:<16}{et_a:>11}"
              f"{ours_s:>9.2f}{et_t:>7}  {ok}")


def _plans(ep, int8_io: bool) -> tuple:
    """(whole-tensor bound, default arena, overlap bound, arena with overlaps, and with patches
    too) of a program. The whole-tensor bound is the plain plan's: with overlaps, the bound
    counts the scratch of the layers that run in place by bands too."""
    def lowered(patches: bool, overlap: bool = True):
        config = EdgeCompileConfig(int8_io=int8_io, patches=patches)
        return aot.to_edge(ep, compile_config=config).to_executorch(backend_config(overlap)) \
            .lowered()
    whole = lowered(False)
    patched = lowered(True).plan.arena_size
    return lowered(False, False).plan.lower_bound, lowered(True, False).plan.arena_size, \
        whole.least_bound, whole.plan.arena_size, patched


def overlap_table(with_et: bool) -> None:
    from int8_models import executorch_arena
    from user_models import USER_MODELS
    nets = {**{n: (lambda n=n: (*ZOO[n](), calibration_set(n))) for n in ZOO},
            "mobilenet_v2": USER_MODELS["mobilenet_v2"]}
    head = (f"{'model':<13}{'dtype':<8}{'whole B':>9}{'default B':>11}{'overlap B':>11}"
            f"{'arena B':>9}"
            f"{'patches B':>11}{'ratio':>7}{'target B':>10}  verdict")
    print(head)
    print("-" * len(head))
    for name, build in nets.items():
        model, example, cal = build()
        q = _plans(aot.quantize(model, example, cal), True)
        f = _plans(aot.export(model, example), False)
        et = executorch_arena(model, example, cal) if with_et and name == "mobilenet_v2" \
            else None
        target = OVERLAP_TARGETS.get(name, et // 2 if et else None)
        for dtype, (whole, default, bound, arena, patched) in (("int8", q), ("float32", f)):
            best = min(arena, patched)
            verdict = "" if dtype != "int8" or target is None else \
                "ok" if best <= target else "OVER"
            t = f"{target:,}" if dtype == "int8" and target is not None else ""
            p = f"{patched:,}"
            print(f"{name:<13}{dtype:<8}{whole:>9,}{default:>11,}{bound:>11,}{arena:>9,}{p:>11}"
                  f"{best / whole:>7.2f}{t:>10}  {verdict}")
        if et is not None:
            print(f"{'':<13}ExecuTorch cortex_m flow: {et:,} B (target: half)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-executorch", action="store_true", help="leave ExecuTorch's columns")
    args = ap.parse_args(argv)
    quiet_third_party()
    logging.disable(logging.WARNING)             # ExecuTorch's flow logs each layout change
    warnings.simplefilter("ignore", FutureWarning)
    float_table(not args.no_executorch)
    print()
    overlap_table(not args.no_executorch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
