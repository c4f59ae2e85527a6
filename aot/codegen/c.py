"""The static C generator: one Program method -> one C translation unit and its header.

Python decides everything here (pointer expressions, parameter structs, constant arrays, the
call sequence); the jinja2 templates in ``codegen_templates/`` only loop and substitute. The
Program may come from ``to_executorch`` or from any .pte ``aot.load_program`` reads.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .. import program as P
from ..calls import ArgError, TensorValue, decode_call
from ..emit import frame_text
from ..errors import AotError, UnsupportedOpError
from ..ops import by_et_name
from .epilogue import find_epilogues
from .context import (DTYPES as _DTYPES, CallContext, Invalid, TensorArg,
                      Unsupported as _Unsupported, c_literals, dtype_name, f32_literal)
from .render import render_template

_NUMPY_NAMES = {"float32": "float32", "int64": "int64", "int32": "int32", "bool": "bool",
                "uint8": "uint8", "int8": "int8", "int16": "int16"}
_VIEW_OPS = {("executorch_prim::et_view", "default")}


_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while _Bool _Complex _Imaginary bool true false
asm""".split())
# Prefixes the runtime, the boards' platform code and the CMake library output own.
_TAKEN = (("rt", "the runtime's rt_* functions and RT_* macros"),
          ("plat", "the board platform's plat_* functions"),
          ("mcu_aot", "mcu-aot's own names (the mcu_aot_runtime library target)"))


def c_ident(name: str) -> str:
    """The model's name as its C prefix (<name>_run, <NAME>_ARENA_SIZE, <name>.c): it must
    be a C identifier that no C keyword, runtime or platform name can clash with; AotError
    says why not."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise AotError(f"model name {name!r} is not a C identifier (letters, digits and _, "
                       "not starting with a digit): it prefixes the generated C symbols")
    if name in _C_KEYWORDS:
        raise AotError(f"model name {name!r} is a C keyword; pick another name")
    if name.startswith("__") or re.match(r"_[A-Z]", name):
        raise AotError(f"model name {name!r} starts with a prefix C reserves for the "
                       "compiler and its library; pick another name")
    for prefix, owner in _TAKEN:
        if name.lower() == prefix or name.lower().startswith(prefix + "_"):
            raise AotError(f"model name {name!r} clashes with {owner}; pick another name")
    return name


@dataclass(frozen=True)
class OpRow:
    index: int
    op: str
    kernel: str
    out_shape: tuple[int, ...]
    source: str
    fused_into: Optional[int] = None   # an activation the kernel of that instruction runs
    macs: int = 0                      # multiply-accumulates (0 where the op has none)


@dataclass(frozen=True)
class IOSpec:
    shape: tuple[int, ...]
    dtype: str    # numpy dtype name: "float32", "int64", ...
    qparams: Optional[tuple[float, int]] = None   # int8 I/O: (scale, zero point)


@dataclass(frozen=True)
class CSources:
    """Generated sources for one method: write them with ``write(dir)``."""
    name: str
    files: dict                    # file name -> text
    arena_size: int
    constant_bytes: int
    ops: tuple[OpRow, ...]
    runtime_sources: tuple[str, ...]   # runtime_c/ files the model calls into
    inputs: tuple[IOSpec, ...] = ()
    outputs: tuple[IOSpec, ...] = ()
    # The instruction index of each kernel call <name>_run makes, in order (an instruction
    # may take several calls, a fused activation none): the profile's slots.
    calls: tuple[int, ...] = ()

    def write(self, directory: Union[str, Path]) -> list[Path]:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for fname, text in self.files.items():
            path = out / fname
            tmp = path.with_name(f".{fname}.tmp")
            tmp.write_text(text)
            tmp.replace(path)
            written.append(path)
        return written

    @property
    def kernels(self) -> tuple[str, ...]:
        return tuple(sorted({r.kernel for r in self.ops if r.fused_into is None}))


class _Generator:
    def __init__(self, program: P.Program, method: str, name: str):
        self.program = program
        self.plan = program.method(method)
        self.name = c_ident(name)
        self.values = self.plan.values
        self.arena_size = self.plan.non_const_buffer_sizes[1] \
            if len(self.plan.non_const_buffer_sizes) > 1 else 0
        self.shapes: dict[tuple, str] = {}
        self.statics: list[str] = []
        self._static_index: dict[str, str] = {}
        self.locals: list[str] = []
        self.constants: dict[int, dict] = {}
        self.state: list[dict] = []
        self.inputs = {v: k for k, v in enumerate(self.plan.inputs)}
        self.outputs = {v: k for k, v in enumerate(self.plan.outputs)}
        if len(self.plan.non_const_buffer_sizes) > 2:
            raise AotError(f"method {method!r} uses {len(self.plan.non_const_buffer_sizes) - 1} "
                           "memory arenas; the C generator supports one")

    # -- tensors -------------------------------------------------------------------------------
    def shape_init(self, shape: tuple[int, ...]) -> str:
        dims = ", ".join(str(d) for d in shape) or "0"
        return f"{{{len(shape)}, {{{dims}}}}}"

    def shape_ref(self, shape: tuple[int, ...]) -> str:
        if shape not in self.shapes:
            self.shapes[shape] = f"{self.name}_shape{len(self.shapes)}"
        return f"&{self.shapes[shape]}"

    def tensor(self, ref: Union[int, TensorValue], write: bool) -> TensorArg:
        """A tensor as the C sees it: a pointer into the arena, into flash, or to a caller's
        input or output buffer."""
        index = ref.index if isinstance(ref, TensorValue) else ref
        t = self.values[index]
        if not isinstance(t, P.Tensor):
            raise Invalid(f"value {index} is not a tensor")
        dtype = dtype_name(t)
        ctype = _DTYPES[t.scalar_type][1]
        if tuple(t.dim_order) != tuple(range(len(t.sizes))):
            raise _Unsupported(f"tensor {index} in dim order {list(t.dim_order)} (the C "
                               "runtime takes contiguous tensors)")
        const = "" if write else "const "
        if t.allocation_info is not None:
            if t.allocation_info.memory_id != P.ARENA_MEMORY_ID:
                raise _Unsupported(f"memory id {t.allocation_info.memory_id}")
            ptr = f"({const}{ctype} *)(arena + {t.allocation_info.offset})"
            if t.data_buffer_idx > 0 and not any(s["index"] == index for s in self.state):
                self.state.append(self._state_entry(index, t, ctype))
        elif t.data_buffer_idx > 0:
            if write:
                raise Invalid("a call writes into a constant tensor")
            ptr = self._constant(index, t, ctype)
        elif index in self.inputs and not write:
            ptr = f"({const}{ctype} *)inputs[{self.inputs[index]}]"
        elif index in self.outputs:
            ptr = f"({ctype} *)outputs[{self.outputs[index]}]"
        else:
            raise Invalid(f"tensor value {index} has no storage (not planned, constant, "
                          "input or output)")
        return TensorArg(index, tuple(t.sizes), dtype, ptr, self.shape_ref(tuple(t.sizes)))

    def _data(self, t: P.Tensor, blob: bytes, np_dtype) -> np.ndarray:
        return np.frombuffer(blob, dtype=np_dtype, count=t.numel)

    def _constant(self, index: int, t: P.Tensor, ctype: str) -> str:
        """The C array of a constant, one per (buffer, dtype): tensors of several dtypes may
        share a buffer (the emitter merges constants with the same bytes, an int8 weight of
        zeros and an int32 sum of zeros), and each reads it as its own type. The array holds
        as many items as the largest tensor of its dtype reads."""
        idx = t.data_buffer_idx
        key = (idx, int(t.scalar_type))
        if key not in self.constants:
            if idx >= len(self.program.constant_buffer):
                raise AotError(f"tensor {index} points at constant {idx}, past the "
                               f"{len(self.program.constant_buffer)} in the program")
            users = [v for v in self.values if isinstance(v, P.Tensor) and
                     v.allocation_info is None and v.data_buffer_idx == idx]
            largest = max((v for v in users if v.scalar_type == t.scalar_type),
                          key=lambda v: v.numel)
            shared = len({int(v.scalar_type) for v in users}) > 1
            np_dtype = _DTYPES[t.scalar_type][2]
            data = self._data(largest, self.program.constant_buffer[idx].storage, np_dtype)
            name = f"{self.name}_c{idx}" + (f"_{dtype_name(t)}" if shared else "")
            self.constants[key] = dict(name=name, ctype=ctype, count=max(int(data.size), 1),
                                       values=c_literals(data), nbytes=int(data.nbytes),
                                       shape="x".join(map(str, largest.sizes)) or "scalar")
        return self.constants[key]["name"]

    def _state_entry(self, index: int, t: P.Tensor, ctype: str) -> dict:
        bank = self.program.mutable_data[0] if self.program.mutable_data else ()
        if t.data_buffer_idx >= len(bank):
            raise AotError(f"state tensor {index} has no initial data in the program")
        data = self._data(t, bank[t.data_buffer_idx].storage, _DTYPES[t.scalar_type][2])
        return dict(index=index, name=f"{self.name}_init{index}", ctype=ctype,
                    count=max(int(data.size), 1), values=c_literals(data),
                    offset=t.allocation_info.offset, nbytes=int(data.nbytes))

    # -- static helpers ------------------------------------------------------------------------
    def static_struct(self, ctype: str, fields: dict) -> str:
        body = ", ".join(f".{k} = {_c_value(v)}" for k, v in fields.items())
        return "&" + self._static(ctype, f"{{{body}}}", "p", "")

    def static_array(self, ctype: str, items: list[str]) -> str:
        return self._static(ctype, "{" + ", ".join(items) + "}", "a", f"[{len(items)}]")

    def _static(self, ctype: str, init: str, kind: str, suffix: str) -> str:
        key = f"{ctype}{suffix}={init}"
        if key not in self._static_index:
            name = f"{self.name}_{kind}{len(self.statics)}"
            self.statics.append(f"static const {ctype} {name}{suffix} = {init};")
            self._static_index[key] = name
        return self._static_index[key]


def _c_value(v) -> str:
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(_c_value(x) for x in v) + "}"
    if isinstance(v, float):
        return f32_literal(v)
    return str(v)


def generate_c(program_or_manager, name: str = "model", method: str = "forward") -> CSources:
    """The C sources of one method, from a Program or an ExecutorchProgramManager."""
    program = getattr(program_or_manager, "executorch_program", program_or_manager)
    if not isinstance(program, P.Program):
        raise AotError("generate_c takes a Program (aot.load_program) or the manager "
                       f"returned by to_executorch(), not {type(program_or_manager).__name__}")
    try:
        program.method(method)
    except KeyError as e:
        raise AotError(str(e.args[0])) from None
    gen = _Generator(program, method, name)
    gen.io_qparams = _io_qparams(program_or_manager, method)
    chain = gen.plan.chains[0] if gen.plan.chains else P.Chain((), (), ())
    calls, rows, missing = [], [], []
    from .delegates import DelegateCalls   # it builds on this module's types
    delegates = DelegateCalls(gen, chain)
    epilogues = find_epilogues(gen.plan, chain)
    act_of = {e.producer: (e.lo, e.hi) for e in epilogues}
    fused_into = {e.activation: e.producer for e in epilogues}
    for i, ins in enumerate(chain.instructions):
        source = frame_text(chain, i)
        if isinstance(ins, P.DelegateCall):
            try:
                call, row = delegates.call(i, ins, source)
            except _Unsupported as e:
                missing.append((str(e), source))
                continue
            calls.append(call)
            rows.append(row)
            continue
        if not isinstance(ins, P.KernelCall):
            missing.append((type(ins).__name__, source))
            continue
        opr = gen.plan.operators[ins.op_index]
        if (opr.name, opr.overload) in _VIEW_OPS:
            continue
        op = by_et_name(opr.name, opr.overload)
        label = f"{opr.name}.{opr.overload}" if opr.overload else opr.name
        if i in fused_into:    # the producer's kernel clamps its outputs as it stores them
            out = gen.values[ins.args[-1]]
            rows.append(OpRow(i, label, f"(in #{fused_into[i]})", tuple(out.sizes), source,
                              fused_into[i]))
            continue
        if op is None or op.render is None:
            missing.append((label, source))
            continue
        try:
            values = decode_call(gen.plan, ins, op.schema)
        except ArgError as e:
            raise AotError(f"instruction {i} ({label}) at {source}: {e}") from None
        ctx = CallContext(gen, op, values, act=act_of.get(i))
        try:
            rendered = op.render(ctx)
        except _Unsupported as e:
            missing.append((f"{label} ({e})", source))
            continue
        except Invalid as e:
            raise AotError(f"instruction {i} ({label}) at {source}: {e}") from None
        fills = ctx.prelude
        for fn, args in (rendered if isinstance(rendered, list) else [rendered]):
            calls.append(dict(index=i, op=label, fn=fn, args=[str(a) for a in args],
                              source=source.replace("*/", "* /"), fills=fills))
            fills = []
        out = gen.values[ins.args[len(op.schema.arguments) - 1]] \
            if op.schema.arguments[-1].is_out else None
        rows.append(OpRow(i, label, rendered[0] if isinstance(rendered, tuple) else
                          rendered[0][0], tuple(getattr(out, "sizes", ())), source,
                          macs=_macs(op, values)))
    if missing:
        raise UnsupportedOpError(missing, where=f"the C runtime (method {method!r})")
    return _render(gen, calls, rows, delegates)


def _macs(op, values: dict) -> int:
    """The op table's MAC count for one call (tensors as their shapes, as aot.report does)."""
    args = {k: v.shape if isinstance(v, TensorValue) else v for k, v in values.items()}
    outs = [v.shape for a, v in zip(op.schema.arguments, values.values())
            if a.is_out and isinstance(v, TensorValue)]
    return op.macs(args, outs)


def _io_qparams(manager, method: str) -> dict:
    """(kind, k) -> (scale, zero point) of each int8 input and output, which only the lowered
    method knows (a .pte does not record them)."""
    if not hasattr(manager, "lowered"):
        return {}
    g = manager.lowered(method).graph
    out = {}
    for kind, ids in (("input", g.inputs), ("output", g.outputs)):
        for k, tid in enumerate(ids):
            if tid is not None and g.tensors[tid].qparams is not None:
                out[(kind, k)] = g.tensors[tid].qparams
    return out


def _io(gen: _Generator, indices, kind: str) -> list[dict]:
    items = []
    for k, v in enumerate(indices):
        t = gen.values[v]
        if not isinstance(t, P.Tensor) or t.scalar_type not in _DTYPES:
            raise AotError(f"{kind} {k} is not a tensor of a supported dtype")
        dtype, ctype, np_dtype = _DTYPES[t.scalar_type]
        alloc = t.allocation_info
        items.append(dict(k=k, shape=list(t.sizes), rank=len(t.sizes), numel=t.numel,
                          ctype=ctype, dtype=dtype, nbytes=t.numel * np.dtype(np_dtype).itemsize,
                          offset=alloc.offset if alloc is not None else None,
                          qparams=getattr(gen, "io_qparams", {}).get((kind, k))))
    return items


def _render(gen: _Generator, calls: list, rows: list, delegates) -> CSources:
    inputs = _io(gen, gen.plan.inputs, "input")
    outputs = _io(gen, gen.plan.outputs, "output")
    # Flash data: weights, and the blobs of delegates that run through the runtime interface.
    constant_bytes = sum(c["nbytes"] for c in gen.constants.values()) + \
        sum(len(gen.program.backend_delegate_data[i].data) for i in delegates.blobs)
    # Only shapes that a call reads (a kernel may take shapes through an array instead).
    used = "\n".join(f"{', '.join(c['args'])})" for c in calls) + "\n".join(gen.statics) + \
        "\n".join(line for c in calls for line in c["fills"])
    ctx = dict(
        name=gen.name, NAME=gen.name.upper(), arena_size=gen.arena_size, alignment=16,
        inputs=inputs, outputs=outputs, calls=calls, locals=gen.locals,
        shapes=[(n, gen.shape_init(s), "x".join(map(str, s)) or "scalar")
                for s, n in gen.shapes.items() if f"&{n}," in used or f"&{n})" in used],
        statics=gen.statics, constants=list(gen.constants.values()), state=gen.state,
        constant_bytes=constant_bytes, method=gen.plan.name,
        kernels=sorted({c["fn"] for c in calls} | {r.kernel for r in rows
                                                     if r.fused_into is None}),
        delegate_sources=delegates.sources, runtime_delegates=delegates.runtime,
        delegate_blobs=list(delegates.blobs.values()), backends=delegates.backends,
    )
    header = render_template("model.h.j2", ctx)
    source = render_template("model.c.j2", ctx)
    files = {f"{gen.name}.h": header, f"{gen.name}.c": source}
    from .runtime import runtime_sources_for
    io = lambda items: tuple(IOSpec(tuple(t["shape"]), _NUMPY_NAMES[t["dtype"]], t["qparams"])
                             for t in items)
    runtime = set(runtime_sources_for(ctx["kernels"])) | delegates.runtime_sources
    return CSources(gen.name, files, gen.arena_size, constant_bytes, tuple(rows),
                    tuple(sorted(runtime)), io(inputs), io(outputs),
                    tuple(c["index"] for c in calls))
