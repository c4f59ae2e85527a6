"""Where the data folders live: inside the wheel (aot/_data/<folder>) or in a source checkout."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .errors import AotError

_PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def data_dir(folder: str) -> Path:
    """``codegen_templates``, ``runtime_c``, ``schema`` or ``boards``."""
    for candidate in (_PACKAGE / "_data" / folder, _PACKAGE.parent / folder):
        if candidate.is_dir():
            return candidate
    raise AotError(f"mcu-aot is incomplete: no {folder}/ folder in {_PACKAGE / '_data'} "
                   f"or {_PACKAGE.parent}")
