"""Corrupted programs on the Cortex-M4 (mps2-an386 under QEMU): a status, never a fault.

One interpreter firmware with every kernel is built once; each crafted mutant of
tests/pte_mutants.py (one check of the loader each) is written over its program slot by QEMU's
loader, the same ELF every time. The firmware must print the status the contract names and
exit with it: never a HardFault (an unaligned float store, a read past the flash), a lockup or
a timeout. The firmware gives each program a state of exactly the size it reports, the bytes
past it a guard it checks (codegen_templates/firmware_pte_main.c.j2).
"""
from __future__ import annotations

import hashlib

import pytest
from conftest import require_board

from pte_mutants import BOARD, MUTANTS, M4Rig, bases, build, status_code


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    require_board(BOARD)
    return M4Rig(tmp_path_factory.mktemp("pte_faults"))


def test_the_bases_run_on_the_board(rig):
    """The rig is sound: each base program, swapped in, loads into a state of its own size
    and runs (RT_OK)."""
    for name, pte in bases().items():
        o = rig.run(pte, name)
        assert o.fault is None and o.exit_code == 0, (name, o.output)


@pytest.mark.parametrize("m", [pytest.param(m, id=m.name, marks=[pytest.mark.xfail(
    strict=True, reason=m.c_open)] if m.c_open else []) for m in MUTANTS])
def test_mutant_returns_a_status(rig, m):
    o = rig.run(build(m), m.base)
    assert o.exit_code is not None, f"{m.name}: hang or lockup\n{o.output}"
    assert o.fault is None, f"{m.name} ({m.what}): {o.fault}\n{o.output}"
    assert o.exit_code == status_code(m.expect) and o.status == m.expect, (
        f"{m.name} ({m.what}): {o.short}, the contract asks {m.expect}\n{o.output}")


def test_one_elf_for_all(rig):
    """The mutants ran on the ELF built once (never relinked), at least 20 of them."""
    assert len(MUTANTS) >= 20
    digest = hashlib.sha256(rig.elf.read_bytes()).hexdigest()
    assert digest == rig.digest


def test_a_program_that_needs_more_state_than_the_build_reserved(rig):
    """The firmware reserved the state of its programs' long int lists (the mlp's two); a
    program swapped in with a third is refused for it (RT_ERR_PTE_LIMIT), not loaded into a
    state too small."""
    import dataclasses
    from aot.program import IntList
    from aot.pte import serialize_pte
    from pte_mutants import base_program
    program = base_program("mlp")
    plan = program.execution_plan[0]
    long_list = next(v for v in plan.values if isinstance(v, IntList) and len(v.items) >= 16)
    plan = dataclasses.replace(plan, values=plan.values + (IntList(long_list.items),))
    pte = bytes(serialize_pte(dataclasses.replace(program, execution_plan=(plan,))))
    o = rig.run(pte, "mlp")
    assert o.fault is None and o.exit_code == status_code("RT_ERR_PTE_LIMIT"), o.output
    assert o.status == "RT_ERR_PTE_LIMIT"
