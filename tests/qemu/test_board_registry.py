"""aot.boards: loading board.json, errors for unknown boards and missing toolchains."""
from __future__ import annotations

import json

import pytest

from aot.boards import (Board, board_dir, check_toolchain, data_root, list_boards, load_board,
                        parse_board)
from aot.errors import BoardError

EXPECTED = {"host", "mps2-an385", "mps2-an386", "mps2-an500", "mps3-an547", "riscv32-virt"}


def test_all_boards_are_listed_and_load():
    assert EXPECTED <= set(list_boards())
    for name in list_boards():
        board = load_board(name)
        assert isinstance(board, Board) and board.name == name
        assert board.path == board_dir(name)
        for source in board.sources:
            assert (board.path / source).is_file(), source
        if board.arch != "host":
            assert (board.path / board.linker_script).is_file()
            assert board.ram.length >= board.stack_size > 0
            assert board.cpu_hz > 0


def test_data_root_is_the_checkout_boards_folder():
    assert (data_root() / "common" / "firmware.mk").is_file()


def test_unknown_board_lists_known_boards():
    with pytest.raises(BoardError) as err:
        load_board("stm32-nonexistent")
    message = str(err.value)
    assert "stm32-nonexistent" in message
    for name in EXPECTED:
        assert name in message
    with pytest.raises(BoardError):
        load_board("common")  # the shared folder is not a board


def test_missing_toolchain_names_the_apt_command(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing is installed here
    board = load_board("mps2-an386")
    with pytest.raises(BoardError) as err:
        check_toolchain(board)
    message = str(err.value)
    assert "arm-none-eabi-gcc" in message and "qemu-system-arm" in message
    assert "apt-get install make gcc-arm-none-eabi qemu-system-arm" in message


def test_missing_cross_compiler_for_a_made_up_prefix(tmp_path):
    data = json.loads((board_dir("mps2-an385") / "board.json").read_text())
    data["toolchain"]["prefix"] = "nonexistent-none-eabi-"
    data["apt"] = ["gcc-nonexistent"]
    board = parse_board(data, tmp_path)
    with pytest.raises(BoardError, match="nonexistent-none-eabi-gcc.*apt-get install gcc-nonexistent"):
        check_toolchain(board, run=False)


def test_bad_board_json_is_a_board_error(tmp_path):
    data = json.loads((board_dir("riscv32-virt") / "board.json").read_text())
    del data["toolchain"]
    with pytest.raises(BoardError, match="toolchain"):
        parse_board(data, tmp_path)
    data = json.loads((board_dir("riscv32-virt") / "board.json").read_text())
    data["arch"] = "mips"
    with pytest.raises(BoardError, match="arch"):
        parse_board(data, tmp_path)


def test_dsp_kernels_on_a_cpu_without_dsp_are_refused_at_load(tmp_path):
    """The M3 has no SMLAD: asking for the DSP kernels fails when the board is read, with the
    reason, never as an illegal instruction on the board."""
    data = json.loads((board_dir("mps2-an385") / "board.json").read_text())
    data["runtime_arch"] = "cortex_m_dsp"
    with pytest.raises(BoardError, match="cortex_m_dsp needs a CPU with the DSP extension.*"
                                         "cortex-m3 has none"):
        parse_board(data, tmp_path)
    data["runtime_arch"] = "avx512"
    with pytest.raises(BoardError, match="runtime_arch 'avx512' is not a folder"):
        parse_board(data, tmp_path)


def test_helium_kernels_on_a_cpu_without_helium_are_refused_at_load(tmp_path):
    """The M4 and M7 have DSP but no Helium: the MVE kernels are refused when the board is read."""
    for name, cpu in [("mps2-an386", "cortex-m4"), ("mps2-an500", "cortex-m7")]:
        data = json.loads((board_dir(name) / "board.json").read_text())
        data["runtime_arch"] = "cortex_m_mve"
        with pytest.raises(BoardError, match=f"cortex_m_mve needs a CPU with Helium.*{cpu} "
                                             "has none"):
            parse_board(data, tmp_path)


def test_dsp_boards_link_the_dsp_dot_products():
    from aot.firmware import board_runtime
    import aot
    from int8_models import lowered
    sources = aot.generate_c(lowered("mlp", True), name="m")
    assert "src/arch/cortex_m_dsp/dot_s8.c" in board_runtime(sources, load_board("mps2-an386"))
    assert "src/int8/dot_s8.c" in board_runtime(sources, load_board("mps2-an385"))
    assert "src/int8/dot_s8.c" not in board_runtime(sources, load_board("mps2-an386"))
    # the M55 takes the Helium dot products, over the DSP ones of its base arch
    m55 = board_runtime(sources, load_board("mps3-an547"))
    assert "src/arch/cortex_m_mve/dot_s8.c" in m55 and "src/arch/cortex_m_dsp/dot_s8.c" not in m55
