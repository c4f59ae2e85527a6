"""Which nodes of a program stand for which nodes of an earlier form of it.

A pass that edits a graph in place keeps node names; one that re-traces it (torch's
run_decompositions) makes new nodes, each recording in ``meta["from_node"]`` the nodes it came
from; torch re-lifts constants under new names with the same target. ``carry`` follows all
three, so what is known of nodes by name (the int8 lowering's qparams and fallbacks) stays true
after every later pass.
"""
from __future__ import annotations

from typing import Iterable, TypeVar

from torch.export import ExportedProgram

T = TypeVar("T")


def _origins(node) -> set[str]:
    """The node's name and the names of the nodes it was re-traced from (one step back: ``carry``
    runs after every pass)."""
    return {node.name, *(source.name for source in node.meta.get("from_node") or ())}


def _input_targets(ep: ExportedProgram) -> dict[str, str]:
    """Placeholder name -> the target of the input it stands for (a constant's name)."""
    return {s.arg.name: s.target for s in ep.graph_signature.input_specs
            if s.target is not None and hasattr(s.arg, "name")}


def carry(old: ExportedProgram, new: ExportedProgram, keyed: dict[str, T]) -> dict[str, T]:
    """``keyed`` (node name in ``old`` -> value) re-keyed by the nodes of ``new``, which a pass
    made of ``old``, that stand for those nodes. A constant input stands for the one with its
    target (torch re-lifts constants under new names). A node that no longer exists drops out;
    one that became several gives each the value."""
    if not keyed:
        return {}
    by_target = {t: keyed[name] for name, t in _input_targets(old).items() if name in keyed}
    new_targets = _input_targets(new)
    out = {}
    for node in new.graph.nodes:
        if node.op == "placeholder" and new_targets.get(node.name) in by_target:
            out[node.name] = by_target[new_targets[node.name]]
            continue
        for name in _origins(node):
            if name in keyed:
                out[node.name] = keyed[name]
                break
    return out


def positions(ep: ExportedProgram, names: Iterable[str]) -> dict[str, int]:
    """The position in ``ep``'s graph (a call's debug handle) of each named node."""
    want = set(names)
    return {n.name: i for i, n in enumerate(ep.graph.nodes) if n.name in want}
