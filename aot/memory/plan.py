"""The planner's vocabulary: a Buffer to place, the frozen MemoryPlan a planner returns, and the
liveness lower bound every plan is measured against.

Lifetimes are inclusive instruction indices: two buffers *conflict* (may not share bytes) when
both are non-empty and their lifetimes ``[first, last]`` share at least one instruction, unless
one is the output of the op that reads the other for the last time and that op declared an
``Overlap``: then they may share bytes if the output starts at least the overlap's lag below it
(exactly its lag, for an overlap in place).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from aot.errors import PlanError

DEFAULT_ALIGNMENT = 16


@dataclass(frozen=True)
class Overlap:
    """Leave for an op's output to share bytes with an input the op reads for the last time.

    A streaming op's loop makes this promise: once it has written the first ``p`` bytes of its
    output, it never again reads the input's bytes below ``p - lag`` (both counted from each
    buffer's start). So the output may start ``lag`` bytes below the input, or lower, and
    overwrite the input's dead part as it goes. A 3x3 convolution that writes a row after
    reading the rows it needs has a lag of about one row; a negative lag lets a smaller output
    start above the input's start.

    An ``exact`` overlap is the other kind, in place: the output must start exactly ``lag``
    bytes below the input (0: at the same byte) and the op writes each byte only once the
    input byte there is dead, in whatever order (a depthwise layer a group of channels at a
    time, every pixel of the group read before any is written).

    The input may also live on past the output's op, read only above some byte from then on
    (a patch-based stage's input, of which each later patch crops rows further down): an
    output ending ``|output| - lag`` bytes or less into it lies on bytes nothing reads again
    (aot.passes.plan_memory's dead prefixes).
    """

    input: int
    lag: int
    exact: bool = False

    def allows(self, input_offset: int, output_offset: int) -> bool:
        """True if an output at ``output_offset`` may share bytes with the input."""
        gap = input_offset - output_offset
        return gap == self.lag if self.exact else gap >= self.lag


@dataclass(frozen=True)
class Buffer:
    """One tensor (or an alias group merged by the caller, or a kernel's scratch) to place.

    ``size`` is in bytes (0 is allowed: an empty buffer never conflicts). ``first``/``last`` are
    the inclusive instruction indices of its first write and last read. ``overlaps`` lists the
    inputs of the op at ``first`` that this buffer (its output) may share bytes with: each one's
    ``last`` must be this buffer's ``first``.
    """

    id: int
    size: int
    first: int
    last: int
    name: str = ""
    overlaps: tuple[Overlap, ...] = ()

    def label(self) -> str:
        """``#3 'conv1_out'`` -- how errors and drawings name this buffer."""
        return f"#{self.id} {self.name!r}" if self.name else f"#{self.id}"

    def alive_with(self, other: Buffer) -> bool:
        """True if both buffers are alive at some common instruction."""
        return self.first <= other.last and other.first <= self.last

    def overlap_on(self, other: Buffer) -> Overlap | None:
        """The overlap this buffer (an output) declares on ``other``, if any."""
        return next((o for o in self.overlaps if o.input == other.id), None)


def shared_leave(a: Buffer, b: Buffer) -> tuple[Buffer, Buffer, Overlap] | None:
    """``(input, output, overlap)`` if one of the two buffers may overlap the other."""
    if (o := b.overlap_on(a)) is not None:
        return a, b, o
    if (o := a.overlap_on(b)) is not None:
        return b, a, o
    return None


def align_up(size: int, alignment: int) -> int:
    """Round ``size`` up to a multiple of ``alignment``."""
    return -(-size // alignment) * alignment


class Offsets(Mapping):
    """An immutable, hashable, picklable ``buffer id -> byte offset`` map, iterated by id."""

    __slots__ = ("_items", "_map")

    def __init__(self, items: Mapping[int, int] | Sequence[tuple[int, int]] = ()):
        pairs = dict(items.items() if isinstance(items, Mapping) else items)
        self._items = tuple(sorted((int(k), int(v)) for k, v in pairs.items()))
        self._map = dict(self._items)

    def __getitem__(self, buffer_id: int) -> int:
        return self._map[buffer_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Offsets):
            return self._items == other._items
        return isinstance(other, Mapping) and self._map == dict(other.items())

    def __reduce__(self):
        return (Offsets, (self._items,))

    def __repr__(self) -> str:
        return f"Offsets({self._map!r})"


@dataclass(frozen=True)
class MemoryPlan:
    """Where every buffer lives in one arena. Built by a planner, proven by ``verify_plan``.

    ``offsets`` maps buffer id to a byte offset (a plain dict is accepted and frozen).
    ``lower_bound`` is ``lower_bound(buffers, alignment)``, the whole-tensor liveness bound: no
    plan without overlaps can use a smaller arena. ``overlap_bound`` is
    ``overlap_bound(buffers, alignment)``, the bound with the declared overlaps, which no plan
    can beat (it equals ``lower_bound`` when no buffer declares one).
    ``planner`` names the function that made the plan (``"greedy_by_size"``, ...).
    """

    offsets: Mapping[int, int]
    arena_size: int
    lower_bound: int
    alignment: int
    planner: str
    overlap_bound: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.offsets, Offsets):
            object.__setattr__(self, "offsets", Offsets(self.offsets))
        if self.overlap_bound is None:
            object.__setattr__(self, "overlap_bound", self.lower_bound)

    def offset(self, buffer_id: int) -> int:
        """The byte offset of one buffer (TFLM's ``GetOffsetForBuffer``)."""
        try:
            return self.offsets[buffer_id]
        except KeyError:
            raise PlanError(
                f"plan {self.planner!r} has no offset for buffer #{buffer_id}") from None

    @property
    def overhead(self) -> int:
        """Bytes above the bound with overlaps (0 means provably optimal)."""
        return self.arena_size - self.overlap_bound

    @property
    def efficiency(self) -> float:
        """``overlap_bound / arena_size`` in (0, 1]; 1.0 for an empty arena."""
        return self.overlap_bound / self.arena_size if self.arena_size else 1.0

    def summary(self) -> str:
        """One line for logs: planner, arena, lower bound(s) and overhead."""
        bounds = f"lower bound {self.lower_bound} B"
        if self.overlap_bound != self.lower_bound:
            bounds += f", {self.overlap_bound} B with overlaps"
        return (f"{self.planner}: arena {self.arena_size} B, {bounds} "
                f"(+{self.overhead} B, {self.efficiency:.1%})")


def check_buffers(buffers: Sequence[Buffer], alignment: int) -> None:
    """Raise PlanError for inputs no planner accepts: bad alignment, duplicate ids, negative
    sizes or lifetimes that end before they start."""
    if not isinstance(alignment, int) or isinstance(alignment, bool) or alignment < 1:
        raise PlanError(f"alignment must be a positive integer, got {alignment!r}")
    seen: dict[int, Buffer] = {}
    for b in buffers:
        if b.id in seen:
            raise PlanError(f"duplicate buffer id {b.id}: {seen[b.id].label()} and {b.label()}")
        seen[b.id] = b
        if b.size < 0:
            raise PlanError(f"buffer {b.label()} has negative size {b.size}")
        if b.first > b.last:
            raise PlanError(f"buffer {b.label()} has lifetime [{b.first}, {b.last}] "
                            "that ends before it starts")
    for b in buffers:
        for o in b.overlaps:
            a = seen.get(o.input)
            if a is None or a is b:
                raise PlanError(f"buffer {b.label()} declares an overlap on "
                                f"{'itself' if a is b else f'unknown buffer #{o.input}'}")
            if not a.first < b.first <= a.last:
                raise PlanError(f"buffer {b.label()} declares an overlap on {a.label()}, which "
                                f"lives [{a.first}, {a.last}]: only an input written before "
                                f"the op at {b.first} and alive there can be overlapped")
        if len({o.input for o in b.overlaps}) != len(b.overlaps):
            raise PlanError(f"buffer {b.label()} declares two overlaps on one input")


def live_bytes(buffers: Sequence[Buffer], alignment: int) -> dict[int, int]:
    """Aligned bytes alive at each instruction where some buffer starts (where maxima occur)."""
    events: dict[int, int] = {}
    for b in buffers:
        if b.size:
            events[b.first] = events.get(b.first, 0) + align_up(b.size, alignment)
            events[b.last + 1] = events.get(b.last + 1, 0) - align_up(b.size, alignment)
    starts = {b.first for b in buffers if b.size}
    live, out = 0, {}
    for t in sorted(events):
        live += events[t]
        if t in starts:
            out[t] = live
    return out


def lower_bound(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> int:
    """The largest sum of aligned sizes alive at any one instruction.

    Every buffer alive at that instruction needs its own bytes, so no arena can be smaller.
    (It is not always reachable: placing weighted intervals is NP-hard in general.)
    """
    check_buffers(buffers, alignment)
    return max(live_bytes(buffers, alignment).values(), default=0)


def shared_bytes(a: Buffer, b: Buffer, overlap: Overlap, alignment: int) -> int:
    """The most bytes input ``a`` and output ``b`` can share under ``overlap``.

    ``b`` starting ``d`` bytes below ``a`` spans ``max(|a|, |b| - d) + max(d, 0)`` bytes with
    it. An exact overlap fixes ``d`` (none where the lag is not a multiple of the alignment);
    otherwise the best ``d`` is the lag rounded up to the alignment, or 0 where the lag is not
    positive: the pair spans ``max(|a| + d, |b|)`` instead of ``|a| + |b|``.
    """
    if not (a.size and b.size):
        return 0
    sa, sb = align_up(a.size, alignment), align_up(b.size, alignment)
    if overlap.exact:
        d = overlap.lag
        if d % alignment:
            return 0
    else:
        d = align_up(max(overlap.lag, 0), alignment)
    return max(0, sa + sb - max(sa, sb - d) - max(d, 0))


def overlap_bound(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> int:
    """The liveness bound with the declared overlaps: at each instruction, the live bytes less
    the most that the pairs alive there can share (an op's output and the input it reads for
    the last time share at that op; a buffer over a live input's dead first bytes, for as long
    as both live). Equals ``lower_bound`` when no buffer declares an overlap.

    Sound: the bytes saved at an instruction are at most the sum of the pairwise shares alive
    there, each pair within ``shared_bytes``; counted by inputs (outputs), each buffer saves
    at most its own size, taking the buffers in an order where every input comes after its
    outputs (before, for outputs), which the declarations allow (an overlap points to a buffer
    born earlier). Either side's sum of ``min(size, its shares)`` bounds the saving from above,
    and the smaller one is taken.
    """
    check_buffers(buffers, alignment)
    live, saved = live_bytes(buffers, alignment), _saved(buffers, alignment)
    return max((n - saved.get(t, 0) for t, n in live.items()), default=0)


def overlap_live(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> dict[int, int]:
    """At every instruction, the bytes a plan with the declared overlaps must hold there: the
    aligned bytes alive less what the pairs alive there can share (as in ``overlap_bound``,
    which is the largest of these)."""
    check_buffers(buffers, alignment)
    live: dict[int, int] = {}
    for b in buffers:
        for t in range(b.first, b.last + 1) if b.size else ():
            live[t] = live.get(t, 0) + align_up(b.size, alignment)
    saved = _saved(buffers, alignment)
    return {t: n - saved.get(t, 0) for t, n in sorted(live.items())}


def _saved(buffers: Sequence[Buffer], alignment: int) -> dict[int, int]:
    """At each instruction where pairs may share bytes, the most they can save together."""
    by_id = {b.id: b for b in buffers}
    shares: dict[int, dict[tuple[int, int], int]] = {}   # instruction -> (input, output) -> B
    for b in buffers:
        for o in b.overlaps:
            a = by_id[o.input]
            share = shared_bytes(a, b, o, alignment)
            for t in range(b.first, min(a.last, b.last) + 1) if share else ():
                shares.setdefault(t, {})[a.id, b.id] = share
    saved = {}
    for t, pairs in shares.items():
        side = []
        for end in (0, 1):
            total: dict[int, int] = {}
            for key, share in pairs.items():
                total[key[end]] = total.get(key[end], 0) + share
            side.append(sum(min(n, align_up(by_id[i].size, alignment))
                            for i, n in total.items()))
        saved[t] = min(side)
    return saved


def arena_end(buffers: Sequence[Buffer], alignment: int, offsets: Mapping[int, int]) -> int:
    """The arena ``offsets`` need: the highest aligned end of a buffer."""
    return max((offsets[b.id] + align_up(b.size, alignment) for b in buffers), default=0)


def make_plan(buffers: Sequence[Buffer], alignment: int, offsets: Mapping[int, int],
              planner: str) -> MemoryPlan:
    """Wrap a planner's offsets: arena = highest aligned end, both bounds computed here."""
    return MemoryPlan(offsets=offsets, arena_size=arena_end(buffers, alignment, offsets),
                      lower_bound=lower_bound(buffers, alignment),
                      alignment=alignment, planner=planner,
                      overlap_bound=overlap_bound(buffers, alignment))
