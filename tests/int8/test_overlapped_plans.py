"""Plans whose outputs overlap their inputs (MemoryPlanningPass(overlap=True), aot/overlap.py):
the depthwise layers of stride 1 in place and the pools over their inputs' dead rows.

The host C of each overlapped plan gives the plain plan's bytes; a network built for it plans
below the whole-tensor bound; and the streaming lag is safe for a kernel that keeps the
declared loop order, simulated byte by byte in one arena.
"""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import aot
from aot.overlap import BLOCK_BACK, window_lag
from aot.passes.plan_memory import holds_bands
from aot.report import format_report

from int8_models import host_model, int8_inputs, lowered

NETS = ["inplace", "kws", "vww", "resnet8", "mobilenet_v2", "conv_blocks", "residual"]


@pytest.mark.parametrize("name", NETS)
def test_overlapped_plan_gives_the_plain_bytes(name):
    xs = int8_inputs(name, seed=5)
    plain = host_model(name, True)(*xs)
    overlapped = aot.host.build(aot.generate_c(lowered(name, True, overlap=True),
                                               name=f"q_{name}"))(*xs)
    for a, b in zip(overlapped, plain):
        assert a.tobytes() == b.tobytes()


def test_a_depthwise_network_plans_below_the_whole_tensor_bound():
    plain = lowered("inplace", True).lowered()
    method = lowered("inplace", True, overlap=True).lowered()
    plan, offsets = method.plan, method.plan.offsets
    # (the whole-tensor bound counts the pointwise layer's band scratch, aot/overlap.py)
    assert plain.plan.arena_size == 2880 <= plan.lower_bound
    assert plan.overlap_bound < plan.arena_size < plain.plan.arena_size
    by_id = {b.id: b for b in method.buffers}
    # outputs that share bytes with their inputs sit at their lags: the depthwise layers
    # exactly, the pools at or below it
    shared = []
    for b in method.buffers:
        for o in b.overlaps:
            gap = offsets[o.input] - offsets[b.id]
            if offsets[b.id] < offsets[o.input] + by_id[o.input].size and \
                    offsets[o.input] < offsets[b.id] + b.size:
                assert gap == o.lag if o.exact else gap >= o.lag, b.label()
                shared.append((b.name, o.exact))
    assert sum(exact for _, exact in shared) >= 2 and any("pool" in n for n, _ in shared)
    report = format_report(method, "inplace")
    assert "overlapped" in report and f"{plan.overlap_bound:,}" in report


def _banded(method) -> list:
    """The calls whose scratch holds the bands of an in-place kernel (aot/overlap.py)."""
    return [i for i, call in enumerate(method.graph.calls) if holds_bands(method.graph, call)]


def test_kws_runs_every_layer_over_its_input_by_bands():
    """KWS's depthwise and pointwise layers each run over their input (exactly, or the
    pointwise ones at their lag), with the bands' scratch planned for them: the arena is one
    25x5x64 map and a depthwise layer's two rows of scratch, half the whole-tensor bound,
    which the report states as the plain program's."""
    plain = lowered("kws", True).lowered()
    method = lowered("kws", True, overlap=True).lowered()
    offsets, by_id = method.plan.offsets, {b.id: b for b in method.buffers}
    banded = _banded(method)
    kinds = [method.graph.calls[i].op.key for i in banded]
    assert kinds.count("cortex_m::quantized_depthwise_conv2d_nhwc.out") == 4
    assert kinds.count("cortex_m::quantized_conv2d_nhwc.out") == 4
    for i in banded:
        call = method.graph.calls[i]
        out = by_id[method.graph.root(call.outs[0])]
        (o,) = out.overlaps
        gap = offsets[o.input] - offsets[out.id]
        assert (gap == 0) if o.exact else (0 <= gap < by_id[o.input].size), call.op.key
    assert method.plan.arena_size == method.plan.overlap_bound == 25 * 5 * 64 + 2 * 5 * 64
    assert plain.plan.arena_size == plain.plan.lower_bound == 2 * 25 * 5 * 64
    # the whole-tensor bound the report shows is the plain program's: the overlapped plan's
    # own counts the bands' scratch, which only the overlaps need
    assert method.plan.lower_bound > method.whole_bound == plain.plan.lower_bound
    assert plain.whole_bound == plain.plan.lower_bound
    report = format_report(method)
    assert re.search(r"^lower bound +16,000 B", report, re.M), report
    assert re.search(r"^  overlapped +8,640 B", report, re.M), report
    source = "".join(aot.generate_c(lowered("kws", True, overlap=True), name="q_kws")
                     .files.values())
    assert "rt_conv2d_1x1_in_place_s8" in source and "rt_depthwise_conv2d_in_place_s8" in source


def test_vww_moves_its_input_to_nhwc_over_itself():
    """VWW's peak was its input's NCHW to NHWC transpose (two 96x96x3 maps, 55,296 B): the
    transpose now writes a plane below its input (aot/overlap.py's transpose_s8, rt_permute's
    phases), which brings VWW within its 40,000 B without patches; the host C gives the plain
    plan's bytes (test_overlapped_plan_gives_the_plain_bytes)."""
    method = lowered("vww", True, overlap=True).lowered()
    offsets, by_id = method.plan.offsets, {b.id: b for b in method.buffers}
    (i,) = [i for i, c in enumerate(method.graph.calls) if c.op.key == "cortex_m::transpose.out"]
    out = by_id[method.graph.root(method.graph.calls[i].outs[0])]
    (o,) = out.overlaps
    assert o.lag == 96 * 96 and not o.exact
    assert o.lag <= offsets[o.input] - offsets[out.id] < out.size      # they share bytes
    assert method.plan.arena_size == method.plan.overlap_bound <= 40_000 < method.whole_bound
    assert method.patches is None


def test_bands_are_planned_only_where_they_lower_the_arena():
    """The bands cost cycles: where a layer's output cannot or need not overlap its input
    (the residual network's input is read again after its pointwise layers), its scratch goes
    back to the kernel's own and the plain kernel runs. mobilenet_v2 keeps them at its peak."""
    residual = lowered("residual", True, overlap=True).lowered()
    assert _banded(residual) == []
    assert residual.plan.arena_size <= lowered("residual", True).lowered().plan.arena_size
    assert "in_place" not in "".join(aot.generate_c(lowered("residual", True, overlap=True),
                                                    name="q_residual").files.values())
    mobilenet = lowered("mobilenet_v2", True, overlap=True).lowered()
    assert 1 <= len(_banded(mobilenet)) < 5
    # its input's transpose overlaps too, away from the peak, which drew the greedy planners'
    # later buffers after it; plan_suite's plan with only the overlaps at the peak wins
    assert mobilenet.plan.arena_size == mobilenet.plan.overlap_bound == 115_200


def test_depthwise_bands_take_the_bytes_free_at_their_call(monkeypatch):
    """A depthwise layer in place by bands of its least rows widens its input rows and calls
    its kernel once a row; widen_bands gives it the bytes free at its call, up to its whole
    map, without growing the arena. Patched, mobilenet_v2 runs its first depthwise layers in
    place, on taller bands; every band scratch stays where no live buffer is (verify_plan),
    and the bytes are the plain plan's (tests/int8/test_patch_stage.py)."""
    from aot import executorch
    from aot.config import EdgeCompileConfig, backend_config
    from aot.overlap import depthwise_band
    from int8_models import quantized
    method = lowered("mobilenet_v2", True, True, True).lowered()
    g = method.graph
    taller = []
    for i in _banded(method):
        call = g.calls[i]
        if call.op.key != "cortex_m::quantized_depthwise_conv2d_nhwc.out":
            continue
        n, h, w, c = g.tensors[call.arg("input").id].shape
        rows = g.tensors[call.arg("scratch").id].nbytes // (2 * w * c)
        assert depthwise_band(call.arg("padding")[0]) <= rows <= h
        taller.append(rows > depthwise_band(call.arg("padding")[0]))
    assert any(taller)
    monkeypatch.setattr(executorch, "widen_bands", lambda graph, planning, plan: (graph, plan))
    least = aot.to_edge(quantized("mobilenet_v2")[2], compile_config=EdgeCompileConfig(
        int8_io=True, patches=True)).to_executorch(backend_config(True)).lowered()
    assert least.plan.arena_size == method.plan.arena_size
    assert least.plan.overlap_bound == method.least_bound


def test_nothing_overlaps_unless_asked():
    assert not any(b.overlaps for b in lowered("inplace", True).lowered().buffers)


def _stream_pool(arena, x0, out0, shape, k, s, p, block):
    """A max pool that keeps the declared loop order, in one arena: output pixels in blocks,
    each block's channels one after another over all its pixels (the last pixel of a block
    written before the block's first pixel's window is read again)."""
    n, h, w, c = shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    pixels = n * oh * ow
    for start in range(0, pixels, block):
        for ch in range(c):
            for i in range(start, min(start + block, pixels)):
                b, r = divmod(i, oh * ow)
                y, xx = divmod(r, ow)
                taps = [arena[x0 + ((b * h + yy) * w + xc) * c + ch]
                        for yy in range(y * s - p, y * s - p + k) if 0 <= yy < h
                        for xc in range(xx * s - p, xx * s - p + k) if 0 <= xc < w]
                arena[out0 + i * c + ch] = max(taps) if taps else -128
    return (n, oh, ow, c)


@pytest.mark.parametrize("shape,k,s,p", [((1, 6, 5, 3), 3, 1, 1), ((2, 5, 4, 2), 2, 2, 0),
                                         ((1, 7, 3, 4), 3, 2, 1), ((1, 4, 9, 1), 1, 1, 0)])
def test_window_lag_is_safe(shape, k, s, p):
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, int(np.prod(shape))).tolist()
    size = len(x)

    def run(gap):
        arena = [0] * (5 * size + 64)
        x0 = 2 * size + 32
        arena[x0:x0 + size] = x
        out = _stream_pool(arena, x0, x0 - gap, shape, k, s, p, BLOCK_BACK + 1)
        return arena[x0 - gap:x0 - gap + int(np.prod(out))], out

    want, out = run(-2 * size)                 # far above: no sharing at all
    lag = window_lag(shape, out, (s, s), (p, p))
    for gap in itertools.chain(range(lag, lag + 8), [size]):
        assert run(gap)[0] == want
    if (k, s, p) == (3, 1, 1):                 # in place would read rows it overwrote
        assert lag > 0 and run(0)[0] != want


def test_the_command_line_plans_with_overlaps_when_asked(tmp_path, capsys):
    """`--overlap` on aot report and aot compile: the report's overlapped bound and smaller
    arena, and a note that the .pte is for mcu-aot's runtime only."""
    from aot import cli
    pt2 = tmp_path / "resnet8_int8.pt2"
    assert cli.main(["zoo", "resnet8", "--int8", "-o", str(pt2)]) == 0
    capsys.readouterr()
    arenas = {}
    for flags in ([], ["--overlap"]):
        assert cli.main(["report", str(pt2), "--int8-io", *flags]) == 0
        text = capsys.readouterr().out
        arenas[bool(flags)] = int(re.search(r"^arena +([\d,]+) B", text, re.M)[1]
                                  .replace(",", ""))
        assert ("overlapped" in text) == bool(flags)
    assert arenas[False] == 49_152 and arenas[True] < 34_000
    out = tmp_path / "c"
    assert cli.main(["compile", str(pt2), "-o", str(out), "--int8-io", "--overlap"]) == 0
    assert "planned with --overlap" in capsys.readouterr().out
    assert f"MODEL_ARENA_SIZE {arenas[True]}u" in (out / "model.h").read_text()
    # a .pte keeps the plan it was written with: --overlap on one is a one-line refusal
    assert cli.main(["compile", str(out / "model.pte"), "-o", str(tmp_path / "d"),
                     "--overlap"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "keeps the plan" in err and err.count("\n") == 1
    assert not (tmp_path / "d").exists()
