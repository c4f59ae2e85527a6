"""Every board builds and runs the smoke firmware (fixtures/smoke.c): values match numpy, the
exit code is the program's, faults are reported, and instruction counts repeat exactly."""
from __future__ import annotations

import math
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import require_board

from aot.boards import data_root, list_boards, load_board
from aot.errors import BoardError
from aot.qemu import FAULT_EXIT_CODE, build_firmware, qemu_command, run_elf

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BOARDS = list_boards()
QEMU_BOARDS = [b for b in BOARDS if load_board(b).qemu is not None]

VARIANTS = {  # name: EXTRA_CFLAGS for smoke.c
    "default": "",
    "exit3": "-DSMOKE_EXIT_CODE=3",
    "trap": "-DSMOKE_FAULT=1",
    "bad_read": "-DSMOKE_BAD_READ=0xF0000000u",  # nothing answers there on any board
    "hang": "-DSMOKE_HANG=1",
    "wrap": "-DSMOKE_LOOP=360000000u",  # 720 M instructions: SysTick wraps at 2^24 ticks
}




@pytest.fixture(scope="session")
def firmware(tmp_path_factory):
    """firmware(board, variant) -> (Board, ELF path), each built once per session."""
    built = {}

    def get(name: str, variant: str = "default"):
        if (name, variant) not in built:
            board = require_board(name)
            out = tmp_path_factory.mktemp(f"{name}-{variant}")
            elf = build_firmware(FIXTURES, board, build_dir=out,
                                 make_vars={"EXTRA_CFLAGS": VARIANTS[variant]})
            built[name, variant] = board, elf
        return built[name, variant]

    return get


def values(stdout: str) -> dict[str, float]:
    """The "name value" lines the smoke firmware prints."""
    out = {}
    for line in stdout.splitlines():
        name, _, value = line.partition(" ")
        if name.isidentifier():
            out[name] = float(value)
    return out


def expected_dot() -> np.float32:
    """The smoke firmware's dot product, accumulated in float32 in the same order."""
    acc = np.float32(0)
    for i in range(256):
        w = np.float32(i % 7) * np.float32(0.25) - np.float32(0.5)
        x = np.float32(i) / np.float32(256)
        acc = np.float32(acc + np.float32(w * x))
    return acc


@pytest.mark.parametrize("name", BOARDS)
def test_smoke_values_match_numpy(firmware, name):
    board, elf = firmware(name)
    result = run_elf(elf, board)
    assert result.exit_code == 0, result.stdout + result.stderr
    got = values(result.stdout)
    want = {"expf": math.exp(0.5), "logf": math.log(3.0), "tanhf": math.tanh(-1.25),
            "erff": math.erf(-1.25), "sqrtf": math.sqrt(3.0), "powf": 3.0 ** 0.5,
            "bias": 1.0, "dot": float(expected_dot()), "memcpy_bad": 0,
            "memset_bad": 0}
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-6), key
    assert np.float32(got["dot"]) == expected_dot()  # no fused multiply-add: bit-exact


def test_boards_print_identical_results(firmware):
    """Soft float, FPUs and the host all round the same way, and the math is shared."""
    outputs = {}
    for name in BOARDS:
        board, elf = firmware(name)
        stdout = run_elf(elf, board).stdout
        outputs[name] = [ln for ln in stdout.splitlines() if not ln.startswith("mcu-aot")]
    reference = outputs[BOARDS[0]]
    assert len(reference) == 10
    for name, lines in outputs.items():
        assert lines == reference, name


@pytest.mark.parametrize("name", BOARDS)
def test_exit_code_is_the_programs(firmware, name):
    board, elf = firmware(name, "exit3")
    result = run_elf(elf, board)
    assert result.exit_code == 3
    assert result.fault is None
    assert "dot " in result.stdout


@pytest.mark.parametrize("variant", ["trap", "bad_read"])
@pytest.mark.parametrize("name", BOARDS)
def test_fault_is_reported(firmware, name, variant):
    board, elf = firmware(name, variant)
    result = run_elf(elf, board)
    assert result.exit_code == FAULT_EXIT_CODE, result.stdout + result.stderr
    assert result.fault is not None and result.fault.startswith("FAULT: ")
    assert "dot " in result.stdout  # what came before the fault was printed
    if variant == "bad_read" and board.arch == "arm":
        assert "bfar=0xf0000000" in result.fault
    if variant == "bad_read" and board.arch == "riscv":
        assert "mtval=0xf0000000" in result.fault


@pytest.mark.parametrize("name", QEMU_BOARDS)
def test_instruction_count_is_deterministic(firmware, name):
    board, elf = firmware(name)
    first, second = run_elf(elf, board), run_elf(elf, board)
    assert first.cycles == second.cycles
    assert len(first.cycles) == 2 and first.cycles[0] > 0
    # the calibration loop is 100000 iterations of two instructions
    assert first.instructions == pytest.approx(200_000, abs=100)


@pytest.mark.parametrize("name", ["mps2-an385"])
def test_cycle_count_survives_systick_wraps(firmware, name):
    board, elf = firmware(name, "wrap")
    result = run_elf(elf, board, timeout=120)
    assert result.cycles[1] > 2**24
    assert result.instructions == pytest.approx(720_000_000, abs=100)


@pytest.mark.parametrize("name", ["mps2-an385", "riscv32-virt", "host"])
def test_hang_raises_a_timeout(firmware, name):
    board, elf = firmware(name, "hang")
    with pytest.raises(BoardError, match="did not exit within"):
        run_elf(elf, board, timeout=1)


@pytest.mark.parametrize("name", QEMU_BOARDS)
def test_make_run_uses_the_same_qemu_command(firmware, name, tmp_path):
    board, elf = firmware(name)
    out = subprocess.run(["make", "-s", "-n", "-C", str(FIXTURES), f"BOARD_DIR={board.path}",
                          f"BUILD_DIR={elf.parent}", f"PYTHON={sys.executable}", "run"],
                         capture_output=True, text=True, check=True).stdout
    assert shlex.split(out.strip().splitlines()[-1]) == qemu_command(board, elf)


@pytest.mark.parametrize("name", BOARDS)
def test_board_vars_follow_board_json(name, tmp_path):
    """board_vars.py (used by make) and aot.boards read board.json the same way."""
    board = load_board(name)
    subprocess.run([sys.executable, str(data_root() / "common" / "board_vars.py"),
                    str(board.path / "board.json"), str(tmp_path)], check=True)
    mk = dict(line.split(" := ", 1) for line in (tmp_path / "board.mk").read_text().splitlines()
              if " := " in line)
    assert mk["CROSS"] == board.prefix
    assert shlex.split(mk["BOARD_CFLAGS"]) == list(board.cflags)
    assert len(shlex.split(mk["BOARD_SOURCES"])) == len(board.sources)
    if board.flash is not None:
        memory = (tmp_path / "memory.ld").read_text()
        assert f"ORIGIN = 0x{board.flash.origin:08x}, LENGTH = 0x{board.flash.length:x}" in memory
        assert f"ORIGIN = 0x{board.ram.origin:08x}, LENGTH = 0x{board.ram.length:x}" in memory
