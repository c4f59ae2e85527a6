"""Arena and lowering time on the MLPerf Tiny zoo, beside ExecuTorch 1.5.1's defaults.

    .venv/bin/python bench/arena.py

Prints, per network: our planned arena, its liveness lower bound, the planner that won,
ExecuTorch's planned arena for the same model (its default to_edge().to_executorch()), and
both lowering times measured in this run.
"""
from __future__ import annotations

import time

import torch

import aot
from aot.zoo import ZOO

TARGETS = {"kws": 64_000, "vww": 221_184, "resnet8": 196_608, "autoencoder": 3_072}


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


def main() -> None:
    warm_model, warm_example = ZOO["autoencoder"]()   # first export pays torch's start-up costs
    aot.to_edge(torch.export.export(warm_model, warm_example)).to_executorch()
    _executorch(warm_model, warm_example)
    rows = []
    for name, build in ZOO.items():
        model, example = build()
        t = time.perf_counter()
        manager = aot.to_edge(torch.export.export(model, example)).to_executorch()
        ours_s = time.perf_counter() - t
        plan = manager.lowered().plan
        et_arena, et_s = _executorch(model, example)
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


if __name__ == "__main__":
    main()
