"""Decompose to core ATen, the op set the op table is written against."""
from __future__ import annotations

from torch.export import ExportedProgram


def decompose_to_core(ep: ExportedProgram) -> ExportedProgram:
    return ep.run_decompositions()  # the default table is core ATen
