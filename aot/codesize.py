"""Code bytes of a firmware, from the linker's map: the machine code the linker kept (text
minus constants), split into the runtime's kernels, the generated model and the board's own
code (startup, printf, the small C library, main).

The map lists every input section placed in the output with its size and object file, after
garbage collection (``--gc-sections``), so a kernel the model never calls counts nothing.
Sections named ``.text*`` are code; ``.rodata*`` are constants (the weights among them)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

_SECTION = re.compile(r"^ (\.text|\.rodata)(\.\S*)?(?:\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+))?$")
_PLACEMENT = re.compile(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+)$")


@dataclass(frozen=True)
class CodeBytes:
    runtime: int      # runtime_c kernels and helpers
    model: int        # the generated model.c
    platform: int     # startup, main, printf_min, libc_min, mathf_min, libgcc
    constants: int    # every .rodata byte kept (the model's weights, tables, strings)

    @property
    def runtime_and_model(self) -> int:
        return self.runtime + self.model


def _part(obj: str, model: str) -> str:
    if "/runtime_c/" in obj:
        return "runtime"
    if obj.endswith(f"/{model}.o") or obj == f"{model}.o":
        return "model"
    return "platform"


def code_bytes(map_file: Path, model: str = "model") -> Optional[CodeBytes]:
    """The split of a GNU ld map (``-Wl,-Map``); None when there is no map (host builds).
    ``model`` is the generated model's name: its object is <model>.o."""
    path = Path(map_file)
    if not path.is_file():
        return None
    sums = {"runtime": 0, "model": 0, "platform": 0, "constants": 0}
    placed = False
    pending: Optional[str] = None
    for line in path.read_text(errors="replace").splitlines():
        if not placed:
            placed = line.startswith("Linker script and memory map")
            continue
        if pending is not None:   # a long section name puts address, size, object below
            m = _PLACEMENT.match(line)
            if m:
                _add(sums, pending, int(m.group(2), 16), m.group(3), model)
            pending = None
            continue
        m = _SECTION.match(line)
        if not m:
            continue
        if m.group(3) is None:
            pending = m.group(1)
        else:
            _add(sums, m.group(1), int(m.group(4), 16), m.group(5), model)
    return CodeBytes(**sums)


def _add(sums: dict, kind: str, size: int, obj: str, model: str) -> None:
    if kind == ".rodata":
        sums["constants"] += size
    else:
        sums[_part(obj, model)] += size
