"""Boards: what a target is (CPU, compiler flags, memory, how QEMU runs it), read from
boards/<name>/board.json. The board folders themselves hold startup code, linker scripts and
the platform layer; boards/common/firmware.mk builds firmware for any of them.

board.json (every key is required; null where the board has none):
    name          folder name, e.g. "mps2-an386"
    description   one line for people
    arch          "arm", "riscv" or "host" (host: the build machine, no QEMU)
    cpu           e.g. "cortex-m4", "rv32imac", "native"
    cpu_hz        rate of plat_cycles(); under QEMU -icount shift=0 one guest instruction
                  takes 1 ns, so instructions = cycles * 1e9 / cpu_hz. null: no count
    toolchain     {"prefix": "arm-none-eabi-", "cflags": [...], "ldflags": [...]}
    sources       startup and platform files, relative to the board folder
    linker_script relative to the board folder; null for host
    memory        {"flash": {"origin", "length"}, "ram": {"origin", "length"}, "stack"}:
                  numbers or "0x..." strings; null for host
    qemu          {"system": "qemu-system-arm", "machine": "mps2-an386", "options": [...]};
                  null for host
    apt           the Debian packages that provide make, the compiler and QEMU
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .codegen.runtime import PORTABLE, available_arches
from .errors import BoardError
from .resources import data_dir

ARCHES = ("arm", "riscv", "host")


def data_root() -> Path:
    """The boards/ folder: the installed copy (aot/_data/boards) or a source checkout's."""
    return data_dir("boards")


@dataclass(frozen=True)
class Region:
    origin: int
    length: int


@dataclass(frozen=True)
class QemuSpec:
    system: str                 # e.g. "qemu-system-arm"
    machine: str                # e.g. "mps2-an386"
    options: tuple[str, ...]    # extra options, e.g. ("-bios", "none")


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    arch: str
    cpu: str
    cpu_hz: int | None
    prefix: str                 # toolchain prefix: "arm-none-eabi-", "" for host
    cflags: tuple[str, ...]
    ldflags: tuple[str, ...]
    sources: tuple[str, ...]
    linker_script: str | None
    flash: Region | None
    ram: Region | None
    stack_size: int | None
    qemu: QemuSpec | None
    apt: tuple[str, ...]
    path: Path                  # the board folder
    # runtime_c/src/arch/<runtime_arch>/ files replace their portable twins in this board's
    # firmware ("portable": none). "cortex_m_dsp" needs a CPU with the DSP extension,
    # "cortex_m_mve" one with Helium (and builds on cortex_m_dsp).
    runtime_arch: str = "portable"

    @property
    def cc(self) -> str:
        return f"{self.prefix}gcc"

    def install_command(self) -> str:
        return "apt-get install " + " ".join(self.apt)


def board_dir(name: str) -> Path:
    """The folder of a known board; BoardError naming the known ones otherwise."""
    path = data_root() / name
    if name == "common" or not (path / "board.json").is_file():
        raise BoardError(f"unknown board {name!r}; known boards: {', '.join(list_boards())}")
    return path


def list_boards() -> list[str]:
    return sorted(p.parent.name for p in data_root().glob("*/board.json"))


def _int(value) -> int:
    return value if isinstance(value, int) else int(value, 0)


def _region(spec) -> Region:
    return Region(_int(spec["origin"]), _int(spec["length"]))


def parse_board(data: dict, path: Path) -> Board:
    """A Board from board.json's content; BoardError for a missing key or a bad value."""
    try:
        tc, mem, q = data["toolchain"], data["memory"], data["qemu"]
        board = Board(
            name=data["name"], description=data["description"], arch=data["arch"],
            cpu=data["cpu"], cpu_hz=data["cpu_hz"], prefix=tc["prefix"],
            cflags=tuple(tc["cflags"]), ldflags=tuple(tc["ldflags"]),
            sources=tuple(data["sources"]), linker_script=data["linker_script"],
            flash=_region(mem["flash"]) if mem else None,
            ram=_region(mem["ram"]) if mem else None,
            stack_size=_int(mem["stack"]) if mem else None,
            qemu=QemuSpec(q["system"], q["machine"], tuple(q["options"])) if q else None,
            apt=tuple(data["apt"]), path=path,
            runtime_arch=data.get("runtime_arch", "portable"))
    except (KeyError, TypeError, ValueError) as e:
        raise BoardError(f"{path / 'board.json'}: bad or missing field: {e}") from None
    if board.arch not in ARCHES:
        raise BoardError(f"{path / 'board.json'}: arch must be one of {ARCHES}, not {board.arch!r}")
    if board.arch != "host" and (board.flash is None or board.qemu is None):
        raise BoardError(f"{path / 'board.json'}: a {board.arch} board needs memory and qemu")
    _check_runtime_arch(board, path)
    return board


# Cortex-M cores with the DSP extension (SMLAD and friends): what runtime_arch cortex_m_dsp needs.
DSP_CPUS = ("cortex-m4", "cortex-m7", "cortex-m33", "cortex-m35p", "cortex-m55", "cortex-m85")
# Cortex-M cores with Helium (MVE): what cortex_m_mve needs.
MVE_CPUS = ("cortex-m55", "cortex-m85")
# runtime_arch -> (the CPUs that can run it, the extension's name)
ARCH_CPUS = {"cortex_m_dsp": (DSP_CPUS, "the DSP extension"),
             "cortex_m_mve": (MVE_CPUS, "Helium (MVE)")}


def _check_runtime_arch(board: Board, path: Path) -> None:
    """A kernel variant the CPU cannot run is refused here, not as an illegal instruction."""
    arch = board.runtime_arch
    if arch != PORTABLE and arch not in available_arches():
        raise BoardError(f"{path / 'board.json'}: runtime_arch {arch!r} is not a folder of "
                         f"runtime_c/src/arch (there are: {', '.join(available_arches())})")
    if arch in ARCH_CPUS and board.cpu not in ARCH_CPUS[arch][0]:
        cpus, extension = ARCH_CPUS[arch]
        raise BoardError(f"{path / 'board.json'}: runtime_arch {arch} needs a CPU with "
                         f"{extension} ({', '.join(cpus)}); {board.cpu} has none")


def load_board(name: str) -> Board:
    path = board_dir(name)
    try:
        data = json.loads((path / "board.json").read_text())
    except json.JSONDecodeError as e:
        raise BoardError(f"{path / 'board.json'} is not valid JSON: {e}") from None
    return parse_board(data, path)


def missing_tools(board: Board, build: bool = True, run: bool = True) -> list[str]:
    """The programs needed to build and/or run firmware for the board that are not on PATH."""
    tools = ["make", board.cc, f"{board.prefix}size"] if build else []
    if run and board.qemu is not None:
        tools.append(board.qemu.system)
    path = os.environ.get("PATH", "")
    return [t for t in tools if shutil.which(t, path=path) is None]


def check_toolchain(board: Board, build: bool = True, run: bool = True) -> None:
    """BoardError naming each missing tool and the apt-get command that installs them."""
    missing = missing_tools(board, build, run)
    if missing:
        raise BoardError(f"board {board.name!r} needs {', '.join(missing)}, not found on PATH; "
                         f"install with: {board.install_command()}")
