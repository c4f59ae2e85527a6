"""The memory report: one row per kernel call, then the arena against its lower bound."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .executorch import LoweredMethod
from .ir import TensorKind


@dataclass(frozen=True)
class OpRow:
    index: int
    op: str
    shape: tuple[int, ...]
    nbytes: int
    macs: int
    offset: int   # -1: not in the arena
    source: str
    dtype: str = "float32"
    qparams: tuple = ()      # int8 output: (scale, zero point)
    fallback: bool = False   # a float kernel between int8 ops (LoweredMethod.fallbacks)
    scratch: tuple = ()      # (bytes, arena offset) of the call's planned scratch buffer


def _dtype(t) -> str:
    return str(t.dtype).removeprefix("torch.") if t is not None else "-"


def op_rows(method: LoweredMethod) -> list[OpRow]:
    g, plan = method.graph, method.plan
    rows = []
    for i, call in enumerate(g.calls):
        out = g.tensors[call.outs[0]] if call.outs else None
        shapes = {}
        scratch: tuple = ()
        for name, value in call.args:
            if hasattr(value, "id"):
                shapes[name] = g.tensors[value.id].shape
                t = g.tensors[value.id]
                if name == "scratch" and t.nbytes:
                    scratch = (t.nbytes, plan.offsets.get(g.root(t.id), -1))
        macs = call.op.macs(shapes, [g.tensors[t].shape for t in call.outs])
        offset = plan.offsets[g.root(out.id)] + g.root_offset(out.id) \
            if out is not None and g.root(out.id) in plan.offsets else -1
        fallback = i in method.fallbacks
        rows.append(OpRow(i, call.op.key, out.shape if out else (), sum(
            g.tensors[t].nbytes for t in call.outs), macs, offset, str(call.source),
            _dtype(out), out.qparams or () if out is not None else (), fallback, scratch))
    return rows


def _q(r: OpRow) -> str:
    if r.qparams:
        return f"{r.dtype} {r.qparams[0]:.4g}@{r.qparams[1]}"
    return r.dtype + ("  FALLBACK" if r.fallback else "")


def format_report(method: LoweredMethod, title: str = "",
                  overlap_arena: Optional[int] = None) -> str:
    """The per-op table and the memory summary of a lowered method. ``overlap_arena``: the
    arena the same program plans under --overlap, shown beside a plan without it so that a
    user sees what that would buy."""
    g, plan = method.graph, method.plan
    rows = op_rows(method)
    lines = [f"== {title or g.name}: {len(rows)} kernel calls =="]
    quantized = any(r.qparams for r in rows)
    qhead = f"  {'dtype scale@zero point':<26}" if quantized else ""
    scratched = any(r.scratch for r in rows)
    shead = f"  {'scratch@offset':<14}" if scratched else ""
    header = (f"{'#':>3}  {'op':<47} {'output shape':<16} {'bytes':>9} {'MACs':>11} "
              f"{'offset':>9}{qhead}{shead}")
    lines += [header, "-" * len(header)]
    for r in rows:
        shape = "x".join(str(s) for s in r.shape) or "scalar"
        offset = str(r.offset) if r.offset >= 0 else "-"
        q = f"  {_q(r):<26}" if quantized else ""
        sc = f"  {f'{r.scratch[0]}@{r.scratch[1]}' if r.scratch else '-':<14}" if scratched else ""
        lines.append(f"{r.index:>3}  {r.op:<47} {shape:<16} {r.nbytes:>9,} {r.macs:>11,} "
                     f"{offset:>9}{q}{sc}".rstrip())
    views = sum(1 for t in g.tensors if t.alias_of is not None)
    const = sum(t.nbytes for t in g.tensors if t.kind == TensorKind.CONSTANT)
    bound = plan.overlap_bound if method.least_bound is None else method.least_bound
    gap = plan.arena_size - bound
    verdict = "optimal" if gap == 0 else f"+{gap:,} B over the bound"
    overlapped = bound != plan.lower_bound
    # an overlapped plan's own bound counts the bands' scratch: the plain program's is shown
    whole = plan.lower_bound if method.whole_bound is None else method.whole_bound
    bounds = [f"lower bound  {whole:>12,} B   (whole tensors: no two live tensors "
              f"share a byte{'' if overlapped else f'; {verdict}'})"]
    if overlapped:
        bounds.append(f"  overlapped {bound:>12,} B   (outputs may overwrite the "
                      f"inputs their op reads for the last time; {verdict})")
    elif overlap_arena is not None and overlap_arena < plan.arena_size:
        bounds.append(f"  --overlap  {overlap_arena:>12,} B   (the arena with outputs over "
                      f"their inputs' dead bytes: aot report --overlap)")
    lines += ["",
              f"arena        {plan.arena_size:>12,} B   (planner: {plan.planner})",
              *bounds,
              f"constants    {const:>12,} B   (flash)",
              f"MACs         {sum(r.macs for r in rows):>12,}",
              f"scratch      {sum(r.scratch[0] for r in rows if r.scratch):>12,} B   "
              f"(kernel work buffers in the arena, {sum(1 for r in rows if r.scratch)} call(s))",
              f"zero-copy    {views:>12} tensors share storage (views, in-place ops)"]
    if method.patches is not None:
        first, *rest = method.patches.describe().splitlines()
        lines += [f"patches      {first}", *(f"             {line}" for line in rest)]
    fallbacks = [r for r in rows if r.fallback]
    if quantized:
        lines.append(f"int8         {sum(1 for r in rows if r.qparams):>12} calls write int8; "
                     f"{len(fallbacks)} float fallback(s)" + (":" if fallbacks else ""))
        lines += [f"  #{r.index} {r.op} at {r.source}" + (
            f": {method.fallbacks[r.index].why}" if method.fallbacks[r.index].why else "")
            for r in fallbacks]
    return "\n".join(lines)
