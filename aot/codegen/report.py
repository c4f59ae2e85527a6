"""The short report `aot compile` prints and writes beside the generated C."""
from __future__ import annotations

from .c import CSources


def format_c_report(sources: CSources) -> str:
    lines = [f"{sources.name}: {len(sources.ops)} kernel calls",
             f"  arena      {sources.arena_size:>10,} B (RAM, {sources.name.upper()}_ARENA_SIZE)",
             f"  constants  {sources.constant_bytes:>10,} B (flash)"]
    for kind, specs in (("input", sources.inputs), ("output", sources.outputs)):
        for k, s in enumerate(specs):
            lines.append(f"  {kind} {k:<5} {s.dtype} [{', '.join(map(str, s.shape))}]")
    lines.append(f"  kernels    {', '.join(sources.kernels)}")
    lines.append(f"  runtime    {len(sources.runtime_sources)} files from runtime_c/")
    lines.append("")
    lines.append(f"  {'#':>3}  {'op':<34} {'kernel':<24} source")
    for r in sources.ops:
        lines.append(f"  {r.index:>3}  {r.op:<34} {r.kernel:<24} {r.source}")
    return "\n".join(lines) + "\n"
