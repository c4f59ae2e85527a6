"""Overlapping buffers: an op's output may reuse the dead part of an input it reads for the last time.

The reference here is a byte-level simulation, independent of the planner: a streaming op reads
its input and writes its output step by step in one bytearray arena, at the offsets a plan gives.
The op's lag is computed from its steps; whenever ``Overlap.allows`` says the offsets are safe,
the output must equal the output computed from an untouched copy of the input.
"""
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aot.errors import PlanError
from aot.memory import (DEFAULT_PLANNERS, Buffer, MemoryPlan, Overlap, align_up, lower_bound,
                        overlap_bound, overlap_live, plan_all, plan_suite, verify_plan)
from aot.memory.plan import shared_bytes
from test_planner_props import buffer_sets   # the same random lifetimes as the planner's tests

SETTINGS = settings(max_examples=200, deadline=None)
ALIGNMENTS = st.sampled_from([1, 4, 16])


# --- the simulated streaming op ---------------------------------------------------------------

@st.composite
def streaming_ops(draw):
    """Steps ``(in_lo, in_hi, out_lo, out_hi)``: read input ``[in_lo, in_hi)``, then write output
    ``[out_lo, out_hi)``. Reads start no earlier than the step before (a sliding window) and
    writes cover the output once, in order, as a row-by-row kernel does."""
    n = draw(st.integers(1, 8))
    in_size = draw(st.integers(1, 64))
    out_cuts = sorted(draw(st.lists(st.integers(0, 64), min_size=n - 1, max_size=n - 1)))
    out_edges = [0, *out_cuts, max(out_cuts, default=0) + draw(st.integers(1, 16))]
    steps, lo = [], 0
    for s in range(n):
        lo = draw(st.integers(lo, in_size - 1))
        hi = draw(st.integers(lo + 1, in_size))
        steps.append((lo, hi, out_edges[s], out_edges[s + 1]))
    return in_size, out_edges[-1], steps


def lag_of(steps) -> int:
    """The op's promise: once output bytes below ``out_hi`` are written (after step s), no
    later step reads input below ``out_hi - lag``."""
    lag = None
    for s, (_, _, _, out_hi) in enumerate(steps):
        later = [lo for lo, _, _, _ in steps[s + 1:]]
        if later:
            need = out_hi - min(later)
            lag = need if lag is None else max(lag, need)
    return -(1 << 30) if lag is None else lag


def run_op(arena: bytearray, steps, in_off: int, out_off: int) -> None:
    for s, (lo, hi, out_lo, out_hi) in enumerate(steps):
        window = bytes(arena[in_off + lo:in_off + hi])   # the step reads before it writes
        for p in range(out_lo, out_hi):
            arena[out_off + p] = (sum(window) * 31 + p * 7 + s) % 256


@SETTINGS
@given(streaming_ops(), st.integers(-80, 80), st.randoms(use_true_random=False))
def test_an_allowed_overlap_never_corrupts_the_output(op, shift, rnd):
    in_size, out_size, steps = op
    lag = lag_of(steps)
    in_off = 100
    out_off = in_off + shift
    data = bytes(rnd.randrange(256) for _ in range(in_size))
    reference = bytearray(400)
    reference[in_off:in_off + in_size] = data
    run_op(reference, steps, in_off, 250)                 # output far from the input
    expected = bytes(reference[250:250 + out_size])
    arena = bytearray(400)
    arena[in_off:in_off + in_size] = data
    run_op(arena, steps, in_off, out_off)
    shares = out_off < in_off + in_size and in_off < out_off + out_size
    if not shares or Overlap(0, lag).allows(in_off, out_off):
        assert bytes(arena[out_off:out_off + out_size]) == expected


def run_grouped(arena: bytearray, pixels: int, channels: int, group: int, in_off: int,
                out_off: int) -> None:
    """A depthwise-like op in NHWC a group of channels at a time: every pixel's bytes of the
    group read, then the group's outputs written at the same positions."""
    for g in range(0, channels, group):
        cols = range(g, min(g + group, channels))
        taken = [[arena[in_off + p * channels + c] for c in cols] for p in range(pixels)]
        for p in range(pixels):
            mix = sum(taken[max(p - 1, 0)]) + sum(taken[min(p + 1, pixels - 1)])
            for j, c in enumerate(cols):
                arena[out_off + p * channels + c] = (taken[p][j] * 3 + mix + c) % 256


def test_a_grouped_op_is_safe_exactly_in_place_and_not_lower():
    pixels, channels, group = 12, 8, 4
    rnd = random.Random(3)
    data = bytes(rnd.randrange(256) for _ in range(pixels * channels))
    reference = bytearray(600)
    reference[100:100 + len(data)] = data
    run_grouped(reference, pixels, channels, group, 100, 300)
    expected = bytes(reference[300:300 + len(data)])
    in_place = Overlap(0, 0, exact=True)
    results = {}
    for out_off in (100, 96, 98):
        arena = bytearray(600)
        arena[100:100 + len(data)] = data
        run_grouped(arena, pixels, channels, group, 100, out_off)
        results[out_off] = bytes(arena[out_off:out_off + len(data)]) == expected
    assert in_place.allows(100, 100) and not in_place.allows(100, 96)
    assert results[100]                               # in place: right
    # half a group or less below, as a streaming lag of 0 would allow: wrong
    assert not results[96] and not results[98]


def test_lag_of_a_row_by_row_3x3_convolution_is_one_row():
    """Output row r (same width) is written after reading input rows r-1..r+1: the next row
    needs input from row r on, so the output may start one row below the input."""
    rows, width = 6, 10
    steps = [(max(r - 1, 0) * width, min(r + 2, rows) * width, r * width, (r + 1) * width)
             for r in range(rows)]
    assert lag_of(steps) == width


# --- planning with overlaps -------------------------------------------------------------------

def chain(sizes, lags):
    """x0 -> x1 -> ...: each op reads the previous tensor for the last time."""
    out = []
    for i, size in enumerate(sizes):
        over = (Overlap(i - 1, lags[i - 1]),) if i and lags[i - 1] is not None else ()
        out.append(Buffer(i, size, i, i + 1, f"x{i}", over))
    return out


def test_in_place_chain_needs_one_tensor():
    bufs = chain([1024] * 5, [0] * 4)
    assert lower_bound(bufs) == 2048 and overlap_bound(bufs) == 1024
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == 1024 and set(plan.offsets.values()) == {0}
    assert plan.overhead == 0 and "with overlaps" in plan.summary()


def test_an_in_place_chain_stays_put_and_an_exact_lag_is_kept():
    bufs = [Buffer(0, 1000, -1, 0, "x"), Buffer(1, 1000, 0, 1, "y", (Overlap(0, 0, True),)),
            Buffer(2, 1000, 1, 2, "z", (Overlap(1, 0, True),))]
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == align_up(1000, 16) and set(plan.offsets.values()) == {0}
    # an exact lag of 64 B below: the output sits exactly there, or apart
    bufs = [Buffer(0, 512, -1, 0, "x"), Buffer(1, 512, 0, 1, "y", (Overlap(0, 64, True),))]
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == 576 and plan.offset(0) - plan.offset(1) == 64
    wrong = MemoryPlan({0: 48, 1: 0}, 560, lower_bound(bufs), 16, "hand", overlap_bound(bufs))
    with pytest.raises(PlanError, match="works in place only 64 B below it"):
        verify_plan(bufs, wrong)
    # a lag the alignment cannot reach: no sharing
    bufs = [Buffer(0, 512, -1, 0, "x"), Buffer(1, 512, 0, 1, "y", (Overlap(0, 8, True),))]
    assert overlap_bound(bufs) == lower_bound(bufs) == plan_suite(bufs).arena_size == 1024


def test_expanding_op_nests_its_input_in_the_top_of_its_output():
    """A pointwise 8 -> 16 channels, pixel by pixel: the output may start |out| - |in| below."""
    bufs = [Buffer(0, 512, -1, 0, "x"), Buffer(1, 1024, 0, 1, "y", (Overlap(0, 512),))]
    assert overlap_bound(bufs) == 1024
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == 1024
    assert plan.offset(0) - plan.offset(1) == 512


def test_a_chain_with_a_row_lag_slides_down_the_arena():
    """Each output starts a row (128 B) below its input: planned from the top, the chain slides
    down a row per op instead of taking a second tensor's bytes."""
    bufs = chain([1024] * 3, [128] * 2)
    assert overlap_bound(bufs) == 1024 + 128
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == 1024 + 2 * 128 and plan.planner.endswith("_from_top")
    assert [plan.offset(i) for i in range(3)] == [256, 128, 0]


def test_overlap_bound_counts_the_lag():
    a, b = Buffer(0, 1000, 0, 1, "a"), Buffer(1, 1000, 1, 2, "b", (Overlap(0, 100),))
    assert shared_bytes(a, b, b.overlaps[0], 16) == align_up(1000, 16) - 112
    assert overlap_bound([a, b]) == align_up(1000, 16) + 112


def test_verify_rejects_an_output_too_close_above_its_lag():
    bufs = [Buffer(0, 256, 0, 1, "a"), Buffer(1, 256, 1, 2, "b", (Overlap(0, 64),))]
    good = MemoryPlan({0: 64, 1: 0}, 320, lower_bound(bufs), 16, "hand", overlap_bound(bufs))
    verify_plan(bufs, good)
    bad = MemoryPlan({0: 48, 1: 0}, 304, lower_bound(bufs), 16, "hand", overlap_bound(bufs))
    with pytest.raises(PlanError, match="lag of 64 B"):
        verify_plan(bufs, bad)
    above = MemoryPlan({0: 0, 1: 16}, 272, lower_bound(bufs), 16, "hand", overlap_bound(bufs))
    with pytest.raises(PlanError, match="may overwrite input bytes"):
        verify_plan(bufs, above)


def test_verify_rejects_a_stale_overlap_bound():
    bufs = chain([64, 64], [0])
    with pytest.raises(PlanError, match="with overlaps"):
        verify_plan(bufs, MemoryPlan({0: 0, 1: 0}, 64, 128, 16, "stale"))


@pytest.mark.parametrize("bad, why", [
    (Buffer(1, 8, 1, 2, "b", (Overlap(7, 0),)), "unknown buffer #7"),
    (Buffer(1, 8, 1, 2, "b", (Overlap(1, 0),)), "itself"),
    (Buffer(1, 8, 2, 3, "b", (Overlap(0, 0),)), "lives \\[0, 1\\]"),
    (Buffer(1, 8, 1, 2, "b", (Overlap(0, 0), Overlap(0, 4))), "two overlaps"),
])
def test_bad_overlap_declarations_are_refused(bad, why):
    with pytest.raises(PlanError, match=why):
        lower_bound([Buffer(0, 8, 0, 1, "a"), bad])


@st.composite
def overlapping_sets(draw):
    """Random lifetimes where some outputs declare overlaps on inputs alive where they start:
    dying there (an op's output over its input), or living on (a dead prefix)."""
    out = []
    buffers = draw(buffer_sets(max_buffers=16))
    for b in buffers:
        inputs = [a.id for a in buffers if a.first < b.first <= a.last]
        chosen = draw(st.lists(st.sampled_from(inputs), unique=True, max_size=2)) if inputs else []
        out.append(replace(b, overlaps=tuple(
            Overlap(i, draw(st.integers(-512, 2048) | st.sampled_from([0, 16, -64, 256])),
                    draw(st.booleans()))
            for i in chosen)))
    return out


def covered_bytes_per_instruction(buffers, plan):
    """The bytes a plan covers at each instruction (the union of its live buffers' ranges)."""
    for t in range(-1, 30):
        spans = sorted((plan.offsets[b.id], plan.offsets[b.id] + align_up(b.size, plan.alignment))
                       for b in buffers if b.size and b.first <= t <= b.last)
        covered, hi = 0, None
        for lo, end in spans:
            if hi is None or lo > hi:
                covered, hi = covered + end - lo, end
            elif end > hi:
                covered, hi = covered + end - hi, end
        yield covered


@SETTINGS
@given(overlapping_sets(), ALIGNMENTS)
def test_every_planner_is_safe_with_overlaps(buffers, alignment):
    whole, bound = lower_bound(buffers, alignment), overlap_bound(buffers, alignment)
    assert bound <= whole
    if not any(b.overlaps for b in buffers):
        assert bound == whole
    plans = plan_all(buffers, alignment)   # each one verified
    assert len(plans) == len(DEFAULT_PLANNERS)
    for plan in plans:
        assert plan.arena_size >= plan.overlap_bound == bound
        assert plan.lower_bound == whole
    # the smallest arena of them all, or a plan sharing no bytes that is no larger, or one
    # with only the overlaps at the peak that is smaller
    from aot.memory.suite import _at_peak
    plain = plan_all([replace(b, overlaps=()) for b in buffers], alignment)
    peak = _at_peak(buffers, alignment, bound)
    fewer = [p.arena_size for p in plan_all(peak, alignment)] if peak is not None else []
    best = plan_suite(buffers, alignment)
    verify_plan(buffers, best)
    overlapped, unshared = min(p.arena_size for p in plans), min(p.arena_size for p in plain)
    assert best.arena_size == min(overlapped, unshared, *fewer) and best.overlap_bound == bound
    if unshared <= min([overlapped, *fewer]):
        assert best.offsets == min(plain, key=lambda p: p.arena_size).offsets


def test_buffers_take_a_live_inputs_dead_prefix_safely():
    """An input read from ever higher bytes (a patch stage's crops, 16 B further each call)
    lives on while buffers born at each call take the bytes below: simulated byte by byte,
    no read finds a byte overwritten, and the arena is the input's alone."""
    x = Buffer(0, 64, -1, 4, "x")
    bufs = [x] + [Buffer(t, 16, t, 5, f"b{t}", (Overlap(0, 16 - 16 * t),)) for t in range(1, 5)]
    assert overlap_bound(bufs, 16) == 64 < lower_bound(bufs, 16) == 128
    plan = plan_suite(bufs)
    assert plan.arena_size == 64
    arena = bytearray(plan.arena_size)
    at = plan.offsets
    arena[at[0]:at[0] + 64] = bytes(range(64))
    for t in range(5):
        assert arena[at[0] + 16 * t:at[0] + 64] == bytes(range(16 * t, 64))   # call t's read
        if t:
            arena[at[t]:at[t] + 16] = bytes([100 + t]) * 16
    for t in range(1, 5):
        assert arena[at[t]:at[t] + 16] == bytes([100 + t]) * 16
    with pytest.raises(PlanError, match="promises only a lag of -16 B"):
        verify_plan(bufs, replace(plan, offsets={**at, 2: at[0] + 32}))   # b2 a step too high


def test_a_plan_sharing_no_bytes_wins_a_tie():
    """Overlaps that do not lower the arena are not used (they can cost a kernel its
    fastest path)."""
    bufs = [Buffer(0, 64, 0, 1, "a"), Buffer(1, 64, 1, 2, "b", (Overlap(0, 0, True),)),
            Buffer(2, 128, 3, 4, "c")]
    plan = plan_suite(bufs)
    assert plan.arena_size == plan.overlap_bound == 128
    assert plan.offsets[0] != plan.offsets[1]


def test_only_the_overlaps_at_the_peak_are_planned_again():
    """plan_suite's second try keeps the overlaps of buffers alive where the whole tensors
    exceed the bound with overlaps (b over a, 96 + 64 B live at once) and drops the others (d
    over c, 32 + 32 B): they cannot lower the arena below the bound."""
    from aot.memory.suite import _at_peak
    bufs = [Buffer(0, 64, 0, 1, "a"), Buffer(1, 96, 1, 2, "b", (Overlap(0, 32),)),
            Buffer(2, 32, 3, 4, "c"), Buffer(3, 32, 4, 5, "d", (Overlap(2, 0, True),))]
    bound = overlap_bound(bufs, 16)
    assert bound == 96 < lower_bound(bufs, 16)
    kept = _at_peak(bufs, 16, bound)
    assert [b.overlaps for b in kept] == [(), (Overlap(0, 32),), (), ()]
    assert _at_peak(kept, 16, bound) is None                   # nothing more to drop
    plan = plan_suite(bufs, 16)
    verify_plan(bufs, plan)
    assert plan.arena_size == bound


@SETTINGS
@given(overlapping_sets(), st.randoms(use_true_random=False))
def test_overlap_bound_is_below_the_busiest_instruction_of_any_safe_plan(buffers, rnd):
    """Random safe placements (first fit in a random order) never beat the bound."""
    from aot.memory.greedy import first_fit, place_greedy
    from aot.memory.plan import make_plan
    order = list(buffers)
    rnd.shuffle(order)
    plan = make_plan(buffers, 16, place_greedy(order, 16, first_fit), "random")
    verify_plan(buffers, plan)
    assert max(covered_bytes_per_instruction(buffers, plan), default=0) >= plan.overlap_bound
    assert plan.arena_size >= plan.overlap_bound


@SETTINGS
@given(overlapping_sets(), ALIGNMENTS, st.randoms(use_true_random=False))
def test_overlap_live_bounds_every_instruction(buffers, alignment, rnd):
    """overlap_live's bytes at each instruction are at most what any safe plan covers there
    (the patch pass weighs its stages against them), and the largest of them is
    overlap_bound."""
    from aot.memory.greedy import first_fit, place_greedy
    from aot.memory.plan import make_plan
    live = overlap_live(buffers, alignment)
    assert max(live.values(), default=0) == overlap_bound(buffers, alignment)
    order = list(buffers)
    rnd.shuffle(order)
    plan = make_plan(buffers, alignment, place_greedy(order, alignment, first_fit), "random")
    verify_plan(buffers, plan)
    covered = dict(zip(range(-1, 30), covered_bytes_per_instruction(buffers, plan)))
    assert all(0 <= n <= covered[t] for t, n in live.items())


def test_plans_with_overlaps_are_deterministic():
    rnd = random.Random(7)
    bufs = chain([rnd.randrange(1, 4096) for _ in range(12)],
                 [rnd.choice([None, 0, 64, 512]) for _ in range(11)])
    assert plan_suite(bufs) == plan_suite(list(bufs))


def test_svg_hatches_the_shared_bytes_and_draws_both_bounds():
    import xml.etree.ElementTree as ET

    from aot.memory import render_arena_svg
    svg_ns = "{http://www.w3.org/2000/svg}"
    bufs = chain([1024] * 3, [128] * 2)
    root = ET.fromstring(render_arena_svg(bufs, plan_suite(bufs)))
    groups = {g.get("class") for g in root.iter(f"{svg_ns}g")}
    assert {"lower-bound", "overlap-bound", "arena", "shared"} <= groups
    tips = [g.find(f"{svg_ns}title").text for g in root.iter(f"{svg_ns}g")
            if g.get("class") == "shared"]
    assert tips == ["#1 'x1' overwrites #0 'x0' as it goes: 896 B at [256, 1152) shared at "
                    "instruction 1 (lag 128 B)",
                    "#2 'x2' overwrites #1 'x1' as it goes: 896 B at [128, 1024) shared at "
                    "instruction 2 (lag 128 B)"]


# --- the op table's declarations, in the pipeline ---------------------------------------------

def _conv_chain_plan(monkeypatch, overlap: bool):
    """conv -> conv -> conv (of two groups, which no float32 in-place entry takes), the
    convolution's op entry made to declare a lag of an output's bytes over its height (no
    float kernel honours it: the plan is only inspected here)."""
    import dataclasses

    import torch

    import aot
    from aot.config import ExecutorchBackendConfig, MemoryPlanningPass
    from aot.ops import OPS
    from aot.passes.plan_memory import lifetimes

    conv = torch.ops.aten.convolution.default
    row = lambda args, outs: ("input", outs[0].nbytes // outs[0].shape[2], False)
    monkeypatch.setitem(OPS, conv, dataclasses.replace(OPS[conv], overlap=row))
    model = torch.nn.Sequential(*(torch.nn.Conv2d(4, 4, 3, padding=1, groups=2)
                                  for _ in range(3))).eval()
    config = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(overlap=overlap))
    method = aot.to_edge(torch.export.export(model, (torch.randn(1, 4, 8, 8),))) \
        .to_executorch(config).lowered()
    return method, lifetimes(method.graph, config.memory_planning_pass)


def test_declared_overlaps_reach_the_planner_only_when_asked(monkeypatch):
    method, buffers = _conv_chain_plan(monkeypatch, overlap=True)
    # every convolution may overwrite its input as it goes (the first, the graph input's
    # arena copy, which nothing reads after it), at the declared 1,024 / 8 = 128 B
    assert [[(o.input, o.lag) for o in b.overlaps] for b in buffers] == \
        [[], [(buffers[0].id, 128)], [(buffers[1].id, 128)], [(buffers[2].id, 128)]]
    plan = method.plan
    # the chain slides down a row an op: 1,024 + 3 x 128 B, where two whole tensors took 2,048
    assert (plan.lower_bound, plan.overlap_bound, plan.arena_size) == (2048, 1152, 1408)
    verify_plan(buffers, plan)
    _, plain = _conv_chain_plan(monkeypatch, overlap=False)
    assert not any(b.overlaps for b in plain)
