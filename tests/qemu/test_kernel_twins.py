"""Every fast kernel equals its portable twin, on every board that has fast kernels.

fixtures/twins links a board's runtime arch (runtime_c/src/arch/<arch>/: the SMLAD kernels of
the M4 and M7 boards, the Helium ones of the M55 on top of those) beside the portable int8
kernels renamed ref_*, runs thousands of random layers through both under QEMU (shapes, strides,
padding, dilation, groups, channel multipliers, offsets, per-channel requantization, activation
ranges, with and without scratch; 1-D convolutions and depthwise ones of one row; transposed
convolutions and batch matmuls, which run on the arch's dot products (the M55's batch matmul
on its own Helium kernel); average and max pooling
windows up to whole maps; a permute's strided byte rows; a lookup table's row; multiplies,
broadcast and single rows of any step; layer norms: rows of one value, NULL or tiny, huge,
infinite and NaN weights and biases, extreme scales) and requires every status and output
byte to agree; the arch's requantization shortcut is swept against the portable one too. The
float32 kernels an arch replaces (the Helium conv2d, conv2d_1x1, conv2d_depthwise and gemm of
the M55; the FPU register blocks of the M4 and M7 in conv2d, conv2d_1x1, conv2d_depthwise and
gemm) go through the same against the portable float kernels (fixtures/twins/twins_f32.c: 1-D,
groups, depthwise multipliers, fused activations, NaN and infinite inputs, NaN guards around
every tensor): equal statuses, and outputs equal to float32 rounding (fused multiply-adds and
another summation order). The in-place entries of pointwise and depthwise layers (by bands
through a scratch, the output planned over the input under --overlap) run with the output
where the planner may put it, and a step too high or with too little scratch: the fast and the
portable entry agree on the status, and their bytes are the portable kernel's into a buffer of
its own. The -O0 build checks the C loops
that stand in for the written-out inner loops. Boards whose CPU has no such extension (M3,
RISC-V) use the portable kernels only: tests/qemu/test_board_registry.py checks that they cannot
ask for a DSP arch."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from aot.boards import data_root, list_boards, load_board
from aot.codegen.runtime import PORTABLE, arch_chain, arch_files, runtime_dir
from aot.qemu import build_firmware, run_elf
from conftest import require_board, require_tool

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "twins"
FAST_BOARDS = [b for b in list_boards() if load_board(b).runtime_arch != PORTABLE]
KERNELS = {"requantize", "conv", "depthwise", "fully_connected", "add", "mul", "pool",
           "strided", "transpose_conv", "batch_matmul", "lut", "layer_norm", "cell", "in_place",
           "permute"}
# The float32 kernels' files, and the line each prints where the arch replaces it (no line
# elsewhere: the "fast" kernel would be the portable one).
F32_KERNELS = {"conv2d.c": "conv_f32", "conv2d_1x1.c": "conv_1x1_f32",
               "conv2d_depthwise.c": "depthwise_f32", "gemm.c": "gemm_f32"}


def expected_kernels(arch: str) -> set[str]:
    names = {f.rsplit("/", 1)[-1] for f in arch_files(arch)}
    return KERNELS | {line for file, line in F32_KERNELS.items() if file in names}


def test_every_fast_arch_is_checked():
    """The DSP and Helium boards are here (a board gaining an arch is checked without editing
    this), and each arch's every file is linked into its check."""
    assert {"mps2-an386", "mps2-an500", "mps3-an547"} <= set(FAST_BOARDS)
    assert load_board("mps3-an547").runtime_arch == "cortex_m_mve"
    assert "src/arch/cortex_m_mve/conv_s8.c" in arch_files("cortex_m_mve")
    assert arch_chain("cortex_m_mve")[-1] == "cortex_m_dsp"   # built on the DSP arch
    assert "src/arch/cortex_m_mve/add_row_s8.c" in arch_files("cortex_m_mve")
    assert "src/arch/cortex_m_dsp/add_row_s8.c" not in arch_files("cortex_m_mve")
    assert "src/arch/cortex_m_mve/mul_row_s8.c" in arch_files("cortex_m_mve")
    assert "src/arch/cortex_m_dsp/conv_s8.c" not in arch_files("cortex_m_mve")
    assert "src/arch/cortex_m_mve/conv2d.c" in arch_files("cortex_m_mve")
    assert "src/arch/cortex_m_mve/conv_mve.c" in arch_files("cortex_m_mve")   # its helper
    assert expected_kernels("cortex_m_mve") == KERNELS | set(F32_KERNELS.values())
    assert expected_kernels("cortex_m_dsp") == KERNELS | {"conv_f32", "conv_1x1_f32",
                                                          "depthwise_f32", "gemm_f32"}


# Each fast board at -O2, at -O0, and as a debug build (-Og: other registers, and functions
# not aligned to a word; a frame pointer kept, which firmware.mk leaves out of the arch files,
# whose loops take r7); the Helium board twice more with its depthwise band at full size, at
# -O2 and as a debug build (the twins' own band is small, so that layers too big for it run
# too; the gathered taps need the full one). The -O2 build with the small band runs 1,000
# random cases of each kernel; the others, which check the same C compiled otherwise or with
# the other band, a quarter of them, and the -O0 build a tenth (it runs about four times
# slower under QEMU).
DEBUG = "-Og -fno-omit-frame-pointer"


def cases(opt: str, band: str) -> int:
    if opt == "-O0":
        return 100
    return 1000 if (opt, band) == ("-O2", "160") else 250


RUNS = [(b, opt, band) for b in FAST_BOARDS for opt, band in
        [("-O2", "160"), ("-O0", "160"), (DEBUG, "160")] +
        ([("-O2", ""), (DEBUG, "")] if load_board(b).runtime_arch == "cortex_m_mve" else [])]


@pytest.mark.parametrize("board_name,opt,band", RUNS,
                         ids=[f"{b}-{'debug' if o == DEBUG else o}{'' if band else '-full-band'}"
                              for b, o, band in RUNS])
def test_fast_kernels_equal_portable_twins(board_name, opt, band, tmp_path):
    board = require_board(board_name)
    files = " ".join(str(runtime_dir() / f) for f in arch_files(board.runtime_arch))
    elf = build_firmware(FIXTURE, board, build_dir=tmp_path,
                         make_vars={"ARCHES": " ".join(arch_chain(board.runtime_arch)),
                                    "ARCH_FILES": files, "OPT": opt, "DW_BAND": band,
                                    "TWINS_CASES": str(cases(opt, band))})
    # (the timeout catches a hang, not slowness: the M55's -O0 build under QEMU has taken
    # over 300 s on a loaded machine, the last 2,000 depthwise cases alone a minute or more)
    result = run_elf(elf, board, timeout=1200)
    counts = {m[0]: (int(m[1]), int(m[2])) for m in
              re.findall(r"^twins (\w+) cases (\d+) mismatches (\d+)$", result.stdout, re.M)}
    assert set(counts) == expected_kernels(board.runtime_arch), result.stdout
    for kernel, (done, bad) in counts.items():
        # (the layers in place run a quarter of the cases, each pointwise and depthwise)
        assert done >= cases(opt, band) // (4 if kernel == "in_place" else 1), result.stdout
        assert bad == 0, result.stdout
    # every window op's kernels also ran with their outputs over their inputs (aot/overlap.py)
    overlapped = re.search(r"^twins overlapped runs (\d+)$", result.stdout, re.M)
    assert overlapped and int(overlapped[1]) >= 2 * cases(opt, band), result.stdout
    assert result.exit_code == 0, result.stdout


# What firmware builds use besides the twins' -O2 and -O0: debug (-Og, -O1), size (-Os) and
# -O3, under which the assembly loops must still find their registers (and their widening
# loads and narrowing stores, whose base must be r0-r7). (The frame pointer stays omitted,
# gcc's default from -O1: the loops need r7, and firmware.mk and the generated CMake target
# keep it so where a build asks for one.)
BUILD_OPTS = ["-O1", "-Og", "-Os", "-O3"]


@pytest.mark.parametrize("opts", BUILD_OPTS)
@pytest.mark.parametrize("board_name", FAST_BOARDS)
def test_fast_kernels_build_at_every_optimization(board_name, opts, tmp_path):
    board = load_board(board_name)
    cc = require_tool(board.cc)
    include = runtime_dir() / "include"
    boards_include = data_root() / "common" / "include"
    files = [str(runtime_dir() / f) for f in arch_files(board.runtime_arch)]
    cmd = [cc, "-std=c99", *opts.split(), "-Wall", "-Wextra", "-Wpedantic", "-Werror",
           *board.cflags, "-ffreestanding", "-isystem", str(boards_include), f"-I{include}",
           "-c", *files]
    res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == "", res.stderr[-3000:]
