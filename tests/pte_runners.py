"""How each reader takes a crafted mutant (tests/pte_mutants.py): aot.load_program then
aot.generate_c (python_outcome), the host interpreter built with ASan and UBSan
(host_outcomes), and one interpreter firmware on mps2-an386 under QEMU (M4Rig). The
module docstring of pte_mutants says how each runs.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pte_mutants import MUTANTS, build, status_code, status_name
from pte_programs import ROOT, TESTS, base_inputs, bases


# -- the Python reader and generator ----------------------------------------------------------

@dataclass(frozen=True)
class PythonOutcome:
    refused: bool
    by: str             # "load_program", "generate_c", "" (accepted) or the exception's type
    message: str

    @property
    def short(self) -> str:
        if self.refused:
            return f"refused ({self.by})"
        return "accepted" if not self.by else f"raised {self.by}"


def python_outcome(pte: bytes) -> PythonOutcome:
    """aot.load_program, then aot.generate_c: refused with an AotError, or accepted. Any other
    exception is reported as raised (a bug: the contract is an AotError)."""
    import aot
    from aot.errors import AotError
    try:
        program = aot.load_program(pte)
    except AotError as e:
        return PythonOutcome(True, "load_program", str(e).splitlines()[0])
    except Exception as e:   # noqa: BLE001
        return PythonOutcome(False, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    try:
        aot.generate_c(program, name="m")
    except AotError as e:
        return PythonOutcome(True, "generate_c", " ".join(str(e).split())[:200])
    except Exception as e:   # noqa: BLE001
        return PythonOutcome(False, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    return PythonOutcome(False, "", "")


# -- the host interpreter under ASan and UBSan ------------------------------------------------

@dataclass(frozen=True)
class HostOutcome:
    status: Optional[str]       # the first status other than RT_OK of arena_size, state_size,
                                # load; "RT_OK" when it loaded; None when the process died
    stage: str                  # where: "arena_size", "state_size", "load", or "loaded"
    state_size: int = 0         # what rt_pte_state_size reported (0 before it)
    run_status: Optional[str] = None    # for a program that loaded: what rt_pte_run returned
    report: str = ""            # the sanitizer's report (or the child's last words) on a crash

    @property
    def crashed(self) -> bool:
        return self.status is None

    @property
    def headline(self) -> str:
        """The report's first line, without its source position."""
        first = self.report.splitlines()[0] if self.report else "died"
        return first.split(": ", 1)[-1] if "runtime error:" in first else first

    @property
    def short(self) -> str:
        if self.crashed:
            return f"CRASH ({self.headline[:60]})"
        if self.status == "RT_OK":
            return f"RT_OK, ran: {self.run_status}"
        return self.status


_CHILD = r"""
import json, sys
import cffi
sys.path.insert(0, sys.argv[2])
import pte_runners
pte_runners._child_main(sys.argv[1])
"""


def _child_main(manifest: str) -> None:
    """The sanitized child: load (and run, if it loads) each mutant of the manifest with every
    block exactly its reported size; one JSON line before and after each."""
    import cffi
    import aot.interpreter as I
    man = json.loads(Path(manifest).read_text())
    host = I.build_host([Path(p).read_bytes() for p in man["bases"]], sanitize=True,
                        arch="portable")
    lib, ffi = host._lib, host._ffi
    libc_ffi = cffi.FFI()
    libc_ffi.cdef("int posix_memalign(void **p, size_t align, size_t n); void free(void *p);")
    libc = libc_ffi.dlopen(None)
    print(json.dumps({"built": str(host.library_path)}), flush=True)

    def block(n):
        """Exactly n bytes, 16-byte aligned, from the C allocator (ASan's: its redzone starts
        at byte n)."""
        got = libc_ffi.new("void **")
        if libc.posix_memalign(got, 16, n) != 0:
            raise MemoryError(n)
        blocks.append(got[0])
        return ffi.cast("uint8_t *", int(libc_ffi.cast("uintptr_t", got[0])))

    for name, path in man["mutants"]:
        print(json.dumps({"start": name}), flush=True)
        data = Path(path).read_bytes()
        blocks = []
        st = ffi.new("int32_t *")
        pte = block(len(data))
        ffi.memmove(pte, data, len(data))
        result = {"name": name, "state_size": 0}
        arena_size = lib.rt_pte_arena_size(pte, len(data), st)
        if st[0] != 0:
            result.update(status=st[0], stage="arena_size")
        else:
            state_size = lib.rt_pte_state_size(pte, len(data), st)
            result["state_size"] = state_size
            if st[0] != 0:
                result.update(status=st[0], stage="state_size")
        if "status" not in result:
            arena = block(arena_size) if arena_size else ffi.NULL
            state = block(state_size)
            s = lib.aot_pte_load(state, state_size, pte, len(data), arena, arena_size)
            result.update(status=s, stage="load" if s else "loaded")
            if s == 0:
                dtype, dims = ffi.new("int32_t *"), ffi.new("int32_t[6]")
                where, nbytes = ffi.new("void **"), ffi.new("int32_t *")
                for output in (0, 1):
                    k = 0
                    while lib.aot_pte_io(state, output, k, dtype, dims, where, nbytes) >= 0:
                        if where[0] == ffi.NULL:
                            buf = block(max(nbytes[0], 1))
                            ffi.memmove(buf, bytes(max(nbytes[0], 1)), max(nbytes[0], 1))
                            lib.aot_pte_bind(state, output, k, buf)
                        k += 1
                result["run_status"] = lib.aot_pte_run(state)
        for p in blocks:
            libc.free(p)
        print(json.dumps(result), flush=True)


def sanitizer_env() -> dict:
    """A python that can load an ASan + UBSan build: libasan preloaded, a report aborts."""
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
    return dict(os.environ, LD_PRELOAD=libasan,
                ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
                UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")


def _report(stderr: str) -> str:
    """The sanitizer's report: from its first line ("runtime error:", "ERROR: ..."), 40 lines."""
    lines = stderr.splitlines()
    first = next((k for k, line in enumerate(lines) if "runtime error:" in line or
                  "ERROR: AddressSanitizer" in line or "AddressSanitizer:DEADLYSIGNAL" in line),
                 max(0, len(lines) - 40))
    return "\n".join(lines[first:first + 40])


def host_outcomes(mutants=MUTANTS, timeout: float = 3600.0) -> dict[str, HostOutcome]:
    """name -> HostOutcome of each mutant under the sanitized interpreter (its kernel table:
    the base programs' operators; the portable kernels, as bench/fuzz.py builds them), and of
    each base program as "base:<name>" (they load and run: the rig itself is sound). A
    sanitizer report ends the child: that mutant is recorded as crashed (with the report) and
    a new child goes on with the next one."""
    mutants = list(mutants)
    out: dict[str, HostOutcome] = {}
    with tempfile.TemporaryDirectory(prefix="pte-mutants-") as tmp:
        work = Path(tmp)
        base_paths = []
        todo = []
        for name, data in sorted(bases().items()):
            (work / f"base_{name}.pte").write_bytes(data)
            base_paths.append(str(work / f"base_{name}.pte"))
            todo.append((f"base:{name}", base_paths[-1]))
        for m in mutants:
            (work / f"{m.name}.pte").write_bytes(build(m))
            todo.append((m.name, str(work / f"{m.name}.pte")))
        while todo:
            (work / "manifest.json").write_text(json.dumps({"bases": base_paths,
                                                           "mutants": todo}))
            proc = subprocess.run([sys.executable, "-c", _CHILD, str(work / "manifest.json"),
                                   str(TESTS)], capture_output=True, text=True,
                                  env=sanitizer_env(), timeout=timeout, cwd=str(ROOT))
            started = None
            built = False
            for line in proc.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                rec = json.loads(line)
                if "built" in rec:
                    built = True
                elif "start" in rec:
                    started = rec["start"]
                else:
                    out[rec["name"]] = HostOutcome(
                        status_name(rec["status"]), rec["stage"], rec["state_size"],
                        status_name(rec["run_status"]) if "run_status" in rec else None)
                    started = None
            if proc.returncode == 0:
                break
            if not built or started is None:
                raise RuntimeError("the sanitized interpreter did not start:\n" +
                                   proc.stderr[-4000:])
            out[started] = HostOutcome(None, "crashed", report=_report(proc.stderr))
            names = [n for n, _ in todo]
            todo = todo[names.index(started) + 1:]
    return out


# -- the M4 board under QEMU ------------------------------------------------------------------

BOARD = "mps2-an386"
M4_ARENA = 96 * 1024        # room for every mutant's plan but arena_2gb's


@dataclass(frozen=True)
class M4Outcome:
    exit_code: Optional[int]    # None: a timeout or a lockup (run_elf's BoardError)
    error: Optional[str]        # the firmware's "mcu-aot error:" line
    fault: Optional[str]        # its "FAULT:" line (a HardFault and the like)
    output: str

    @property
    def status(self) -> Optional[str]:
        """The status the firmware printed and exited with, when they agree."""
        if self.exit_code is None or self.fault is not None:
            return None
        if self.exit_code == 0:
            return "RT_OK"
        name = (self.error or "").split(" ")[0]
        return name if name and status_code(name) == self.exit_code else None

    @property
    def short(self) -> str:
        if self.exit_code is None:
            return "HANG/LOCKUP"
        if self.fault is not None:
            return f"FAULT ({self.fault.split(':', 1)[-1].strip()[:30]})"
        if self.status is None:
            return f"exit {self.exit_code}: {self.error}"
        return self.status


class M4Rig:
    """One interpreter firmware for mps2-an386 with every kernel, built once; each program is
    written over its slot by QEMU's loader (the same ELF for all)."""

    def __init__(self, work: Path, mutants=MUTANTS):
        from aot.boards import load_board
        from aot.firmware.interp import generate_interpreter_firmware
        from aot.firmware.run import _build
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        board = load_board(BOARD)
        first = self.work / "base_f32.pte"
        first.write_bytes(bases()["f32"])
        # (A slot of 16 KB at least: with less, the linker puts .ARM.exidx, after the slots, in
        # the LOAD segment of .text, which then covers them, and QEMU refuses to load an image
        # over it: boards/common/cortex_m/cortex_m.ld places .ARM.exidx after .model_pte.)
        capacity = max([len(build(m)) for m in mutants] + [len(b) for b in bases().values()] +
                       [16 * 1024])
        self.project = generate_interpreter_firmware(
            first, board, self.work / "firmware", base_inputs("f32"),
            programs=[bases()["mlp"], bases()["conv"]], all_kernels=True,
            arena_bytes=M4_ARENA, pte_capacity=capacity)
        self.board = self.project.project_board
        self.elf = _build(self.project.directory, self.board)
        self.digest = hashlib.sha256(self.elf.read_bytes()).hexdigest()

    def run(self, pte: bytes, base: str, timeout: float = 60.0) -> M4Outcome:
        from aot.errors import BoardError
        from aot.firmware.interp import (INPUTS_MAGIC, PTE_MAGIC, inputs_payload, parse_error,
                                         slot_addresses, slot_image)
        from aot.qemu import run_elf
        addr = slot_addresses(self.elf, self.board)
        slot = self.work / "swap_pte.slot"
        ins = self.work / "swap_inputs.slot"
        slot.write_bytes(slot_image(pte, self.project.pte_capacity, PTE_MAGIC))
        ins.write_bytes(slot_image(inputs_payload(base_inputs(base)),
                                   self.project.inputs_capacity, INPUTS_MAGIC))
        extra = ["-device", f"loader,file={slot},addr={addr['model_pte_slot']:#x}",
                 "-device", f"loader,file={ins},addr={addr['model_inputs_slot']:#x}"]
        try:
            r = run_elf(self.elf, self.board, timeout=timeout, extra_args=extra)
        except BoardError as e:
            return M4Outcome(None, None, None, str(e)[-2000:])
        return M4Outcome(r.exit_code, parse_error(r.stdout), r.fault, r.stdout[-2000:])
