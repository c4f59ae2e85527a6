"""Host latency of the generated C beside eager torch and ExecuTorch's portable runtime.

    .venv/bin/python bench/host_latency.py [--repeat N]

All three run the same zoo network on the same input, one thread, in this one process; the
generated C is built by aot.host (gcc -O2 -std=c99). Times are medians over N calls; the ratios
are what to compare (absolute numbers depend on the machine).
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

import aot
import aot.host
from aot.zoo import ZOO


def _median_ms(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    torch.set_num_threads(1)
    try:
        from executorch.runtime import Runtime
        runtime = Runtime.get()
    except ImportError:
        runtime = None
    rows = []
    for name, build in ZOO.items():
        model, example = build()
        manager = aot.to_edge(torch.export.export(model, example)).to_executorch()
        c_model = aot.host.build(aot.generate_c(manager, name=name))
        x = example[0].numpy()
        c_ms = _median_ms(lambda: c_model(x), args.repeat)
        with torch.no_grad():
            eager_ms = _median_ms(lambda: model(*example), args.repeat)
        et_ms = None
        if runtime is not None:
            from executorch.exir import to_edge
            et_buffer = to_edge(torch.export.export(model, example)).to_executorch().buffer
            method = runtime.load_program(et_buffer).load_method("forward")
            et_ms = _median_ms(lambda: method.execute(list(example)), args.repeat)
        rows.append((name, c_ms, eager_ms, et_ms))
    head = (f"{'model':<12}{'C ms':>9}{'eager ms':>10}{'ET ms':>9}"
            f"{'ET / C':>9}{'eager / C':>11}")
    print(head)
    print("-" * len(head))
    for name, c_ms, eager_ms, et_ms in rows:
        et = f"{et_ms:9.3f}{et_ms / c_ms:8.1f}x" if et_ms is not None else f"{'n/a':>9}{'n/a':>9}"
        print(f"{name:<12}{c_ms:9.3f}{eager_ms:10.3f}{et}{eager_ms / c_ms:10.2f}x")


if __name__ == "__main__":
    main()
