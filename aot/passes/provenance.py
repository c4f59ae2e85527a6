"""Which nodes of a program stand for which nodes of an earlier form of it.

A pass that edits a graph in place keeps node names; one that re-traces it (torch's
run_decompositions) makes new nodes, each recording in ``meta["from_node"]`` the nodes it came
from. ``carry`` follows both, so a result keyed by node name (the int8 lowering's fallbacks)
stays true after every later pass.
"""
from __future__ import annotations

from typing import Iterable, TypeVar

from torch.export import ExportedProgram

T = TypeVar("T")


def _origins(node) -> set[str]:
    """The node's name and the names of the nodes it was re-traced from (one step back: ``carry``
    runs after every pass)."""
    return {node.name, *(source.name for source in node.meta.get("from_node") or ())}


def carry(ep: ExportedProgram, keyed: dict[str, T]) -> dict[str, T]:
    """``keyed`` (node name -> value, in an earlier form of ``ep``) re-keyed by the call nodes of
    ``ep`` that stand for those nodes. A node that no longer exists drops out; one that became
    several nodes gives each the value."""
    if not keyed:
        return {}
    out = {}
    for node in ep.graph.nodes:
        if node.op == "call_function":
            for name in _origins(node):
                if name in keyed:
                    out[node.name] = keyed[name]
                    break
    return out


def positions(ep: ExportedProgram, names: Iterable[str]) -> dict[str, int]:
    """The position in ``ep``'s graph (a call's debug handle) of each named node."""
    want = set(names)
    return {n.name: i for i, n in enumerate(ep.graph.nodes) if n.name in want}
