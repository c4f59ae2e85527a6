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
from ..errors import AotError, PteFormatError, UnsupportedCallError, UnsupportedOpError
from ..ops import by_et_name
from .epilogue import find_epilogues
from .context import (DTYPES as _DTYPES, CallContext, Invalid, TensorArg,
                      Unsupported as _Unsupported, c_literals, dtype_name, f32_literal)
from .delegates import DelegateCalls
from .dsp_variants import call_paths
from .mve_variants import call_variants, variants_mask
from .render import render_template
from .renderers import renderer_of
from .rows import OpRow
from .runtime import runtime_sources_for

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
    # The variants of the Cortex-M Helium kernels its calls take (RT_MVE_USE, a mask of
    # runtime_c/src/arch/cortex_m_mve/mve_variants.h's bits; aot.codegen.mve_variants).
    mve_use: Optional[int] = None   # (None: every variant)
    # The fast paths of the Cortex-M DSP int8 kernels its calls take (RT_DSP_USE, a mask of
    # runtime_c/src/arch/cortex_m_dsp/dsp_variants.h's bits; aot.codegen.dsp_variants).
    dsp_use: Optional[int] = None   # (None: every path)

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
        if t.dim_order and tuple(t.dim_order) != tuple(range(len(t.sizes))):
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
        nbytes = t.numel * np.dtype(np_dtype).itemsize
        if len(blob) < nbytes:
            raise PteFormatError(f"method {self.plan.name!r}: a {nbytes}-byte tensor reads data "
                                 f"{t.data_buffer_idx}, which has only {len(blob)} bytes")
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
                raise PteFormatError(f"method {self.plan.name!r}: tensor {index} points at "
                                     f"constant {idx}, past the "
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
        extra = t.extra_tensor_info
        k = extra.mutable_data_segments_idx if extra is not None else 0
        bank = self.program.mutable_data[k] if k < len(self.program.mutable_data) else ()
        if t.data_buffer_idx >= len(bank):
            raise PteFormatError(f"method {self.plan.name!r}: state tensor {index} has no "
                                 "initial data in the program")
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
    _check_runnable(program, method)
    gen = _Generator(program, method, name)
    gen.io_qparams = _io_qparams(program_or_manager, method)
    chain = gen.plan.chains[0] if gen.plan.chains else P.Chain((), (), ())
    calls, rows, missing = [], [], []
    unknown = False          # an operator, backend or instruction the C runtime lacks
    delegates = DelegateCalls(gen, chain)
    epilogues = find_epilogues(gen.plan, chain)
    act_of = {e.producer: (e.lo, e.hi) for e in epilogues}
    fused_into = {e.activation: e.producer for e in epilogues}
    for i, ins in enumerate(chain.instructions):
        source = frame_text(chain, i)
        try:
            _check_instruction(gen.plan, chain, i, ins)
        except PteFormatError:
            if missing:     # an earlier call is refused first, as the C loader refuses it
                break
            raise
        if isinstance(ins, P.DelegateCall):
            try:
                call, row = delegates.call(i, ins, source)
            except _Unsupported as e:
                missing.append((str(e), source))
                unknown = True
                continue
            calls.append(call)
            rows.append(row)
            continue
        if isinstance(ins, P.FreeCall):
            continue           # the plan is static: nothing to free
        if not isinstance(ins, P.KernelCall):
            missing.append((f"instruction {i} ({type(ins).__name__})", source))
            unknown = True
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
        if op is None or not op.has_kernel:
            missing.append((label, source))
            unknown = True
            continue
        try:
            values = decode_call(gen.plan, ins, op.schema)
        except ArgError as e:
            if missing:
                break
            raise PteFormatError(f"method {method!r}, instruction {i} ({label}) at {source}: "
                                 f"{e}") from None
        ctx = CallContext(gen, op, values, act=act_of.get(i))
        try:
            rendered = renderer_of(op)(ctx)
        except _Unsupported as e:
            missing.append((f"instruction {i} {label} ({e})", source))
            continue
        except (Invalid, PteFormatError) as e:
            if missing:
                break
            if isinstance(e, PteFormatError):
                raise
            raise PteFormatError(f"method {method!r}, instruction {i} ({label}) at {source}: "
                                 f"{e}") from None
        fn, args = rendered
        raw = getattr(ctx, "raw_call", {})
        calls.append(dict(index=i, op=label, fn=fn, args=[str(a) for a in args],
                          source=source.replace("*/", "* /"), fills=ctx.prelude,
                          mve=call_variants(fn, ctx, raw), dsp=call_paths(fn, ctx, raw)))
        out = gen.values[ins.args[len(op.schema.arguments) - 1]] \
            if op.schema.arguments[-1].is_out else None
        rows.append(OpRow(i, label, fn, tuple(getattr(out, "sizes", ())), source,
                          macs=_macs(op, values)))
    if missing:
        # Calls of operators the runtime has, with arguments no kernel takes: the C
        # interpreter refuses such a file at load (RT_ERR_PTE_DTYPE, _ARGS, _UNSUPPORTED).
        error = UnsupportedOpError if unknown else UnsupportedCallError
        raise error(missing, where=f"the C runtime (method {method!r})")
    return _render(gen, calls, rows, delegates)


# What running a method asks of its file, beyond what load_program checks (which reads every
# valid ExecuTorch program): the rules rt_pte_load (runtime_c/src/pte/pte_core.c) applies for
# this reason, and which the static C needs too.
_ELEM_SIZE = {st: np.dtype(np_dtype).itemsize for st, (_, _, np_dtype) in _DTYPES.items()}
_MAX_RANK = 6                   # RT_MAX_DIMS (rt_types.h)
_MAX_BYTES = (1 << 31) - 1      # a tensor's bytes and the planned memory fit int32
_AREA_ALIGN = 16                # each planned memory area starts 16-byte aligned


def _check_runnable(program: P.Program, method: str) -> P.ExecutionPlan:
    """The method's plan, after the checks of a file that only running it makes: a chain to
    run, planned memory and tensors of under 2 GB, tensors of the dtypes the C runtime takes,
    static and contiguous, of rank 6 at most, tensor inputs and outputs (each instruction:
    _check_instruction). Each failure is a PteFormatError naming the method and the value
    and its field."""
    if not program.execution_plan:
        raise PteFormatError("the program has no method (its execution_plan is empty)")
    try:
        plan = program.method(method)
    except KeyError as e:
        raise AotError(str(e.args[0])) from None
    where = f"method {plan.name!r}"
    if not plan.chains:
        raise PteFormatError(f"{where} has no chain of instructions")
    total = 0
    for k, size in enumerate(plan.non_const_buffer_sizes[1:], 1):
        total = -(-total // _AREA_ALIGN) * _AREA_ALIGN
        if size > _MAX_BYTES or total + size > _MAX_BYTES:
            raise PteFormatError(f"{where}: non_const_buffer_sizes[{k}] is {size} bytes: the "
                                 f"planned memory comes to more than {_MAX_BYTES} bytes")
        total += size
    for v, value in enumerate(plan.values):
        if isinstance(value, P.Tensor):
            problem = _tensor_problem(value)
            if problem:
                raise PteFormatError(f"{where}: value {v} {problem}")
    for kind, indices in (("inputs", plan.inputs), ("outputs", plan.outputs)):
        for k, v in enumerate(indices):
            if not isinstance(plan.values[v], P.Tensor):
                raise PteFormatError(f"{where}: {kind}[{k}] is value {v}, "
                                     f"{_kind(plan.values[v])}, not a tensor")
    return plan


def _check_instruction(plan: P.ExecutionPlan, chain: P.Chain, i: int, ins) -> None:
    """What running instruction i asks of it (rt_pte_load's check_instructions): no
    MoveCall, a JumpFalseCall forward on a Bool, a well-formed et_view call."""
    at = f"method {plan.name!r}, instruction {i} ({_instruction_label(plan, ins)}) at " \
        f"{frame_text(chain, i)}"
    if isinstance(ins, P.MoveCall):
        raise PteFormatError(f"{at}: a MoveCall, which the C runtime does not run")
    if isinstance(ins, P.JumpFalseCall):
        cond = plan.values[ins.cond_value_index]
        if not isinstance(cond, P.Bool):
            raise PteFormatError(f"{at}: cond_value_index is value {ins.cond_value_index}, "
                                 f"{_kind(cond)}, not a Bool")
        if not i < ins.destination_instruction <= len(chain.instructions):
            raise PteFormatError(
                f"{at}: destination_instruction {ins.destination_instruction} is not after "
                f"it (jumps go forward, to {len(chain.instructions)} at most)")
    if isinstance(ins, P.KernelCall) and \
            _operator_key(plan.operators[ins.op_index]) in _VIEW_OPS:
        _check_view(plan, ins, at)


def _kind(value) -> str:
    name = type(value).__name__
    return ("an " if name[0] in "AEIOU" else "a ") + name


def _operator_key(opr: P.Operator) -> tuple[str, str]:
    return opr.name, opr.overload


def _instruction_label(plan: P.ExecutionPlan, ins) -> str:
    if isinstance(ins, P.KernelCall):
        opr = plan.operators[ins.op_index]
        return f"{opr.name}.{opr.overload}" if opr.overload else opr.name
    return type(ins).__name__


def _tensor_problem(t: P.Tensor) -> Optional[str]:
    """What in a tensor's metadata the C runtime cannot take, or None."""
    es = _ELEM_SIZE.get(t.scalar_type)
    if es is None:
        return (f"is a tensor of {_scalar_type_name(t.scalar_type)}, a dtype the C runtime "
                f"does not take (it takes {', '.join(n for n, _, _ in _DTYPES.values())})")
    if len(t.sizes) > _MAX_RANK:
        return f"is a tensor of rank {len(t.sizes)}; the C runtime takes rank {_MAX_RANK} at most"
    if t.storage_offset != 0:
        return (f"has storage_offset {t.storage_offset} (a view into another tensor's "
                "storage, which the C runtime does not take)")
    if t.shape_dynamism != P.TensorShapeDynamism.STATIC:
        return (f"has shape_dynamism {P.TensorShapeDynamism(t.shape_dynamism).name}; the C "
                "runtime takes static shapes")
    if t.dim_order and tuple(t.dim_order) != tuple(range(len(t.sizes))):
        return (f"has dim_order {list(t.dim_order)} for sizes {list(t.sizes)}; the C runtime "
                "takes contiguous tensors (dim_order 0, 1, ..., or none)")
    span = 1          # each size, a 0 counted as 1: a kernel's strides over the other sizes
    for d in t.sizes:
        span *= max(d, 1)
        if span * es > _MAX_BYTES:
            return (f"is a tensor of sizes {list(t.sizes)} of {es}-byte elements: more than "
                    f"{_MAX_BYTES} bytes (a size of 0 counted as 1)")
    alloc = t.allocation_info
    if alloc is not None and alloc.memory_offset_high != 0:
        return (f"has allocation_info.memory_offset_high {alloc.memory_offset_high}: planned "
                "4 GB or more into its memory area")
    extra = t.extra_tensor_info
    if alloc is not None and t.data_buffer_idx > 0 and extra is not None and extra.location:
        return ("is state whose initial value is in another file (extra_tensor_info.location "
                f"{extra.location})")
    return None


def _scalar_type_name(st) -> str:
    try:
        return P.ScalarType(st).name
    except ValueError:
        return f"scalar type {int(st)}"


def _check_view(plan: P.ExecutionPlan, ins: P.KernelCall, at: str) -> None:
    """executorch_prim::et_view.default(self, size, out): out takes self's data, so both are
    tensors of the same dtype and byte size, and out is not a constant (the C runtime's
    rt_op_executorch_prim_et_view_default; the static C plans it as self's memory)."""
    if len(ins.args) != 3:
        raise PteFormatError(f"{at}: argument list has {len(ins.args)} entries; et_view takes "
                             "3 (self, size, out)")
    self_, out = (plan.values[ins.args[0]], plan.values[ins.args[2]])
    for name, k, v in (("self", 0, self_), ("out", 2, out)):
        if not isinstance(v, P.Tensor):
            raise PteFormatError(f"{at}: argument {name!r} is value {ins.args[k]}, {_kind(v)}, "
                                 "not a tensor")
    if out.allocation_info is None and out.data_buffer_idx > 0:
        raise PteFormatError(f"{at}: argument 'out': tensor {ins.args[2]} is a constant, but "
                             "the call writes it")
    if out.scalar_type != self_.scalar_type:
        raise PteFormatError(f"{at}: argument 'out': tensor {ins.args[2]} is "
                             f"{_scalar_type_name(out.scalar_type)}, self "
                             f"{_scalar_type_name(self_.scalar_type)}")
    es = _ELEM_SIZE[self_.scalar_type]
    if out.numel * es != self_.numel * es:
        raise PteFormatError(f"{at}: argument 'out': tensor {ins.args[2]} has {out.numel} "
                             f"elements, self {self_.numel}")


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
            raise PteFormatError(f"{kind} {k} is not a tensor of a supported dtype")
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
    io = lambda items: tuple(IOSpec(tuple(t["shape"]), _NUMPY_NAMES[t["dtype"]], t["qparams"])
                             for t in items)
    runtime = set(runtime_sources_for(ctx["kernels"])) | delegates.runtime_sources
    return CSources(gen.name, files, gen.arena_size, constant_bytes, tuple(rows),
                    tuple(sorted(runtime)), io(inputs), io(outputs),
                    tuple(c["index"] for c in calls),
                    # (a delegate's C may call the kernels too: then every variant)
                    variants_mask(calls) if not delegates.runtime_sources else None,
                    variants_mask(calls, "dsp") if not delegates.runtime_sources else None)
