"""What FusedElementwiseBackend saves: kernel calls, arena, memory traffic and host latency.

    .venv/bin/python bench/fusion.py [--repeat N] [--board mps2-an386]

Each model is lowered twice, as is and with FusedElementwisePartitioner, and both are run as
generated C on the host (aot.host, gcc -O2) on the same input. Columns:
  calls     kernel calls plus delegate calls in the method
  arena     planned arena bytes
  traffic   bytes every call reads and writes, summed (a fused chain reads its inputs and
            writes its outputs once; unfused, every op does)
  latency   median host time of one inference (us); the ratio is what to compare
  error     max |fused C - eager torch|
  board     with --board: guest instructions per inference under QEMU (aot.firmware)
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import aot
import aot.host
from aot.backends import FusedElementwisePartitioner
from aot.zoo import resnet8


def hswish(x):
    return x * F.relu6(x + 3.0) / 6.0


class MlpChains(nn.Module):
    """A transformer-style feed-forward block (widen 8x, activate, narrow) whose activations
    are chains: SiLU by hand plus a bias and a clamp of an affine on the wide tensor, then a
    tanh-GELU mixed with |y| on the narrow one."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(128, 1024), nn.Linear(1024, 128), nn.Linear(128, 10)
        self.b = nn.Parameter(torch.randn(1024) * 0.1)

    def forward(self, x):
        h = self.l1(x)
        h = torch.clamp((h * torch.sigmoid(h) + self.b) * 0.5 - 0.1, -3.0, 3.0)
        y = self.l2(h)
        y = F.gelu(y, approximate="tanh") * 1.5 + y.abs() * 0.1
        return torch.tanh(self.l3(y))


class InvertedResidual(nn.Module):
    """MobileNetV3's block with hardswish written out: expand 1x1, depthwise 3x3, project."""

    def __init__(self, c, expand=4):
        super().__init__()
        e = c * expand
        self.expand = nn.Conv2d(c, e, 1)
        self.dw = nn.Conv2d(e, e, 3, padding=1, groups=e)
        self.project = nn.Conv2d(e, c, 1)

    def forward(self, x):
        h = hswish(self.expand(x))
        h = hswish(self.dw(h))
        return x + self.project(h)


class HardswishNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.blocks = nn.Sequential(InvertedResidual(16), InvertedResidual(16))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        h = self.blocks(hswish(self.stem(x)))
        return self.head(hswish(h).mean(dim=(2, 3)))


def _seeded(cls, *shape):
    def build():
        torch.manual_seed(0)
        return cls().eval(), (torch.randn(*shape),)
    return build


MODELS = {
    "mlp_chains": _seeded(MlpChains, 8, 128),
    "hardswish_net": _seeded(HardswishNet, 1, 3, 64, 64),
    "resnet8": resnet8,
}


def _traffic(method) -> int:
    g = method.graph
    return sum(sum(g.tensors[t].nbytes for t in (*c.reads, *c.outs)) for c in g.calls)


def _median_us(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--board", help="also count instructions on this QEMU board")
    args = ap.parse_args()
    rows = []
    for name, build in MODELS.items():
        model, example = build()
        ep = torch.export.export(model, example)
        plain = aot.to_edge(ep).to_executorch()
        fused = aot.to_edge(ep).to_backend(FusedElementwisePartitioner()).to_executorch()
        x = [t.numpy() for t in example]
        result = {}
        for kind, manager in (("plain", plain), ("fused", fused)):
            c_model = aot.host.build(aot.generate_c(manager, name=f"{name}_{kind}"))
            m = manager.lowered()
            result[kind] = dict(calls=len(m.graph.calls), arena=m.plan.arena_size,
                                traffic=_traffic(m),
                                us=_median_us(lambda: c_model(*x), args.repeat),
                                out=c_model(*x))
            if args.board:
                from aot.firmware import run_on_board
                report = run_on_board(manager, args.board, inputs=x, reference=model)
                result[kind]["instructions"] = report.instructions
        with torch.no_grad():
            want = model(*example)
        want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
        error = max(float(np.abs(g - w).max()) for g, w in zip(result["fused"]["out"], want))
        rows.append((name, result["plain"], result["fused"], error))

    head = (f"{'model':<14}{'calls':>11}{'arena B':>19}{'traffic B':>23}"
            f"{'latency us':>21}{'error':>10}")
    print(head)
    print(f"{'':<14}{'plain>fused':>11}{'plain > fused':>19}{'plain > fused':>23}"
          f"{'plain > fused':>21}")
    print("-" * len(head))
    for name, p, f, error in rows:
        print(f"{name:<14}{p['calls']:>5} > {f['calls']:<3}"
              f"{p['arena']:>9,} > {f['arena']:<7,}"
              f"{p['traffic']:>11,} > {f['traffic']:<9,}"
              f"{p['us']:>8.1f} > {f['us']:<7.1f}({p['us'] / f['us']:.2f}x)"
              f"{error:>9.1e}" + (f"  board {p['instructions']:,} > {f['instructions']:,} "
                                  f"({p['instructions'] / f['instructions']:.2f}x)"
                                  if args.board else ""))


if __name__ == "__main__":
    main()
