"""Partitioners: which nodes of an edge program go to which backend.

A partitioner tags nodes in place, ``node.meta["delegation_tag"] = tag``, and returns one
DelegationSpec per tag. ``to_backend(program, partitioner)`` then lowers the nodes of each tag
as one delegate. The nodes of a tag must be connected and must not need a node outside the tag
that itself depends on the tag (that would be a cycle). Tag a constant placeholder to hand it
to the delegate (it becomes part of the delegated program); untagged constants are passed in as
inputs. A tag on a user input is ignored: user inputs stay inputs.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Callable, Hashable, Mapping, Optional

from torch.fx import Node

from torch.export import ExportedProgram

from .details import CompileSpec

TAG = "delegation_tag"   # the node.meta key partitioners set


@dataclass(frozen=True)
class DelegationSpec:
    """Where the nodes of one tag go: a backend id and its compile specs."""
    backend_id: str
    compile_specs: tuple[CompileSpec, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "compile_specs", tuple(self.compile_specs))


@dataclass(frozen=True)
class PartitionResult:
    tagged_exported_program: ExportedProgram
    partition_tags: Mapping[str, DelegationSpec] = field(default_factory=dict)


class Partitioner(abc.ABC):
    """Tags the nodes of an edge program for delegation."""

    @abc.abstractmethod
    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        """Tag nodes of ``exported_program`` (in place) and say which backend takes each tag."""


def _convex(group: set, order: dict) -> bool:
    """No node outside ``group`` both depends on it and feeds it."""
    last = max(order[n] for n in group)
    below, todo = set(), [u for n in group for u in n.users if u not in group]
    while todo:
        n = todo.pop()
        if n in below or order.get(n, last + 1) > last:
            continue            # nodes after the group's last cannot feed it
        below.add(n)
        todo.extend(u for u in n.users if u not in group)
    return not any(u in group for n in below for u in n.users)


def group_nodes(graph, supported: Callable[[Node], bool],
                key: Optional[Callable[[Node], Hashable]] = None) -> list[list[Node]]:
    """Connected groups of ``supported`` call_function nodes that can each become one delegate
    (no node outside a group sits between two of its nodes). Greedy, in graph order: a node
    joins the groups of its inputs (with the same ``key``) wherever that keeps them convex.
    Groups come in graph order, each in graph order."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    key = key or (lambda n: None)
    groups: list[set] = []
    group_of: dict[Node, int] = {}
    for node in graph.nodes:
        if node.op != "call_function" or not supported(node):
            continue
        group, k = {node}, key(node)
        for a in node.all_input_nodes:
            g = group_of.get(a)
            if g is None or a in group or key(a) != k:
                continue
            if _convex(groups[g] | group, order):
                group |= groups[g]
                groups[g] = set()
        groups.append(group)
        for n in group:
            group_of[n] = len(groups) - 1
    return [sorted(g, key=order.__getitem__) for g in groups if g]
