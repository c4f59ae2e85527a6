"""render_arena_svg: draw a MemoryPlan as an arena map (byte offset up, instruction right).

One rectangle per non-empty buffer spans its lifetime ``[first, last + 1)`` horizontally and its
bytes ``[offset, offset + size)`` vertically, with a ``<title>`` tooltip. Where an output
overwrites an input it may overlap, the shared bytes are hatched in that instruction's column.
Dashed lines mark the liveness lower bound (and the bound with overlaps, where it is lower) and
the arena size, so the gap between them is the planner's overhead.
Python computes every coordinate; ``codegen_templates/arena_map.svg.j2`` only loops and fills in.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import jinja2

from aot.memory.plan import Buffer, MemoryPlan
from aot.resources import data_dir

TEMPLATE = "arena_map.svg.j2"
PLOT_WIDTH, PLOT_HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 36, 40
LABEL_MIN_HEIGHT, LABEL_CHAR_WIDTH = 13, 7


def templates_dir() -> Path:
    """``aot/_data/codegen_templates`` in an installed wheel, else the repo's top-level one."""
    return data_dir("codegen_templates")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _ticks(lo: int, hi: int, most: int) -> list[int]:
    """Round-numbered ticks covering ``[lo, hi]``, at most about ``most`` of them."""
    step = 1
    while (hi - lo) / step > most:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2  # 1, 2, 5, 10, 20, 50, ...
    return list(range(lo - lo % step, hi + 1, step))


def _fill(buffer_id: int) -> str:
    return f"hsl({buffer_id * 137.508 % 360:.0f}, 60%, 72%)"  # golden-angle hues


def render_arena_svg(buffers: Sequence[Buffer], plan: MemoryPlan,
                     labels: Mapping[int, str] | None = None) -> str:
    """The arena map of ``plan`` as an SVG document.

    ``labels`` (buffer id -> text) overrides the text drawn inside a rectangle, which defaults
    to the buffer's name or ``#id``; text is only drawn where it fits.
    """
    labels = labels or {}
    drawn = [b for b in buffers if b.size]
    t0 = min((b.first for b in drawn), default=0)
    t1 = max((b.last + 1 for b in drawn), default=1)
    sx = PLOT_WIDTH / max(t1 - t0, 1)
    top_bytes = max(plan.arena_size, plan.lower_bound, 1)
    sy = PLOT_HEIGHT / top_bytes

    def x(t: float) -> float:
        return round(LEFT + (t - t0) * sx, 2)

    def y(offset: float) -> float:
        return round(TOP + PLOT_HEIGHT - offset * sy, 2)

    boxes = []
    for b in drawn:
        off = plan.offset(b.id)
        width, height = x(b.last + 1) - x(b.first), max(round(b.size * sy, 2), 0.5)
        text = labels.get(b.id, b.name or f"#{b.id}")
        fits = height >= LABEL_MIN_HEIGHT and width >= LABEL_CHAR_WIDTH * len(text)
        boxes.append(dict(
            id=b.id, x=x(b.first), y=y(off + b.size), width=round(width, 2), height=height,
            fill=_fill(b.id), label=text if fits else "",
            label_x=round(x(b.first) + width / 2, 2), label_y=round(y(off + b.size / 2) + 4, 2),
            tooltip=f"{b.label()}: {b.size} B at [{off}, {off + b.size}), "
                    f"instructions {b.first}..{b.last}"))
    by_id = {b.id: b for b in drawn}
    shared = []
    for b in drawn:
        for o in b.overlaps:
            a = by_id.get(o.input)
            if a is None:
                continue
            lo = max(plan.offset(a.id), plan.offset(b.id))
            hi = min(plan.offset(a.id) + a.size, plan.offset(b.id) + b.size)
            if lo < hi:
                shared.append(dict(
                    x=x(b.first), y=y(hi), width=round(x(b.first + 1) - x(b.first), 2),
                    height=max(round((hi - lo) * sy, 2), 0.5),
                    tooltip=f"{b.label()} overwrites {a.label()} as it goes: {hi - lo} B at "
                            f"[{lo}, {hi}) shared at instruction {b.first} "
                            f"({'in place' if o.exact else 'lag'} {o.lag} B)"))
    # Lower bound labelled under its line at the left, arena above its line at the right,
    # so the two never collide when the plan is optimal.
    lines = [
        dict(cls="lower-bound", y=y(plan.lower_bound), color="#c00", dash="6,3",
             text=f"lower bound {plan.lower_bound} B", anchor="start",
             text_x=LEFT + 4, text_y=y(plan.lower_bound) + 12,
             tooltip="most bytes alive at one instruction: no plan can be smaller"),
        dict(cls="arena", y=y(plan.arena_size), color="#06c", dash="2,2",
             text=f"arena {plan.arena_size} B", anchor="end",
             text_x=LEFT + PLOT_WIDTH, text_y=y(plan.arena_size) - 3, tooltip=plan.summary()),
    ]
    if plan.overlap_bound != plan.lower_bound:
        lines.append(dict(
            cls="overlap-bound", y=y(plan.overlap_bound), color="#080", dash="4,2",
            text=f"bound with overlaps {plan.overlap_bound} B", anchor="start",
            text_x=LEFT + 4, text_y=y(plan.overlap_bound) + 12,
            tooltip="most bytes alive at one instruction, less what outputs may share with the "
                    "inputs they overwrite"))
    plot = dict(left=LEFT, top=TOP, width=PLOT_WIDTH, height=PLOT_HEIGHT,
                right=LEFT + PLOT_WIDTH, bottom=TOP + PLOT_HEIGHT)
    return _environment().get_template(TEMPLATE).render(
        width=LEFT + PLOT_WIDTH + RIGHT, height=TOP + PLOT_HEIGHT + BOTTOM, plot=plot,
        title=plan.summary(), boxes=boxes, shared=shared, lines=lines,
        x_ticks=[dict(x=x(t), text=t) for t in _ticks(t0, t1 - 1, 12) if t >= t0],
        y_ticks=[dict(y=y(o), text=o) for o in _ticks(0, top_bytes, 8)])
