"""Refuse symbolic dimensions: mcu-aot plans memory for static shapes only."""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ..errors import DynamicShapeError


def check_static_shapes(ep: ExportedProgram) -> ExportedProgram:
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and any(not isinstance(d, int) for d in val.shape):
            dims = ", ".join(str(d) for d in val.shape)
            what = f"input {node.name!r}" if node.op == "placeholder" else f"node {node.name!r}"
            raise DynamicShapeError(
                f"{what} has a dynamic shape [{dims}]; mcu-aot plans memory for static shapes "
                f"only. Export without dynamic_shapes (or with fixed sizes).")
    return ep
