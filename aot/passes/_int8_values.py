"""What the int8 lowering (aot.passes.lower_quantized) works with: int8 values (QValue) and
quantized constants (QConst) with their qparams and layout, and how an error names a node by the
user's source line.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from ..quantization import arith
from ..source import source_of

NCHW, NHWC = "nchw", "nhwc"


def layout_perm(rank: int, want: str) -> tuple[int, ...]:
    """The permutation that takes a rank-``rank`` map (3: N, C, L; 4: N, C, H, W) into layout
    ``want`` from the other: channels last for NHWC, second for NCHW."""
    if want == NHWC:
        return (0, *range(2, rank), 1)
    return (0, rank - 1, *range(1, rank - 1))


@dataclass(frozen=True)
class QValue:
    """An int8 activation (or an LSTM's int16 cell state): its node, qparams and physical
    layout. A map of rank 4 (N, C, H, W) or 3 (N, C, L) may be NHWC, its channels last
    ((N, H, W, C), (N, L, C)); any other value is NCHW, the order of its logical dims."""
    node: torch.fx.Node
    scale: float
    zp: int
    layout: str = NCHW

    @property
    def dtype(self) -> torch.dtype:
        """int8, or int16 for an LSTM's cell state."""
        return self.node.meta["val"].dtype


@dataclass(frozen=True)
class QConst:
    """A quantized constant (weight or bias): integer values and per-channel qparams."""
    values: torch.Tensor
    scales: np.ndarray
    zps: np.ndarray
    axis: int

    def real(self) -> torch.Tensor:
        shape = [1] * self.values.dim()
        if self.values.dim():
            shape[self.axis] = -1
        s = torch.from_numpy(self.scales.astype(np.float32)).reshape(shape)
        z = torch.from_numpy(self.zps.astype(np.float32)).reshape(shape)
        return (self.values.float() - z) * s


QParams = tuple   # (scale, zero point); a filter's scale is the tuple of its channels' scales


def as_qparams(scale, zp: int) -> QParams:
    """An int8 value's qparams as the lowering records them."""
    scale = tuple(float(s) for s in scale) if isinstance(scale, (tuple, list, np.ndarray)) \
        else float(scale)
    return scale, int(zp)


def _located(node: torch.fx.Node, steps: int = 3) -> Optional[torch.fx.Node]:
    """The node nearest ``node`` whose stack names a file: itself, else (breadth first, out to
    ``steps`` edges) its readers and what it reads. A quantize or dequantize node or an
    observer often has no stack of its own; the op it belongs to has."""
    seen, ring = {node}, [node]
    for _ in range(steps + 1):
        for n in ring:
            if source_of(n).filename:
                return n
        ring = [m for n in ring for m in (*n.users, *n.all_input_nodes)
                if not (m in seen or seen.add(m))]
    return None


def node_where(node: torch.fx.Node) -> str:
    """The node's name and the line of the user's code it comes from (that of the op it
    belongs to, for a quantize or dequantize node without a stack of its own)."""
    at = _located(node)
    return node.name if at is None else f"{node.name} at {source_of(at)}"


def observed(value: torch.fx.Node, reader: torch.fx.Node, weight: bool) -> str:
    """How an error names the value an observer watched, with the user's source line: the
    weight of the op ``reader``, a model input, or an op's output."""
    if weight:
        return f"the weight of {node_where(reader)}"
    if value.op == "placeholder":
        return f"the input {node_where(value)}"
    return f"the output of {node_where(value)}"



def f32(x) -> float:
    return float(np.float32(x))


def mult_shift(real: float) -> tuple[int, int]:
    return arith.quantize_multiplier(real)
