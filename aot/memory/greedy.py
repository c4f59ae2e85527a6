"""Bump allocation and the greedy family of planners.

Every greedy planner is the same loop with a different *order* and *fit* (TFLM's
``GreedyMemoryPlanner`` is one member: order by size, first fit):

    for each buffer, in order:
        look at the already-placed buffers alive at the same time as it, sorted by offset;
        put it in a gap between them (or above the highest one):
            first fit -- the lowest gap that is big enough,
            best fit  -- the smallest gap that is big enough (Pisarchyk & Lee 2020,
                         "Efficient Memory Management for Deep Neural Net Inference").

Orders: size descending (big buffers first, so small ones fill the holes), first use ascending
(a linear scan, good on chains), lifetime length and size x lifetime descending (long-lived
buffers such as a residual block's input settle first), and breadth (Pisarchyk & Lee:
instructions by their total live bytes, descending; at each one place its unplaced buffers by
size). No order wins on every graph, so ``plan_suite`` runs them all. Sizes are rounded up to
the alignment before placement, so every gap boundary is a multiple of it. Ties fall back to buffer id, so plans are deterministic.
Zero-size buffers never conflict and are put at offset 0.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from aot.memory.plan import (DEFAULT_ALIGNMENT, Buffer, MemoryPlan, align_up, check_buffers,
                             live_bytes, make_plan)

Fit = Callable[[list[tuple[int, int]], int], int]


def first_fit(taken: list[tuple[int, int]], size: int) -> int:
    """Lowest offset where ``size`` bytes fit between the sorted ``(start, end)`` ranges."""
    candidate = 0
    for start, end in taken:
        if start - candidate >= size:
            break
        candidate = max(candidate, end)
    return candidate


def best_fit(taken: list[tuple[int, int]], size: int) -> int:
    """Start of the smallest gap that holds ``size`` bytes; above everything if none does."""
    candidate, best, best_gap = 0, None, 0
    for start, end in taken:
        gap = start - candidate
        if gap >= size and (best is None or gap < best_gap):
            best, best_gap = candidate, gap
        candidate = max(candidate, end)
    return candidate if best is None else best


def place_greedy(order: Sequence[Buffer], alignment: int, fit: Fit) -> dict[int, int]:
    """The shared greedy loop: place each buffer of ``order`` against those placed before it."""
    offsets: dict[int, int] = {}
    placed: list[tuple[Buffer, int, int]] = []  # (buffer, start, aligned end)
    for b in order:
        if not b.size:
            offsets[b.id] = 0
            continue
        size = align_up(b.size, alignment)
        taken = sorted((lo, hi) for p, lo, hi in placed if p.alive_with(b))
        lo = fit(taken, size)
        offsets[b.id] = lo
        placed.append((b, lo, lo + size))
    return offsets


def _greedy(buffers: Sequence[Buffer], alignment: int, key, fit: Fit, name: str) -> MemoryPlan:
    check_buffers(buffers, alignment)
    return make_plan(buffers, alignment, place_greedy(sorted(buffers, key=key), alignment, fit),
                     name)


def by_size(b: Buffer):
    """Size descending, then first use, then id (TFLM's order, made total)."""
    return (-b.size, b.first, b.id)


def by_first_use(b: Buffer):
    """First use ascending, longest lifetime first, then id."""
    return (b.first, -b.last, b.id)


def by_lifetime(b: Buffer):
    """Longest lifetime first (long-lived tensors such as residual inputs pinned low), then size."""
    return (b.first - b.last, -b.size, b.id)


def by_area(b: Buffer):
    """Largest ``size * lifetime`` first: the rectangles hardest to fit around."""
    return (-b.size * (b.last - b.first + 1), b.first, b.id)


def breadth_key(buffers: Sequence[Buffer], alignment: int):
    """Order key for greedy-by-breadth: a buffer's place is set by its widest instruction."""
    width = live_bytes(buffers, alignment)  # maxima of live bytes occur at first uses
    starts = sorted(width)

    def widest(b: Buffer) -> tuple[int, int]:
        return max(((width[t], -t) for t in starts if b.first <= t <= b.last), default=(0, 0))

    return lambda b: (tuple(-x for x in widest(b)), -b.size, b.id)


def plan_naive(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Bump allocation: every buffer its own region, in the order given. Never reuses memory;
    the baseline that shows what planning saves."""
    check_buffers(buffers, alignment)
    offsets, top = {}, 0
    for b in buffers:
        offsets[b.id] = top if b.size else 0
        top += align_up(b.size, alignment)
    return make_plan(buffers, alignment, offsets, "naive")


def plan_greedy_by_size(buffers: Sequence[Buffer],
                        alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """TFLite Micro's GreedyMemoryPlanner: largest first, each at the lowest free offset."""
    return _greedy(buffers, alignment, by_size, first_fit, "greedy_by_size")


def plan_best_fit_by_size(buffers: Sequence[Buffer],
                          alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Largest first, each into the smallest gap that holds it (Pisarchyk & Lee's offsets)."""
    return _greedy(buffers, alignment, by_size, best_fit, "best_fit_by_size")


def plan_greedy_by_first_use(buffers: Sequence[Buffer],
                             alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """In execution order, each at the lowest free offset (a linear scan)."""
    return _greedy(buffers, alignment, by_first_use, first_fit, "greedy_by_first_use")


def plan_greedy_by_lifetime(buffers: Sequence[Buffer],
                            alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Longest-lived first, each at the lowest free offset."""
    return _greedy(buffers, alignment, by_lifetime, first_fit, "greedy_by_lifetime")


def plan_greedy_by_area(buffers: Sequence[Buffer],
                        alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Largest size x lifetime first, each at the lowest free offset."""
    return _greedy(buffers, alignment, by_area, first_fit, "greedy_by_area")


def plan_greedy_by_breadth(buffers: Sequence[Buffer],
                           alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Widest instructions first, their buffers by size, each at the lowest free offset."""
    check_buffers(buffers, alignment)
    return _greedy(buffers, alignment, breadth_key(buffers, alignment), first_fit,
                   "greedy_by_breadth")


def plan_best_fit_by_breadth(buffers: Sequence[Buffer],
                             alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Widest instructions first, their buffers by size, each into the smallest fitting gap."""
    check_buffers(buffers, alignment)
    return _greedy(buffers, alignment, breadth_key(buffers, alignment), best_fit,
                   "best_fit_by_breadth")
