"""C literals of the values a call passes: the same text in the static C and the adapters."""
from __future__ import annotations

import math

import numpy as np


def f32_literal(x: float) -> str:
    """The shortest C float literal that reads back as exactly this float32."""
    v = np.float32(x)
    if np.isnan(v):
        return "NAN"
    if np.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    text = str(v)                      # numpy prints the shortest round-trip form
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def f64_literal(x: float) -> str:
    """A C double literal that reads back as exactly ``x``."""
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(x)                     # Python prints the shortest round-trip form
    return text if "." in text or "e" in text else text + ".0"


def int64_literal(v: int) -> str:
    """An int64 constant (INT64_MIN has no literal of its own)."""
    return "INT64_MIN" if v == -(1 << 63) else f"{v}LL"
