"""Property tests: every planner is safe on random lifetimes; two-ended is optimal on chains."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aot.errors import PlanError
from aot.memory import (DEFAULT_PLANNERS, Buffer, MemoryPlan, align_up, lower_bound, plan_all,
                        plan_suite, plan_two_ended, verify_plan)
from aot.memory.greedy import first_fit, place_greedy
from aot.memory.plan import make_plan

SETTINGS = settings(max_examples=200, deadline=None)
SIZES = st.one_of(st.integers(0, 64), st.integers(0, 4096), st.sampled_from([0, 16, 1024, 4096]))
ALIGNMENTS = st.sampled_from([1, 4, 16, 64])


@st.composite
def buffer_sets(draw, max_buffers=25):
    n = draw(st.integers(0, max_buffers))
    buffers = []
    for i in range(n):
        first = draw(st.integers(-1, 20))
        buffers.append(Buffer(i, draw(SIZES), first, first + draw(st.integers(0, 8)), f"t{i}"))
    return buffers


chains = st.lists(SIZES, min_size=1, max_size=30).map(
    lambda sizes: [Buffer(i, s, i, i + 1, f"x{i}") for i, s in enumerate(sizes)])


def brute_lower_bound(buffers, alignment):
    steps = range(min((b.first for b in buffers), default=0),
                  max((b.last for b in buffers), default=0) + 1)
    return max((sum(align_up(b.size, alignment) for b in buffers if b.first <= t <= b.last)
                for t in steps), default=0)


@SETTINGS
@given(buffer_sets(), ALIGNMENTS)
def test_every_planner_is_safe_and_the_suite_is_smallest(buffers, alignment):
    bound = lower_bound(buffers, alignment)
    assert bound == brute_lower_bound(buffers, alignment)
    plans = plan_all(buffers, alignment)  # verifies each plan
    for plan in plans:
        verify_plan(buffers, plan)
        assert plan.arena_size >= plan.lower_bound == bound
        assert plan.arena_size % alignment == 0 and plan.alignment == alignment
    assert {p.planner for p in plans} == {p.__name__.removeprefix("plan_")
                                          for p in DEFAULT_PLANNERS}
    best = plan_suite(buffers, alignment)
    verify_plan(buffers, best)
    assert best.arena_size == min(p.arena_size for p in plans)
    # The winner is the first planner with the smallest arena.
    assert best == next(p for p in plans if p.arena_size == best.arena_size)


@SETTINGS
@given(buffer_sets(), ALIGNMENTS, st.randoms(use_true_random=False))
def test_plans_are_deterministic_and_ignore_input_order(buffers, alignment, rnd):
    shuffled = list(buffers)
    rnd.shuffle(shuffled)
    for a, b, c in zip(plan_all(buffers, alignment), plan_all(buffers, alignment),
                       plan_all(shuffled, alignment)):
        assert a == b
        if a.planner != "naive":  # bump allocation follows the order it is given
            assert a == c


@SETTINGS
@given(chains, ALIGNMENTS)
def test_two_ended_and_suite_reach_the_lower_bound_on_chains(chain, alignment):
    aligned = [align_up(b.size, alignment) for b in chain]
    bound = max(max(aligned), max((x + y for x, y in zip(aligned, aligned[1:])), default=0))
    assert lower_bound(chain, alignment) == bound
    for plan in (plan_two_ended(chain, alignment), plan_suite(chain, alignment)):
        verify_plan(chain, plan)
        assert plan.arena_size == bound


@settings(max_examples=100, deadline=None)
@given(buffer_sets(max_buffers=6), ALIGNMENTS)
def test_suite_never_beats_the_exhaustive_optimum(buffers, alignment):
    """First fit over every order finds an optimal plan (place buffers in the order of their
    optimal offsets: each lands at or below its optimal offset). The suite can only match it."""
    optimum = min((make_plan(buffers, alignment, place_greedy(order, alignment, first_fit), "x")
                   .arena_size for order in itertools.permutations(buffers)), default=0)
    assert lower_bound(buffers, alignment) <= optimum <= plan_suite(buffers, alignment).arena_size


@SETTINGS
@given(buffer_sets(), ALIGNMENTS, st.data())
def test_verify_catches_any_moved_buffer_that_collides(buffers, alignment, data):
    plan = plan_suite(buffers, alignment)
    pairs = [(a, b) for a, b in itertools.combinations(buffers, 2)
             if a.size and b.size and a.alive_with(b)]
    if not pairs:
        return
    a, b = data.draw(st.sampled_from(pairs))
    moved = MemoryPlan({**plan.offsets, b.id: plan.offsets[a.id]}, plan.arena_size + b.size,
                       plan.lower_bound, alignment, "moved")
    with pytest.raises(PlanError, match="both alive"):
        verify_plan(buffers, moved)
    misaligned = MemoryPlan({**plan.offsets, b.id: plan.offsets[b.id] + 1}, plan.arena_size + 1,
                            plan.lower_bound, alignment, "misaligned")
    if alignment > 1:
        with pytest.raises(PlanError, match="alignment"):
            verify_plan(buffers, misaligned)
