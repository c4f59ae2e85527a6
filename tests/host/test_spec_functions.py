"""Each function a call spec names (``Fn``) has one meaning in C and in Python.

The static C generator evaluates a spec's ``Fn`` through its Python twin; the interpreter's
generated adapter calls the C function of runtime_c's headers. Both decide the same call, so they
must agree on every argument: here on edge cases and on seeded random ones, through a small cffi
module that calls the header's inline functions.
"""
from __future__ import annotations

import importlib.util
import random

import cffi
import pytest

from conftest import require_tool
from kernel_harness import REPO

from aot import opspec as S
from aot.ops import all_ops
from aot.ops_data import (index_bcast_pos, index_dtypes_ok, ints_min, ints_sum, mode_pads_to,
                          pad_before)
from aot.ops_int8 import last_is, pads_to
from aot.quantization.arith import requant_max

MAX_DIMS = 6        # RT_MAX_DIMS (rt_types.h)

_CDEF = """
int32_t pads_to(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                const int32_t *before, const int32_t *after, int32_t n);
int32_t last_is(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                int64_t size);
uint64_t requant_max(uint64_t in_max, int32_t mult, int32_t shift);
int32_t mode_pads_to(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                     const int32_t *pad, int32_t k, int32_t reflect);
int64_t ints_sum(const int32_t *v, int32_t n);
int32_t ints_min(const int32_t *v, int32_t n);
void pad_before(const int32_t *pad, int32_t n, int32_t rank, int32_t *before);
int32_t index_dtypes_ok(const int32_t *dtypes, int32_t n);
int32_t index_bcast_pos(const int32_t *dtypes, int32_t n);
"""

_SOURCE = """
#include <string.h>
#include "rt_pte_args.h"
#include "rt_pte_checks.h"

static rt_shape shape_of(int32_t rank, const int32_t *d)
{
    rt_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    memcpy(s.d, d, sizeof(int32_t) * (size_t)rank);
    return s;
}

int32_t pads_to(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                const int32_t *before, const int32_t *after, int32_t n)
{
    const rt_shape a = shape_of(in_rank, in), b = shape_of(out_rank, out);
    return rt_pte_pads_to(&a, &b, before, after, n);
}

int32_t last_is(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                int64_t size)
{
    const rt_shape a = shape_of(in_rank, in), b = shape_of(out_rank, out);
    return rt_pte_last_is(&a, &b, size);
}

uint64_t requant_max(uint64_t in_max, int32_t mult, int32_t shift)
{
    return rt_pte_requant_max(in_max, mult, shift);
}

int32_t mode_pads_to(int32_t in_rank, const int32_t *in, int32_t out_rank, const int32_t *out,
                     const int32_t *pad, int32_t k, int32_t reflect)
{
    const rt_shape a = shape_of(in_rank, in), b = shape_of(out_rank, out);
    return rt_pte_mode_pads_to(&a, &b, pad, k, reflect);
}

int64_t ints_sum(const int32_t *v, int32_t n) { return rt_pte_ints_sum(v, n); }
int32_t ints_min(const int32_t *v, int32_t n) { return rt_pte_ints_min(v, n); }
void pad_before(const int32_t *pad, int32_t n, int32_t rank, int32_t *before)
{
    rt_pte_pad_before(pad, n, rank, before);
}
int32_t index_dtypes_ok(const int32_t *d, int32_t n) { return rt_pte_index_dtypes_ok(d, n); }
int32_t index_bcast_pos(const int32_t *d, int32_t n) { return rt_pte_index_bcast_pos(d, n); }
"""

# The Fns the specs name -> their cases below (arange's count is a runtime function:
# tests/host/test_kernels.py holds its twins equal).
COVERED = {"rt_pte_pads_to", "rt_pte_last_is", "rt_pte_requant_max", "rt_pte_mode_pads_to",
           "rt_arange_numel", "rt_pte_ints_sum", "rt_pte_ints_min", "rt_pte_pad_before",
           "rt_pte_index_dtypes_ok", "rt_pte_index_bcast_pos"}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    require_tool("gcc")
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    ffi.set_source("_spec_functions", _SOURCE,
                   include_dirs=[str(REPO / "runtime_c" / "include")],
                   extra_compile_args=["-std=c99", "-Wall", "-Wextra", "-Werror"])
    path = ffi.compile(tmpdir=str(tmp_path_factory.mktemp("spec_functions")))
    spec = importlib.util.spec_from_file_location("_spec_functions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fns() -> set[str]:
    """The C names of every Fn some call spec evaluates."""
    found: set[str] = set()

    def walk(x):
        if isinstance(x, S.Fn):
            found.add(x.c)
        if isinstance(x, (tuple, list)):
            for y in x:
                walk(y)
        elif isinstance(x, (S.Expr, S.Call, S.If, S.Read, S.Pre, S.CallSpec)):
            for f in x.__dataclass_fields__:
                walk(getattr(x, f))
    for op in all_ops():
        if op.spec is not None:
            walk(op.spec)
    return found


def test_every_spec_function_has_its_twins_tested():
    assert _fns() <= COVERED, f"a spec names {sorted(_fns() - COVERED)}: test its C and Python"


def _shapes(rng: random.Random, rank: int) -> list[int]:
    return [rng.choice([0, 1, 2, 3, 7]) for _ in range(rank)]


def test_pads_to(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(36)
    for _ in range(4000):
        rank = rng.randint(0, 5)
        shape = _shapes(rng, rank)
        before = [rng.choice([0, 0, 1, 2]) for _ in range(4)]
        after = [rng.choice([0, 0, 1, 3]) for _ in range(4)]
        off = max(4 - rank, 0)
        out = [s + b + a for s, b, a in zip(shape, before[off:], after[off:])]
        if rng.random() < 0.5 and out:                   # perturb one dim, or the rank
            out[rng.randrange(len(out))] += rng.choice([-1, 1])
        elif rng.random() < 0.2:
            out = out + [1] if len(out) < MAX_DIMS else out[:-1]
        want = pads_to(tuple(shape), tuple(out), before, after, 4)
        got = c.pads_to(rank, ffi.new("int32_t[]", shape or [0]), len(out),
                        ffi.new("int32_t[]", out or [0]), ffi.new("int32_t[]", before),
                        ffi.new("int32_t[]", after), 4)
        assert got == int(want), (shape, out, before, after)


def test_last_is(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(37)
    for _ in range(4000):
        rank = rng.randint(0, MAX_DIMS)
        shape = _shapes(rng, rank)
        size = rng.choice([0, 1, 5])
        out = shape[:-1] + [size] if shape else []
        if rng.random() < 0.5 and out:
            out[rng.randrange(len(out))] += 1
        elif rng.random() < 0.2:
            out = out + [size] if len(out) < MAX_DIMS else out[:-1]
        want = last_is(tuple(shape), tuple(out), size)
        got = c.last_is(rank, ffi.new("int32_t[]", shape or [0]), len(out),
                        ffi.new("int32_t[]", out or [0]), size)
        assert got == int(want), (shape, out, size)


def test_requant_max(lib):
    rng = random.Random(38)
    in_maxes = [0, 1, 255 * 255, 255 << 20, (1 << 31) - 1, 1 << 31, (1 << 40)]
    mults = [0, 1, 1 << 30, (1 << 31) - 1, -(1 << 31) + 1, -1]
    for in_max in in_maxes:
        for mult in mults:
            for shift in range(-31, 32):
                assert lib.lib.requant_max(in_max, mult, shift) == \
                    requant_max(in_max, mult, shift), (in_max, mult, shift)
    for _ in range(20000):
        in_max, mult = rng.randrange(1 << 33), rng.randrange(-(1 << 31) + 1, 1 << 31)
        shift = rng.randint(-31, 31)
        assert lib.lib.requant_max(in_max, mult, shift) == requant_max(in_max, mult, shift)


def test_mode_pads_to(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(39)
    for _ in range(6000):
        k, reflect = rng.randint(1, 3), rng.randint(0, 1)
        rank = rng.choice([k, k + 1, k + 2, k + 2, k + 3])
        shape = _shapes(rng, min(rank, MAX_DIMS))
        pad = [rng.choice([-3, -1, 0, 0, 1, 2, 7]) for _ in range(2 * k)]
        out = list(shape)
        for i in range(min(k, len(shape))):
            out[len(shape) - 1 - i] += pad[2 * i] + pad[2 * i + 1]
        if rng.random() < 0.3 and out:
            out[rng.randrange(len(out))] += rng.choice([-1, 1])
        want = mode_pads_to(tuple(shape), tuple(out), pad, k, reflect)
        got = c.mode_pads_to(len(shape), ffi.new("int32_t[]", shape or [0]), len(out),
                             ffi.new("int32_t[]", out or [0]), ffi.new("int32_t[]", pad), k,
                             reflect)
        assert got == int(want), (shape, out, pad, k, reflect)


def test_int_list_sum_and_least(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(40)
    edge = [(1 << 31) - 1, -(1 << 31), 0, 1, -1]
    for _ in range(3000):
        n = rng.randint(0, 40)
        v = [rng.choice(edge + [rng.randint(-1000, 1000)]) for _ in range(n)]
        arr = ffi.new("int32_t[]", v or [0])
        assert c.ints_sum(arr, n) == ints_sum(v, n), v
        assert c.ints_min(arr, n) == ints_min(v, n), v


def test_pad_before(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(41)
    for _ in range(3000):
        rank = rng.randint(0, MAX_DIMS)
        n = 2 * rng.randint(0, rank)             # the spec checks n even and n / 2 <= rank
        pad = [rng.randint(-3, 5) for _ in range(n)]
        before = ffi.new("int32_t[]", [-99] * MAX_DIMS)
        c.pad_before(ffi.new("int32_t[]", pad or [0]), n, rank, before)
        assert list(before)[:rank] == pad_before(pad, n, rank), (pad, rank)


_INDEX_CODES = [-1, -1, 4, 3, 6, 1]     # None, int64, int32, and two dtypes the kernel refuses


def test_index_list_rules(lib):
    ffi, c = lib.ffi, lib.lib
    rng = random.Random(42)
    for _ in range(3000):
        n = rng.randint(0, MAX_DIMS)
        codes = [rng.choice(_INDEX_CODES[:4] if rng.random() < 0.8 else _INDEX_CODES)
                 for _ in range(n)]
        arr = ffi.new("int32_t[]", codes or [0])
        assert c.index_dtypes_ok(arr, n) == int(index_dtypes_ok(codes, n)), codes
        assert c.index_bcast_pos(arr, n) == index_bcast_pos(codes, n), codes
