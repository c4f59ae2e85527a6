"""The boards' own small C library, checked on the host: printf_min against glibc's printf,
mathf_min against glibc's double-precision functions rounded to float."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import require_module, require_tool

from aot.boards import data_root

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-fno-math-errno", "-Wall", "-Wextra", "-Werror"]

# The documented bounds (mathf_min.c): exact functions 0 ulp, the others at most 2.
EXACT = {"sqrtf", "fabsf", "floorf", "ceilf", "truncf", "roundf", "rintf", "fmodf"}
MAX_ULP = 2


def build(tmp_path: Path, name: str, commands: list[list[str]]) -> Path:
    require_tool("gcc")
    for cmd in commands:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    return tmp_path / name


def test_printf_min_matches_glibc(tmp_path):
    common = data_root() / "common"
    exe = build(tmp_path, "printf_check", [[
        "gcc", *FLAGS, "-ffreestanding", f"-I{common}", str(FIXTURES / "printf_check.c"),
        str(common / "printf_min.c"), "-o", "printf_check"]])
    out = subprocess.run([exe], capture_output=True, text=True).stdout
    assert out.strip().endswith("mismatches 0"), out


def mathf_errors(tmp_path: Path, *defines: str, stride: int = 4099) -> dict[str, int]:
    common = data_root() / "common"
    exe = build(tmp_path, "mathf_check", [
        # mathf_min.c is compiled as for a board (its own math.h); the harness with glibc's
        ["gcc", *FLAGS, *defines, "-ffreestanding", "-isystem", str(common / "include"), "-c",
         str(common / "mathf_min.c"), "-o", "mathf_min.o"],
        ["gcc", *FLAGS, "-fno-builtin", "-c", str(FIXTURES / "mathf_check.c"), "-o", "check.o"],
        ["gcc", "check.o", "mathf_min.o", "-lm", "-o", "mathf_check"]])
    out = subprocess.run([exe, str(stride)], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: int(line.split()[2]) for line in out.splitlines()}


def test_mathf_min_accuracy(tmp_path):
    errors = mathf_errors(tmp_path)
    assert EXACT | {"expf", "expm1f", "logf", "log2f", "log10f", "log1pf", "tanhf", "erff",
                    "powf", "sinf", "cosf"} <= set(errors)
    for name, ulp in errors.items():
        assert ulp <= (0 if name in EXACT else MAX_ULP), (name, ulp)


def test_software_sqrtf_is_correctly_rounded(tmp_path):
    """The bit-by-bit sqrtf that FPU-less boards use, swept on the host."""
    assert mathf_errors(tmp_path, "-DMATHF_SOFT_SQRT", stride=1021)["sqrtf"] == 0


def test_erff_coefficients_regenerate_unchanged():
    """mathf_fit.py reproduces the erff tables pasted into mathf_min.c."""
    require_module("mpmath")
    common = data_root() / "common"
    printed = subprocess.run([sys.executable, str(common / "mathf_fit.py")], capture_output=True,
                             text=True, check=True).stdout
    source = " ".join((common / "mathf_min.c").read_text().split())
    for line in printed.splitlines():
        name = line.split("[")[0].split()[-1]
        values = line.split("{")[1].split("}")[0]
        assert f"{name}[" in source
        table = source.split(f"{name}[")[1].split("{")[1].split("}")[0]
        assert table.split() == values.split(), name
