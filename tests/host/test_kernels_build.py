"""runtime_c builds warning-free under the strict flags for the host and for
Cortex-M4, and every kernel test passes under ASan + UBSan."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_tool

import kernel_harness
from kernel_harness import INCLUDE, REPO, STRICT_FLAGS, runtime_sources

HERE = Path(__file__).resolve().parent
# Beyond the required flags: catch accidental double math (soft-float on an
# FPv4-SP core), silent narrowing, shadowing and undeclared public functions.
EXTRA_WARNINGS = ["-Wdouble-promotion", "-Wconversion", "-Wshadow",
                  "-Wstrict-prototypes", "-Wmissing-prototypes"]
# Firmware builds see no C library: the boards' freestanding headers stand in for it, as in
# boards/common/firmware.mk (gcc-arm-none-eabi alone brings no newlib headers).
BOARD_INCLUDE = REPO / "boards" / "common" / "include"
TARGETS = {
    "host-gcc": ["gcc"],
    "cortex-m4": ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                  "-mfpu=fpv4-sp-d16", "-ffreestanding", "-isystem", str(BOARD_INCLUDE)],
}


def require(cc: str) -> None:
    require_tool(cc)


@pytest.mark.parametrize("checks", ["checks", "no_checks"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_strict_compile(target, checks, tmp_path):
    cc, *arch = TARGETS[target]
    require(cc)
    # every public header must compile on its own
    headers = []
    for h in sorted(INCLUDE.glob("*.h")):
        tu = tmp_path / f"only_{h.stem}.c"
        tu.write_text(f'#include "{h.name}"\ntypedef int rt_translation_unit_not_empty;\n')
        headers.append(tu)
    flags = STRICT_FLAGS + EXTRA_WARNINGS + arch
    if checks == "no_checks":
        flags.append("-DRT_CONFIG_NO_CHECKS")
    cmd = [cc, *flags, f"-I{INCLUDE}", "-c", *map(str, runtime_sources() + headers)]
    res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr == "", res.stderr


# Reads 8 floats from a 4-float numpy buffer: must be reported, otherwise a
# clean sanitizer run proves nothing.
OOB_PROBE = """
import numpy as np, kernel_harness as kh
rt = kh.load()
x, out = np.zeros(4, np.float32), np.zeros(8, np.float32)
rt.lib.rt_copy_f32(rt.shape((8,)), rt.data(x), rt.shape((8,)), rt.data(out))
"""


# beside the other sanitized pass (make test: --dist loadgroup), one after the other on one
# worker, so the portable runtime's sanitized objects compile once (aot.host's object cache)
@pytest.mark.xdist_group("sanitized_kernels")
def test_kernels_under_sanitizers():
    require("gcc")
    env = kernel_harness.sanitizer_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    probe = subprocess.run([sys.executable, "-c", OOB_PROBE], env=env, cwd=HERE,
                           capture_output=True, text=True, timeout=600)
    assert probe.returncode != 0 and "heap-buffer-overflow" in probe.stderr, probe.stderr[-2000:]
    # Every kernel-level test file (test_kernels.py and test_kernels_<family>.py) but this
    # one and the arch files' own (test_kernels_fast.py runs its sanitizer pass itself).
    files = [str(f) for f in sorted(HERE.glob("test_kernels*.py"))
             if f.name not in ("test_kernels_build.py", "test_kernels_fast.py")]
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          *files],
                         env=env, cwd=HERE, capture_output=True, text=True, timeout=1800)
    log = res.stdout[-4000:] + res.stderr[-4000:]
    assert res.returncode == 0, log
    for marker in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
        assert marker not in res.stdout + res.stderr, log
