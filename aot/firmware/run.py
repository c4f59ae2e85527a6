"""What is run: build a project, run it (QEMU, or natively for the host board), read back
what main.c printed and compare it with the reference.

main.c prints, and ``parse_outputs`` reads back (see the template's header):
    mcu-aot cycles: <n>                     plat_cycles() around <name>_run
    mcu-aot output <k> <dtype> <numel>      then the values, 8 a line; "%.9g" for floats
    mcu-aot status: <s>                     0 is RT_OK; the exit code is the status too
"""
from __future__ import annotations

import dataclasses
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ..boards import Board, check_toolchain
from ..codegen.c import CSources
from ..codegen.runtime import status_name
from ..codesize import CodeBytes, code_bytes
from ..cycles import CycleEstimate, counting_args, cycle_model, estimate_run, format_families
from ..errors import AotError, BoardError
from ..profile import Profile, profile_of
from ..qemu import build_firmware, cycles_to_instructions, run_elf
from .model import _board, _eager, _resolve
from .project import _generate, _sources, check_section

DEFAULT_TOLERANCE = 1e-4
# A quantized model against its PT2E reference: the integer kernels and PT2E's float
# dq -> op -> q may round a value to neighbouring int8 steps, and the step can grow by a
# layer or two; more than this many output steps is a wrong answer, not rounding.
LSB_TOLERANCE = 3.0
_OUTPUT_RE = re.compile(r"^mcu-aot output (\d+) (\w+) (\d+)\s*$")
_STATUS_RE = re.compile(r"^mcu-aot status: (-?\d+)\s*$", re.M)
_CYCLES_RE = re.compile(r"^mcu-aot cycles: (\d+)\s*$", re.M)
_PROFILE_RE = re.compile(r"^mcu-aot profile (\d+) (\d+)\s*$", re.M)


@dataclass(frozen=True)
class RunReport:
    """One run of a model on a board: what it printed, against the reference, and its sizes."""
    model: str
    board: str
    cpu: str
    exit_code: int
    status: Optional[int]              # the model's rt_status; None if it never printed one
    fault: Optional[str]
    outputs: tuple = field(repr=False, compare=False)     # numpy arrays from the board
    reference: tuple = field(repr=False, compare=False)   # numpy arrays, or () if none
    reference_name: Optional[str]      # "torch eager", "ExecuTorch runtime", ... or None
    errors: tuple[float, ...]          # max abs error per output (empty without reference)
    tolerance: float
    # Per output of a quantized model: the error in output steps (LSBs), or None.
    lsb: tuple
    lsb_tolerance: float
    arena_bytes: int
    constant_bytes: int
    text: int
    data: int
    bss: int                           # includes the stack on the QEMU boards
    stack_bytes: Optional[int]
    cycles: Optional[int]              # plat_cycles() around one <name>_run
    instructions: Optional[int]        # guest instructions per inference (None on host)
    project: Optional[Path]            # the kept project folder, or None (a temp dir)
    code: Optional[CodeBytes] = None   # code bytes by part, from the link map (None on host)
    profile: Optional[Profile] = None  # per kernel call, when run with profile=True
    estimate: Optional[CycleEstimate] = None   # estimated cycles, when run with cycles=True
    clock_mhz: Optional[float] = None  # the clock to state the estimate's latency at

    @property
    def max_abs_error(self) -> Optional[float]:
        return max(self.errors, default=0.0) if self.reference_name else None

    @property
    def ok(self) -> bool:
        return (self.exit_code == 0 and self.status == 0 and self.fault is None
                and all(self._output_ok(k) for k in range(len(self.errors))))

    def _output_ok(self, k: int) -> bool:
        """Within the tolerance; for a quantized output, within lsb_tolerance steps."""
        if k < len(self.lsb) and self.lsb[k] is not None:
            return self.lsb[k] <= self.lsb_tolerance
        return self.errors[k] <= self.tolerance


def elf_size(elf: Path, board: Board) -> tuple[int, int, int]:
    """text, data and bss of an ELF, from the board's binutils size (Berkeley format)."""
    proc = subprocess.run([f"{board.prefix}size", str(elf)], capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        raise BoardError(f"{board.prefix}size {elf} failed: {proc.stderr.strip()}")
    text, data, bss = (int(v) for v in lines[1].split()[:3])
    return text, data, bss


def parse_outputs(stdout: str, sources: CSources) -> tuple[tuple[np.ndarray, ...], Optional[int]]:
    """The output arrays and the status main.c printed; outputs missing if it never got there."""
    lines = stdout.splitlines()
    found: dict[int, np.ndarray] = {}
    i = 0
    while i < len(lines):
        m = _OUTPUT_RE.match(lines[i])
        i += 1
        if not m:
            continue
        k, dtype, numel = int(m.group(1)), m.group(2), int(m.group(3))
        tokens: list[str] = []
        while len(tokens) < numel and i < len(lines):
            tokens += lines[i].split()
            i += 1
        if len(tokens) != numel or k >= len(sources.outputs):
            raise AotError(f"the firmware printed output {k} badly ({len(tokens)} of {numel} "
                           "values)")
        spec = sources.outputs[k]
        values = [float(t) for t in tokens] if dtype == "float32" else [int(t) for t in tokens]
        found[k] = np.array(values, dtype=spec.dtype).reshape(spec.shape)
    status = _STATUS_RE.findall(stdout)
    outputs = tuple(found[k] for k in range(len(sources.outputs)) if k in found)
    return outputs, int(status[-1]) if status else None


def max_abs_error(got: np.ndarray, want: np.ndarray) -> float:
    """Largest |got - want|; NaN against NaN counts as equal, NaN against a number as inf."""
    g = np.asarray(got, dtype=np.float64).reshape(-1)
    w = np.asarray(want, dtype=np.float64).reshape(-1)
    if g.shape != w.shape:
        return float("inf")
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_nan, 0.0, np.abs(g - w))
    diff = np.where(np.isnan(diff), np.inf, diff)
    return float(diff.max(initial=0.0))


_OVERFLOW_RE = re.compile(r"region [`']?(\w+)'? overflowed by (\d+) bytes")
_ORPHAN_RE = re.compile(r"unplaced orphan section [`']([^']+)' from [`']([^']+)'")


def _build(directory: Path, board: Board) -> Path:
    """build_firmware, with a linker overflow (past the estimate) as one clear line."""
    try:
        return build_firmware(directory, board)
    except BoardError as e:
        orphan = _ORPHAN_RE.search(str(e))
        if orphan is not None:
            raise BoardError(f"board {board.name}'s linker script places no section "
                             f"{orphan.group(1)} (from {Path(orphan.group(2)).name}): give a "
                             f"section its script has, or add one to "
                             f"{board.linker_script}") from None
        m = _OVERFLOW_RE.search(str(e))
        if m is None:
            raise
        raise BoardError(f"the firmware does not fit {board.name}: the linker's {m.group(1)} "
                         f"region overflowed by {int(m.group(2)):,} bytes") from None


def run_on_board(model, board: Union[str, Board], inputs=None, *, name: str = "model",
                 method: str = "forward", out_dir=None, timeout: float = 60.0,
                 tolerance: float = DEFAULT_TOLERANCE, reference=None,
                 int8_io: bool = False, overlap: bool = False,
                 patches: Optional[bool] = None, lsb_tolerance: float = LSB_TOLERANCE,
                 profile: bool = False,
                 weights_section: Optional[str] = None,
                 cycles: bool = False, clock_mhz: Optional[float] = None) -> RunReport:
    """Generate the project (into out_dir, kept, or a temporary folder), build it, run it
    (QEMU, or natively for the host board) and compare its outputs with a reference: the
    given callable (an nn.Module, say), else torch eager for a .pt2 or ExportedProgram, else
    ExecuTorch's runtime for a .pte, a manager or a Program when executorch is installed.
    profile=True also records every kernel call's cost (``RunReport.profile``: guest
    instructions under QEMU, nanoseconds on the host board); weights_section as in
    generate_firmware. cycles=True (or a clock_mhz) runs it under the counting plugin too and
    estimates its Cortex-M4 cycles (``RunReport.estimate``, and per row of the profile; see
    aot.cycles); clock_mhz also states the latency at that clock."""
    b = _board(board)
    check_toolchain(b)
    cycles = wants_cycles(b, cycles, clock_mhz)
    check_section(weights_section, b)
    m = _resolve(model, method, int8_io, overlap, patches)
    if reference is not None:
        m = dataclasses.replace(m, reference=_eager(reference), reference_name="reference")
    sources = _sources(m, b, name, method)
    with tempfile.TemporaryDirectory(prefix="mcu-aot-run-") as tmp:
        project = _generate(m, sources, b,
                            out_dir if out_dir is not None else Path(tmp) / "project", inputs,
                            profile, weights_section)
        pb = project.project_board
        elf = _build(project.directory, pb)
        counts = Path(tmp) / "exec_counts.txt"
        result = run_elf(elf, pb, timeout=timeout,
                         extra_args=counting_args(elf, pb, counts) if cycles else ())
        text, data, bss = elf_size(elf, pb)
        code = code_bytes(elf.with_suffix(".map"), project.sources.name)
        outputs, status = parse_outputs(result.stdout, project.sources)
        estimate, slot_cycles = estimate_run(
            elf, pb, counts, len(project.sources.calls) + 2 if profile else 0) \
            if cycles and status == 0 else (None, None)
    return report_of(m, b, result, outputs, status, project.inputs, label=m.label,
                     arena_bytes=project.sources.arena_size,
                     constant_bytes=project.sources.constant_bytes, sizes=(text, data, bss),
                     code=code, tolerance=tolerance, lsb_tolerance=lsb_tolerance,
                     project=project.directory if out_dir is not None else None,
                     profile=parse_profile(result.stdout, project.sources, b, slot_cycles)
                     if profile and status == 0 else None, estimate=estimate,
                     clock_mhz=clock_mhz)


def wants_cycles(b: Board, cycles: bool, clock_mhz: Optional[float]) -> bool:
    """Whether to estimate cycles (a clock asks for them too), refusing a board whose core
    has no cycle model and a clock that is not a positive number."""
    if clock_mhz is not None and not clock_mhz > 0:
        raise AotError(f"the clock must be a positive number of MHz, not {clock_mhz}")
    cycles = cycles or clock_mhz is not None
    if cycles and cycle_model(b) is None:
        raise BoardError(f"board {b.name} ({b.cpu}) has no cycle model: cycles are estimated "
                         "for the Cortex-M4 (mps2-an386) and the Cortex-M55 (mps3-an547) "
                         "only; see docs/cycles.md")
    return cycles


def report_of(m, b: Board, result, outputs, status, inputs, *, label: str, arena_bytes: int,
              constant_bytes: int, sizes, code, tolerance: float, lsb_tolerance: float,
              project=None, profile=None, estimate=None, clock_mhz=None) -> RunReport:
    """The RunReport of one run of model ``m`` on board ``b`` (the static C's or the
    interpreter's firmware): its outputs against the reference, its sizes and counts."""
    want, errors = against_reference(m, outputs, status, inputs)
    text, data, bss = sizes
    return RunReport(
        model=label, board=b.name, cpu=b.cpu, exit_code=result.exit_code, status=status,
        fault=result.fault, outputs=outputs, reference=want,
        reference_name=m.reference_name if m.reference is not None and status == 0 else None,
        errors=errors, tolerance=tolerance,
        lsb=tuple(e / s if s else None for e, s in zip(errors, m.output_scales))
        if m.output_scales else (),
        lsb_tolerance=lsb_tolerance, arena_bytes=arena_bytes, constant_bytes=constant_bytes,
        text=text, data=data, bss=bss, stack_bytes=b.stack_size,
        cycles=result.cycles[-1] if result.cycles else None,
        instructions=result.instructions, project=project, code=code, profile=profile,
        estimate=estimate, clock_mhz=clock_mhz)


def against_reference(m, outputs, status, inputs) -> tuple[tuple, tuple]:
    """The reference's outputs for ``inputs`` and the max abs error of each board output;
    both empty when there is no reference or the run failed."""
    if m.reference is None or status != 0:
        return (), ()
    want = tuple(np.asarray(w) for w in m.reference(*inputs))
    if len(want) != len(outputs):
        raise AotError(f"the reference gives {len(want)} output(s), the firmware "
                       f"{len(outputs)}")
    return want, tuple(max_abs_error(g, w) for g, w in zip(outputs, want))


def parse_profile(stdout: str, sources: CSources, board: Board,
                  slot_cycles: Optional[list] = None) -> Profile:
    """The profile main.c printed: cycles per slot, as guest instructions on a QEMU board;
    with each slot's estimated cycles when given."""
    ticks = {int(k): int(n) for k, n in _PROFILE_RE.findall(stdout)}
    if sorted(ticks) != list(range(len(sources.calls) + 2)):
        raise AotError(f"the firmware printed {len(ticks)} profile slots, {sources.name} has "
                       f"{len(sources.calls) + 2}")
    cycles = _CYCLES_RE.findall(stdout)
    if board.qemu is None:
        return profile_of(sources, [ticks[k] for k in sorted(ticks)], "ns", board.name,
                          float(cycles[-1]) if cycles else None)
    convert = lambda n: cycles_to_instructions(board, n)
    model = cycle_model(board)
    return profile_of(sources, [convert(ticks[k]) for k in sorted(ticks)], "instructions",
                      board.name, convert(int(cycles[-1])) if cycles else None,
                      cycles=slot_cycles, cycle_model=model.name if model else None)


def format_run_report(report: RunReport) -> str:
    """A small table: the comparison with the reference, then sizes and the count."""
    rows = [("model", f"{report.model} on {report.board} ({report.cpu})")]
    if report.fault:
        rows.append(("fault", report.fault))
    status = "none printed" if report.status is None else \
        f"{report.status} ({status_name(report.status)})"
    rows.append(("status", f"{status}, exit code {report.exit_code}"))
    for k, e in enumerate(report.errors):
        shape = "x".join(map(str, report.outputs[k].shape)) or "scalar"
        lsb = report.lsb[k] if k < len(report.lsb) else None
        steps = f" = {lsb:.3g} LSB (output step)" if lsb is not None else ""
        rows.append((f"output {k}", f"{report.outputs[k].dtype} {shape}: max abs error "
                                    f"{e:.3g}{steps}"))
    if report.max_abs_error is None:
        why = "no reference to compare with" if report.status == 0 else "the run failed"
        rows.append(("max abs error", f"not compared: {why}"))
    else:
        ok = all(report._output_ok(k) for k in range(len(report.errors)))
        limit = f"{report.lsb_tolerance:g} LSB" if any(v is not None for v in report.lsb) \
            else f"{report.tolerance:g}"
        rows.append(("max abs error", f"{report.max_abs_error:.3g} vs {report.reference_name} "
                                      f"(tolerance {limit}): {'OK' if ok else 'TOO LARGE'}"))
    rows += [("arena", f"{report.arena_bytes:,} bytes"),
             ("constants", f"{report.constant_bytes:,} bytes"),
             ("text/data/bss", f"{report.text:,} / {report.data:,} / {report.bss:,} bytes"),
             ("flash, RAM", f"{report.text + report.data:,} / {report.data + report.bss:,} "
                            "bytes (text+data / data+bss" + (f", with the {report.stack_bytes:,}"
                            " byte stack)" if report.stack_bytes else ")"))]
    if report.code is not None:
        c = report.code
        rows.append(("code", f"{c.runtime_and_model:,} bytes: runtime {c.runtime:,} + model "
                             f"{c.model:,} (board's own {c.platform:,}; constants "
                             f"{c.constants:,} aside)"))
    if report.instructions is not None:
        rows.append(("instructions", f"{report.instructions:,} per inference"))
    if report.estimate is not None:
        e = report.estimate
        at = f", {e.ms(report.clock_mhz):,.2f} ms at {report.clock_mhz:g} MHz" \
            if report.clock_mhz else ""
        rows.append(("cycles", f"{e.cycles:,} per inference (estimated for the {report.cpu}, "
                               f"zero wait states{at}): {format_families(e)}"))
        if e.unpriced:
            rows.append(("unpriced", f"{', '.join(e.unpriced)} (1 cycle each)"))
    elif report.cycles is not None:
        rows.append(("time", f"{report.cycles / 1e3:,.1f} us per inference (host clock)"))
    if report.project is not None:
        rows.append(("project", str(report.project)))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)

