"""Bump allocation and the greedy family of planners.

Every greedy planner is the same loop with a different *order* and *fit* (TFLM's
``GreedyMemoryPlanner`` is one member: order by size, first fit):

    for each buffer, in order:
        look at the already-placed buffers alive at the same time as it, sorted by offset
        (where a declared overlap lets the two share bytes, only the bytes it forbids count);
        put it in a gap between them (or above the highest one):
            first fit -- the lowest gap that is big enough,
            best fit  -- the smallest gap that is big enough (Pisarchyk & Lee 2020,
                         "Efficient Memory Management for Deep Neural Net Inference").

Orders: size descending (big buffers first, so small ones fill the holes), first use ascending
(a linear scan, good on chains), lifetime length and size x lifetime descending (long-lived
buffers such as a residual block's input settle first), and breadth (Pisarchyk & Lee:
instructions by their total live bytes, descending; at each one place its unplaced buffers by
size), and one with an input pinned (``plan_pinned_input``: an input that later buffers may
overlap while it lives on, at each of several heights). No order wins on every graph, so
``plan_suite`` runs them all. Sizes are rounded up to
the alignment before placement, so every gap boundary is a multiple of it. Ties fall back to buffer id, so plans are deterministic.
Zero-size buffers never conflict and are put at offset 0.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from aot.memory.plan import (DEFAULT_ALIGNMENT, Buffer, MemoryPlan, Overlap, align_up,
                             arena_end, check_buffers, live_bytes, lower_bound, make_plan)

Fit = Callable[[list[tuple[int, int]], int], int]


def first_fit(blocked: list[tuple[int, int]], size: int) -> int:
    """Lowest start outside every open interval of the sorted ``blocked`` starts.

    ``blocked`` holds, per buffer already placed and alive at the same time, the open interval
    ``(lo, hi)`` of starts that would collide with it: ``(start - size, end)`` for a buffer at
    ``[start, end)``, narrower where a declared overlap lets the two share bytes.
    """
    candidate = 0
    for lo, hi in blocked:
        if lo >= candidate:
            break
        candidate = max(candidate, hi)
    return candidate


def best_fit(blocked: list[tuple[int, int]], size: int) -> int:
    """Start of the smallest gap that holds ``size`` bytes; above everything if none does.

    ``blocked`` is as for ``first_fit``: a free run of starts ``[candidate, lo]`` is a gap of
    ``lo - candidate + size`` bytes.
    """
    candidate, best, best_gap = 0, None, 0
    for lo, hi in blocked:
        gap = lo - candidate + size
        if lo >= candidate and (best is None or gap < best_gap):
            best, best_gap = candidate, gap
        candidate = max(candidate, hi)
    return candidate if best is None else best


def blocked_starts(b: Buffer, size: int, placed: Sequence[tuple[Buffer, int, int]],
                   alignment: int) -> list[tuple[int, int]]:
    """The sorted open intervals of starts where ``b`` (``size`` aligned bytes) would collide
    with a buffer of ``placed`` (``(buffer, start, aligned end)``) that is alive with it.

    Where ``b`` and a placed buffer may overlap, the interval shrinks by what the overlap
    permits: an output may start as high as ``input start - lag`` (the lag rounded up to the
    alignment, so starts stay aligned); an input may start as low as ``output start + lag``.
    """
    out = []
    first, last = b.first, b.last
    on = {o.input: o for o in b.overlaps}
    for p, lo, hi in placed:
        if p.first > last or first > p.last:     # not alive with b (Buffer.alive_with)
            continue
        o_in, o_out = on.get(p.id), p.overlap_on(b) if p.overlaps else None
        if (o := o_in or o_out) is not None and o.exact:
            # one start only: the input's less the lag (b over p), or the output's plus it
            at = lo - o.lag if o is o_in else lo + o.lag
            ivs = [(lo - size, at), (at, hi)] if o.lag % alignment == 0 else [(lo - size, hi)]
        elif o_in is not None:    # b writes over the placed input p
            ivs = [(max(lo - size, lo - align_up(o_in.lag, alignment)), hi)]
        elif o_out is not None:   # the placed output p writes over b
            ivs = [(lo - size, min(hi, lo + align_up(o_out.lag, alignment)))]
        else:
            ivs = [(lo - size, hi)]
        out += [iv for iv in ivs if iv[0] < iv[1]]
    return sorted(out)


def place_greedy(order: Sequence[Buffer], alignment: int, fit: Fit,
                 pinned: tuple[Buffer, int] | None = None) -> dict[int, int]:
    """The shared greedy loop: place each buffer of ``order`` against those placed before it
    (after ``pinned``, a buffer and its start, if given)."""
    offsets: dict[int, int] = {}
    placed: list[tuple[Buffer, int, int]] = []  # (buffer, start, aligned end)
    if pinned is not None:
        b, lo = pinned
        offsets[b.id] = lo
        placed.append((b, lo, lo + align_up(b.size, alignment)))
    for b in order:
        if b.id in offsets:
            continue
        if not b.size:
            offsets[b.id] = 0
            continue
        size = align_up(b.size, alignment)
        lo = fit(blocked_starts(b, size, placed, alignment), size)
        offsets[b.id] = lo
        placed.append((b, lo, lo + size))
    return offsets


def mirrored(buffers: Sequence[Buffer], alignment: int) -> list[Buffer]:
    """The buffers as seen from the arena's top, for planners that place from there.

    Offsets measured down from the top (``o' = top - o - size``) turn "output ``b`` starts at
    least ``lag`` below input ``a``" into "``a`` starts at most ``lag + |a| - |b|`` below ``b``",
    which is the same rule with the roles swapped: ``a`` declares the overlap on ``b``. So the
    greedy loop runs unchanged on the mirrored buffers, and a chain whose outputs are larger
    than their inputs (a lag near ``|b| - |a|``) nests each input in its output's top.
    """
    by_id = {b.id: b for b in buffers}
    flipped: dict[int, list[Overlap]] = {}
    for b in buffers:
        for o in b.overlaps:
            a = by_id[o.input]
            lag = ((o.lag if o.exact else align_up(o.lag, alignment))
                   + align_up(a.size, alignment) - align_up(b.size, alignment))
            flipped.setdefault(a.id, []).append(Overlap(b.id, lag, o.exact))
    return [replace(b, overlaps=tuple(flipped.get(b.id, ()))) for b in buffers]


def place_from_top(order: Sequence[Buffer], alignment: int, fit: Fit) -> dict[int, int]:
    """``place_greedy`` downward from the arena's top: the mirror image of bottom-up placing."""
    down = place_greedy(mirrored(order, alignment), alignment, fit)
    sized = [b for b in order if b.size]
    top = max((down[b.id] + align_up(b.size, alignment) for b in sized), default=0)
    offsets = {b.id: 0 for b in order}
    offsets.update({b.id: top - down[b.id] - align_up(b.size, alignment) for b in sized})
    return offsets


def _greedy(buffers: Sequence[Buffer], alignment: int, key, fit: Fit, name: str,
            place=place_greedy) -> MemoryPlan:
    check_buffers(buffers, alignment)
    return make_plan(buffers, alignment, place(sorted(buffers, key=key), alignment, fit), name)


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


PIN_HEIGHTS = 32      # starts plan_pinned_input tries for the pinned input


def plan_pinned_input(buffers: Sequence[Buffer],
                      alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """For an input that later buffers may overlap while it lives on (a patch-based stage's
    input, whose dead first rows the patches' buffers take): that input pinned at each of
    PIN_HEIGHTS starts up to the whole-tensor bound, the rest around it by first use and by
    lifetime, first fit; the smallest arena. The buffers below it are the ones alive before
    its rows die, and the bottom-up orders put the rest into its dead bytes. Without such an
    input, greedy by lifetime."""
    check_buffers(buffers, alignment)
    by_id = {b.id: b for b in buffers}
    count: dict[int, int] = {}
    for b in buffers:
        for o in b.overlaps:
            if by_id[o.input].last > b.first:
                count[o.input] = count.get(o.input, 0) + 1
    if not count:
        return _greedy(buffers, alignment, by_lifetime, first_fit, "pinned_input")
    x = by_id[max(sorted(count), key=lambda i: count[i])]
    room = max(lower_bound(buffers, alignment) - align_up(x.size, alignment), 0)
    step = max(alignment, align_up(-(-room // PIN_HEIGHTS), alignment))
    best, top = None, 0
    for start in range(0, room + 1, step):
        for key in (by_first_use, by_lifetime):
            offsets = place_greedy(sorted(buffers, key=key), alignment, first_fit,
                                   (x, start))
            end = arena_end(buffers, alignment, offsets)
            if best is None or end < top:
                best, top = offsets, end
    return make_plan(buffers, alignment, best, "pinned_input")


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


def plan_greedy_by_first_use_from_top(buffers: Sequence[Buffer],
                                      alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """In execution order, each at the highest free offset: where an op's output is larger than
    the input it may overlap, the input nests in the output's top."""
    return _greedy(buffers, alignment, by_first_use, first_fit, "greedy_by_first_use_from_top",
                   place_from_top)


def plan_greedy_by_size_from_top(buffers: Sequence[Buffer],
                                 alignment: int = DEFAULT_ALIGNMENT) -> MemoryPlan:
    """Largest first, each at the highest free offset (see the first-use variant)."""
    return _greedy(buffers, alignment, by_size, first_fit, "greedy_by_size_from_top",
                   place_from_top)
