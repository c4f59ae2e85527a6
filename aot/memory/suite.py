"""plan_suite: run several planners, prove each plan, keep the smallest arena.

Placing buffers optimally is NP-hard and no single heuristic wins on every graph (greedy by size
wins on most CNNs, two-ended on chains such as MobileNet, the others on assorted DAGs), but
each planner is cheap, so the suite runs them all. Ties go to the planner listed first, and the
suite stops early once a plan reaches the lower bound, which nothing can beat.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from aot.errors import PlanError
from aot.memory.greedy import (plan_best_fit_by_breadth, plan_best_fit_by_size,
                               plan_greedy_by_area, plan_greedy_by_breadth,
                               plan_greedy_by_first_use,
                               plan_greedy_by_first_use_from_top, plan_greedy_by_lifetime,
                               plan_greedy_by_size, plan_greedy_by_size_from_top, plan_naive,
                               plan_pinned_input)
from aot.memory.plan import DEFAULT_ALIGNMENT, Buffer, MemoryPlan
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
    depthwise one does)."""
    if not planners:
        raise PlanError("plan_suite needs at least one planner")
    best = _smallest(buffers, alignment, planners)
    if any(b.overlaps for b in buffers):
        plain = _smallest([replace(b, overlaps=()) for b in buffers], alignment, planners)
        if plain.arena_size <= best.arena_size:
            best = replace(plain, overlap_bound=best.overlap_bound)
            verify_plan(buffers, best)
    return best


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
