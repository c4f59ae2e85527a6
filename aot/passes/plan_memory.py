"""Plan the arena of one method: which bytes each tensor lives in, fixed at compile time.

Alias groups share one buffer; constants are in flash and not planned; user inputs and outputs
are planned or left to the caller as MemoryPlanningPass says; state (mutable buffers) lives for
the whole method so it survives from one call to the next.
"""
from __future__ import annotations

from ..config import MemoryPlanningPass
from ..errors import PlanError
from ..ir import MethodGraph, TensorKind
from ..memory import Buffer, MemoryPlan, plan_suite, verify_plan
from ..memory.suite import DEFAULT_PLANNERS


def planned_tensors(graph: MethodGraph, planning: MemoryPlanningPass) -> set[int]:
    """Root tensor ids that get arena storage."""
    outputs = {graph.root(t) for t in graph.outputs}
    inputs = {graph.root(t) for t in graph.inputs}
    roots = set()
    for t in graph.tensors:
        if t.alias_of is not None or t.kind == TensorKind.CONSTANT:
            continue
        if t.id in inputs and not planning.alloc_graph_input:
            continue
        if t.id in outputs and t.kind != TensorKind.STATE and not planning.alloc_graph_output:
            continue
        roots.add(t.id)
    return roots


def lifetimes(graph: MethodGraph, planning: MemoryPlanningPass) -> list[Buffer]:
    """One Buffer per planned root: inclusive [first write, last read] in call order."""
    n = len(graph.calls)
    roots = planned_tensors(graph, planning)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for t in graph.tensors:
        r = graph.root(t.id)
        if t.kind in (TensorKind.INPUT, TensorKind.STATE):
            first[r], last[r] = -1, max(last.get(r, -1), -1)
    for i, call in enumerate(graph.calls):
        for tid in call.outs:
            r = graph.root(tid)
            first.setdefault(r, i)
            last[r] = max(last.get(r, i), i)
        for tid in call.reads:
            r = graph.root(tid)
            first.setdefault(r, i)       # a scratch buffer: read (and written) by one call
            last[r] = max(last.get(r, i), i)
    for tid in graph.outputs:
        last[graph.root(tid)] = n
    for t in graph.tensors:
        if t.kind == TensorKind.STATE:
            first[t.id], last[t.id] = -1, n
    sizes: dict[int, int] = {}
    for t in graph.tensors:
        r = graph.root(t.id)
        sizes[r] = max(sizes.get(r, 0), graph.root_offset(t.id) + t.nbytes)
    return [Buffer(r, sizes[r], first.get(r, 0), last.get(r, first.get(r, 0)),
                   graph.tensors[r].name) for r in sorted(roots)]


def plan_memory(graph: MethodGraph, planning: MemoryPlanningPass, alignment: int) -> MemoryPlan:
    buffers = lifetimes(graph, planning)
    planners = DEFAULT_PLANNERS
    if planning.algorithms:
        by_name = {p.__name__.removeprefix("plan_"): p for p in DEFAULT_PLANNERS}
        unknown = [a for a in planning.algorithms if a not in by_name]
        if unknown:
            raise PlanError(f"unknown planner(s) {unknown}; known: {sorted(by_name)}")
        planners = tuple(by_name[a] for a in planning.algorithms)
    plan = plan_suite(buffers, alignment, planners)
    verify_plan(buffers, plan)
    return plan
