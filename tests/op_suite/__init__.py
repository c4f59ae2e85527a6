"""The table-driven op suite: every op-table entry, over several shapes, broadcasting, scalar
operands and edge values (zeros, negative zero, negatives, infinities and NaN where the op is
defined for them).

A case is a torch function of seeded inputs. tests/host/test_op_suite.py lowers each one, runs
the generated C on the host and compares it with eager torch (NaN where torch has NaN, exact
for integer and bool outputs), and checks that the cases together reach every op-table entry.

Cases live in one module per family (core.py, math.py, index.py, spatial.py); each exports
CASES, a list of Case.
"""
from __future__ import annotations

import importlib
import pkgutil

from .common import Case

CASES: list[Case] = []
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "common":
        CASES.extend(importlib.import_module(f"{__name__}.{_info.name}").CASES)

_names = [c.name for c in CASES]
assert len(set(_names)) == len(_names), "op suite case names must be unique"
BY_NAME = {c.name: c for c in CASES}
