"""float32 plans whose outputs overlap their inputs (MemoryPlanningPass(overlap=True)): the
pointwise and "same" kxk convolutions, and depthwise ones of small planes, become
mcu_aot::convolution_in_place, which runs them exactly over their input
(runtime_c/src/conv/conv_in_place.c, aot/overlap.py's conv_f32); depthwise layers of large
planes start a plane below their input (aot/overlap.py's depthwise_f32).

The overlapped program's static C and its .pte under the interpreter give the plain plan's
bytes, below its arena; tests/qemu/test_firmware.py runs the same on every kernel build.
"""
from __future__ import annotations

from functools import lru_cache

import pytest
import torch

import aot
import aot.host
from aot.config import backend_config
from aot.passes.plan_memory import holds_bands
from aot.zoo import ZOO
from op_models import OVERLAP_F32

NETS = {**{name: (lambda m=m: m) for name, m in OVERLAP_F32.items()}, "kws": ZOO["kws"]}


@lru_cache(maxsize=None)
def program(name: str, overlap: bool):
    model, example = NETS[name]()
    return aot.to_edge(torch.export.export(model, example)).to_executorch(
        backend_config(overlap))


@lru_cache(maxsize=None)
def plain_outputs(name: str) -> tuple:
    _, example = NETS[name]()
    run = aot.host.build(aot.generate_c(program(name, False), name=f"p_{name}"))
    return tuple(run(*[x.numpy() for x in example]))


def _in_place_calls(method) -> list[str]:
    return [method.graph.calls[i].op.key for i, call in enumerate(method.graph.calls)
            if holds_bands(method.graph, call)]


@pytest.mark.parametrize("name", sorted(NETS))
def test_overlapped_float_plan_gives_the_plain_bytes_in_less_arena(name):
    model, example = NETS[name]()
    method = program(name, True).lowered()
    plain = program(name, False).lowered()
    assert method.plan.arena_size < plain.plan.arena_size
    # (the plan keeps the bands only where the arena needs them: KWS's eight layers, the
    # widening pointwise and the stride-2 depthwise layer of inplace_f32, held_f32's stem)
    assert len(_in_place_calls(method)) >= (1 if name == "held_f32" else 2)
    assert set(_in_place_calls(method)) == {"mcu_aot::convolution_in_place.out"}
    # inplace_f32's depthwise layers of large planes (plain kernels) at least a plane below
    # their inputs; KWS's, of small planes, run exactly over theirs by groups of planes
    at = method.plan.offsets
    below = [b for b in method.buffers for o in b.overlaps if not o.exact and
             at[o.input] - at[b.id] >= o.lag and at[b.id] + b.size > at[o.input]]
    assert below or name != "inplace_f32", "no depthwise output shares bytes with its input"
    got = aot.host.build(aot.generate_c(program(name, True), name=f"o_{name}"))(
        *[x.numpy() for x in example])
    want = plain_outputs(name)
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]
    ref = model(*example)
    torch.testing.assert_close(torch.from_numpy(got[0]), ref, rtol=1e-4, atol=1e-5)


def test_kws_float_arena_is_one_map_and_a_band():
    """KWS in float32: one 64x25x5 map (32,000 B) and a pointwise band's outputs (64 channels
    x 8 pixels, whose inputs are read where they lie), which also holds a depthwise group's
    four planes (2,000 B), against the whole-tensor bound of two maps: every layer runs
    exactly over its input."""
    method = program("kws", True).lowered()
    assert method.plan.overlap_bound == 32_000 + 64 * 8 * 4
    assert method.plan.arena_size == 32_000 + 64 * 8 * 4
    assert method.whole_bound == 64_000


@pytest.mark.parametrize("name", sorted(OVERLAP_F32))
def test_interpreter_runs_the_overlapped_float_pte(name):
    """The .pte of the overlapped program names mcu_aot::convolution_in_place with its
    scratch; the interpreter runs it to the plain plan's static C's bytes."""
    from aot.interpreter import build_host
    buffer = program(name, True).buffer
    interp = build_host([buffer])
    _, example = NETS[name]()
    got = interp.run(buffer, [x.numpy() for x in example])
    assert [g.tobytes() for g in got] == [w.tobytes() for w in plain_outputs(name)]


# int8's targets (issue 39), as ratios to the whole-tensor bound: float32 reaches the same
INT8_RATIO = {"vww": 40_000 / 55_296, "resnet8": 34_000 / 49_152}


@pytest.mark.parametrize("name", sorted(INT8_RATIO))
def test_float_arena_reaches_int8s_ratio(name):
    """float32 VWW (its stem's rows held back over its input, then a stage in strips) and
    ResNet-8 (its "same" convolutions in place by two bands of rows) under --overlap plan no
    more of their whole-tensor bound than int8's targets do of int8's."""
    model, example = ZOO[name]()
    method = aot.to_edge(torch.export.export(model, example)).to_executorch(
        backend_config(True)).lowered()
    plain = aot.to_edge(torch.export.export(model, example),
                        compile_config=aot.EdgeCompileConfig(patches=False)).to_executorch(
        backend_config(False)).lowered()
    assert method.plan.arena_size <= INT8_RATIO[name] * plain.whole_bound
