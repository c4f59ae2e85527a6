"""One row of the C generator's report per instruction (``CSources.ops``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class OpRow:
    index: int
    op: str
    kernel: str
    out_shape: tuple[int, ...]
    source: str
    fused_into: Optional[int] = None   # an activation the kernel of that instruction runs
    macs: int = 0                      # multiply-accumulates (0 where the op has none)
