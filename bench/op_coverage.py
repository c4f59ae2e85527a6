"""ExecuTorch's public operator test suite, through ExecuTorch's portable flow and through ours.

    .venv/bin/python bench/op_coverage.py [--filter NAME] [--failures]

The suite (executorch.backends.test.suite.operators, shipped in the executorch wheel) holds
about 900 float32 cases, each a small model and its inputs. For every case this runs
- ExecuTorch's portable flow: to_edge_transform_and_lower -> to_executorch -> its runtime;
- ours: aot.to_edge -> to_executorch (lowered), generate_c (C), the C on the host through
  aot.host (runs), compared with eager torch (correct: rtol 1e-3, atol 1e-3, NaN where torch
  has NaN);
and prints, per operator file and in total, how many cases each step reaches. "ET runs" counts
the cases ExecuTorch's flow lowers and runs matching torch; the last columns count ours among
those and among all cases. --failures lists our failing cases with the first line of the error.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import pkgutil
import sys
import tempfile
import warnings
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import torch

import aot
import aot.host
from aot.quiet import native_stderr_captured, quiet_third_party


@dataclass
class Case:
    module: str          # operator file, e.g. "test_pow"
    name: str            # test function and subtest index
    model: torch.nn.Module
    inputs: tuple


class _Collector:
    """Stands in for the suite's test runner: records each model and its inputs."""

    def __init__(self, module: str, name: str, out: list):
        self._module, self._name, self._out = module, name, out
        self._flow = _Flow()
        self._k = 0

    def lower_and_run_model(self, model, inputs, generate_random_test_inputs=True,
                            dynamic_shapes=None):
        self._out.append(Case(self._module, f"{self._name}[{self._k}]", model,
                              tuple(inputs)))
        self._k += 1


@dataclass
class _Flow:
    name: str = "mcu-aot"
    backend: str = "portable"
    quantize: bool = False
    is_delegated: bool = False
    params: dict = field(default_factory=dict)


def collect(pattern: str = "") -> list[Case]:
    ops = importlib.import_module("executorch.backends.test.suite.operators")
    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(ops.__path__), key=lambda m: m.name):
        if not info.name.startswith("test_") or pattern not in info.name:
            continue
        mod = importlib.import_module(f"{ops.__name__}.{info.name}")
        for fname in sorted(n for n in vars(mod) if n.startswith("test_")):
            fn = getattr(mod, fname)
            if not callable(fn) or isinstance(fn, type):
                continue
            torch.manual_seed(0)
            runner = _Collector(info.name, fname, cases)
            try:
                if "dtype" in fn.__code__.co_varnames[:fn.__code__.co_argcount]:
                    fn(runner, torch.float32)
                else:
                    fn(runner)
            except Exception:
                pass   # a case that cannot even build its model: not counted
    return cases


def _eager(case: Case):
    out = case.model(*case.inputs)
    return [o.detach() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _close(got, want) -> bool:
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        g = torch.as_tensor(np.asarray(g))
        if g.shape != w.shape:
            return False
        if w.is_floating_point():
            if not torch.allclose(g.to(w.dtype), w, rtol=1e-3, atol=1e-3, equal_nan=True):
                return False
        elif not torch.equal(g.to(w.dtype), w):
            return False
    return True


def run_executorch(case: Case, ep) -> bool:
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    try:
        buffer = to_edge_transform_and_lower(ep).to_executorch().buffer
        with native_stderr_captured():
            method = Runtime.get().load_program(buffer).load_method("forward")
            got = method.execute(list(case.inputs))
        return _close([g for g in got], _eager(case))
    except Exception:
        return False


def _first_lines(e: Exception) -> str:
    lines = [line.strip() for line in str(e).strip().splitlines()[:2]]
    return f"{type(e).__name__}: {' '.join(lines)[:200]}"


def run_ours(case: Case, ep, cache) -> tuple[str, str]:
    """The furthest step reached ("refused", "lowered", "c", "runs", "correct") and why
    not: refused by to_edge, lowered but no C, C that does not run, C that runs wrong."""
    try:
        manager = aot.to_edge(ep).to_executorch()
    except Exception as e:
        return "refused", _first_lines(e)
    try:
        sources = aot.generate_c(manager, name="m")
    except Exception as e:
        return "lowered", _first_lines(e)
    try:
        flat = torch.utils._pytree.tree_leaves(case.inputs)   # nested inputs: (x, (i, j), v)
        got = aot.host.build(sources, cache_dir=cache)(*[x.numpy() for x in flat])
    except Exception as e:
        return "c", _first_lines(e)
    if not _close(got, _eager(case)):
        return "runs", "output differs from eager torch"
    return "correct", ""


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--filter", default="", help="only operator files containing this")
    p.add_argument("--failures", action="store_true", help="list our failing cases")
    args = p.parse_args()
    quiet_third_party()
    warnings.filterwarnings("ignore")
    with contextlib.redirect_stdout(io.StringIO()):
        cases = collect(args.filter)
    rows = defaultdict(lambda: defaultdict(int))
    failures = []
    steps = ("lowered", "c", "runs", "correct")
    with tempfile.TemporaryDirectory() as cache:
        for case in cases:
            r = rows[case.module]
            r["cases"] += 1
            try:
                case.model.eval()
                ep = torch.export.export(case.model, case.inputs)
            except Exception:
                continue      # the suite skips what torch.export refuses; so do we
            r["exported"] += 1
            et_ok = run_executorch(case, ep)
            reached, why = run_ours(case, ep, cache)
            r["et"] += et_ok
            for s in steps[:steps.index(reached) + 1] if reached in steps else ():
                r[s] += 1
                if et_ok:
                    r[f"et_{s}"] += 1
            if reached != "correct":
                failures.append((case.module, case.name, et_ok, reached, why))
    total = defaultdict(int)
    for r in rows.values():
        for k, v in r.items():
            total[k] += v
    head = (f"{'operator file':<28} {'cases':>5} {'export':>6} {'ET runs':>7} | "
            f"{'ours of ET runs: lowered / C / correct':>38} | {'ours of all: correct':>20}")
    print(head)
    print("-" * len(head))
    for name, r in sorted(rows.items()) + [("total", total)]:
        print(f"{name:<28} {r['cases']:>5} {r['exported']:>6} {r['et']:>7} | "
              f"{r['et_lowered']:>16} / {r['et_c']:>4} / {r['et_correct']:>4}"
              f"{'':>10} | {r['correct']:>20}")
    et = max(total["et"], 1)
    print(f"\nof the {total['et']} cases ExecuTorch's portable flow runs, ours lowers "
          f"{total['et_lowered']} ({100 * total['et_lowered'] / et:.0f}%), "
          f"runs {total['et_c']} in C ({100 * total['et_c'] / et:.0f}%), "
          f"and {total['et_correct']} match torch ({100 * total['et_correct'] / et:.0f}%); "
          f"of all {total['exported']} exportable cases, {total['correct']} run correctly.")
    if args.failures:
        print("\nour failures (operator file, case, ExecuTorch runs it, our last step, why):")
        for f in failures:
            print("  " + "  ".join(str(x) for x in f))


if __name__ == "__main__":
    sys.exit(main())
