"""Shared test helpers. Under CI=true a missing tool fails the test; elsewhere it skips."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))   # op_models and other shared test modules

IN_CI = os.environ.get("CI", "").lower() == "true"
REPO = TESTS.parent
# The suite's aot.host cache: its libraries and runtime objects are keyed by content, so every
# module and worker shares them (a new model then compiles only its own translation unit).
HOST_CACHE = REPO / "build" / "host-cache"


def pytest_configure(config):
    """The suite builds about a thousand firmware images, each compiling the same runtime
    files: firmware.mk runs the compiler under ccache (CC_LAUNCHER), keyed by the source, the
    headers it reads and every flag, so a hit is the object the compiler would give. Paths
    are hashed relative to the project (CCACHE_BASEDIR=/, no working folder), so projects in
    different temporary folders share their runtime objects."""
    ccache = shutil.which("ccache")
    if ccache is None:
        if IN_CI:
            raise pytest.UsageError("ccache is required in CI (make test installs it)")
        return
    os.environ.setdefault("CC_LAUNCHER", ccache)
    os.environ.setdefault("CCACHE_DIR", str(REPO / "build" / "ccache"))
    os.environ.setdefault("CCACHE_BASEDIR", "/")
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")


def require(condition: bool, what: str) -> None:
    """Fail under CI, skip elsewhere, when a tool or package the test needs is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI (make test installs it)")
    pytest.skip(f"{what} not available")


def require_tool(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"tool {name!r}")
    return path


@pytest.fixture(scope="session")
def cache():
    """The host builds' cache (aot.host.build's cache_dir), gcc present to build into it."""
    require_tool("gcc")
    return HOST_CACHE


def require_module(name: str):
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        require(False, f"python package {name!r}")


def require_board(name: str):
    """The board, after checking its toolchain and QEMU are installed (fail in CI if not)."""
    from aot.boards import check_toolchain, load_board
    from aot.errors import BoardError
    board = load_board(name)
    try:
        check_toolchain(board)
    except BoardError as e:
        require(False, str(e))
    return board


def one_board_per_kernel_build(boards: list[str]) -> list[str]:
    """The first of the boards for each kernel build (runtime arch, compiler and float ABI): a
    sweep of many small programs runs on these, the networks on every board."""
    from aot.boards import load_board

    def build(name: str) -> tuple:
        board = load_board(name)
        abi = [f for f in board.cflags if f.startswith(("-mfloat-abi", "-mabi"))]
        return board.runtime_arch, board.cc, tuple(abi)
    first: dict[tuple, str] = {}
    for name in boards:
        first.setdefault(build(name), name)
    return list(first.values())
