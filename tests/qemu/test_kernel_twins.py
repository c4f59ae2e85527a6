"""Every fast kernel equals its portable twin, on every board that has fast kernels.

fixtures/twins links a board's runtime arch (runtime_c/src/arch/<arch>/, e.g. the SMLAD
kernels of the M4, M7 and M55 boards) beside the portable int8 kernels renamed ref_*, runs
thousands of random layers through both under QEMU (shapes, strides, padding, dilation,
groups, channel multipliers, offsets, per-channel requantization, activation ranges, with and
without scratch) and requires every status and output byte to agree; the arch's
requantization shortcut is swept against the portable one too. The -O0 build checks the C
loops that stand in for the written-out inner loops. Boards whose CPU has no such extension
(M3, RISC-V) use the portable kernels only: tests/qemu/test_board_registry.py checks that
they cannot ask for a DSP arch."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from aot.boards import list_boards, load_board
from aot.codegen.runtime import PORTABLE
from aot.qemu import build_firmware, run_elf
from conftest import require_board

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "twins"
FAST_BOARDS = [b for b in list_boards() if load_board(b).runtime_arch != PORTABLE]
KERNELS = {"requantize", "conv", "depthwise", "fully_connected", "add"}


def test_every_fast_arch_is_checked():
    """The DSP boards are here (a board gaining an arch is checked without editing this)."""
    assert {"mps2-an386", "mps2-an500", "mps3-an547"} <= set(FAST_BOARDS)


@pytest.mark.parametrize("opt", ["-O2", "-O0"])
@pytest.mark.parametrize("board_name", FAST_BOARDS)
def test_fast_kernels_equal_portable_twins(board_name, opt, tmp_path):
    board = require_board(board_name)
    elf = build_firmware(FIXTURE, board, build_dir=tmp_path,
                         make_vars={"ARCH": board.runtime_arch, "OPT": opt})
    result = run_elf(elf, board, timeout=300)
    counts = {m[0]: (int(m[1]), int(m[2])) for m in
              re.findall(r"^twins (\w+) cases (\d+) mismatches (\d+)$", result.stdout, re.M)}
    assert set(counts) == KERNELS, result.stdout
    for kernel, (cases, bad) in counts.items():
        assert cases >= 2000 and bad == 0, result.stdout
    assert result.exit_code == 0, result.stdout
