"""How long aot.host takes to build each zoo network's generated C, in a fresh cache.

    .venv/bin/python bench/host_build.py

The networks build one after the other into one cache: each compiles the runtime files' objects
the ones before it did not need ("compiled", in parallel, one a core) and its own translation
unit, and takes the rest from the cache. "cold s" builds the same network into an empty
cache, as every new model did before the objects were cached.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import torch

import aot
import aot.host
from aot.codegen.runtime import for_arch, host_arch
from aot.zoo import ZOO


def _build_s(sources, cache: str) -> float:
    t = time.perf_counter()
    aot.host.build(sources, cache_dir=cache)
    return time.perf_counter() - t


def main() -> None:
    names = sorted(ZOO)
    sources = {}
    for name in names:
        model, example = ZOO[name]()
        manager = aot.to_edge(torch.export.export(model.eval(), example)).to_executorch()
        sources[name] = aot.generate_c(manager, name=name)
    head = f"{'model':<12}{'runtime files':>15}{'compiled':>10}{'build s':>10}{'cold s':>9}"
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as cache:
        objects = Path(cache) / "objects"
        for name in names:
            before = len(list(objects.glob("*.o")))
            s = _build_s(sources[name], cache)
            compiled = len(list(objects.glob("*.o"))) - before
            with tempfile.TemporaryDirectory() as cold:
                s_cold = _build_s(sources[name], cold)
            files = len(for_arch(sources[name].runtime_sources, host_arch()))
            print(f"{name:<12}{files:>15}{compiled:>10}{s:>10.2f}{s_cold:>9.2f}")


if __name__ == "__main__":
    main()
