"""The README's op list, checked against the op table and against what the op suite runs.

``observe(programs)`` reads lowered op-suite programs: for every call, the op-table entry, the
dtypes of its tensors and the C kernels the generator calls for it. ``readme_rows()`` parses
the README's table. Run as a script to print the rows the suite observes (to update the README
after adding an op):

    .venv/bin/python tests/host/op_list.py
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BEGIN, END = "<!-- op list: begin -->", "<!-- op list: end -->"
_CALL = re.compile(r"/\* \d+: (\S+)  [^\n]*\*/")   # the comment above each call
_DTYPE = {"float32": "f32", "int64": "i64", "int32": "i32", "bool": "bool", "int8": "i8",
          "uint8": "u8", "int16": "i16"}


def entry_name(op) -> str:
    """How the README names an op-table entry: its edge op, or the .pte operator it reads
    (ExecuTorch's dim-order copies, and the int8 ops under their cortex_m names)."""
    if op.aten is not None and op.aten.namespace == "aten":
        return str(op.aten).removeprefix("aten.")
    return op.key


def observe(programs) -> dict[str, dict[str, set]]:
    """entry name -> {"dtypes": {...}, "kernels": {...}} over lowered programs."""
    import aot
    from aot.ops import by_et_name
    seen: dict[str, dict[str, set]] = defaultdict(lambda: {"dtypes": set(), "kernels": set()})
    for program in programs:
        graph = program.lowered().graph
        for call in graph.calls:
            row = seen[entry_name(call.op)]
            for tid in (*call.reads, *call.outs):
                row["dtypes"].add(str(graph.tensors[tid].dtype).replace("torch.", ""))
        text = "".join(aot.generate_c(program, name="m").files.values())
        parts = _CALL.split(text)       # [before, key, code, key, code, ...]
        for key, code in zip(parts[1::2], parts[2::2]):
            name, _, overload = key.partition(".")
            op = by_et_name(name, overload)
            if op is not None:
                seen[entry_name(op)]["kernels"].update(re.findall(r"\bs = (rt_\w+)\(", code))
    return seen


def readme_rows() -> dict[str, dict[str, set]]:
    """entry name -> {"dtypes", "kernels"} from the README's table (one row may name several
    overloads of one op)."""
    text = README.read_text()
    table = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        dtypes = set(re.findall(r"\w+", cells[1]))
        kernels = set(re.findall(r"`(rt_\w+)`", cells[2]))
        for n in names:
            rows[n] = {"dtypes": dtypes, "kernels": kernels}
    return rows


def print_rows(seen) -> None:
    by_packet = defaultdict(list)
    for name in sorted(seen):
        by_packet[name.split(".")[0]].append(name)
    for names in by_packet.values():
        dtypes = sorted(set().union(*(seen[n]["dtypes"] for n in names)))
        kernels = sorted(set().union(*(seen[n]["kernels"] for n in names)))
        print(f"| {', '.join(f'`{n}`' for n in names)} | {', '.join(dtypes)} | "
              f"{', '.join(f'`{k}`' for k in kernels)} |")


if __name__ == "__main__":
    sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "host")]
    import warnings
    warnings.filterwarnings("ignore")
    from op_suite import CASES
    from test_op_suite import int8_programs, lower
    print_rows(observe([*(lower(c.name) for c in CASES), *int8_programs()]))
