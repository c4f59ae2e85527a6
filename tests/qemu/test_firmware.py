"""aot.firmware and `aot firmware / run / boards`: generated projects build warning-free on
every board (firmware.mk compiles with -Wall -Wextra -Werror), run under QEMU (or natively on
the host board) and match torch eager; bad boards, missing compilers and models too big for a
board fail before anything is written.

Each network and op model is lowered once per session and each (board, model) project built
once. The zoo runs on every board; the op models on three (Cortex-M4F, Cortex-M55, RV32 soft
float). Figures (error, arena, sizes, instructions) go to build/firmware_figures.json.
"""
from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import one_board_per_kernel_build, require_board, require_module, require_tool

import aot
from aot import cli
from aot.boards import list_boards, load_board
from aot.errors import AotError, BoardError
from aot.firmware import (FirmwareProject, RunReport, board_runtime, estimate_footprint,
                          format_run_report, generate_firmware, max_abs_error, parse_outputs,
                          run_on_board)
from aot.qemu import build_firmware, run_elf
from aot.zoo import ZOO
from op_models import OP_MODELS, OVERLAP_F32

REPO = Path(__file__).resolve().parents[2]
BOARDS = list_boards()
QEMU_BOARDS = [b for b in BOARDS if load_board(b).qemu is not None]

# The op models run on one board of each kernel build (conftest.one_board_per_kernel_build: the
# M7 builds the M4's DSP kernels with the same compiler and ABI; the zoo networks, the twins and
# the int8 networks run on it).
OP_BOARDS = one_board_per_kernel_build(BOARDS)
RTOL, ATOL, MAX_ABS = 1e-4, 1e-5, 1e-4
FIGURES: dict[str, dict] = {}




@pytest.fixture(scope="session")
def lowered():
    """lowered(kind, name) -> (CSources, module, example inputs), lowered once a session."""
    cache = {}

    def get(kind: str, name: str):
        if (kind, name) not in cache:
            module, example = ZOO[name]() if kind == "zoo" else OP_MODELS[name]
            ep = torch.export.export(module.eval(), example)
            sources = aot.generate_c(aot.to_edge(ep).to_executorch(), name=name)
            cache[kind, name] = sources, module, example
        return cache[kind, name]

    return get


@pytest.fixture(scope="module", autouse=True)
def _figures():
    yield
    if FIGURES:
        out = REPO / "build" / "firmware_figures.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(FIGURES, indent=1, sort_keys=True))


def assert_matches(report: RunReport) -> None:
    assert report.exit_code == 0 and report.status == 0 and report.fault is None, report
    assert len(report.outputs) == len(report.reference) > 0
    for got, want in zip(report.outputs, report.reference):
        assert got.shape == want.shape and got.dtype == want.dtype
        if got.dtype.kind == "f":
            close = np.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
            assert close or max_abs_error(got, want) <= MAX_ABS, format_run_report(report)
        else:
            np.testing.assert_array_equal(got, want)
    assert report.ok


def one_line_error(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message, message
    return message


def tree(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file()}


# ---- every board runs the zoo and the op models --------------------------------------------

@pytest.mark.parametrize("net", sorted(ZOO))
@pytest.mark.parametrize("board_name", BOARDS)
def test_zoo_network_on_board(board_name, net, lowered, tmp_path):
    board = require_board(board_name)
    sources, module, example = lowered("zoo", net)
    if board.flash is not None and sources.constant_bytes > board.flash.length:
        # Too big for this board: the fit check (not the compiler) says so, before writing.
        with pytest.raises(BoardError) as err:
            generate_firmware(sources, board, tmp_path / "fw", inputs=example)
        message = one_line_error(err)
        assert f"does not fit the flash of {board_name}" in message
        assert f"{board.flash.length:,}" in message and f"{sources.constant_bytes:,}" in message
        assert not (tmp_path / "fw").exists()
        FIGURES[f"{board_name}/{net}"] = {"fits": False, "constants": sources.constant_bytes,
                                          "flash": board.flash.length}
        return
    report = run_on_board(sources, board, inputs=example, reference=module, timeout=120)
    assert_matches(report)
    assert report.arena_bytes == sources.arena_size
    assert report.text > sources.constant_bytes
    assert report.bss >= sources.arena_size
    if board.qemu is not None:
        assert report.instructions and report.instructions > 0
        # the fit check's code estimate stays an upper bound (else refit CODE_* in firmware.py)
        inputs = [x.numpy() for x in example]
        code = report.text + report.data - sources.constant_bytes - sum(x.nbytes for x in inputs)
        assert code <= estimate_footprint(sources, board, inputs).code
    FIGURES[f"{board_name}/{net}"] = {
        "max_abs_error": report.max_abs_error, "arena": report.arena_bytes,
        "text": report.text, "data": report.data, "bss": report.bss,
        "instructions": report.instructions}


@pytest.mark.parametrize("op", sorted(OP_MODELS))
@pytest.mark.parametrize("board_name", OP_BOARDS)
def test_op_model_on_board(board_name, op, lowered):
    board = require_board(board_name)
    sources, module, example = lowered("op", op)
    assert_matches(run_on_board(sources, board, inputs=example, reference=module))


class CompareAndScale(torch.nn.Module):
    def forward(self, a, b):
        return a > b, a * 2


# float32 VWW with its first stage patch by patch (aot/passes/patch_stage.py): crops, border
# pads, unpadded convolutions and relus on the patches, concatenations; against torch eager,
# on each kernel build's board whose flash holds its 960 KB of weights.
@pytest.mark.parametrize("board_name", [b for b in OP_BOARDS if b != "mps3-an547"])
def test_float_patched_stage_on_board(board_name):
    board = require_board(board_name)
    model, example = ZOO["vww"]()
    report = run_on_board(aot.export(model, example), board, inputs=example, patches=True,
                          timeout=120)
    assert_matches(report)
    assert report.arena_bytes < 221_184          # the whole-tensor bound without patches


# float32 planned with --overlap (runtime_c/src/conv/conv_in_place.c): the pointwise, depthwise,
# "same" and strided layers over their inputs give, on each kernel build's board (the M4's and
# the M55's fast kernels among them), the bytes of the same board's plain plan.
@functools.lru_cache(maxsize=None)
def _float_sources(net: str):
    """A float32 network's C planned plain and with overlaps, its module and example, once a
    process (every board builds the same C)."""
    from aot.config import backend_config
    model, example = ZOO[net]() if net in ZOO else OVERLAP_F32[net]
    ep = torch.export.export(model, example)
    plain, overlapped = (aot.generate_c(aot.to_edge(ep).to_executorch(backend_config(o)),
                                        name=f"{net}_{int(o)}") for o in (False, True))
    return plain, overlapped, model, example


# (VWW's float32 weights, 843 KB, exceed the M55 board's flash)
@pytest.mark.parametrize("board_name,net", [
    (b, n) for b in OP_BOARDS for n in ("kws", "resnet8", "vww", *OVERLAP_F32)
    if not (n == "vww" and b == "mps3-an547")])
def test_float_overlapped_plan_on_board_gives_the_plain_bytes(board_name, net):
    board = require_board(board_name)
    plain, overlapped, model, example = _float_sources(net)
    assert overlapped.arena_size < plain.arena_size
    want, got = (run_on_board(s, board, inputs=example, reference=model, timeout=120)
                 for s in (plain, overlapped))
    assert_matches(got)
    assert [g.tobytes() for g in got.outputs] == [w.tobytes() for w in want.outputs]


def test_bool_and_float_outputs():
    board = require_board("riscv32-virt")
    example = (torch.randn(3, 4, generator=torch.Generator().manual_seed(1)),
               torch.randn(3, 4, generator=torch.Generator().manual_seed(2)))
    report = run_on_board(torch.export.export(CompareAndScale(), example), board,
                          inputs=example)
    assert report.reference_name == "torch eager"
    assert [o.dtype for o in report.outputs] == [np.bool_, np.float32]
    assert_matches(report)


# ---- the instruction count ------------------------------------------------------------------

@pytest.mark.parametrize("board_name", ["mps2-an386", "riscv32-virt"])
def test_instruction_count_repeats(board_name, lowered, tmp_path):
    board = require_board(board_name)
    sources, _, example = lowered("zoo", "kws")
    project = generate_firmware(sources, board, tmp_path / "kws", inputs=example)
    elf = build_firmware(project.directory, project.project_board)
    first, second = (run_elf(elf, project.project_board) for _ in range(2))
    assert first.exit_code == second.exit_code == 0
    assert first.instructions == second.instructions
    assert first.cycles == second.cycles and len(first.cycles) == 1
    # KWS does ~2.7 M multiply-adds: anything below that means the count lost a wrap
    assert first.instructions > 2_700_000


# ---- the project ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kws_pt2(tmp_path_factory):
    module, example = ZOO["kws"]()
    path = tmp_path_factory.mktemp("pt2") / "kws.pt2"
    torch.export.save(torch.export.export(module, example), str(path))
    return path


def test_project_holds_only_what_the_build_reads(lowered, tmp_path):
    require_board("mps2-an386")
    sources, _, example = lowered("op", "conv2d")
    project = generate_firmware(sources, "mps2-an386", tmp_path / "fw", inputs=example)
    assert isinstance(project, FirmwareProject)
    files = set(tree(project.directory))
    assert set(project.files) == files
    runtime_c = {f[len("runtime_c/"):] for f in files if f.startswith("runtime_c/src/")
                 and f.endswith(".c")}
    # what the Makefile compiles: the model's files, the board's arch twins in their place
    compiled = set(board_runtime(sources, project.board))
    assert {f.rsplit("/", 1)[-1] for f in compiled} == \
        {f.rsplit("/", 1)[-1] for f in sources.runtime_sources}
    makefile = (project.directory / "Makefile").read_text()
    assert all(f"runtime_c/{f}" in makefile for f in compiled)
    # any other .c file is one an arch file builds on by including it
    for extra in runtime_c - compiled:
        assert any(f'"../../{extra[len("src/"):]}"' in (project.directory / "runtime_c" / f)
                   .read_text() for f in compiled), extra
    c_text = "".join((project.directory / f).read_text() for f in files
                     if f.startswith("runtime_c/") and f.endswith((".c", ".h")))
    for header in (f for f in files if f.startswith("runtime_c/src/") and f.endswith(".h")):
        assert Path(header).name in c_text.replace(header, ""), f"{header} is not used"
    assert {"Makefile", "main.c", "conv2d.c", "conv2d.h", "inputs_0.npy",
            "boards/mps2-an386/board.json", "boards/common/firmware.mk",
            "boards/common/cortex_m/startup.c", "runtime_c/include/rt.h"} <= files
    assert not any(f.startswith("boards/riscv32-virt") for f in files)
    np.testing.assert_array_equal(np.load(project.directory / "inputs_0.npy"), example[0])
    assert str(REPO) not in (project.directory / "Makefile").read_text()


def test_project_builds_and_runs_after_moving(lowered, tmp_path):
    """Nothing outside the folder: move it, then make and make run as a user would."""
    require_tool("make")
    board = require_board("riscv32-virt")
    sources, module, example = lowered("op", "linear")
    generate_firmware(sources, board, tmp_path / "a", inputs=example)
    moved = tmp_path / "elsewhere" / "b"
    moved.parent.mkdir()
    shutil.move(str(tmp_path / "a"), moved)
    subprocess.run(["make", "-s", "-C", str(moved)], check=True, capture_output=True)
    run = subprocess.run(["make", "-s", "-C", str(moved), "run"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    (got,), status = parse_outputs(run.stdout, sources)
    assert status == 0
    np.testing.assert_allclose(got, module(*example).detach().numpy(), rtol=RTOL, atol=ATOL)


def test_same_model_gives_identical_files(kws_pt2, tmp_path):
    require_board("host")
    a = generate_firmware(kws_pt2, "host", tmp_path / "a", name="kws")
    b = generate_firmware(kws_pt2, "host", tmp_path / "b", name="kws")
    assert a.files == b.files
    assert tree(a.directory) == tree(b.directory)


def test_regenerating_replaces_an_earlier_project(lowered, tmp_path):
    require_board("host")
    sources, _, example = lowered("op", "relu")
    out = tmp_path / "fw"
    generate_firmware(sources, "host", out)                  # random inputs
    (out / "build").mkdir()
    generate_firmware(sources, "host", out, inputs=example)
    assert not (out / "build").exists()
    np.testing.assert_array_equal(np.load(out / "inputs_0.npy"), example[0])
    assert [p.name for p in tmp_path.iterdir()] == ["fw"]  # no temporary folder left behind


def test_random_inputs_are_seeded_and_saved(lowered, tmp_path):
    require_board("host")
    sources, _, _ = lowered("op", "embedding")
    a = generate_firmware(sources, "host", tmp_path / "a")
    b = generate_firmware(sources, "host", tmp_path / "b")
    (x,) = a.inputs
    assert x.dtype == np.int64 and x.shape == sources.inputs[0].shape
    np.testing.assert_array_equal(np.load(a.directory / "inputs_0.npy"), x)
    assert tree(a.directory) == tree(b.directory)


# ---- errors: one line, nothing written -------------------------------------------------------

def test_unknown_board(lowered, tmp_path):
    sources, _, _ = lowered("op", "relu")
    with pytest.raises(BoardError) as err:
        generate_firmware(sources, "stm32-nonexistent", tmp_path / "fw")
    message = one_line_error(err)
    assert "stm32-nonexistent" in message and "mps2-an386" in message
    assert not (tmp_path / "fw").exists()


def test_missing_cross_compiler(lowered, tmp_path, monkeypatch):
    """A PATH with make, binutils and QEMU but no arm-none-eabi-gcc."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("make", "arm-none-eabi-size", "qemu-system-arm"):
        if shutil.which(tool):
            (bin_dir / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(bin_dir))
    sources, _, _ = lowered("op", "relu")
    for call in (lambda: generate_firmware(sources, "mps2-an386", tmp_path / "fw"),
                 lambda: run_on_board(sources, "mps2-an386", out_dir=tmp_path / "fw")):
        with pytest.raises(BoardError) as err:
            call()
        message = one_line_error(err)
        assert "arm-none-eabi-gcc" in message
        assert "apt-get install make gcc-arm-none-eabi qemu-system-arm" in message
        assert not (tmp_path / "fw").exists()


def test_model_too_big_for_the_board(tmp_path):
    require_board("mps3-an547")
    torch.manual_seed(0)
    big = torch.nn.Linear(4096, 4096).eval()
    ep = torch.export.export(big, (torch.randn(1, 4096),))
    board = load_board("mps3-an547")
    out = tmp_path / "fw"
    with pytest.raises(BoardError) as err:
        generate_firmware(ep, board, out)
    message = one_line_error(err)
    assert "does not fit the flash of mps3-an547" in message
    assert f"{4096 * 4097 * 4:,}" in message and f"{board.flash.length:,}" in message
    assert not out.exists()


def test_errors_leave_an_existing_project_unchanged(lowered, tmp_path):
    require_board("host")
    sources, _, example = lowered("op", "relu")
    out = tmp_path / "fw"
    generate_firmware(sources, "host", out, inputs=example)
    before = tree(out)
    bad_inputs = [np.zeros((3, 3), np.float32)]
    with pytest.raises(AotError) as err:
        generate_firmware(sources, "host", out, inputs=bad_inputs)
    assert "shape (3, 3)" in one_line_error(err)
    with pytest.raises(BoardError):
        generate_firmware(sources, "no-such-board", out)
    assert tree(out) == before


def test_refuses_to_replace_a_folder_it_did_not_write(lowered, tmp_path):
    require_board("host")
    sources, _, _ = lowered("op", "relu")
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(AotError) as err:
        generate_firmware(sources, "host", tmp_path)
    assert "not an mcu-aot firmware project" in one_line_error(err)
    assert tree(tmp_path) == {"mine.txt": b"keep me"}


def test_model_name_that_clashes_with_a_project_file(tmp_path):
    require_board("host")
    ep = torch.export.export(torch.nn.ReLU(), (torch.randn(2, 3),))
    with pytest.raises(AotError) as err:
        generate_firmware(ep, "host", tmp_path / "fw", name="main")
    assert "main" in one_line_error(err)
    assert not (tmp_path / "fw").exists()


def test_hang_is_a_timeout(lowered):
    board = require_board("mps2-an385")
    sources, module, example = lowered("zoo", "kws")   # ~350 M instructions: over 0.2 s
    with pytest.raises(BoardError, match="did not exit within"):
        run_on_board(sources, board, inputs=example, reference=module, timeout=0.2)


# ---- parsing and the report ------------------------------------------------------------------

def test_parse_outputs_round_trips_floats(lowered):
    sources, _, _ = lowered("op", "split")
    values = [np.float32(v) for v in (0.1, -1e-38, 3.4028235e38, 1.0 / 3.0)]
    lines = ["mcu-aot model: split", "mcu-aot cycles: 5"]
    arrays = []
    for k, spec in enumerate(sources.outputs):
        n = int(np.prod(spec.shape))
        a = np.array([values[i % len(values)] for i in range(n)], np.float32)
        arrays.append(a.reshape(spec.shape))
        lines.append(f"mcu-aot output {k} float32 {n}")
        text = [f"{float(v):.9g}" for v in a]
        lines += [" ".join(text[i:i + 8]) for i in range(0, n, 8)]
    lines.append("mcu-aot status: 0")
    outputs, status = parse_outputs("\n".join(lines) + "\n", sources)
    assert status == 0 and len(outputs) == len(arrays)
    for got, want in zip(outputs, arrays):
        assert got.tobytes() == want.tobytes()
    assert parse_outputs("mcu-aot status: 4\n", sources) == ((), 4)


def test_max_abs_error_treats_nan_like_torch_allclose():
    nan = float("nan")
    assert max_abs_error(np.array([1.0, nan]), np.array([1.5, nan])) == 0.5
    assert max_abs_error(np.array([1.0, 2.0]), np.array([1.0, nan])) == float("inf")
    assert max_abs_error(np.zeros(2), np.zeros(3)) == float("inf")


# ---- the command line ------------------------------------------------------------------------

def test_cli_boards_lists_every_board(capsys):
    assert cli.main(["boards"]) == 0
    out = capsys.readouterr().out
    for name in BOARDS:
        board = load_board(name)
        assert name in out and board.cpu in out
    assert "512 KiB" in out and "4,096 KiB" in out


def test_cli_firmware_then_make(kws_pt2, tmp_path, capsys):
    board = require_board("mps2-an386")
    x = np.random.default_rng(7).standard_normal((1, 1, 49, 10)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "fw"
    assert cli.main(["firmware", str(kws_pt2), "--board", "mps2-an386", "-o", str(out),
                     "--inputs", str(tmp_path / "x.npy"), "--name", "kws"]) == 0
    printed = capsys.readouterr().out
    assert "kws" in printed and "make -C" in printed
    np.testing.assert_array_equal(np.load(out / "inputs_0.npy"), x)
    subprocess.run(["make", "-s", "-C", str(out)], check=True, capture_output=True)
    assert (out / "build" / board.name / "firmware.elf").is_file()


def test_cli_run_compares_with_torch(kws_pt2, capsys):
    require_board("riscv32-virt")
    assert cli.main(["run", str(kws_pt2), "--board", "riscv32-virt"]) == 0
    out = capsys.readouterr().out
    for row in ("max abs error", "vs torch eager", "arena", "64,000 bytes", "text/data/bss",
                "instructions", "per inference"):
        assert row in out, out


def test_cli_run_fails_above_the_tolerance(kws_pt2, capsys):
    require_board("host")
    assert cli.main(["run", str(kws_pt2), "--board", "host", "--tolerance", "-1"]) == 1
    assert "TOO LARGE" in capsys.readouterr().out


def test_cli_run_pte_against_executorch(kws_pt2, tmp_path, capsys):
    require_board("host")
    require_module("executorch")
    assert cli.main(["compile", str(kws_pt2), "-o", str(tmp_path), "--name", "kws"]) == 0
    capsys.readouterr()
    assert cli.main(["run", str(tmp_path / "kws.pte"), "--board", "host", "--name", "kws"]) == 0
    assert "vs ExecuTorch runtime" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["firmware", "{pt2}", "--board", "stm32-nonexistent", "-o", "{out}"], "unknown board"),
    (["run", "{pt2}", "--board", "stm32-nonexistent"], "unknown board"),
])
def test_cli_errors_are_one_line(argv, needle, kws_pt2, tmp_path, capsys):
    out = tmp_path / "fw"
    argv = [a.format(pt2=kws_pt2, out=out) for a in argv]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1
    assert not out.exists()
