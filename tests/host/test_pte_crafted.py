"""Crafted corrupt programs (tests/pte_mutants.py, issue 35) under the host interpreter built
with AddressSanitizer and UBSan, and through the Python reader.

Each mutant is one check of the loader. The interpreter gets the .pte, the arena and its state
in blocks of exactly the sizes it reports (rt_pte_arena_size, rt_pte_state_size), so a byte
read or written past any of them is a sanitizer report; it must refuse the mutant with the
status the contract names. aot.load_program or aot.generate_c must refuse it with an AotError.
Mutants that the C (c_open) or the Python (py_open) does not refuse yet are xfail(strict):
once fixed they fail until the mark goes.
"""
from __future__ import annotations

import pytest
from conftest import require_tool

import aot.interpreter as I
from pte_mutants import (CLASSES, MUTANTS, base_program, bases, build, host_outcomes,
                         mutant_program, python_outcome)


def _params(open_reason):
    return [pytest.param(m, id=m.name, marks=[pytest.mark.xfail(strict=True,
                                                                reason=open_reason(m))]
                         if open_reason(m) else []) for m in MUTANTS]


@pytest.fixture(scope="module")
def host():
    """name -> HostOutcome: every mutant and base program, in one sanitized child (a new one
    after each crash)."""
    require_tool("gcc")
    return host_outcomes()


def test_the_library():
    """At least 24 mutants, each a distinct check, every class of the issue covered; no
    mutant expects RT_OK; the programs stay small enough for a board's flash slot."""
    assert len(MUTANTS) >= 24
    assert {m.cls for m in MUTANTS} == set(CLASSES)
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert len({(m.base, m.what) for m in MUTANTS}) == len(MUTANTS)
    assert all(m.expect.startswith("RT_ERR_") for m in MUTANTS)
    assert all(len(b) <= 16 * 1024 for b in bases().values())
    assert all(len(build(m)) <= 64 * 1024 for m in MUTANTS)
    assert all(build(m) != bases()[m.base] for m in MUTANTS)


def test_the_bases_load_and_run_under_the_sanitizers(host):
    """The rig is sound: each base program loads into exactly its reported state and runs."""
    for name in bases():
        o = host[f"base:{name}"]
        assert not o.crashed, o.report
        assert (o.status, o.run_status) == ("RT_OK", "RT_OK"), (name, o)


@pytest.mark.parametrize("m", _params(lambda m: m.c_open))
def test_interpreter_refuses(host, m):
    o = host[m.name]
    assert not o.crashed, f"{m.name} ({m.what}): a sanitizer report\n{o.report}"
    assert o.status == m.expect, (
        f"{m.name} ({m.what}): {o.short} at {o.stage}, the contract asks {m.expect}")


def test_a_list_that_does_not_fit_is_not_written_into_the_state(host):
    """The write-before-check case: the cached list whose last item is no int32 is left out
    of the state size, and load (given exactly that size) wrote nothing past it (ASan)."""
    m = next(m for m in MUTANTS if m.cls == "writes before checks")
    base_lists, base_items = I.cached_lists(base_program(m.base))
    lists, items = I.cached_lists(mutant_program(m))
    assert (base_lists - lists, base_items - items) == (1, 16)
    got, base = host[m.name], host[f"base:{m.base}"]
    assert not got.crashed, got.report
    assert got.stage == "load" and got.state_size > 0
    assert base.state_size - got.state_size == 12 * (base_lists - lists) + 4 * (base_items - items)


@pytest.mark.parametrize("m", [p for p in _params(lambda m: m.py_open)
                               if not p.values[0].build_limit])
def test_python_refuses(m):
    o = python_outcome(build(m))
    assert o.refused, f"{m.name} ({m.what}): {o.short} {o.message}"


@pytest.mark.parametrize("m", [m for m in MUTANTS if m.build_limit], ids=lambda m: m.name)
def test_python_takes_what_only_the_interpreter_build_limits(m):
    """Over the fixed-size state's limits (rt_pte.h RT_PTE_MAX_*) the file is still valid: the
    interpreter refuses it (RT_ERR_PTE_LIMIT), the static C, which has no such state, runs it,
    so aot.load_program and generate_c take it."""
    o = python_outcome(build(m))
    assert not o.refused, f"{m.name} ({m.what}): {o.short} {o.message}"
