"""Memory planner examples with hand-derived answers, verify_plan's rejections, and the SVG map."""
import pickle
import xml.etree.ElementTree as ET
from dataclasses import FrozenInstanceError

import pytest

from aot.errors import PlanError
from aot.memory import (DEFAULT_PLANNERS, Buffer, MemoryPlan, lower_bound, plan_all,
                        plan_greedy_by_size, plan_naive, plan_suite, plan_two_ended,
                        render_arena_svg, templates_dir, verify_plan)

SVG = "{http://www.w3.org/2000/svg}"


def graph(ops, inputs):
    """Buffers for a toy graph run in list order, as the lowering will build them.

    ``ops`` are ``(name, input names, output bytes, scratch bytes)``; ``inputs`` maps graph
    inputs to bytes (first=-1). The last op's output is the graph output (last=len(ops)).
    A scratch buffer lives only during its op.
    """
    size = dict(inputs)
    first = {n: -1 for n in inputs}
    last = dict(first)
    scratch = []
    for i, (name, reads, out, scratch_bytes) in enumerate(ops):
        for r in reads:
            last[r] = max(last[r], i)
        size[name], first[name], last[name] = out, i, i
        if scratch_bytes:
            scratch.append((f"{name}.scratch", scratch_bytes, i))
    last[ops[-1][0]] = len(ops)
    buffers = [Buffer(k, size[n], first[n], last[n], n) for k, n in enumerate(size)]
    return buffers + [Buffer(len(buffers) + k, s, i, i, n) for k, (n, s, i) in enumerate(scratch)]


def resnet8():
    """MLPerf Tiny ResNet-8 (int8, 32x32x3 input), no kernel scratch.

    Residual stacks of 16@32x32, 32@16x16 and 64@8x8; the last two downsample with a 1x1
    shortcut conv that reads the stack input after the main branch.
    """
    ops = [("conv0", ["in"], 32 * 32 * 16, 0),
           ("s1c1", ["conv0"], 32 * 32 * 16, 0), ("s1c2", ["s1c1"], 32 * 32 * 16, 0),
           ("s1add", ["conv0", "s1c2"], 32 * 32 * 16, 0)]
    prev = "s1add"
    for stack, (hw, c) in enumerate([(16, 32), (8, 64)], start=2):
        p, nbytes = f"s{stack}", hw * hw * c
        ops += [(f"{p}c1", [prev], nbytes, 0), (f"{p}c2", [f"{p}c1"], nbytes, 0),
                (f"{p}sc", [prev], nbytes, 0), (f"{p}add", [f"{p}c2", f"{p}sc"], nbytes, 0)]
        prev = f"{p}add"
    ops += [("pool", [prev], 64, 0), ("fc", ["pool"], 10, 0), ("softmax", ["fc"], 10, 0)]
    return graph(ops, {"in": 32 * 32 * 3})


def mobilenet_v1_025():
    """MobileNet v1 0.25 at 96x96x3 (the Visual Wake Words model): a chain, no scratch."""
    hw, c = 48, 8
    ops, prev = [("conv0", ["in"], hw * hw * c, 0)], "conv0"
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2)] + [(128, 1)] * 5
    for i, (c_out, stride) in enumerate(blocks + [(256, 2), (256, 1)]):
        hw //= stride
        ops += [(f"dw{i}", [prev], hw * hw * c, 0), (f"pw{i}", [f"dw{i}"], hw * hw * c_out, 0)]
        prev, c = f"pw{i}", c_out
    ops += [("pool", [prev], c, 0), ("fc", ["pool"], 2, 0)]
    return graph(ops, {"in": 96 * 96 * 3})


def residual_block():
    """x -> a = conv(x) -> b = conv(a) -> y = add(x, b)."""
    return [Buffer(0, 64, -1, 2, "x"), Buffer(1, 32, 0, 1, "a"),
            Buffer(2, 32, 1, 2, "b"), Buffer(3, 64, 2, 3, "y")]


def hand_plan(offsets, buffers, arena, alignment=16):
    return MemoryPlan(offsets=offsets, arena_size=arena, alignment=alignment, planner="hand",
                      lower_bound=lower_bound(buffers, alignment))


# ---- known answers ---------------------------------------------------------------------------

def test_residual_block_exact():
    bufs = residual_block()
    # At the add, x, b and y are alive: 64 + 32 + 64.
    assert lower_bound(bufs) == 160
    plan = plan_greedy_by_size(bufs, 16)
    verify_plan(bufs, plan)
    # Size order x, y, a, b (ties by first use): x at 0; y meets x -> 64; a meets only x -> 64;
    # b meets x [0,64), a [64,96), y [64,128) -> 128.
    assert dict(plan.offsets) == {0: 0, 1: 64, 2: 128, 3: 64}
    assert (plan.arena_size, plan.lower_bound, plan.planner) == (160, 160, "greedy_by_size")
    assert plan_naive(bufs, 16).arena_size == 192
    # Every planner but naive reaches the bound, so the suite keeps the first one listed.
    assert plan_suite(bufs).planner == "greedy_by_size"


def test_chain_where_tflm_greedy_misses_and_two_ended_does_not():
    # Chain sizes 32, 16, 16, 32: lower bound max(32+16, 16+16, 16+32) = 48.
    bufs = [Buffer(i, s, i, i + 1, f"x{i}") for i, s in enumerate([32, 16, 16, 32])]
    assert lower_bound(bufs) == 48
    # Greedy by size: x0, x3 at 0 (never alive together); x1 above x0 at 32; x2 meets x1
    # [32,48) and x3 [0,32) -> 48. Arena 64.
    greedy = plan_greedy_by_size(bufs, 16)
    assert dict(greedy.offsets) == {0: 0, 1: 32, 2: 48, 3: 0} and greedy.arena_size == 64
    # Two-ended: x0 low at 0, x1 high, x2 low at 0, x3 high; arena max(48, 32, 48) = 48.
    two = plan_two_ended(bufs, 16)
    assert dict(two.offsets) == {0: 0, 1: 32, 2: 0, 3: 16} and two.arena_size == 48
    for plan in (greedy, two):
        verify_plan(bufs, plan)
    assert plan_suite(bufs).arena_size == 48


def test_alignment_rounds_sizes_and_offsets():
    bufs = [Buffer(0, 1, 0, 1, "a"), Buffer(1, 17, 0, 1, "b"), Buffer(2, 0, 0, 1, "empty")]
    assert lower_bound(bufs, 16) == 16 + 32
    assert lower_bound(bufs, 1) == 18
    for alignment in (1, 4, 16, 64):
        for plan in plan_all(bufs, alignment):
            assert all(off % alignment == 0 for off in plan.offsets.values())
            assert plan.arena_size % alignment == 0
    assert plan_suite(bufs, 64).arena_size == 128


def test_empty_and_zero_size_inputs():
    assert plan_suite([]).arena_size == 0
    assert lower_bound([]) == 0
    bufs = [Buffer(0, 0, 0, 5), Buffer(1, 0, 0, 5)]
    for plan in plan_all(bufs):
        assert plan.arena_size == 0 and dict(plan.offsets) == {0: 0, 1: 0}


def test_resnet8_reaches_lower_bound():
    bufs = resnet8()
    # Worst instruction is stack 1's add: its two inputs and its output, 3 x 16 KiB.
    assert lower_bound(bufs) == 3 * 16384
    plan = plan_suite(bufs)
    verify_plan(bufs, plan)
    assert plan.arena_size == 49152
    assert plan_naive(bufs).arena_size == 3072 + 4 * 16384 + 4 * 8192 + 4 * 4096 + 64 + 2 * 16


def test_mobilenet_suite_beats_tflm_greedy():
    bufs = mobilenet_v1_025()
    # Widest step: dw0 (48x48x8) read while pw0 (48x48x16) is written.
    assert lower_bound(bufs) == 18432 + 36864
    assert plan_greedy_by_size(bufs).arena_size > 55296  # TFLM's order leaves holes here
    assert plan_two_ended(bufs).arena_size == 55296
    assert plan_suite(bufs).arena_size == 55296


def test_deterministic_and_order_independent():
    bufs = resnet8()
    assert plan_all(bufs) == plan_all(bufs)
    shuffled = bufs[::-1]
    for a, b in zip(plan_all(bufs), plan_all(shuffled)):
        if a.planner != "naive":  # bump allocation follows the order it is given
            assert a == b


def test_plan_is_frozen_hashable_and_picklable():
    plan = plan_suite(residual_block())
    with pytest.raises(FrozenInstanceError):
        plan.arena_size = 0
    with pytest.raises(TypeError):
        plan.offsets[0] = 16
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert hash(plan) == hash(pickle.loads(pickle.dumps(plan)))
    assert plan.offsets == {0: 0, 1: 64, 2: 128, 3: 64}  # compares with a plain dict
    assert plan.offset(2) == 128 and plan.overhead == 0 and plan.efficiency == 1.0
    with pytest.raises(PlanError, match="no offset for buffer #9"):
        plan.offset(9)


def test_suite_ties_go_to_the_first_planner_and_it_needs_planners():
    bufs = residual_block()
    assert plan_suite(bufs, planners=(plan_naive, plan_greedy_by_size)).planner == "greedy_by_size"
    chain = [Buffer(i, 64, i, i + 1) for i in range(3)]  # both reach 128
    assert plan_suite(chain, planners=(plan_two_ended, plan_greedy_by_size)).planner == "two_ended"
    assert plan_suite(chain, planners=(plan_greedy_by_size, plan_two_ended)).planner == (
        "greedy_by_size")
    with pytest.raises(PlanError):
        plan_suite(bufs, planners=())


def test_suite_rejects_a_broken_planner():
    def plan_broken(buffers, alignment):
        return hand_plan({b.id: 0 for b in buffers}, buffers, 64, alignment)

    with pytest.raises(PlanError, match="'hand'.*#0 'x'.*#1 'a'"):
        plan_suite(residual_block(), planners=(plan_broken,) + DEFAULT_PLANNERS)


# ---- verify_plan rejections ----------------------------------------------------------------

def test_verify_rejects_overlap_naming_both_buffers():
    bufs = [Buffer(3, 40, 0, 4, "conv1_out"), Buffer(7, 32, 4, 6, "relu_out")]
    plan = hand_plan({3: 0, 7: 32}, bufs, 64)
    with pytest.raises(PlanError) as err:
        verify_plan(bufs, plan)
    msg = str(err.value)
    assert "#3 'conv1_out' (lifetime [0, 4], bytes [0, 40))" in msg
    assert "#7 'relu_out' (lifetime [4, 6], bytes [32, 64))" in msg
    assert "instruction 4" in msg and "[32, 40)" in msg


def test_verify_accepts_same_bytes_at_different_times():
    bufs = [Buffer(0, 64, 0, 3, "a"), Buffer(1, 64, 4, 6, "b"), Buffer(2, 0, 0, 6, "empty")]
    verify_plan(bufs, hand_plan({0: 0, 1: 0, 2: 0}, bufs, 64))


def test_verify_rejects_misalignment():
    bufs = [Buffer(0, 16, 0, 1, "a"), Buffer(1, 16, 0, 1, "b")]
    with pytest.raises(PlanError, match=r"#1 'b'.*alignment 16"):
        verify_plan(bufs, hand_plan({0: 0, 1: 24}, bufs, 48))
    with pytest.raises(PlanError, match="non-negative"):
        verify_plan(bufs, hand_plan({0: 0, 1: -16}, bufs, 48))


@pytest.mark.parametrize("offsets, arena, match", [
    ({0: 0, 1: 16}, 24, r"#1 'b'.*ends past the arena of 24 bytes"),
    ({0: 0}, 64, r"no offset for buffer #1 'b'"),
    ({0: 0, 1: 16, 5: 32}, 64, r"unknown buffer ids \[5\]"),
])
def test_verify_rejects_bad_plans(offsets, arena, match):
    bufs = [Buffer(0, 16, 0, 1, "a"), Buffer(1, 16, 0, 1, "b")]
    with pytest.raises(PlanError, match=match):
        verify_plan(bufs, hand_plan(offsets, bufs, arena))


def test_verify_rejects_a_stale_lower_bound():
    bufs = residual_block()
    plan = plan_suite(bufs)
    with pytest.raises(PlanError, match="lower bound"):
        verify_plan(bufs[:3], MemoryPlan({0: 0, 1: 64, 2: 128}, 160, 160, 16, "stale"))
    verify_plan(bufs, plan)


@pytest.mark.parametrize("bufs, alignment, match", [
    ([Buffer(0, 8, 0, 1), Buffer(0, 8, 2, 3)], 16, "duplicate buffer id 0"),
    ([Buffer(0, -8, 0, 1, "neg")], 16, "#0 'neg' has negative size"),
    ([Buffer(0, 8, 3, 1)], 16, r"lifetime \[3, 1\]"),
    ([Buffer(0, 8, 0, 1)], 0, "alignment"),
])
def test_planners_reject_bad_buffers(bufs, alignment, match):
    for planner in DEFAULT_PLANNERS:
        with pytest.raises(PlanError, match=match):
            planner(bufs, alignment)


# ---- the SVG arena map -----------------------------------------------------------------------

def test_templates_dir_finds_the_arena_template():
    assert (templates_dir() / "arena_map.svg.j2").is_file()


def test_svg_is_wellformed_with_one_rect_per_nonempty_buffer():
    bufs = resnet8() + [Buffer(100, 0, 2, 3, "empty")]
    plan = plan_suite(bufs)
    root = ET.fromstring(render_arena_svg(bufs, plan))
    assert root.tag == f"{SVG}svg"
    rects = root.findall(f".//{SVG}rect")
    assert len(rects) == len([b for b in bufs if b.size])
    tips = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g")
            if g.get("class") == "buffer"]
    assert any(t.startswith("#2 's1c1': 16384 B") and "instructions 1..2" in t for t in tips)
    lines = {g.get("class") for g in root.iter(f"{SVG}g")}
    assert {"lower-bound", "arena"} <= lines


def test_svg_escapes_names_and_uses_labels():
    bufs = [Buffer(0, 4096, 0, 9, "a<b>&\"c\""), Buffer(1, 4096, 0, 9, "plain")]
    svg = render_arena_svg(bufs, plan_suite(bufs), labels={1: "LABEL-1"})
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "LABEL-1" in texts and 'a<b>&"c"' in texts


def test_svg_of_an_empty_plan():
    root = ET.fromstring(render_arena_svg([], plan_suite([])))
    assert root.findall(f".//{SVG}rect") == []
