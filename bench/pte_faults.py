"""Crafted corrupt programs (tests/pte_mutants.py, issue 35): how each reader takes them.

    .venv/bin/python bench/pte_faults.py [--no-m4] [--only NAME ...]

Each mutant is a small real program (float32 or int8, lowered by aot) with one thing broken,
one check of the .pte loader each. For every mutant it prints

    | class | mutant | what | host status | M4 status | Python |

host status   the host interpreter built with ASan and UBSan, the .pte, its arena and its
              state each in a block of exactly the size the interpreter reports: the status of
              rt_pte_arena_size / rt_pte_state_size / rt_pte_load (a program that loads is
              run, and its run status shown), or CRASH with the sanitizer's report below
M4 status     the interpreter firmware of mps2-an386 (Cortex-M4, every kernel) under QEMU,
              the mutant written over its program slot: the status it printed and exited
              with, or FAULT (a HardFault...) / HANG/LOCKUP; "-" without QEMU or with --no-m4
Python        aot.load_program, then aot.generate_c: refused (by which) or accepted

then a summary per class. Every cell is as measured; one that differs from what the loader
contract asks (a refusal at load with the status that names the problem) says so in brackets.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _cell(measured: str, ok: bool, expect: str) -> str:
    return measured if ok else f"{measured} [contract: {expect}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-m4", action="store_true", help="skip the QEMU board")
    ap.add_argument("--only", nargs="*", help="these mutants only")
    args = ap.parse_args(argv)

    import pte_mutants as PM
    mutants = [m for m in PM.MUTANTS if not args.only or m.name in args.only]
    t0 = time.time()
    PM.bases()
    for m in mutants:
        PM.build(m)
    print(f"{len(mutants)} mutants of {len(PM.bases())} base programs "
          f"({', '.join(f'{k} {len(v):,} B' for k, v in PM.bases().items())}), "
          f"made in {time.time() - t0:.0f} s")

    t = time.time()
    host = PM.host_outcomes(mutants)
    print(f"host (ASan + UBSan, exact blocks): {time.time() - t:.0f} s")

    m4 = {}
    if not args.no_m4:
        from aot.boards import check_toolchain, load_board
        from aot.errors import BoardError
        try:
            check_toolchain(load_board(PM.BOARD))
        except BoardError as e:
            print(f"M4: skipped ({e})")
        else:
            t = time.time()
            with tempfile.TemporaryDirectory(prefix="pte-faults-") as tmp:
                rig = PM.M4Rig(Path(tmp), mutants)
                built = time.time() - t
                m4 = {m.name: rig.run(PM.build(m), m.base) for m in mutants}
            print(f"M4 ({PM.BOARD} under QEMU, one ELF): built in {built:.0f} s, "
                  f"{len(m4)} runs in {time.time() - t - built:.0f} s")

    t = time.time()
    py = {m.name: PM.python_outcome(PM.build(m)) for m in mutants}
    print(f"Python (aot.load_program, aot.generate_c): {time.time() - t:.0f} s\n")

    print("| class | mutant | what | host status | M4 status | Python |")
    print("| --- | --- | --- | --- | --- | --- |")
    ok = {"host": {}, "m4": {}, "py": {}}
    for m in mutants:
        h = host[m.name]
        ok["host"][m.name] = not h.crashed and h.status == m.expect
        host_cell = _cell(h.short, ok["host"][m.name], m.expect)
        if m.name in m4:
            o = m4[m.name]
            ok["m4"][m.name] = o.status == m.expect
            m4_cell = _cell(o.short, ok["m4"][m.name], m.expect)
        else:
            m4_cell = "-"
        p = py[m.name]
        # Over the interpreter build's limits, the static C still runs the file: taken.
        ok["py"][m.name] = p.refused != m.build_limit
        py_cell = _cell(p.short, ok["py"][m.name], "accepted" if m.build_limit else "refused")
        print(f"| {m.cls} | {m.name} | {m.what} | {host_cell} | {m4_cell} | {py_cell} |")

    print("\nPer class: mutants; refused with the contract's status on the host, on the M4; "
          "the Python reader as the contract asks (refused, or taken where only the "
          "interpreter build's limits refuse it)")
    print("| class | mutants | host | M4 | Python |")
    print("| --- | --- | --- | --- | --- |")
    classes = [c for c in PM.CLASSES if any(m.cls == c for m in mutants)]
    for c in classes + ["all"]:
        names = [m.name for m in mutants if c in ("all", m.cls)]
        m4_cell = f"{sum(ok['m4'][n] for n in names)}/{len(names)}" if m4 else "-"
        print(f"| {c} | {len(names)} | {sum(ok['host'][n] for n in names)}/{len(names)} | "
              f"{m4_cell} | {sum(ok['py'][n] for n in names)}/{len(names)} |")

    crashed = [m for m in mutants if host[m.name].crashed]
    for m in crashed:
        print(f"\n== {m.name}: the sanitizer's report (last lines) ==")
        print("\n".join(host[m.name].report.strip().splitlines()[-25:]))
    faults = [m for m in mutants if m.name in m4 and m4[m.name].status is None]
    for m in faults:
        print(f"\n== {m.name} on the M4: {m4[m.name].short} ==")
        print("\n".join(m4[m.name].output.strip().splitlines()[-10:]))
    bad = [m for m in mutants if not ok["host"][m.name] or not ok["py"][m.name] or
           (m4 and not ok["m4"][m.name])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
