"""Which runtime_c sources a generated model needs: the kernels it calls, and what they call."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..resources import data_dir

_DEFINITION = re.compile(r"^[A-Za-z_][\w \*]*?\b(rt_\w+)\s*\(", re.M)
_CALL = re.compile(r"\b(rt_\w+)\s*\(")


def runtime_dir() -> Path:
    return data_dir("runtime_c")


@lru_cache(maxsize=1)
def _index() -> tuple[dict, dict]:
    """function -> defining file, and file -> functions it calls (both relative to src/)."""
    src = runtime_dir() / "src"
    defined, calls = {}, {}
    for path in sorted(src.rglob("*.c")):
        rel = path.relative_to(runtime_dir()).as_posix()
        text = path.read_text()
        for name in _DEFINITION.findall(text):
            defined.setdefault(name, rel)
        calls[rel] = set(_CALL.findall(text))
    return defined, calls


def runtime_sources_for(kernels) -> tuple[str, ...]:
    """The runtime .c files (relative to runtime_c/) that define ``kernels``, transitively."""
    defined, calls = _index()
    todo = [defined[k] for k in kernels if k in defined]
    files: set[str] = set()
    while todo:
        f = todo.pop()
        if f in files:
            continue
        files.add(f)
        todo.extend(defined[c] for c in calls[f] if c in defined and defined[c] not in files)
    return tuple(sorted(files))
