"""Plan the arena of one method: which bytes each tensor lives in, fixed at compile time.

Alias groups share one buffer; constants are in flash and not planned; user inputs and outputs
are planned or left to the caller as MemoryPlanningPass says; state (mutable buffers) lives for
the whole method so it survives from one call to the next.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import replace
from typing import Optional

from ..config import MemoryPlanningPass
from ..errors import PlanError
from ..ir import MethodGraph, Ref, TensorKind
from ..memory import Buffer, MemoryPlan, Overlap, plan_suite, verify_plan
from ..memory.plan import align_up, make_plan
from ..memory.suite import DEFAULT_PLANNERS
from ..overlap import depthwise_rows, depthwise_scratch, has_bands

_SLICE = "aten::slice_copy.Tensor_out"


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
    overlaps = {}
    if planning.overlap:
        overlaps = _overlaps(graph, roots, first, last, sizes)
        for b, found in _dead_prefixes(graph, roots, first, last, sizes).items():
            overlaps[b] = overlaps.get(b, ()) + tuple(
                o for o in found if all(p.input != o.input for p in overlaps.get(b, ())))
    return [Buffer(r, sizes[r], first.get(r, 0), last.get(r, first.get(r, 0)),
                   graph.tensors[r].name, overlaps.get(r, ())) for r in sorted(roots)]


def _whole(graph: MethodGraph, tid: int, sizes: dict) -> bool:
    """The tensor is all of its planned buffer, from its first byte."""
    r = graph.root(tid)
    return graph.root_offset(tid) == 0 and graph.tensors[tid].nbytes == sizes.get(r, -1)


def _declared(graph: MethodGraph, call) -> Optional[tuple[str, int, bool]]:
    """The overlap the call's op declares (OpDef.overlap) for its first output: (input name,
    lag, exact), or None. (An op of several outputs declares it for the first alone: a max
    pool's values, not its indices.)"""
    declare = getattr(call.op, "overlap", None)
    if declare is None or not call.outs:
        return None
    args = {name: graph.tensors[v.id] if hasattr(v, "id") else v for name, v in call.args}
    return declare(args, [graph.tensors[t] for t in call.outs])


def _overlaps(graph: MethodGraph, roots: set, first: dict, last: dict,
              sizes: dict) -> dict[int, tuple[Overlap, ...]]:
    """Each planned output's overlap, where its op declares one (OpDef.overlap) on an input
    the call reads for the last time, both whole buffers of the arena."""
    out: dict[int, tuple[Overlap, ...]] = {}
    for i, call in enumerate(graph.calls):
        found = _declared(graph, call)
        if found is None:
            continue
        name, lag, exact = found
        src, dst = call.arg(name).id, call.outs[0]
        a, b = graph.root(src), graph.root(dst)
        if a in roots and b in roots and a != b and first.get(b) == i and \
                last.get(a) == i and first.get(a, i) < i and \
                _whole(graph, src, sizes) and _whole(graph, dst, sizes):
            out[b] = (Overlap(a, lag, exact),)
    return out


def _lowest_read(graph: MethodGraph, call, tid: int) -> Optional[int]:
    """The lowest byte of ``tid``'s buffer (its root's) that the call reads: where a slice
    starts, for a slice_copy of it (None: an empty slice reads nothing), else where the
    tensor starts."""
    base = graph.root_offset(tid)
    if getattr(getattr(call, "op", None), "key", None) != _SLICE or \
            getattr(call.arg("self"), "id", None) != tid:
        return base
    t = graph.tensors[tid]
    dim, start, end = call.arg("dim"), call.arg("start"), call.arg("end")
    shape = tuple(t.shape)
    dim += len(shape) if dim < 0 else 0
    size = shape[dim]
    lo = 0 if start is None else min(max(start + size if start < 0 else start, 0), size)
    hi = size if end is None else min(max(end + size if end < 0 else end, 0), size)
    if hi <= lo or not t.nbytes:
        return None
    inner = t.nbytes // max(1, math.prod(shape)) * math.prod(shape[dim + 1:])
    return base + lo * inner


def _dead_prefixes(graph: MethodGraph, roots: set, first: dict, last: dict,
                   sizes: dict) -> dict[int, tuple[Overlap, ...]]:
    """Buffers that may take a live input's dead first bytes. A buffer X that later calls only
    slice (a patch-based stage's input, its crops taken patch by patch) is dead below the
    lowest byte any call from i on reads, once nothing writes it any more: a buffer B born at
    call i may lie there, ``Overlap(X, |B| - dead)`` (it ends at or below that byte; its own
    call reads X above it). X alive for the rest of B's life is fine: its dead part only
    grows."""
    n = len(graph.calls)
    low: dict[int, list[tuple[int, int]]] = {}    # root -> (call, lowest byte it reads)
    written: dict[int, int] = {}                  # root -> the last call writing it
    for i, call in enumerate(graph.calls):
        for tid in call.reads:
            at = _lowest_read(graph, call, tid)
            if at is not None:
                low.setdefault(graph.root(tid), []).append((i, at))
        for tid in call.outs:
            written[graph.root(tid)] = i
    for tid in graph.outputs:                     # the caller reads the outputs whole
        low.setdefault(graph.root(tid), []).append((n, 0))
    dead: dict[int, dict[int, int]] = {}          # root -> call i -> dead bytes from i on
    for x, reads in low.items():
        if x not in roots or not any(at > 0 for _, at in reads):
            continue
        suffix, lowest = {}, sizes[x]
        for i, at in sorted(reads, reverse=True):
            lowest = min(lowest, at)
            suffix[i] = lowest
        dead[x] = suffix
    out: dict[int, tuple[Overlap, ...]] = {}
    for x, suffix in dead.items():
        calls = sorted(suffix)
        for b in roots:
            i = first.get(b, -1)
            if b == x or i < 0 or not first.get(x, 0) < i <= last.get(x, -1) or \
                    written.get(x, -1) >= i:
                continue
            k = bisect_left(calls, i)
            d = suffix[calls[k]] if k < len(calls) else sizes[x]
            if d > 0:
                out[b] = out.get(b, ()) + (Overlap(x, sizes[b] - d),)
    return out


def trim_bands(graph: MethodGraph, planning: MemoryPlanningPass,
               plan: Optional[MemoryPlan] = None, needed: bool = False) -> MethodGraph:
    """The graph with the band scratch (OpDef.in_place_scratch) taken from every call whose
    output will not overlap its input: one whose overlap the liveness does not allow (the input
    read later, say), or, given a ``plan``, one the plan placed apart, and where ``needed``,
    one whose live tensors fit that plan's arena without the overlap (the bands cost cycles).
    The scratch goes back to the op's own size; the spec then calls the plain kernel, and the
    op declares the overlap its kernels keep without bands (aot/overlap.py's has_bands)."""
    if not planning.overlap:
        return graph
    listed = lifetimes(graph, planning)
    buffers = {b.id: b for b in listed}
    tensors = list(graph.tensors)
    for i, call in enumerate(graph.calls):   # (a delegate call has no op table entry)
        if getattr(call.op, "in_place_scratch", None) is None or len(call.outs) != 1:
            continue
        out = buffers.get(graph.root(call.outs[0]))
        declared = _declared(graph, call)
        src = graph.root(call.arg(declared[0]).id) if declared is not None else None
        shared = out is not None and any(
            plan is None or _shares(plan, out, buffers[o.input])
            for o in out.overlaps if o.input == src)     # the op's own, not a dead prefix
        if shared and needed and plan is not None:
            live = sum(align_up(b.size, plan.alignment) for b in listed
                       if b.first <= i <= b.last and b.id != call.arg("scratch").id)
            shared = live > plan.arena_size
        if not shared and holds_bands(graph, call):
            _plain_scratch(graph, call, tensors)
    return replace(graph, tensors=tuple(tensors)) if tensors != list(graph.tensors) else graph


def widen_bands(graph: MethodGraph, planning: MemoryPlanningPass,
                plan: MemoryPlan) -> tuple[MethodGraph, MemoryPlan]:
    """The graph and plan with each depthwise layer in place by bands given the bands that
    the bytes free at its call hold, up to its whole map: a band's rows are what its scratch
    holds (int8/in_place_s8.h), and each band widens its input rows and calls the kernel
    once, so one-row bands cost a 48x48 layer half as much again on the M4. The scratch moves
    to the largest gap between the buffers alive at its call, inside the arena; nothing else
    moves, so the arena does not grow."""
    if not planning.overlap:
        return graph, plan
    buffers = lifetimes(graph, planning)
    tensors, offsets = list(graph.tensors), dict(plan.offsets)
    unit = plan.alignment
    for i, call in enumerate(graph.calls):
        if getattr(call.op, "in_place_scratch", None) is not depthwise_scratch or \
                not holds_bands(graph, call) or not _in_place(graph, call, offsets):
            continue
        scratch = graph.tensors[call.arg("scratch").id]
        if graph.root(scratch.id) != scratch.id:       # (a scratch is its own buffer)
            continue
        at, room = _largest_gap(buffers, offsets, scratch.id, i, plan.arena_size, unit)
        shapes = {k: tensors[v.id].shape if isinstance(v, Ref) else v for k, v in call.args}
        out = [graph.tensors[call.outs[0]].shape]
        rows = depthwise_rows(shapes, out, room)
        x = shapes["input"]
        nbytes = 2 * rows * x[2] * x[3]
        if rows and nbytes > scratch.nbytes:
            tensors[scratch.id] = replace(scratch, shape=(nbytes,))
            offsets[scratch.id] = at
    if tensors == list(graph.tensors):
        return graph, plan
    graph = replace(graph, tensors=tuple(tensors))
    buffers = lifetimes(graph, planning)
    widened = make_plan(buffers, unit, offsets, plan.planner)
    verify_plan(buffers, widened)
    return graph, widened


def _in_place(graph: MethodGraph, call, offsets: dict) -> bool:
    """The call's output starts where its input does in the plan."""
    def address(tid: int) -> Optional[int]:
        r = graph.root(tid)
        return offsets[r] + graph.root_offset(tid) if r in offsets else None
    x = address(call.arg("input").id)
    return x is not None and x == address(call.outs[0])


def _largest_gap(buffers: list[Buffer], offsets: dict, skip: int, i: int, arena: int,
                 unit: int) -> tuple[int, int]:
    """(offset, bytes) of the largest run of the arena free of every buffer alive at call
    ``i`` but ``skip``, starting at a multiple of ``unit``."""
    busy = sorted((offsets[b.id], offsets[b.id] + b.size) for b in buffers
                  if b.id != skip and b.size and b.first <= i <= b.last)
    best, at = (0, 0), 0
    for lo, hi in busy + [(arena, arena)]:
        if lo - at > best[1]:
            best = (at, lo - at)
        at = max(at, align_up(hi, unit))
    return best


def without_bands(graph: MethodGraph) -> MethodGraph:
    """The graph with every call's scratch at the op's own size, no bands: the program the
    plan without overlaps runs, whose whole-tensor bound ``aot report`` shows beside the
    bound with overlaps."""
    tensors = list(graph.tensors)
    for call in graph.calls:
        if holds_bands(graph, call):
            _plain_scratch(graph, call, tensors)
    return replace(graph, tensors=tuple(tensors)) if tensors != list(graph.tensors) else graph


def _plain_scratch(graph: MethodGraph, call, tensors: list) -> None:
    """tensors (the graph's, being edited) with the call's scratch at the op's own size."""
    scratch = graph.tensors[call.arg("scratch").id]
    shapes = {k: graph.tensors[v.id].shape if isinstance(v, Ref) else v for k, v in call.args}
    plain = call.op.scratch(shapes, [graph.tensors[call.outs[0]].shape])
    tensors[scratch.id] = replace(scratch, shape=(int(plain),))


def holds_bands(graph: MethodGraph, call) -> bool:
    """The call's scratch holds the bands its in-place kernel runs (aot/overlap.py's
    has_bands, on the call's tensors)."""
    need = getattr(call.op, "in_place_scratch", None)
    if need is None or len(call.outs) != 1:
        return False
    args = {k: graph.tensors[v.id] if isinstance(v, Ref) else v for k, v in call.args}
    return has_bands(args, [graph.tensors[call.outs[0]]], need)


def _shares(plan: MemoryPlan, a: Buffer, b: Buffer) -> bool:
    x, y = plan.offset(a.id), plan.offset(b.id)
    return x < y + b.size and y < x + a.size


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
