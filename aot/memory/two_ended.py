"""The two-ended planner: grow one stack up from offset 0 and another down from the arena's top.

On a chain ``x0 -> x1 -> x2 -> ...`` (each op reads only the previous tensor, so ``x[i]`` lives
``[i, i+1]``) it puts even tensors at the bottom and odd ones at the top. Only neighbours are
alive together and they sit at opposite ends, so the arena is the largest ``size[i] + size[i+1]``:
exactly the liveness lower bound, which a one-ended greedy planner misses when a small tensor
sits between two big ones (its hole is too small for the next big tensor).

For any graph it places buffers in order of first use (then id). Each buffer is tried at both
ends, at the lowest free spot among the *same-end* buffers alive with it (``low`` offsets count
up from 0, ``high`` offsets count down from the top). The top is not known until the end: the
arena must be at least every low end, every high end, and ``low end + high end`` for every
low/high pair alive together. The buffer takes the end that keeps that requirement smallest,
then the end where it sits closest to the edge (which alternates a chain), then ``low``.
Declared overlaps are not used here: every pair alive together gets its own bytes.
"""
from __future__ import annotations

from collections.abc import Sequence

from aot.memory.greedy import first_fit
from aot.memory.plan import (DEFAULT_ALIGNMENT, Buffer, MemoryPlan, align_up, check_buffers,
                             make_plan)


def plan_two_ended(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Place each buffer at the low or the high end of the arena; see the module docstring."""
    check_buffers(buffers, alignment)
    # Per end: (buffer, distance from that end to its near edge, distance to its far edge).
    ends: dict[str, list[tuple[Buffer, int, int]]] = {"low": [], "high": []}
    need = 0  # arena size required by the buffers placed so far
    for b in sorted(buffers, key=lambda b: (b.first, b.id)):
        if not b.size:
            continue
        size = align_up(b.size, alignment)
        options = []
        for rank, (side, other) in enumerate((("low", "high"), ("high", "low"))):
            near = first_fit(sorted((n - size, f) for p, n, f in ends[side]
                                    if p.alive_with(b)), size)
            far = near + size
            cross = max((far + f for p, _, f in ends[other] if p.alive_with(b)), default=0)
            options.append((max(need, far, cross), near, rank, side, far))
        need, near, _, side, far = min(options)
        ends[side].append((b, near, far))
    offsets = {b.id: 0 for b in buffers}  # empty buffers stay at 0
    offsets.update({b.id: near for b, near, _ in ends["low"]})
    offsets.update({b.id: need - far for b, _, far in ends["high"]})
    return make_plan(buffers, alignment, offsets, "two_ended")
