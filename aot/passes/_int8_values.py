"""What the int8 lowering (aot.passes.lower_quantized) works with: int8 values (QValue) and
quantized constants (QConst) with their qparams and layout, where a node's qparams are recorded,
and how an error names a node by the user's source line.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch
from torch.export import ExportedProgram

from ..quantization import arith
from ..source import source_of

NCHW, NHWC = "nchw", "nhwc"
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)


@dataclass(frozen=True)
class QValue:
    """An int8 activation: its node, qparams and physical layout (4-D only: NCHW or NHWC)."""
    node: torch.fx.Node
    scale: float
    zp: int
    layout: str = NCHW


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


def mark_qparams(node: torch.fx.Node, scale, zp: int) -> None:
    """Record an int8 node's qparams where torch keeps them through re-tracing. A filter's
    scale is the tuple of its per-channel scales."""
    scale = tuple(float(s) for s in scale) if isinstance(scale, (tuple, list, np.ndarray)) \
        else float(scale)
    node.meta.setdefault("custom", {})["qparams"] = (scale, int(zp))


def qparams_of(node: torch.fx.Node):
    """The qparams ``mark_qparams`` recorded on ``node``, or None."""
    return (node.meta.get("custom") or {}).get("qparams")


# The qparams channel is node.meta["custom"]: torch's run_decompositions re-traces the program
# between the int8 lowering and the planner and keeps that key on the nodes it re-traces. The
# three functions below are the only other places that touch it: passes that make new nodes
# for old ones (constants re-lifted by torch, get_attr lifted by lift_constants) carry it here.

def copy_qparams(old: torch.fx.Node, new: torch.fx.Node) -> None:
    """``new`` stands for ``old``: it keeps the qparams ``old`` had, if any."""
    if "custom" in old.meta:
        new.meta["custom"] = old.meta["custom"]


def _constant_targets(ep: ExportedProgram) -> dict:
    """Placeholder name -> the target of the input it stands for (a constant's FQN)."""
    return {s.arg.name: s.target for s in ep.graph_signature.input_specs
            if hasattr(s.arg, "name") and s.target is not None}


def constant_qparams(ep: ExportedProgram) -> dict:
    """The recorded channel of each constant input, by its target (a name re-lifting keeps)."""
    by_name = _constant_targets(ep)
    return {by_name[n.name]: n.meta["custom"] for n in ep.graph.nodes
            if n.op == "placeholder" and n.meta.get("custom") and n.name in by_name}


def restore_constant_qparams(ep: ExportedProgram, kept: dict) -> None:
    """Put back on ``ep``'s constant inputs what ``constant_qparams`` took from an earlier
    form of it (torch re-lifts constants without their meta)."""
    if not kept:
        return
    by_name = _constant_targets(ep)
    for node in ep.graph.nodes:
        if node.op == "placeholder" and by_name.get(node.name) in kept:
            node.meta["custom"] = kept[by_name[node.name]]


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
