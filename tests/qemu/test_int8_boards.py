"""int8 on every board: each int8 network (int8 inputs and outputs) runs under QEMU (or
natively on the host board) and prints exactly the bytes the host C build computes, and the
float-I/O build stays within a few output steps of the PT2E reference on the board too.
Figures (instructions, sizes) go to build/int8_figures.json for docs/benchmarks.md."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import aot
import aot.host
from aot.boards import list_boards
from aot.firmware import run_on_board
from aot.zoo import ZOO
from conftest import require_board

from int8_models import host_model, int8_inputs, lowered, quantized, quantized_randn

REPO = Path(__file__).resolve().parents[2]
BOARDS = list_boards()
FIGURES: dict[str, dict] = {}
_SOURCES: dict = {}


def _sources(name: str, overlap: bool = False, patches=False):
    """The network's int8-I/O C, planned with overlaps and its first stage patched if asked,
    generated once a module."""
    key = (name, overlap, patches)
    if key not in _SOURCES:
        _SOURCES[key] = aot.generate_c(lowered(name, True, overlap, patches), name=f"q_{name}")
    return _SOURCES[key]


@pytest.fixture(scope="module", autouse=True)
def _write_figures():
    yield
    if FIGURES:
        out = REPO / "build" / "int8_figures.json"
        out.parent.mkdir(exist_ok=True)
        old = json.loads(out.read_text()) if out.exists() else {}
        old.update(FIGURES)
        out.write_text(json.dumps(old, indent=1, sort_keys=True))


# The zoo, and the op models of every int8 kernel and lowering (conv1d as rows, transposed
# conv, batch matmul, nearest upsampling, split and shuffle, the unrolled recurrent cells,
# bilinear resizes, reductions, softmax over rows and log softmax).
@pytest.mark.parametrize("net", sorted(ZOO) + ["residual", "conv_blocks", "activations", "conv1d",
                                               "decoder", "products", "attention", "movement",
                                               "shuffle", "gru", "norm", "resize",
                                               "reduce", "stats"])
@pytest.mark.parametrize("board_name", BOARDS)
def test_int8_network_on_board_equals_host_c(board_name, net):
    _assert_board_equals_host_c(board_name, net, _sources(net))


def _assert_board_equals_host_c(board_name: str, net: str, sources) -> None:
    """The board runs ``sources`` of ``net`` to the host C's bytes (of the plain plan)."""
    board = require_board(board_name)
    xs = int8_inputs(net)
    (want,) = host_model(net, True)(*xs)
    report = run_on_board(sources, board, inputs=xs, timeout=180)
    assert report.status == 0 and report.exit_code == 0 and report.fault is None, report
    (got,) = report.outputs
    np.testing.assert_array_equal(got, want)
    FIGURES[f"{net}@{board_name}"] = dict(instructions=report.instructions, text=report.text,
                                         data=report.data, bss=report.bss,
                                         arena=report.arena_bytes)


@pytest.mark.parametrize("board_name", ["mps2-an386", "riscv32-virt"])
def test_float_io_int8_on_board_is_close_to_pt2e(board_name):
    require_board(board_name)
    _, example, ep = quantized("kws")
    report = run_on_board(ep, board_name, inputs=[t.numpy() for t in example], timeout=180)
    assert report.ok, report
    assert report.reference_name == "PT2E quantized torch"
    assert report.lsb and report.lsb[0] is not None and report.lsb[0] <= 3


# The models people bring (tests/user_models.py) that fit every board's memory, int8 I/O: the
# board prints the host C's bytes. (torchvision's classifiers need more flash than the boards
# have for their weights; bench/int8_models.py --boards runs the ones that fit the M3 and M55.)
USER_NETS = ["activity_conv1d", "gru_keywords", "lstm", "keyword_transformer", "unet"]
_USER: dict = {}


def _user_program(name: str):
    if name not in _USER:
        from user_models import lowered_int8, quantized
        example, manager = quantized(name)[1], lowered_int8(name)
        xs = quantized_randn(manager, example)
        sources = aot.generate_c(manager, name=f"u_{name}")
        _USER[name] = (sources, xs, aot.host.build(sources)(*xs))
    return _USER[name]


@pytest.mark.xdist_group("user_models")   # beside tests/int8/test_user_models.py: one quantizing
@pytest.mark.parametrize("net", USER_NETS)
@pytest.mark.parametrize("board_name", BOARDS)
def test_user_model_on_board_equals_host_c(board_name, net):
    board = require_board(board_name)
    sources, xs, want = _user_program(net)
    report = run_on_board(sources, board, inputs=xs, timeout=300)
    assert report.status == 0 and report.exit_code == 0 and report.fault is None, report
    for got, w in zip(report.outputs, want):
        np.testing.assert_array_equal(got, w)


# Planned with outputs over their inputs (aot/overlap.py: depthwise layers in place, pools over
# their inputs' dead rows), each board's kernels, fast and portable, give the plain plan's bytes.
@pytest.mark.parametrize("net", ["inplace", "kws", "vww", "resnet8"])
@pytest.mark.parametrize("board_name", BOARDS)
def test_overlapped_plan_on_board_equals_host_c(board_name, net):
    _assert_board_equals_host_c(board_name, net, _sources(net, overlap=True))


# mobilenet_v2 (0.35, 96x96): its stride-2 depthwise layers in place, on the DSP boards (its
# 479 KB of weights leave the M55's 512 KB of flash too little room; the twins run the
# Helium kernels in place)
@pytest.mark.parametrize("board_name", ["mps2-an386", "mps2-an500"])
def test_overlapped_mobilenet_v2_on_board_equals_host_c(board_name):
    plain, overlapped = (lowered("mobilenet_v2", True, o).lowered().plan for o in (False, True))
    assert overlapped.arena_size < plain.arena_size
    _assert_board_equals_host_c(board_name, "mobilenet_v2",
                                _sources("mobilenet_v2", overlap=True))


# The first stage patch by patch (aot/passes/patch_stage.py): every board's kernels on the
# patches' small maps give the host C's bytes, which tests/int8/test_patch_stage.py holds
# equal to the layer-by-layer network's. VWW's first four layers in a 3x2 grid, asked for (its
# crops, side pads and narrow maps; by default the M55's price keeps VWW whole), on every
# board; mobilenet_v2's own choice, strips, on the DSP boards only (its weights).
@pytest.mark.parametrize("net,board_name,patches", [("vww", b, (4, 3, 2)) for b in BOARDS] +
                         [("mobilenet_v2", "mps2-an386", True),
                          ("mobilenet_v2", "mps2-an500", True)])
def test_patched_stage_on_board_equals_host_c(board_name, net, patches):
    assert lowered(net, True, patches=patches).lowered().patches is not None
    _assert_board_equals_host_c(board_name, net, _sources(net, patches=patches))


# With --overlap too, the stage may start at a layer's map, the patches' buffers lie on the
# stage input's rows already cropped (aot.passes.plan_memory's dead prefixes) and the
# depthwise layers in place take bands as tall as the free bytes allow (widen_bands): VWW's
# patched stage on the M4's DSP kernels and the M55's Helium ones, mobilenet_v2's on the M4's,
# to the plain plan's bytes.
@pytest.mark.parametrize("net,board_name,most", [("vww", "mps2-an386", 40_000),
                                                 ("vww", "mps3-an547", 40_000),
                                                 ("mobilenet_v2", "mps2-an386", 69_120)])
def test_patched_and_overlapped_on_board_equals_host_c(net, board_name, most):
    sources = _sources(net, overlap=True, patches=True)
    assert sources.arena_size <= most
    _assert_board_equals_host_c(board_name, net, sources)


def test_aot_run_patches_against_quantized_torch(tmp_path, capsys):
    """`aot run --overlap` lowers (patches on by default), builds and runs VWW with its stage
    in strips on the M4 and compares it with the PT2E-quantized torch model (the run's own
    reference)."""
    from aot import cli
    require_board("mps2-an386")
    pt2 = tmp_path / "vww.pt2"
    assert cli.main(["zoo", "vww", "--int8", "-o", str(pt2)]) == 0
    capsys.readouterr()
    assert cli.main(["run", str(pt2), "--board", "mps2-an386", "--int8-io", "--overlap"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"vs PT2E quantized torch \(tolerance \d+ LSB\): OK", out), out
    arena = lowered("vww", True, True, True).lowered().plan.arena_size
    assert arena < lowered("vww", True, True).lowered().plan.arena_size    # without patches
    assert re.search(rf"^arena +{arena:,} bytes", out, re.M), out
