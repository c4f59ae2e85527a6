"""The .pte interpreter of runtime_c (runtime_c/include/rt_pte.h), from Python.

The interpreter's kernel table is generated here from the op table (aot/ops.py): one
``rt_pte_op`` per operator, with its adapter, compiled from the op's call spec
(aot/codegen/adapters.py), which decodes a call's arguments and calls the same kernel the static
C generator renders for that op. A firmware's table holds only the operators its programs call
(so only their kernels are linked); ``table_source()`` with no programs holds every operator.

    interp = aot.interpreter.build_host()        # every operator, this machine's kernels
    outputs = interp.run(pte_bytes, [x])         # numpy in, numpy out
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

import cffi
import numpy as np
import torch

from . import program as P
from .codegen.adapters import adapter_source
from .codegen.c import generate_c
from .codegen.epilogue import PRODUCERS
from .codegen.runtime import (for_arch, host_arch, host_cflags, runtime_dir,
                              runtime_sources_for, status_name)
from .errors import AotError
from .host import (SANITIZE_FLAGS, STRICT_FLAGS, compiler, default_cache_dir,
                   headers_digest, runtime_objects)
from .ops import OpDef, all_ops, by_et_name
from .pte.reader import load_program

aten = torch.ops.aten

# The core's own entry: executorch_prim::et_view (ExecuTorch's zero-copy view), in pte_run.c.
VIEW = ("executorch_prim::et_view", "default", 3, "RT_PTE_VIEW",
        "rt_op_executorch_prim_et_view_default", "0x4u")
CORE_FUNCTIONS = ("rt_pte_load", "rt_pte_run", "rt_pte_input", "rt_pte_output",
                  "rt_pte_arena_size", "rt_status_name")
DELEGATE_SOURCE = "src/pte/pte_delegate.c"     # delegate calls: linked with the backends
FUSION_SOURCE = "src/pte/pte_fuse.c"           # fused epilogues: with producers and activations
# The rt_backend objects runtime_c defines, by the backend id a .pte names.
RUNTIME_BACKENDS = {"DemoBackend": "rt_backend_demo"}

# rt_dtype codes (the .pte's ScalarType) -> numpy
_NP = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 6: np.float32,
       11: np.bool_}


def adapter_name(op: OpDef) -> str:
    """The adapter of an operator: rt_op_<namespace>_<name>_<overload> (rt_pte.h)."""
    return re.sub(r"\W", "_", f"rt_op_{op.et_name.replace('::', '_')}_{op.et_overload}")


def _flags(op: OpDef) -> str:
    flags = []
    if op.aten in PRODUCERS:
        flags.append("RT_PTE_FUSE_PRODUCER")
    flags += {aten.relu.default: ["RT_PTE_ACT_RELU"],
              aten.hardtanh.default: ["RT_PTE_ACT_HARDTANH"],
              aten.clamp.default: ["RT_PTE_ACT_CLAMP"]}.get(op.aten, [])
    return " | ".join(flags) or "0"


def _n_args(op: OpDef) -> int:
    """A call's args: the schema's arguments, then the result again (the out tensor, or one
    TensorList of the outs), as ExecuTorch's emitter lays them out (aot.calls.decode_call)."""
    return len(op.schema.arguments) + 1


def _writes(op: OpDef) -> str:
    """rt_pte_op.writes: a bit for each argument the call writes (its outs, and the result
    repeated last)."""
    n = _n_args(op)
    if n > 32:
        raise AotError(f"{op.key}: {n} arguments, more than rt_pte_op.writes can mark")
    mask = 1 << (n - 1)
    for k, a in enumerate(op.schema.arguments):
        if a.is_out:
            mask |= 1 << k
    return f"{mask:#x}u"


@dataclass(frozen=True)
class KernelTable:
    """The generated kernel table: its C source and the runtime functions it needs."""
    source: str
    adapters: tuple[str, ...]          # every operator's (runtime_c's, or generated in source)
    backends: tuple[str, ...]
    fusion: bool = False               # producers and activations: pte_fuse.c linked
    kernels: tuple[str, ...] = ()      # what the generated adapters (in ``source``) call

    @property
    def functions(self) -> tuple[str, ...]:
        return CORE_FUNCTIONS + self.adapters + self.kernels


def kernels_used(programs: Sequence[bytes]) -> dict[str, set[str]]:
    """For each op of several kernels (a call spec with more than one Call) the programs call:
    the kernels their calls use, as the static C generator picks them; every kernel of the op
    where it cannot tell."""
    multi = {op.key: op.spec.kernels() for op in all_ops()
             if op.spec is not None and len(op.spec.kernels()) > 1}
    used: dict[str, set[str]] = {}
    for pte in programs:
        program = load_program(pte)
        try:
            rows = [r for plan in program.execution_plan
                    for r in generate_c(program, name="probe", method=plan.name).ops]
        except AotError:
            rows = None
        for name, overload in operators_of(pte):
            key = f"{name}.{overload}"
            if key not in multi:
                continue
            picked = set(multi[key]) if rows is None else \
                {r.kernel for r in rows if r.op == key and r.kernel in multi[key]}
            used.setdefault(key, set()).update(picked)
    return used


CACHE_MIN_ITEMS = 16   # RT_PTE_CACHE_MIN_ITEMS (rt_pte.h)


def cached_lists(program, method: str = "forward") -> tuple[int, int]:
    """(lists, items): the int lists rt_pte_load decodes into the state's tail, as its
    cache_lists picks them (RT_PTE_CACHE_MIN_ITEMS items or more, each an Int in int32)."""
    plan = program.method(method)
    lists = items = 0
    for v in plan.values:
        if isinstance(v, P.IntList) and len(v.items) >= CACHE_MIN_ITEMS and all(
                isinstance(plan.values[j], P.Int) and
                -(1 << 31) <= plan.values[j].int_val < (1 << 31) for j in v.items):
            lists += 1
            items += len(v.items)
    return lists, items


def operators_of(pte: bytes) -> list[tuple[str, str]]:
    """The (name, overload) of every operator a .pte's methods call."""
    program = load_program(pte)
    return sorted({(o.name, o.overload) for plan in program.execution_plan
                   for o in plan.operators})


def ops_for(programs: Optional[Iterable[bytes]]) -> list[OpDef]:
    """The op-table entries the given .pte files call (every entry when ``programs`` is None);
    an operator the op table lacks is an error naming it."""
    if programs is None:
        return sorted(all_ops(), key=lambda o: o.key)
    found: dict[str, OpDef] = {}
    for pte in programs:
        for name, overload in operators_of(pte):
            if (name, overload) == VIEW[:2]:
                continue
            op = by_et_name(name, overload)
            if op is None:
                raise AotError(f"operator {name}.{overload} has no kernel in mcu-aot's op "
                               "table; the interpreter cannot run this program")
            found[op.key] = op
    return [found[k] for k in sorted(found)]


def backends_of(pte: bytes) -> list[str]:
    """The backend ids of a .pte's delegates."""
    program = load_program(pte)
    return sorted({d.id for plan in program.execution_plan for d in plan.delegates})


def table_source(programs: Optional[Iterable[bytes]] = None,
                 backends: Optional[Sequence[str]] = None,
                 symbol: str = "rt_pte_registry_default") -> KernelTable:
    """The C of a kernel table (``const rt_pte_registry <symbol>``) for the operators of
    ``programs`` (.pte bytes), or for every operator when None. ``backends``: the rt_backend
    symbols to register; by default those of runtime_c that the programs' delegates name (all
    of them when programs is None). A delegate whose backend runtime_c lacks is left to
    rt_pte_load to refuse (RT_ERR_PTE_BACKEND), or to a firmware that links its own."""
    programs = None if programs is None else list(programs)
    ops = ops_for(programs)
    if backends is None:
        ids = set(RUNTIME_BACKENDS) if programs is None else \
            {i for p in programs for i in backends_of(p)}
        backends = [RUNTIME_BACKENDS[i] for i in sorted(ids) if i in RUNTIME_BACKENDS]
    used = None if programs is None else kernels_used(programs)
    rows = [(op.et_name, op.et_overload, _n_args(op), _flags(op), adapter_name(op), _writes(op))
            for op in ops]
    if programs is None or any(VIEW[:2] in operators_of(p) for p in programs):
        rows.append(VIEW)
    lines = ["/* Generated by mcu-aot (aot/interpreter.py) from its op table. Do not edit. */",
             '#include "rt_pte.h"', '#include "rt_pte_args.h"', '#include "rt_pte_checks.h"',
             '#include "rt_kernels_s8.h"', "",
             "/* Adapters run once a call, around a kernel that does the work: built for size. */",
             "#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)",
             '#pragma GCC optimize("Os")', "#endif", ""]
    lines += [f"rt_status {row[4]}(const rt_pte_call *c);" for row in rows]
    lines += [f"extern const rt_backend {b};" for b in backends]
    lines += ["", f"static const rt_pte_op ops[{len(rows)}] = {{"]
    for n, o, k, f, a, w in rows:
        lines.append(f'    {{"{n}", "{o}", {k}, {f}, {a}, {w}}},')
    lines += ["};", ""]
    if backends:
        lines += [f"static const rt_backend *const backends[{len(backends)}] = {{"]
        lines += [f"    &{b}," for b in backends] + ["};", ""]
    support = "&rt_pte_delegates" if backends else "NULL"
    flags = [_flags(op) for op in ops]
    fusion = any("FUSE_PRODUCER" in f for f in flags) and any("ACT_" in f for f in flags)
    lines += [f"const rt_pte_registry {symbol} = {{ops, {len(rows)}, "
              f"{'backends' if backends else 'NULL'}, {len(backends)}, {support}, "
              f"{'&rt_pte_fusion' if fusion else 'NULL'}}};", ""]
    if ops:
        lines += ["/* The adapters, compiled from the op table's call specs (aot/opspec.py). */",
                  ""]
    kernels: set[str] = set()
    for op in ops:      # a kernel no program's call picks is left out: that path refuses
        keep = set(op.spec.kernels()) if used is None or len(op.spec.kernels()) == 1 else \
            used.get(op.key, set())
        kernels |= keep
        lines.append(adapter_source(op, adapter_name(op), keep) + "\n")
    return KernelTable("\n".join(lines), tuple(r[4] for r in rows), tuple(backends),
                       fusion, tuple(sorted(kernels)))


def _backend_source(symbol: str) -> str:
    """The runtime_c file that defines the rt_backend object ``symbol``."""
    pattern = re.compile(rf"^const\s+rt_backend\s+{re.escape(symbol)}\b", re.M)
    for path in sorted((runtime_dir() / "src" / "backend").glob("*.c")):
        if pattern.search(path.read_text()):
            return path.relative_to(runtime_dir()).as_posix()
    raise AotError(f"no runtime_c/src/backend/*.c defines the backend {symbol}")


def runtime_files(table: KernelTable, arch: str) -> tuple[str, ...]:
    """The runtime_c files (relative) a firmware with this table links, for ``arch``: the
    core, the adapters' files and what they call, and the backends' files."""
    portable = list(runtime_sources_for(table.functions))
    if table.backends:
        portable += [DELEGATE_SOURCE] + [_backend_source(b) for b in table.backends]
    if table.fusion:
        portable.append(FUSION_SOURCE)
    return for_arch(sorted(set(portable)), arch)


# -- the host harness (cffi) --------------------------------------------------------------------

# The glue's functions, as the glue declares them and as cffi is told of them.
_PROTOTYPES = """
int32_t aot_pte_load(void *state, uint32_t state_size, const uint8_t *pte, uint32_t size,
                     uint8_t *arena, uint32_t arena_size);
int32_t aot_pte_run(void *state);
int32_t aot_pte_io(void *state, int32_t output, int32_t k, int32_t *dtype, int32_t *dims,
                   void **data, int32_t *nbytes);
int32_t aot_pte_bind(void *state, int32_t output, int32_t k, void *data);
int32_t aot_pte_where(void *state, int32_t *operator_index);
"""

_GLUE = """
#include <string.h>
#include "rt_pte.h"

extern const rt_pte_registry rt_pte_registry_default;
""" + _PROTOTYPES + """
int32_t aot_pte_load(void *state, uint32_t state_size, const uint8_t *pte, uint32_t size,
                     uint8_t *arena, uint32_t arena_size)
{
    return (int32_t)rt_pte_load((rt_pte_program *)state, state_size, pte, size, arena,
                                arena_size, &rt_pte_registry_default);
}

int32_t aot_pte_run(void *state) { return (int32_t)rt_pte_run((rt_pte_program *)state); }

int32_t aot_pte_io(void *state, int32_t output, int32_t k, int32_t *dtype, int32_t *dims,
                   void **data, int32_t *nbytes)
{
    rt_pte_tensor t;
    const rt_pte_program *p = (const rt_pte_program *)state;
    rt_status s = output ? rt_pte_output(p, k, &t) : rt_pte_input(p, k, &t);
    if (s != RT_OK) {
        return -(int32_t)s;
    }
    *dtype = t.dtype;
    memcpy(dims, t.shape.d, sizeof t.shape.d);
    *data = t.data;
    *nbytes = t.nbytes;
    return t.shape.rank;
}

int32_t aot_pte_bind(void *state, int32_t output, int32_t k, void *data)
{
    rt_pte_program *p = (rt_pte_program *)state;
    return (int32_t)(output ? rt_pte_bind_output(p, k, data) : rt_pte_bind_input(p, k, data));
}

int32_t aot_pte_where(void *state, int32_t *operator_index)
{
    const rt_pte_program *p = (const rt_pte_program *)state;
    *operator_index = p->bad_operator;
    return p->bad_instruction;
}
"""

_CDEF = _PROTOTYPES + """
uint32_t rt_pte_arena_size(const uint8_t *pte, uint32_t size, int32_t *status);
uint32_t rt_pte_state_size(const uint8_t *pte, uint32_t size, int32_t *status);
"""


class PteError(AotError):
    """The interpreter refused or failed a program: ``status`` is its rt_status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class HostInterpreter:
    """The interpreter compiled for this machine: ``run(pte, inputs)`` loads and runs."""

    def __init__(self, lib, ffi, library_path: Path):
        self._lib, self._ffi, self.library_path = lib, ffi, library_path

    def _aligned(self, nbytes: int, align: int = 64):
        raw = self._ffi.new("uint8_t[]", nbytes + align)
        start = (-int(self._ffi.cast("uintptr_t", raw))) % align
        return raw, raw + start

    def _fail(self, what: str, status: int, state) -> PteError:
        op = self._ffi.new("int32_t *")
        where = self._lib.aot_pte_where(state, op)
        at = f" at instruction {where}" if where >= 0 else ""
        at += f" (operator {op[0]})" if op[0] >= 0 else ""
        return PteError(f"{what}: {status_name(status)}{at}", status)

    def load(self, pte: bytes, arena_size: Optional[int] = None) -> "HostProgram":
        status = self._ffi.new("int32_t *")
        raw_pte, pte_ptr = self._aligned(len(pte))
        self._ffi.memmove(pte_ptr, pte, len(pte))
        need = self._lib.rt_pte_arena_size(pte_ptr, len(pte), status)
        if status[0] != 0:
            raise PteError(f"reading the .pte: {status_name(status[0])}", status[0])
        size = need if arena_size is None else arena_size
        raw_arena, arena = self._aligned(max(size, 1))
        state_size = self._lib.rt_pte_state_size(pte_ptr, len(pte), status)
        if status[0] != 0:   # (it checks every value, as load does)
            raise PteError(f"reading the .pte: {status_name(status[0])}", status[0])
        raw_state, state = self._aligned(max(state_size, 1))
        s = self._lib.aot_pte_load(state, state_size, pte_ptr, len(pte), arena, size)
        if s != 0:
            raise self._fail("loading the .pte", s, state)
        return HostProgram(self, (raw_pte, raw_arena, raw_state), state)

    def run(self, pte: bytes, inputs: Sequence) -> list[np.ndarray]:
        return self.load(pte)(*inputs)


class HostProgram:
    """One loaded .pte: call it with numpy arrays."""

    def __init__(self, interp: HostInterpreter, keep, state):
        self._i, self._keep, self._state = interp, keep, state
        self._bound: list = []

    def _io(self, output: bool, k: int):
        ffi, lib = self._i._ffi, self._i._lib
        dtype, dims = ffi.new("int32_t *"), ffi.new("int32_t[6]")
        data, nbytes = ffi.new("void **"), ffi.new("int32_t *")
        rank = lib.aot_pte_io(self._state, int(output), k, dtype, dims, data, nbytes)
        if rank < 0:
            raise PteError(f"{'output' if output else 'input'} {k}: {status_name(-rank)}", -rank)
        return _NP[dtype[0]], tuple(dims[j] for j in range(rank)), data[0], nbytes[0]

    def __call__(self, *inputs) -> list[np.ndarray]:
        ffi, lib = self._i._ffi, self._i._lib
        self._bound = []
        for k, x in enumerate(inputs):
            dtype, shape, data, nbytes = self._io(False, k)
            a = np.require(np.asarray(x.detach().numpy() if hasattr(x, "detach") else x),
                           requirements="C")    # (keeps a 0-d input 0-d)
            if a.dtype != dtype or a.shape != shape:
                raise AotError(f"input {k}: the program takes {np.dtype(dtype).name} "
                               f"{list(shape)}, not {a.dtype.name} {list(a.shape)}")
            if data == ffi.NULL:
                buf = ffi.new("uint8_t[]", max(nbytes, 1))
                ffi.memmove(buf, a.tobytes(), nbytes)
                self._bound.append(buf)
                s = lib.aot_pte_bind(self._state, 0, k, buf)
                if s != 0:
                    raise PteError(f"binding input {k}: {status_name(s)}", s)
            else:
                ffi.memmove(data, a.tobytes(), nbytes)
        n_out = 0
        while True:                      # outputs the program does not plan: our buffers
            try:
                dtype, shape, data, nbytes = self._io(True, n_out)
            except PteError:
                break
            if data == ffi.NULL:
                buf = ffi.new("uint8_t[]", max(nbytes, 1))
                self._bound.append(buf)
                s = lib.aot_pte_bind(self._state, 1, n_out, buf)
                if s != 0:
                    raise PteError(f"binding output {n_out}: {status_name(s)}", s)
            n_out += 1
        s = lib.aot_pte_run(self._state)
        if s != 0:
            raise self._i._fail("running the .pte", s, self._state)
        n = 0
        outs = []
        while True:
            try:
                dtype, shape, data, nbytes = self._io(True, n)
            except PteError:
                break
            buf = bytes(ffi.buffer(data, nbytes)) if nbytes else b""
            outs.append(np.frombuffer(buf, dtype=dtype).reshape(shape).copy())
            n += 1
        return outs


def build_host(programs: Optional[Iterable[bytes]] = None, *, arch: Optional[str] = None,
               sanitize: bool = False, cflags: Sequence[str] = (),
               cache_dir: Optional[os.PathLike] = None) -> HostInterpreter:
    """Compile the interpreter (the kernel table for ``programs``, or every operator) with this
    machine's runtime files for ``arch`` into a shared library, cached by content hash."""

    arch = arch or host_arch()
    table = table_source(programs)
    runtime = runtime_files(table, arch)
    flags = list(STRICT_FLAGS) + (list(SANITIZE_FLAGS) if sanitize else []) + \
        list(host_cflags(arch)) + list(cflags)
    root = runtime_dir()
    h = hashlib.sha256((table.source + _GLUE + repr(flags) + repr(sys.version_info[:2]))
                       .encode())
    for rel in runtime:
        h.update(rel.encode() + (root / rel).read_bytes())
    headers = headers_digest()
    h.update(headers)
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    target = cache / ("pte-" + h.hexdigest()[:20])
    lib_path = target / "libpte.so"
    if not lib_path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".pte-", dir=cache))
        try:
            (work / "table.c").write_text(table.source)
            (work / "glue.c").write_text(_GLUE)
            objects = runtime_objects(runtime, flags, cache, headers)
            cmd = [compiler(), *flags, "-shared", "-fPIC", f"-I{root / 'include'}",
                   str(work / "table.c"), str(work / "glue.c"), *map(str, objects),
                   "-o", str(work / "libpte.so"), "-lm"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise AotError(f"compiling the interpreter failed:\n{r.stderr.strip()}")
            try:
                os.replace(work, target)
            except OSError:
                pass
        finally:
            shutil.rmtree(work, ignore_errors=True)
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    return HostInterpreter(ffi.dlopen(str(lib_path)), ffi, lib_path)
