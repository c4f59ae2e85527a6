"""Our .pte beside ExecuTorch 1.5.1's for the same network, and the error of each in
ExecuTorch's runtime against eager torch.

    .venv/bin/python bench/pte_size.py
"""
from __future__ import annotations

import torch

import aot
from aot.zoo import ZOO


def main() -> None:
    from executorch.exir import to_edge
    from executorch.runtime import Runtime
    runtime = Runtime.get()
    head = f"{'model':<12}{'ours B':>11}{'ExecuTorch B':>14}{'ratio':>8}{'ours err':>11}{'ET err':>10}"
    print(head)
    print("-" * len(head))
    for name, build in ZOO.items():
        model, example = build()
        ours = aot.to_edge(torch.export.export(model, example)).to_executorch().buffer
        theirs = to_edge(torch.export.export(model, example)).to_executorch().buffer
        want = model(*example).detach()
        errs = []
        for buf in (ours, theirs):
            out = runtime.load_program(buf).load_method("forward").execute(list(example))[0]
            errs.append(float((out - want).abs().max()))
        print(f"{name:<12}{len(ours):>11,}{len(theirs):>14,}{len(ours) / len(theirs):>8.3f}"
              f"{errs[0]:>11.1e}{errs[1]:>10.1e}")


if __name__ == "__main__":
    main()
