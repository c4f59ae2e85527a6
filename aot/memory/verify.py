"""verify_plan: the independent proof that a MemoryPlan is safe (cf. ExecuTorch's Verifier).

It trusts nothing the planner computed except the offsets: it re-checks every buffer against the
arena, the alignment, and every other buffer alive at the same time. Every test calls it, and
``plan_suite`` calls it on every candidate before keeping one.
"""
from __future__ import annotations

from collections.abc import Sequence

from aot.errors import PlanError
from aot.memory.plan import (Buffer, MemoryPlan, check_buffers, lower_bound, overlap_bound,
                             shared_leave)


def _where(b: Buffer, offset: int) -> str:
    return f"{b.label()} (lifetime [{b.first}, {b.last}], bytes [{offset}, {offset + b.size}))"


def verify_plan(buffers: Sequence[Buffer], plan: MemoryPlan) -> None:
    """Raise PlanError unless ``plan`` places every buffer safely.

    Checked: every buffer has an offset and the plan has none for unknown ids; offsets are
    non-negative multiples of ``plan.alignment``; each buffer ends inside ``arena_size``; no two
    non-empty buffers alive at a common instruction share a byte; ``plan.lower_bound`` matches
    the buffers (a stale plan for another graph fails here). Overlap uses the true sizes: with
    aligned offsets that is the same as using aligned sizes. The one exception to "no shared
    byte": an output may share bytes with an input its op reads for the last time when the
    output declared that ``Overlap`` and starts at least its lag below the input (exactly
    its lag, for an overlap in place).
    """
    check_buffers(buffers, plan.alignment)
    who = f"plan {plan.planner!r}"
    ids = {b.id for b in buffers}
    for b in buffers:
        if b.id not in plan.offsets:
            raise PlanError(f"{who} has no offset for buffer {b.label()}")
    unknown = sorted(set(plan.offsets) - ids)
    if unknown:
        raise PlanError(f"{who} has offsets for unknown buffer ids {unknown}")
    for b in buffers:
        off = plan.offsets[b.id]
        if off < 0 or off % plan.alignment:
            raise PlanError(f"{who}: buffer {_where(b, off)} is not at a non-negative multiple "
                            f"of the alignment {plan.alignment}")
        if off + b.size > plan.arena_size:
            raise PlanError(f"{who}: buffer {_where(b, off)} ends past the arena of "
                            f"{plan.arena_size} bytes")
    # Sweep in order of first use, keeping the buffers still alive.
    alive: list[Buffer] = []
    for b in sorted((b for b in buffers if b.size), key=lambda b: (b.first, b.id)):
        alive = [a for a in alive if a.last >= b.first]
        lo = plan.offsets[b.id]
        for a in alive:
            a_lo = plan.offsets[a.id]
            if a_lo < lo + b.size and lo < a_lo + a.size:
                if (leave := shared_leave(a, b)) is not None:
                    inp, out, o = leave
                    if o.allows(plan.offsets[inp.id], plan.offsets[out.id]):
                        continue
                    gap = plan.offsets[inp.id] - plan.offsets[out.id]
                    promise = (f"works in place only {o.lag} B below it" if o.exact else
                               f"promises only a lag of {o.lag} B")
                    raise PlanError(
                        f"{who}: output {_where(out, plan.offsets[out.id])} overlaps input "
                        f"{_where(inp, plan.offsets[inp.id])} starting {gap} B below it, but "
                        f"its op {promise}: it may overwrite input bytes it has yet to read")
                raise PlanError(
                    f"{who}: buffers {_where(a, a_lo)} and {_where(b, lo)} are both alive at "
                    f"instruction {b.first} and share bytes "
                    f"[{max(lo, a_lo)}, {min(lo + b.size, a_lo + a.size)})")
        alive.append(b)
    expected = lower_bound(buffers, plan.alignment), overlap_bound(buffers, plan.alignment)
    if (plan.lower_bound, plan.overlap_bound) != expected:
        raise PlanError(f"{who} records lower bounds {plan.lower_bound} and "
                        f"{plan.overlap_bound} (with overlaps) but these buffers need "
                        f"{expected[0]} and {expected[1]}: was it made for other buffers?")
