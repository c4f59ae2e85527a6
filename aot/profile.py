"""Per-layer profiles: what each kernel call of one inference cost.

The generated ``<name>_run`` laps a clock (``<name>_profile_clock``) when ``<NAME>_PROFILE`` is
defined: slot 0 copies the inputs in, slot 1 + k is kernel call k with its argument setup,
the last slot copies the outputs out (see codegen_templates/model.h.j2). On a QEMU board the
clock is ``plat_cycles()`` under ``-icount`` (guest instructions, to within one SysTick tick);
on the host (``aot.host``) it is nanoseconds. ``profile_of`` turns the slots into rows that
name the op, its source line and its MACs, ``format_profile`` prints them as a table and
``render_profile_svg`` draws them as bars.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence
from xml.sax.saxutils import escape

from .codegen.c import CSources


@dataclass(frozen=True)
class ProfileRow:
    index: Optional[int]       # the instruction (as in aot report); None for the copies
    op: str
    source: str
    macs: int
    count: float               # instructions, or nanoseconds (see Profile.unit)
    cycles: Optional[int] = None    # estimated cycles (aot.cycles), when asked for

    @property
    def per_mac(self) -> Optional[float]:
        return self.count / self.macs if self.macs else None


@dataclass(frozen=True)
class Profile:
    model: str
    where: str                 # the board, or "host"
    unit: str                  # "instructions" or "ns"
    rows: tuple[ProfileRow, ...]
    total: Optional[float] = None    # the whole inference as measured around <name>_run
    cycle_model: Optional[str] = None    # the core whose cycles the rows estimate

    @property
    def sum(self) -> float:
        return sum(r.count for r in self.rows)

    @property
    def cycles(self) -> Optional[int]:
        return sum(r.cycles for r in self.rows) if self.cycle_model else None


def profile_of(sources: CSources, counts: Sequence[float], unit: str, where: str,
               total: Optional[float] = None, cycles: Optional[Sequence[int]] = None,
               cycle_model: Optional[str] = None) -> Profile:
    """Rows from one run's slots (NUM_CALLS + 2 of them), named by the model's op table;
    ``cycles``, if given, are each slot's estimated cycles under ``cycle_model``."""
    if len(counts) != len(sources.calls) + 2 or (cycles is not None
                                                   and len(cycles) != len(counts)):
        raise ValueError(f"{sources.name}: {len(counts)} profile slots, expected "
                         f"{len(sources.calls) + 2}")
    est = list(cycles) if cycles is not None else [None] * len(counts)
    by_index = {r.index: r for r in sources.ops}
    fused = {}
    for r in sources.ops:
        if r.fused_into is not None:
            fused.setdefault(r.fused_into, []).append(r.op.split(".")[0])
    rows = [ProfileRow(None, "(inputs copied in)", "", 0, counts[0], est[0])]
    seen: set[int] = set()
    for k, index in enumerate(sources.calls):
        row = by_index.get(index)
        op = row.op if row is not None else f"instruction {index}"
        if index in fused:
            op += " + " + " + ".join(fused[index])
        # An instruction that takes several calls counts its MACs once, on its first.
        macs = row.macs if row is not None and index not in seen else 0
        seen.add(index)
        rows.append(ProfileRow(index, op, row.source if row is not None else "", macs,
                               counts[k + 1], est[k + 1]))
    rows.append(ProfileRow(None, "(outputs copied out)", "", 0, counts[-1], est[-1]))
    return Profile(sources.name, where, unit, tuple(rows), total,
                   cycle_model if cycles is not None else None)


def _short(text: str, width: int = 56) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _fmt(x: float) -> str:
    return f"{x:,.0f}"


def format_profile(p: Profile) -> str:
    """One line per slot: #, op, source line, MACs, count, count per MAC, (estimated cycles,
    cycles per MAC,) share (of the cycles when estimated, else of the count)."""
    cyc = p.cycle_model is not None
    share_of = (lambda r: r.cycles) if cyc else (lambda r: r.count)
    whole = sum(share_of(r) for r in p.rows) or 1.0
    per = lambda v, macs: f"{v / macs:.2f}" if macs else ""
    head = ("#", "op", "source", "MACs", p.unit, f"{p.unit[:5]}/MAC" if p.unit != "ns"
            else "ns/MAC") + (("cycles", "cyc/MAC") if cyc else ()) + ("share",)
    body = [("" if r.index is None else str(r.index), r.op, _short(r.source),
             _fmt(r.macs) if r.macs else "", _fmt(r.count), per(r.count, r.macs))
            + ((_fmt(r.cycles), per(r.cycles, r.macs)) if cyc else ())
            + (f"{100 * share_of(r) / whole:.1f}%",) for r in p.rows]
    macs = sum(r.macs for r in p.rows)
    body.append(("", "total", "", _fmt(macs), _fmt(p.sum), per(p.sum, macs))
                + ((_fmt(p.cycles), per(p.cycles, macs)) if cyc else ()) + ("100.0%",))
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    right = {0} | set(range(3, len(head)))
    line = lambda r: "  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    unit = p.unit + (f" and estimated {p.cycle_model} cycles" if cyc else "")
    out = [f"profile of {p.model} on {p.where} ({unit} per call, one inference)",
           line(head), "  ".join("-" * w for w in widths)] + [line(r) for r in body]
    if p.total is not None:
        out.append(f"whole inference, measured around {p.model}_run: {_fmt(p.total)} "
                   f"{p.unit} ({_fmt(p.total - p.sum)} outside the rows: entering "
                   f"{p.model}_run and its first lap, its last lap and return)")
    return "\n".join(out)


def render_profile_svg(p: Profile) -> str:
    """A horizontal bar per slot, longest = full width, labelled with op, source and count."""
    bar_h, gap, label_w, bar_w, top = 16, 4, 420, 360, 40
    biggest = max((r.count for r in p.rows), default=0) or 1
    height = top + len(p.rows) * (bar_h + gap) + 20
    width = label_w + bar_w + 140
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="monospace" font-size="11">',
             f'<text x="8" y="20" font-size="13">{escape(p.model)} on {escape(p.where)}: '
             f'{escape(p.unit)} per kernel call (total {_fmt(p.sum)})</text>']
    for i, r in enumerate(p.rows):
        y = top + i * (bar_h + gap)
        label = (f"#{r.index} " if r.index is not None else "") + r.op
        if r.source:
            label += f"  {r.source}"
        if len(label) > 64:
            label = label[:61] + "..."
        w = max(1, round(bar_w * r.count / biggest)) if r.count > 0 else 0
        parts.append(f'<text x="8" y="{y + 12}">{escape(label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{w}" height="{bar_h}" '
                     f'fill="#4878a8"/>')
        per = f" ({r.per_mac:.2f}/MAC)" if r.per_mac is not None else ""
        parts.append(f'<text x="{label_w + w + 6}" y="{y + 12}">{_fmt(r.count)}{per}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
