"""`aot compile` as a library for real firmware builds: the folder builds with CMake (Debian's
cmake) for the host and, with an arm-none-eabi toolchain file, for the Cortex-M4 of the
MPS2-AN386, where it runs under QEMU; two models share one runtime in one application; a
name used twice, or folders of two different runtimes, are refused at configure time; and a
firmware places the weights in a named section of its linker script.

The application (fixtures/cmake/CMakeLists.txt) runs every model on inputs main.c computes
((i * 37 % 101 - 50) / 25, exact in float32) and prints each output value; the test
computes the same inputs in numpy and compares with eager torch."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from aot import cli
from aot.boards import load_board
from aot.errors import AotError, BoardError
from aot.firmware import run_on_board
from aot.qemu import run_elf
from aot.zoo import ZOO
from conftest import require_board, require_tool

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "cmake"
BOARDS = Path(__file__).resolve().parents[2] / "boards"
NETS = {"kws": "kws", "ae": "autoencoder"}      # library name -> zoo network


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """name -> (module, .pt2 path, input shape) for the two float32 zoo networks."""
    out = {}
    for name, zoo in NETS.items():
        module, example = ZOO[zoo]()
        path = tmp_path_factory.mktemp("pt2") / f"{name}.pt2"
        torch.export.save(torch.export.export(module, example), str(path))
        out[name] = (module, path, tuple(example[0].shape))
    return out


def pattern(shape) -> np.ndarray:
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((i * 37) % 101 - 50).astype(np.float32) / np.float32(25.0)).reshape(shape)


MAIN = """#include <stdint.h>
#ifdef APP_ON_BOARD
#include "platform.h"
#include "printf_min.h"
#define PRINT mini_printf
#else
#include <stdio.h>
#define PRINT printf
#endif
{includes}
{bodies}
int main(void)
{{
    int32_t s = 0;
#ifdef APP_ON_BOARD
    plat_init();
#endif
{calls}
    PRINT("app status %ld\\n", (long)s);
    return s == 0 ? 0 : 1;
}}
"""

BODY = """
static uint8_t {n}_arena[{N}_ARENA_SIZE] __attribute__((aligned({N}_ARENA_ALIGN)));
static float {n}_in[{N}_INPUT0_NUMEL], {n}_out[{N}_OUTPUT0_NUMEL];

static int32_t run_{n}(void)
{{
    const void *ins[1] = {{{n}_in}};
    void *outs[1] = {{{n}_out}};
    int32_t s;
    uint32_t i;
    for (i = 0; i < {N}_INPUT0_NUMEL; i++) {{
        {n}_in[i] = (float)((int32_t)((i * 37u) % 101u) - 50) / 25.0f;
    }}
    s = {n}_init({n}_arena);
    if (s == 0) {{
        s = {n}_run({n}_arena, ins, outs);
    }}
    for (i = 0; s == 0 && i < {N}_OUTPUT0_NUMEL; i++) {{
        PRINT("out {n} %.9g\\n", (double){n}_out[i]);
    }}
    return s;
}}
"""


def write_app(root: Path, models: dict[str, Path]) -> Path:
    """The fixture's CMakeLists.txt and a main.c that runs every model."""
    app = root / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_bytes((FIXTURE / "CMakeLists.txt").read_bytes())
    names = list(models)
    (app / "main.c").write_text(MAIN.format(
        includes="\n".join(f'#include "{n}.h"' for n in names),
        bodies="".join(BODY.format(n=n, N=n.upper()) for n in names),
        calls="\n".join(f"    if (s == 0) {{\n        s = run_{n}();\n    }}" for n in names)))
    return app


def compile_library(pt2: Path, out: Path, name: str, arch: str = "portable") -> Path:
    assert cli.main(["compile", str(pt2), "-o", str(out), "--name", name, "--arch", arch]) == 0
    return out


def cmake(app: Path, build: Path, models: dict[str, Path], *extra: str):
    require_tool("cmake")
    return subprocess.run(
        ["cmake", "-S", str(app), "-B", str(build), f"-DMODELS={';'.join(models)}",
         f"-DMODEL_DIRS={';'.join(str(p) for p in models.values())}", *extra],
        capture_output=True, text=True, timeout=300)


def build(app: Path, build_dir: Path, models: dict[str, Path], *extra: str) -> None:
    r = cmake(app, build_dir, models, *extra)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["cmake", "--build", str(build_dir), "-j", "2"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def check_outputs(stdout: str, nets) -> None:
    assert "app status 0" in stdout, stdout
    for name in NETS:
        got = np.array([float(v) for v in re.findall(rf"^out {name} (\S+)$", stdout, re.M)],
                       dtype=np.float32)
        module, _, shape = nets[name]
        with torch.no_grad():
            want = module(torch.from_numpy(pattern(shape))).numpy().reshape(-1)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert np.abs(got - want).max() <= 1e-4, name


def test_library_folder_holds_the_model_its_runtime_and_a_cmake_target(nets, tmp_path):
    lib = compile_library(nets["kws"][1], tmp_path / "kws", "kws", "cortex_m_dsp")
    files = {p.relative_to(lib).as_posix() for p in lib.rglob("*") if p.is_file()}
    assert {"kws.c", "kws.h", "kws.pte", "CMakeLists.txt", "README.md",
            "runtime_c/mcu_aot_runtime.cmake", "runtime_c/include/rt.h"} <= files
    runtime = {f for f in files if f.startswith("runtime_c/src/") and f.endswith(".c")}
    assert "runtime_c/src/arch/cortex_m_dsp/conv_1x1_s8.c" not in runtime  # float32 model
    assert "runtime_c/src/conv/conv2d.c" in runtime or \
        "runtime_c/src/arch/cortex_m_dsp/conv2d.c" in runtime
    assert not any("softmax_s8" in f or "/index/" in f for f in runtime)   # only its kernels
    assert "add_library(kws STATIC" in (lib / "CMakeLists.txt").read_text()
    # the DSP kernels' assembly takes r7: the runtime target never keeps a frame pointer
    assert "-fomit-frame-pointer" in (lib / "runtime_c/mcu_aot_runtime.cmake").read_text()
    readme = (lib / "README.md").read_text()
    assert "add_subdirectory(kws)" in readme and "KWS_ARENA_SIZE" in readme
    # compiling again replaces the folder whole; a folder of other files is refused
    compile_library(nets["ae"][1], lib, "kws")
    assert not (lib / "runtime_c/src/arch").exists()
    assert "-fomit-frame-pointer" not in (lib / "runtime_c/mcu_aot_runtime.cmake").read_text()
    other = tmp_path / "src"
    other.mkdir()
    (other / "main.c").write_text("int main(void) { return 0; }\n")
    assert cli.main(["compile", str(nets["kws"][1]), "-o", str(other), "--name", "kws"]) == 2
    assert sorted(p.name for p in other.iterdir()) == ["main.c"]


def test_two_models_build_with_cmake_for_the_host_and_match_torch(nets, tmp_path):
    require_tool("gcc")
    models = {n: compile_library(nets[n][1], tmp_path / n, n) for n in NETS}
    app = write_app(tmp_path, models)
    build(app, tmp_path / "build", models)
    r = subprocess.run([str(tmp_path / "build" / "app")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    check_outputs(r.stdout, nets)


def test_two_models_build_with_cmake_for_the_cortex_m4_and_run_under_qemu(nets, tmp_path):
    board = require_board("mps2-an386")
    models = {n: compile_library(nets[n][1], tmp_path / n, n, board.runtime_arch)
              for n in NETS}
    app = write_app(tmp_path, models)
    mem = tmp_path / "memory"
    subprocess.run([sys.executable, str(BOARDS / "common" / "board_vars.py"),
                    str(BOARDS / board.name / "board.json"), str(mem)], check=True)
    build(app, tmp_path / "build", models, f"-DCMAKE_TOOLCHAIN_FILE={FIXTURE / 'cortex-m4.cmake'}",
          f"-DBOARDS={BOARDS}", f"-DMEMORY_LD_DIR={mem}")
    result = run_elf(tmp_path / "build" / "app", board, timeout=120)
    assert result.exit_code == 0, result.stdout
    check_outputs(result.stdout, nets)


def test_one_name_twice_in_an_application_is_refused(nets, tmp_path):
    a = compile_library(nets["kws"][1], tmp_path / "a", "kws")
    b = compile_library(nets["ae"][1], tmp_path / "b", "kws")
    app = write_app(tmp_path, {"kws": a})
    r = cmake(app, tmp_path / "build", {"kws": a, "kws2": b})
    assert r.returncode != 0
    assert "two models are named 'kws'" in r.stderr.replace("\n", " ").replace("  ", " ")


def test_models_of_two_runtimes_are_refused(nets, tmp_path):
    a = compile_library(nets["kws"][1], tmp_path / "a", "kws")
    b = compile_library(nets["ae"][1], tmp_path / "b", "ae", "cortex_m_dsp")
    app = write_app(tmp_path, {"kws": a})
    r = cmake(app, tmp_path / "build", {"kws": a, "ae": b})
    assert r.returncode != 0
    assert "compile every model with the same mcu-aot and the same --arch" in \
        " ".join(r.stderr.split())


@pytest.mark.parametrize("name, why", [
    ("my-model", "not a C identifier"), ("2fast", "not a C identifier"),
    ("rt_conv", "runtime's rt_"), ("RT", "runtime's rt_"), ("plat", "platform's plat_"),
    ("mcu_aot_runtime", "mcu-aot's own names"), ("int", "C keyword"),
    ("__x", "reserves for the compiler")])
def test_bad_model_names_are_refused_with_the_reason(nets, tmp_path, capsys, name, why):
    assert cli.main(["compile", str(nets["ae"][1]), "-o", str(tmp_path / "o"), "--name",
                     name]) == 2
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_weights_in_a_named_section_of_the_linker_script(nets, tmp_path):
    """The constants land in .model_weights (boards/common/cortex_m/cortex_m.ld), apart from
    .text, and the model still matches torch; a section the script lacks fails the link
    with its name."""
    board = require_board("mps2-an386")
    module, pt2, _ = nets["ae"]
    report = run_on_board(pt2, board, name="ae", weights_section=".model_weights",
                          out_dir=tmp_path / "fw")
    assert report.ok, report
    elf = tmp_path / "fw" / "build" / board.name / "firmware.elf"
    heads = subprocess.run([f"{board.prefix}objdump", "-h", str(elf)], capture_output=True,
                           text=True, check=True).stdout
    size = int(re.search(r"\.model_weights\s+([0-9a-f]+)", heads).group(1), 16)
    assert size >= report.constant_bytes
    syms = subprocess.run([f"{board.prefix}nm", str(elf)], capture_output=True, text=True,
                          check=True).stdout
    addr = {m[1]: int(m[0], 16) for m in re.findall(r"^([0-9a-f]+) \w (\S+)$", syms, re.M)}
    lo, hi = addr["__model_weights_start"], addr["__model_weights_end"]
    consts = [a for s, a in addr.items() if re.fullmatch(r"ae_c\d+", s)]
    assert consts and all(lo <= a < hi for a in consts)
    with pytest.raises(BoardError, match=r"places no section \.qspi"):
        run_on_board(pt2, board, name="ae", weights_section=".qspi")
    with pytest.raises(AotError, match="no linker script"):
        run_on_board(pt2, load_board("host"), name="ae", weights_section=".model_weights")
