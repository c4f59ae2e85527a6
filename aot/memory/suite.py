"""plan_suite: run several planners, prove each plan, keep the smallest arena.

Placing buffers optimally is NP-hard and no single heuristic wins on every graph (greedy by size
wins on most CNNs, two-ended on chains such as MobileNet, the others on assorted DAGs), but
each planner is cheap, so the suite runs them all. Ties go to the planner listed first, and the
suite stops early once a plan reaches the lower bound, which nothing can beat.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Optional

from aot.errors import PlanError
from aot.memory.greedy import (plan_best_fit_by_breadth, plan_best_fit_by_size,
                               plan_greedy_by_area, plan_greedy_by_breadth,
                               plan_greedy_by_first_use,
                               plan_greedy_by_first_use_from_top, plan_greedy_by_lifetime,
                               plan_greedy_by_size, plan_greedy_by_size_from_top, plan_naive,
                               plan_pinned_input)
from aot.memory.plan import DEFAULT_ALIGNMENT, Buffer, MemoryPlan, live_bytes
from aot.memory.two_ended import plan_two_ended
from aot.memory.verify import verify_plan

Planner = Callable[[Sequence[Buffer], int], MemoryPlan]

DEFAULT_PLANNERS: tuple[Planner, ...] = (
    plan_greedy_by_size,
    plan_best_fit_by_size,
    plan_two_ended,
    plan_greedy_by_breadth,
    plan_best_fit_by_breadth,
    plan_greedy_by_lifetime,
    plan_greedy_by_area,
    plan_greedy_by_first_use,
    plan_naive,
    plan_greedy_by_size_from_top,        # last: they differ only where outputs may overlap
    plan_greedy_by_first_use_from_top,
    plan_pinned_input,                   # (only where an input is overlapped as it lives on)
)


def plan_all(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT,
             planners: Sequence[Planner] = DEFAULT_PLANNERS) -> tuple[MemoryPlan, ...]:
    """Every planner's verified plan, in planner order (for reports and comparisons)."""
    plans = []
    for planner in planners:
        plan = planner(buffers, alignment)
        verify_plan(buffers, plan)
        plans.append(plan)
    return tuple(plans)


def plan_suite(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT,
               planners: Sequence[Planner] = DEFAULT_PLANNERS) -> MemoryPlan:
    """The verified plan with the smallest arena; the first such planner on a tie. Where
    buffers declare overlaps, a plan that shares no bytes wins unless the overlaps make the
    arena smaller (a kernel over its own input can lose its fastest path: the Helium
    depthwise one does); so does one that keeps only the overlaps at the peak
    (``_at_peak``) where it is no larger than either, for the same reason."""
    if not planners:
        raise PlanError("plan_suite needs at least one planner")
    best = _smallest(buffers, alignment, planners)
    if any(b.overlaps for b in buffers):
        peak = _at_peak(buffers, alignment, best.overlap_bound)
        for fewer in (peak, [replace(b, overlaps=()) for b in buffers]):   # later wins ties
            if fewer is None:
                continue
            plan = _smallest(fewer, alignment, planners)
            if plan.arena_size <= best.arena_size:
                best = replace(plan, overlap_bound=best.overlap_bound)
                verify_plan(buffers, best)
    return best


def _at_peak(buffers: Sequence[Buffer], alignment: int,
             bound: int) -> Optional[list[Buffer]]:
    """The buffers with only the overlaps of those alive where the whole tensors exceed the
    bound with overlaps (None where that is all of them). The others cannot lower the arena
    below that bound, but they cost their kernels' fastest paths, and they can lead a greedy
    planner astray: a transpose of the input planned a plane below it drew mobilenet_v2's
    later buffers after it, 129,024 B against 115,200 without it."""
    over = [t for t, live in live_bytes(buffers, alignment).items() if live > bound]
    kept = [b if any(b.first <= t <= b.last for t in over) else replace(b, overlaps=())
            for b in buffers]
    return None if kept == list(buffers) else kept


def _smallest(buffers: Sequence[Buffer], alignment: int,
              planners: Sequence[Planner]) -> MemoryPlan:
    best = None
    for planner in planners:
        plan = planner(buffers, alignment)
        verify_plan(buffers, plan)
        if best is None or plan.arena_size < best.arena_size:
            best = plan
        if best.arena_size == best.overlap_bound:
            break
    return best
