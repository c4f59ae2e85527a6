"""Write the make variables and the linker MEMORY block of one board, from its board.json.

    python3 board_vars.py boards/<name>/board.json BUILD_DIR

writes BUILD_DIR/board.mk (included by firmware.mk) and BUILD_DIR/memory.ld (included by the
board's linker script), so board.json stays the only place a board's facts are written.
Standard library only: a generated project builds without mcu-aot installed.
"""
import json
import shlex
import sys
from pathlib import Path


def as_int(value):
    return value if isinstance(value, int) else int(value, 0)


def make_list(items):
    return " ".join(shlex.quote(str(i)) for i in items)


def board_mk(board, board_dir):
    tc = board["toolchain"]
    sources = [str((board_dir / s).resolve()) for s in board.get("sources", [])]
    script = board.get("linker_script")
    qemu = board.get("qemu") or {}
    return "\n".join([
        "# Written by boards/common/board_vars.py from board.json: do not edit.",
        f"BOARD_NAME := {board['name']}",
        f"BOARD_ARCH := {board['arch']}",
        f"CROSS := {tc['prefix']}",
        f"BOARD_CFLAGS := {make_list(tc.get('cflags', []))}",
        f"BOARD_LDFLAGS := {make_list(tc.get('ldflags', []))}",
        f"BOARD_SOURCES := {make_list(sources)}",
        f"BOARD_LDSCRIPT := {(board_dir / script).resolve() if script else ''}",
        f"QEMU_SYSTEM := {qemu.get('system', '')}",
        f"QEMU_MACHINE := {qemu.get('machine', '')}",
        f"QEMU_OPTIONS := {make_list(qemu.get('options', []))}",
        "",
    ])


def memory_ld(board):
    mem = board["memory"]
    return "\n".join([
        "/* Written by boards/common/board_vars.py from board.json: do not edit. */",
        "MEMORY",
        "{",
        "    FLASH (rx) : ORIGIN = 0x%08x, LENGTH = 0x%x"
        % (as_int(mem["flash"]["origin"]), as_int(mem["flash"]["length"])),
        "    RAM (rwx) : ORIGIN = 0x%08x, LENGTH = 0x%x"
        % (as_int(mem["ram"]["origin"]), as_int(mem["ram"]["length"])),
        "}",
        "STACK_SIZE = 0x%x;" % as_int(mem["stack"]),
        "",
    ])


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: board_vars.py BOARD_JSON OUT_DIR")
    path, out = Path(argv[1]), Path(argv[2])
    board = json.loads(path.read_text())
    out.mkdir(parents=True, exist_ok=True)
    (out / "board.mk").write_text(board_mk(board, path.parent))
    if board.get("memory"):
        (out / "memory.ld").write_text(memory_ld(board))


if __name__ == "__main__":
    main(sys.argv)
