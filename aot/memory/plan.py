"""The planner's vocabulary: a Buffer to place, the frozen MemoryPlan a planner returns, and the
liveness lower bound every plan is measured against.

Lifetimes are inclusive instruction indices: two buffers *conflict* (may not share bytes) when
both are non-empty and their lifetimes ``[first, last]`` share at least one instruction.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from aot.errors import PlanError

DEFAULT_ALIGNMENT = 16


@dataclass(frozen=True)
class Buffer:
    """One tensor (or an alias group merged by the caller, or a kernel's scratch) to place.

    ``size`` is in bytes (0 is allowed: an empty buffer never conflicts). ``first``/``last`` are
    the inclusive instruction indices of its first write and last read.
    """

    id: int
    size: int
    first: int
    last: int
    name: str = ""

    def label(self) -> str:
        """``#3 'conv1_out'`` -- how errors and drawings name this buffer."""
        return f"#{self.id} {self.name!r}" if self.name else f"#{self.id}"

    def alive_with(self, other: Buffer) -> bool:
        """True if both buffers are alive at some common instruction."""
        return self.first <= other.last and other.first <= self.last


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
    ``lower_bound`` is ``lower_bound(buffers, alignment)``: no plan can use a smaller arena.
    ``planner`` names the function that made the plan (``"greedy_by_size"``, ...).
    """

    offsets: Mapping[int, int]
    arena_size: int
    lower_bound: int
    alignment: int
    planner: str

    def __post_init__(self) -> None:
        if not isinstance(self.offsets, Offsets):
            object.__setattr__(self, "offsets", Offsets(self.offsets))

    def offset(self, buffer_id: int) -> int:
        """The byte offset of one buffer (TFLM's ``GetOffsetForBuffer``)."""
        try:
            return self.offsets[buffer_id]
        except KeyError:
            raise PlanError(
                f"plan {self.planner!r} has no offset for buffer #{buffer_id}") from None

    @property
    def overhead(self) -> int:
        """Bytes above the lower bound (0 means provably optimal)."""
        return self.arena_size - self.lower_bound

    @property
    def efficiency(self) -> float:
        """``lower_bound / arena_size`` in (0, 1]; 1.0 for an empty arena."""
        return self.lower_bound / self.arena_size if self.arena_size else 1.0

    def summary(self) -> str:
        """One line for logs: planner, arena, lower bound and overhead."""
        return (f"{self.planner}: arena {self.arena_size} B, lower bound {self.lower_bound} B "
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


def make_plan(buffers: Sequence[Buffer], alignment: int, offsets: Mapping[int, int],
              planner: str) -> MemoryPlan:
    """Wrap a planner's offsets: arena = highest aligned end, lower bound computed here."""
    arena = max((offsets[b.id] + align_up(b.size, alignment) for b in buffers), default=0)
    return MemoryPlan(offsets=offsets, arena_size=arena,
                      lower_bound=lower_bound(buffers, alignment),
                      alignment=alignment, planner=planner)
