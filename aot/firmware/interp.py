"""Firmware that runs a .pte with the interpreter of runtime_c (``aot firmware --interpreter``).

The project differs from a static one in what carries the model: not generated C but the
program's bytes, in a flash slot of their own (section ``.model_pte``, placed by every board's
linker script), with the inputs in a second slot beside it. Each slot is a 16-byte header
(magic, size, capacity) and its bytes, padded to the capacity, so a different program and its
inputs can be written over them without relinking: on QEMU with
``-device loader,file=<slot image>,addr=<slot address>`` (``swap_args``).

    Makefile               main.c, pte_kernels.c, slots.S and the runtime files
    main.c                 codegen_templates/firmware_pte_main.c.j2: load, inputs, run, print
    pte_kernels.c          the kernel table (aot.interpreter.table_source): only the operators
                           of the given programs, or all of them
    slots.S                the two slots, .incbin of model_pte.slot and inputs.slot
    model.pte              the program, as given
    runtime_c/, boards/    as in a static project
"""
from __future__ import annotations

import dataclasses
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Optional, Sequence, Union

import numpy as np

from ..boards import Board, check_toolchain
from ..codegen.c import IOSpec
from ..codegen.render import render_template
from ..codesize import code_bytes
from ..cycles import counting_args, estimate_run
from ..errors import AotError, BoardError
from ..interpreter import (KernelTable, cached_lists, runtime_files as table_runtime,
                           table_source)
from ..ir import TORCH_DTYPES
from ..pte import load_program, serialize_pte
from ..qemu import run_elf
from .model import _board, _eager, _resolve, check_inputs
from .project import _board_files, _npy, check_destination, runtime_files, write_tree
from .run import (DEFAULT_TOLERANCE, LSB_TOLERANCE, RunReport, _build, elf_size,
                  parse_outputs, report_of, wants_cycles)

PTE_MAGIC, INPUTS_MAGIC = b"MPTE", b"MPIN"
RT_PTE_MAX_IO = 16            # rt_pte.h
SLOT_HEADER = 16
TABLE_NAME = "pte_kernels"
_ERROR_PREFIX = "mcu-aot error: "


def _align16(n: int) -> int:
    return (n + 15) & ~15


def slot_image(payload: bytes, capacity: int, magic: bytes = PTE_MAGIC) -> bytes:
    """A slot's bytes: the header (magic, size, capacity) and the payload, zero-padded to the
    capacity. Write it at the slot's address to replace what the slot holds."""
    if len(payload) > capacity:
        raise AotError(f"{len(payload):,} bytes do not fit a slot of {capacity:,}")
    return magic + struct.pack("<III", len(payload), capacity, 0) + payload + \
        bytes(capacity - len(payload))


def inputs_payload(arrays: Sequence[np.ndarray]) -> bytes:
    """The inputs slot's payload: the count, each input's byte size, then each input's bytes,
    every part padded to 16 bytes."""
    head = struct.pack(f"<I{len(arrays)}I", len(arrays), *(a.nbytes for a in arrays))
    out = head + bytes(_align16(len(head)) - len(head))
    for a in arrays:
        data = np.ascontiguousarray(a).tobytes()
        out += data + bytes(_align16(len(data)) - len(data))
    return out


def io_specs(program, method: str = "forward") -> tuple[tuple[IOSpec, ...], tuple[IOSpec, ...]]:
    """The method's inputs and outputs as (shape, numpy dtype name)."""
    plan = program.method(method)

    def spec(i):
        v = plan.values[i]
        dtype = TORCH_DTYPES.get(v.scalar_type) if hasattr(v, "scalar_type") else None
        if dtype is None:
            raise AotError(f"value {i}, an input or output of {method}, is not a tensor the "
                           "interpreter can hand over")
        return IOSpec(tuple(v.sizes), str(dtype).replace("torch.", ""))
    return tuple(spec(i) for i in plan.inputs), tuple(spec(i) for i in plan.outputs)


def arena_bytes_of(program, method: str = "forward") -> int:
    """The arena rt_pte_load asks for: the planned buffers one after another, 16-aligned."""
    sizes = list(program.method(method).non_const_buffer_sizes)[1:]
    total = 0
    for s in sizes:
        total = _align16(total) + int(s)
    return total


@dataclass(frozen=True)
class InterpreterProject:
    directory: Path
    board: Board
    label: str
    pte: bytes = field(repr=False)
    inputs: tuple = field(repr=False, compare=False)
    specs: tuple = field(repr=False)            # (input IOSpecs, output IOSpecs)
    arena_bytes: int
    pte_capacity: int
    inputs_capacity: int
    table: KernelTable = field(repr=False)
    files: tuple[str, ...] = field(repr=False)

    @property
    def project_board(self) -> Board:
        return dataclasses.replace(self.board, path=self.directory / "boards" / self.board.name)


def _pte_bytes(model, m) -> bytes:
    if isinstance(model, (str, Path)) and Path(model).suffix == ".pte":
        return Path(model).read_bytes()
    return bytes(serialize_pte(m.program))


def _read_programs(programs) -> list[bytes]:
    out = []
    for p in programs or ():
        if isinstance(p, (bytes, bytearray)):
            out.append(bytes(p))
            continue
        try:
            out.append(Path(p).read_bytes())
        except OSError as e:
            raise AotError(f"{p}: cannot read it as a .pte ({e.strerror})") from None
    return out


def interpreter_files(pte: bytes, board: Board, arrays, label: str, table: KernelTable,
                      arena: int, pte_capacity: int, inputs_capacity: int,
                      cache: tuple[int, int] = (0, 0)) -> dict[str, bytes]:
    """Every file of the project, by relative path: a pure function of its arguments."""
    runtime = table_runtime(table, board.runtime_arch)
    fake = SimpleNamespace(runtime_sources=runtime)
    run = (f"runs it under {board.qemu.system} -machine {board.qemu.machine}"
           if board.qemu else "runs it here, as a process")
    makefile = render_template("firmware_Makefile.j2", dict(
        name=TABLE_NAME, NAME=TABLE_NAME.upper(), board=board.name, cc=board.cc, run_help=run,
        profile=False, weights_section=None, extra_sources=["slots.S"], slots=True,
        runtime_sources=[f"runtime_c/{s}" for s in runtime]))
    main = render_template("firmware_pte_main.c.j2", dict(
        board=board.name, label=label, arena_bytes=arena, cache_lists=cache[0],
        cache_items=cache[1]))
    slots = ("/* slots.S: generated by mcu-aot. The program and its inputs, each in a slot "
             "that a\n * different one may overwrite (see main.c). */\n"
             '    .section .model_pte, "a"\n    .balign 16\n    .global model_pte_slot\n'
             'model_pte_slot:\n    .incbin "model_pte.slot"\n    .balign 16\n'
             '    .global model_inputs_slot\nmodel_inputs_slot:\n    .incbin "inputs.slot"\n')
    files = {"Makefile": makefile.encode(), "main.c": main.encode(),
             f"{TABLE_NAME}.c": table.source.encode(), "slots.S": slots.encode(),
             "model.pte": pte,
             "model_pte.slot": slot_image(pte, pte_capacity, PTE_MAGIC),
             "inputs.slot": slot_image(inputs_payload(arrays), inputs_capacity, INPUTS_MAGIC)}
    files.update((f"runtime_c/{p}", b) for p, b in runtime_files(fake, "portable").items())
    files.update((f"boards/{p}", b) for p, b in _board_files(board).items())
    files.update((f"inputs_{k}.npy", _npy(a)) for k, a in enumerate(arrays))
    return files


def generate_interpreter_firmware(model, board: Union[str, Board], out_dir, inputs=None, *,
                                  method: str = "forward", int8_io: bool = False,
                                  overlap: bool = False, patches: Optional[bool] = None,
                                  programs: Sequence = (),
                                  all_kernels: bool = False,
                                  arena_bytes: Optional[int] = None,
                                  pte_capacity: Optional[int] = None,
                                  _resolved=None) -> InterpreterProject:
    """Write a firmware project that runs ``model`` (a .pte, or anything aot firmware takes,
    lowered to one) with the interpreter. ``programs``: more .pte files the firmware must be
    able to run (their operators join the kernel table; the arena and the slot grow to the
    largest); ``all_kernels``: every operator of the op table. ``arena_bytes`` and
    ``pte_capacity`` reserve more for programs swapped in later."""
    b = _board(board)
    check_toolchain(b, run=False)
    m = _resolved or _resolve(model, method, int8_io, overlap, patches)
    if method != "forward":
        raise AotError("the interpreter runs a program's first method ('forward')")
    pte = _pte_bytes(model, m)
    others = _read_programs(programs)
    try:
        parsed = [load_program(p) for p in others]
    except Exception as e:   # noqa: BLE001  (a bad file among the extra programs)
        raise AotError(f"a program given with --programs is not a readable .pte: {e}") from None
    table = table_source(None if all_kernels else [pte, *others])
    specs = io_specs(m.program, method)
    arrays = check_inputs(SimpleNamespace(name=m.label, inputs=specs[0]), inputs)
    need = max([arena_bytes_of(m.program, method)] +
               [arena_bytes_of(p, "forward") for p in parsed])
    arena = need if arena_bytes is None else arena_bytes
    if arena < need:
        raise AotError(f"--arena-size {arena:,} is smaller than the {need:,} bytes the "
                       "program(s) need")
    cap = _align16(max([len(pte)] + [len(p) for p in others]))
    capacity = cap if pte_capacity is None else _align16(pte_capacity)
    if capacity < cap:
        raise AotError(f"--pte-capacity {pte_capacity:,} is smaller than the program "
                       f"({cap:,} bytes)")
    # Inputs of any program the arena holds fit: a program plans its inputs in the arena.
    payload = inputs_payload(arrays)
    inputs_cap = _align16(max([len(payload), arena + 16 * (RT_PTE_MAX_IO + 2)] +
                              [_inputs_size(p) for p in parsed]))
    out = Path(out_dir).absolute()
    check_destination(out)
    cache = max([cached_lists(m.program, method)] + [cached_lists(p) for p in parsed],
                key=lambda c: 12 * c[0] + 4 * c[1])
    files = interpreter_files(pte, b, arrays, m.label, table, arena, capacity, inputs_cap,
                              cache)
    if b.flash is not None and capacity + inputs_cap > b.flash.length:
        raise AotError(f"the program slot ({capacity:,} bytes) does not fit {b.name}'s "
                       f"{b.flash.length:,} bytes of flash")
    write_tree(files, out)
    return InterpreterProject(out, b, m.label, pte, arrays, specs, arena, capacity, inputs_cap,
                              table, tuple(sorted(files)))


def _inputs_size(program) -> int:
    ins, _ = io_specs(program)
    arrays = [np.zeros(s.shape, s.dtype) for s in ins]
    return len(inputs_payload(arrays))


def slot_addresses(elf: Path, board: Board) -> dict[str, int]:
    """model_pte_slot's and model_inputs_slot's addresses in the ELF (from nm)."""
    proc = subprocess.run([f"{board.prefix}nm", str(elf)], capture_output=True, text=True)
    found = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("model_pte_slot", "model_inputs_slot"):
            found[parts[2]] = int(parts[0], 16)
    if len(found) != 2:
        raise BoardError(f"{elf} has no program slots (is it an interpreter firmware?)")
    return found


def swap_args(project: InterpreterProject, elf: Path, pte: bytes, inputs, work: Path,
              ) -> list[str]:
    """QEMU options that write ``pte`` and its ``inputs`` over the firmware's slots."""
    program = load_program(pte)
    specs = io_specs(program)
    arrays = check_inputs(SimpleNamespace(name="the program", inputs=specs[0]), inputs)
    addr = slot_addresses(elf, project.project_board)
    work.mkdir(parents=True, exist_ok=True)
    (work / "swap_pte.slot").write_bytes(slot_image(pte, project.pte_capacity, PTE_MAGIC))
    (work / "swap_inputs.slot").write_bytes(slot_image(inputs_payload(arrays),
                                                       project.inputs_capacity, INPUTS_MAGIC))
    return ["-device", f"loader,file={work / 'swap_pte.slot'},addr={addr['model_pte_slot']:#x}",
            "-device", f"loader,file={work / 'swap_inputs.slot'},"
                       f"addr={addr['model_inputs_slot']:#x}"]


def parse_error(stdout: str) -> Optional[str]:
    """The error line main.c printed (its rt_status name and where), or None."""
    for line in stdout.splitlines():
        if line.startswith(_ERROR_PREFIX):
            return line[len(_ERROR_PREFIX):].strip()
    return None


def run_interpreter(model, board: Union[str, Board], inputs=None, *, method: str = "forward",
                    out_dir=None, timeout: float = 120.0, tolerance: float = DEFAULT_TOLERANCE,
                    reference=None, int8_io: bool = False, overlap: bool = False,
                    patches: Optional[bool] = None,
                    lsb_tolerance: float = LSB_TOLERANCE,
                    programs: Sequence = (), all_kernels: bool = False,
                    arena_bytes: Optional[int] = None, pte_capacity: Optional[int] = None,
                    swap=None, swap_inputs=None, cycles: bool = False,
                    clock_mhz: Optional[float] = None) -> RunReport:
    """Build the interpreter firmware for ``model`` and run it (QEMU, or natively for the
    host board); compare with torch, or with ExecuTorch's runtime for a .pte. A program the
    interpreter refuses is an AotError naming its rt_status.

    ``swap`` (a .pte path): build the firmware for ``model`` (with ``swap``'s operators in its
    table and room for it in the slots), then run ``swap`` on it instead, written over the
    program slot by QEMU's loader at start: the same ELF, not relinked. The report is then
    ``swap``'s, against its reference. ``cycles`` and ``clock_mhz`` estimate the run's
    cycles, as in run_on_board."""
    b = _board(board)
    check_toolchain(b)
    cycles = wants_cycles(b, cycles, clock_mhz)
    m = _resolve(model, method, int8_io, overlap, patches)
    if reference is not None:
        m = dataclasses.replace(m, reference=_eager(reference), reference_name="reference")
    if swap is not None and b.qemu is None:
        raise AotError(f"board {b.name} runs natively: there is no loader to swap a program "
                       "in; use a QEMU board")
    programs = list(programs) + ([swap] if swap is not None else [])
    with tempfile.TemporaryDirectory(prefix="mcu-aot-pte-") as tmp:
        project = generate_interpreter_firmware(
            model, b, out_dir if out_dir is not None else Path(tmp) / "project", inputs,
            method=method, int8_io=int8_io, programs=programs, all_kernels=all_kernels,
            arena_bytes=arena_bytes, pte_capacity=pte_capacity, _resolved=m)
        pb = project.project_board
        elf = _build(project.directory, pb)
        extra: list[str] = []
        if b.qemu is not None:   # the slots are reserved flash: the loader writes them
            extra = swap_args(project, elf, project.pte, project.inputs, Path(tmp) / "slots")
        if swap is not None:
            m = _resolve(swap, "forward")
            pte = _pte_bytes(swap, m)
            specs = io_specs(m.program)
            arrays = check_inputs(SimpleNamespace(name=m.label, inputs=specs[0]), swap_inputs)
            extra = swap_args(project, elf, pte, arrays, Path(tmp) / "swap")
            project = dataclasses.replace(project, label=f"{m.label} (in {project.label}'s "
                                          "firmware)", pte=pte, inputs=arrays, specs=specs)
        counts = Path(tmp) / "exec_counts.txt"
        if cycles:
            extra += counting_args(elf, pb, counts)
        result = run_elf(elf, pb, timeout=timeout, extra_args=extra)
        text, data, bss = elf_size(elf, pb)
        code = code_bytes(elf.with_suffix(".map"), TABLE_NAME)
        estimate = estimate_run(elf, pb, counts)[0] \
            if cycles and result.exit_code == 0 else None
    report = _report(m, b, project, result, (text, data, bss), code, tolerance, lsb_tolerance,
                     out_dir)
    return dataclasses.replace(report, estimate=estimate, clock_mhz=clock_mhz)


def _report(m, b: Board, project: InterpreterProject, result, sizes, code, tolerance,
            lsb_tolerance, out_dir) -> RunReport:
    error = parse_error(result.stdout)
    outputs, status = parse_outputs(result.stdout, SimpleNamespace(outputs=project.specs[1]))
    if status not in (None, 0) and error is not None:
        raise AotError(f"the interpreter refused {project.label} on {b.name}: {error}")
    return report_of(m, b, result, outputs, status, project.inputs, label=project.label,
                     arena_bytes=project.arena_bytes, constant_bytes=0, sizes=sizes, code=code,
                     tolerance=tolerance, lsb_tolerance=lsb_tolerance,
                     project=project.directory if out_dir is not None else None)
