"""The .pte interpreter on the QEMU boards, one of each kernel build (the M7 builds the M4's): one
firmware per board, every program swapped in.

Each board builds one interpreter firmware with every kernel (--all-kernels) and runs each zoo
network (float32 and int8) and each op model in it, the program written over the firmware's
slot by QEMU's loader: the same ELF, never relinked. The reference is the static C of the same
program on the same board, bit for bit: the programs' generated C, linked several to a
firmware (as many as the board's flash holds) and run once.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import one_board_per_kernel_build, require_board

import aot
from aot.boards import list_boards, load_board
from aot.codegen.runtime import for_arch
from aot.firmware import parse_outputs, random_inputs
from aot.firmware.interp import generate_interpreter_firmware, swap_args
from aot.firmware.project import _CTYPE, _PRINT, _board_files, _literals, runtime_files
from aot.firmware.run import _build
from aot.qemu import run_elf
from aot.zoo import ZOO, calibration_set
from op_models import OP_MODELS

# one worker runs the module (make test: --dist loadgroup), so its lowerings are made once
pytestmark = pytest.mark.xdist_group("interpreter_boards")

QEMU_BOARDS = one_board_per_kernel_build(
    [b for b in list_boards() if load_board(b).qemu is not None])
CODE_ROOM = 256 * 1024        # flash kept for code when packing programs into a firmware


@pytest.fixture(scope="module")
def programs():
    """name -> (.pte bytes, CSources, inputs): every zoo network (float32, int8) and op model."""
    out = {}
    for name in sorted(ZOO):
        module, example = ZOO[name]()
        ep = torch.export.export(module.eval(), example)
        out[name] = aot.to_edge(ep).to_executorch()
        q = aot.quantize(module, example, calibration_set(name, 4))
        out[f"{name}_int8"] = aot.to_edge(q).to_executorch()
    for name, (module, example) in sorted(OP_MODELS.items()):
        out[f"op_{name}"] = aot.to_edge(torch.export.export(module.eval(), example)) \
            .to_executorch()
    result = {}
    for k, (name, manager) in enumerate(sorted(out.items())):
        sources = aot.generate_c(manager, name=f"m{k}")
        result[name] = (bytes(manager.buffer), sources, random_inputs(sources))
    return result


def _fits(board, pte: bytes) -> bool:
    return len(pte) + CODE_ROOM <= board.flash.length


def _static_main(batch, board) -> str:
    """main.c of a firmware that runs each program's generated C once and prints its outputs
    as a firmware project's main.c does, after a "mcu-aot program <name>" line."""
    lines = ['#include <stdint.h>', '#include "platform.h"', '#include "printf_min.h"']
    lines += [f'#include "{s.name}.h"' for _, (_, s, _) in batch]
    arena = max(max(s.arena_size, 1) for _, (_, s, _) in batch)
    lines += [f"static uint8_t arena[{arena}] __attribute__((aligned(64)));"]
    body = []
    for name, (_, s, inputs) in batch:
        ins, outs = [], []
        for k, (spec, a) in enumerate(zip(s.inputs, inputs)):
            var = f"{s.name}_in{k}"
            lines.append(f"static const {_CTYPE[spec.dtype]} {var}[{max(a.size, 1)}] "
                         f"__attribute__((aligned(16))) = {{{', '.join(_literals(a))}}};")
            ins.append(var)
        for k, spec in enumerate(s.outputs):
            var = f"{s.name}_out{k}"
            numel = int(np.prod(spec.shape, dtype=np.int64))
            lines.append(f"static {_CTYPE[spec.dtype]} {var}[{max(numel, 1)}] "
                         "__attribute__((aligned(16)));")
            outs.append((var, spec, numel))
        body.append(f'    mini_printf("mcu-aot program {name}\\n");')
        body.append("    {")
        body.append(f"        const void *const ins[] = {{{', '.join(ins) or '0'}}};")
        body.append(f"        void *const outs[] = {{{', '.join(v for v, _, _ in outs) or '0'}}};")
        body.append(f"        int32_t status = {s.name}_init(arena);")
        body.append(f"        if (status == 0) status = {s.name}_run(arena, ins, outs);")
        body.append("        if (status == 0) {")
        for k, (var, spec, numel) in enumerate(outs):
            fmt, cast = _PRINT[spec.dtype]
            body.append(f'            mini_printf("mcu-aot output {k} {spec.dtype} {numel}\\n");')
            body.append(f"            for (uint32_t i = 0; i < {numel}u; i++) "
                        f'mini_printf("{fmt}%c", {cast}{var}[i], (i % 8u == 7u || i + 1u == '
                        f"{numel}u) ? '\\n' : ' ');")
        body.append("        }")
        body.append('        mini_printf("mcu-aot status: %ld\\n", (long)status);')
        body.append("    }")
    return "\n".join(lines + ["", "int main(void)", "{", "    plat_init();", *body,
                              "    return 0;", "}", ""])


def _static_outputs(board, batch, work: Path) -> dict[str, tuple]:
    """name -> outputs of each program's static C, run on the board in one firmware."""
    from types import SimpleNamespace
    files = {"main.c": _static_main(batch, board).encode()}
    runtime = set()
    for _, (_, s, _) in batch:
        files.update((n, t.encode()) for n, t in s.files.items())
        runtime |= set(s.runtime_sources)
    arch_files = for_arch(sorted(runtime), board.runtime_arch)
    files.update((f"runtime_c/{p}", b) for p, b in runtime_files(
        SimpleNamespace(runtime_sources=arch_files), "portable").items())
    files.update((f"boards/{p}", b) for p, b in _board_files(board).items())
    sources = " ".join(["main.c"] + [f"{s.name}.c" for _, (_, s, _) in batch] +
                       [f"runtime_c/{p}" for p in arch_files])
    files["Makefile"] = (f"BOARD_DIR := boards/{board.name}\nSOURCES := {sources}\n"
                         "INCLUDES := . runtime_c/include\n"
                         "include $(BOARD_DIR)/../common/firmware.mk\n").encode()
    for rel, data in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)
    import dataclasses
    pb = dataclasses.replace(board, path=work / "boards" / board.name)
    elf = _build(work, pb)
    result = run_elf(elf, pb, timeout=600)
    found = {}
    chunks = result.stdout.split("mcu-aot program ")[1:]
    by_name = dict(batch)
    for chunk in chunks:
        name, _, rest = chunk.partition("\n")
        outputs, status = parse_outputs(rest, by_name[name][1])
        found[name] = (status, outputs)
    return found


def _batches(board, items):
    """Programs packed greedily into firmwares of at most the board's flash."""
    budget = board.flash.length - CODE_ROOM
    batch, used = [], 0
    for name, prog in items:
        size = len(prog[0])
        if batch and used + size > budget:
            yield batch
            batch, used = [], 0
        batch.append((name, prog))
        used += size
    if batch:
        yield batch


@pytest.mark.parametrize("board_name", QEMU_BOARDS)
def test_interpreter_equals_static_c_on_board(board_name, programs, tmp_path):
    board = require_board(board_name)
    items = [(n, p) for n, p in sorted(programs.items()) if _fits(board, p[0])]
    names = {n for n, _ in items}
    assert len(items) >= len(OP_MODELS) + 2 and "kws_int8" in names
    # The static C, several programs to a firmware.
    want = {}
    for k, batch in enumerate(_batches(board, items)):
        work = tmp_path / f"static{k}"
        want.update(_static_outputs(board, batch, work))
    # One interpreter firmware, every program written over its slot in turn.
    first_name, (first_pte, _, first_inputs) = items[0]
    project = generate_interpreter_firmware(
        first_pte_path(tmp_path, first_pte), board, tmp_path / "interp", first_inputs,
        programs=[p[0] for _, p in items], all_kernels=True)
    pb = project.project_board
    elf = _build(project.directory, pb)
    digest = hashlib.sha256(elf.read_bytes()).hexdigest()
    mismatched = []
    for name, (pte, sources, inputs) in items:
        extra = swap_args(project, elf, pte, inputs, tmp_path / "swap")
        result = run_elf(elf, pb, timeout=120, extra_args=extra)
        got, status = parse_outputs(result.stdout, sources)
        want_status, want_out = want[name]
        assert status == want_status == 0, f"{name}: {result.stdout[-500:]}"
        if len(got) != len(want_out) or not all(
                g.dtype == w.dtype and g.tobytes() == w.tobytes() for g, w in zip(got, want_out)):
            mismatched.append(name)
    assert hashlib.sha256(elf.read_bytes()).hexdigest() == digest   # never relinked
    assert not mismatched, f"interpreter != static C on {board_name}: {mismatched}"


def first_pte_path(tmp_path: Path, pte: bytes) -> Path:
    path = tmp_path / "first.pte"
    path.write_bytes(pte)
    return path


def test_swapped_program_runs_in_another_programs_firmware(programs, tmp_path):
    """aot run A.pte --interpreter --swap B.pte: B runs on the ELF built for A."""
    board = require_board("mps2-an386")
    from aot.firmware.interp import run_interpreter
    kws = tmp_path / "kws.pte"
    kws.write_bytes(programs["kws_int8"][0])
    ae = tmp_path / "ae.pte"
    ae.write_bytes(programs["autoencoder_int8"][0])
    ae_inputs = programs["autoencoder_int8"][2]
    report = run_interpreter(kws, board, swap=ae, swap_inputs=ae_inputs,
                             out_dir=tmp_path / "fw")
    assert report.ok and report.status == 0
    assert "ae.pte (in kws.pte's firmware)" in report.model
    from aot.host import build
    want = build(programs["autoencoder_int8"][1])(*ae_inputs)
    got = report.outputs
    assert all(np.abs(g.astype(np.float64) - w.astype(np.float64)).max() <= 1e-6
               for g, w in zip(got, want))


def test_program_with_an_operator_the_firmware_lacks(programs, tmp_path):
    """The firmware names the status and the operator, and exits with the status."""
    board = require_board("mps2-an386")
    from aot.firmware.interp import parse_error
    kws = tmp_path / "kws.pte"
    kws.write_bytes(programs["kws_int8"][0])
    ae_pte, _, ae_inputs = programs["autoencoder"]      # float32: addmm, relu
    project = generate_interpreter_firmware(kws, board, tmp_path / "fw",
                                            pte_capacity=len(ae_pte),
                                            arena_bytes=1 << 16)
    pb = project.project_board
    elf = _build(project.directory, pb)
    result = run_elf(elf, pb, extra_args=swap_args(project, elf, ae_pte, ae_inputs,
                                                   tmp_path / "swap"))
    assert result.exit_code == 9                        # RT_ERR_PTE_OPERATOR
    error = parse_error(result.stdout)
    assert error.startswith("RT_ERR_PTE_OPERATOR") and "operator aten::" in error


def test_executorch_written_pte_on_board(tmp_path):
    """A .pte ExecuTorch's own exir wrote runs in the interpreter on the M4 and matches
    ExecuTorch's runtime (aot run's reference for a .pte)."""
    board = require_board("mps2-an386")
    from conftest import require_module
    require_module("executorch")
    from executorch.exir import to_edge
    from aot.firmware.interp import run_interpreter
    module, example = ZOO["kws"]()
    path = tmp_path / "kws_et.pte"
    path.write_bytes(to_edge(torch.export.export(module.eval(), example)).to_executorch().buffer)
    report = run_interpreter(path, board, inputs=[x.numpy() for x in example])
    assert report.reference_name == "ExecuTorch runtime"
    assert report.ok, report
