"""The op list of docs/ops.md, checked against the op table and against what the op suite runs.

``observe(programs)`` reads lowered op-suite programs: for every call, the op-table entry, the
dtypes of its tensors and the C kernels the generator calls for it. ``doc_rows()`` parses the
table of docs/ops.md, which docs/generate.py writes from the op table and
docs/ops_observed.json. Run as a script after adding an op: it records what the suite observes
in docs/ops_observed.json (entries the suite cannot reach keep their rows) and rewrites
docs/ops.md:

    .venv/bin/python tests/host/op_list.py
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)
entry_name = generate.entry_name      # how docs/ops.md names an entry
OPS_MD = REPO / "docs" / "ops.md"
OBSERVED, BEGIN, END = generate.OBSERVED, generate.BEGIN, generate.END
_CALL = re.compile(r"/\* \d+: (\S+)  [^\n]*\*/")   # the comment above each call


def observe(programs) -> dict[str, dict[str, set]]:
    """entry name -> {"dtypes": {...}, "kernels": {...}} over lowered programs."""
    import aot
    from aot.ops import SCRATCH_ARGS, by_et_name
    seen: dict[str, dict[str, set]] = defaultdict(lambda: {"dtypes": set(), "kernels": set()})
    for program in programs:
        graph = program.lowered().graph
        for call in graph.calls:
            row = seen[entry_name(call.op)]
            scratch = {v.id for k, v in call.args if k in SCRATCH_ARGS and hasattr(v, "id")}
            for tid in {*call.reads, *call.outs} - scratch:   # (a scratch is bytes)
                row["dtypes"].add(str(graph.tensors[tid].dtype).replace("torch.", ""))
        text = "".join(aot.generate_c(program, name="m").files.values())
        parts = _CALL.split(text)       # [before, key, code, key, code, ...]
        for key, code in zip(parts[1::2], parts[2::2]):
            name, _, overload = key.partition(".")
            op = by_et_name(name, overload)
            if op is not None:
                seen[entry_name(op)]["kernels"].update(re.findall(r"\bs = (rt_\w+)\(", code))
    return seen


def doc_rows() -> dict[str, dict[str, set]]:
    """entry name -> {"dtypes", "kernels"} from the table of docs/ops.md
    (| op | .pte operator | dtypes | C kernels | checks | flags |)."""
    text = OPS_MD.read_text()
    table = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not cells[0].startswith("`"):
            continue
        (name,) = re.findall(r"`([^`]+)`", cells[0])
        rows[name] = {"dtypes": set(re.findall(r"\w+", cells[2])) - {"-"},
                      "kernels": set(re.findall(r"`(rt_\w+)`", cells[3]))}
    return rows


def record(seen) -> None:
    """Write what the suite observed to docs/ops_observed.json, one line per entry; entries it
    did not reach keep the row they had."""
    rows = json.loads(OBSERVED.read_text()) if OBSERVED.exists() else {}
    for name, row in seen.items():
        rows[name] = {**rows.get(name, {}), "dtypes": sorted(row["dtypes"]),
                      "kernels": sorted(row["kernels"])}
    lines = [f" {json.dumps(name)}: {json.dumps(rows[name], sort_keys=True)}" for name in sorted(rows)]
    OBSERVED.write_text("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "host")]
    import warnings
    warnings.filterwarnings("ignore")
    from op_suite import CASES
    from test_op_suite import int8_programs, lower, overlapped_programs
    record(observe([*(lower(c.name) for c in CASES), *int8_programs(), *overlapped_programs()]))
    generate.write()
    print(f"wrote {OBSERVED.relative_to(REPO)} and docs/ops.md")
