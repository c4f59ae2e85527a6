"""Check a Program call by call, before anything renders it.

ExecuTorch's runtime trusts a .pte: an argument of the wrong kind (an int where a kernel reads
a tensor) aborts it. The C generator trusts the Program too. So every Program is checked
before it is written (``to_executorch``) and after it is read (``load_program``):

- each KernelCall's arguments have the kinds its out-variant's schema asks for (aot.calls),
  laid out as ExecuTorch's emitter lays them out, and each tensor argument a dtype the op
  declares for it where it declares them (``OpDef.arg_dtypes``: the int8 ops), so an int32
  constant never reaches a kernel as int8 weights;
- each tensor it touches has storage: planned inside its arena, a constant (never written), or
  a method input or output, supplied at run time;
- the C runtime has a kernel for the call with these arguments (aot.codegen.renderers.check_call);
- each DelegateCall names a delegate and passes tensors.

A problem names the method, the instruction, the op, the argument and the source line. For a
Program of our own, every problem is an error. For a file read from elsewhere, operators that
mcu-aot does not know and calls its runtime has no kernel for are allowed (the C generator
refuses them, by name, if asked to render them); malformed calls are not.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .. import program as P
from ..calls import ArgError, TensorValue, decode_call
from ..codegen.context import DTYPES, Invalid, Unsupported
from ..codegen.renderers import check_call
from ..emit import frame_text
from ..errors import AotError, UnsupportedOpError
from ..ops import by_et_name
from ..program import tensor_nbytes

# Operators that only move a tensor's metadata; ExecuTorch's runtime has them built in.
PRIM_VIEWS = {("executorch_prim::et_view", "default")}


@dataclass(frozen=True)
class Problem:
    method: str
    instruction: int
    op: str
    what: str
    source: str
    unsupported: bool     # a well-formed call that the C runtime cannot run

    def __str__(self) -> str:
        return (f"method {self.method!r}, instruction {self.instruction} ({self.op}) at "
                f"{self.source}: {self.what}")


def _storage(plan: P.ExecutionPlan, tv: TensorValue, written: bool,
             views: frozenset = frozenset()) -> str | None:
    """What is wrong with where this tensor lives, or None. ``views``: the outs of the
    plan's et_view calls, which take their self's data at run time."""
    t = tv.tensor
    nbytes = tensor_nbytes(t)
    io = tv.index in plan.inputs or tv.index in plan.outputs or tv.index in views
    if t.allocation_info is not None:
        mid, offset = t.allocation_info.memory_id, t.allocation_info.offset
        if not 0 < mid < len(plan.non_const_buffer_sizes):
            return f"tensor {tv.index} is planned in memory {mid}, which the method lacks"
        size = plan.non_const_buffer_sizes[mid]
        if nbytes is not None and offset + nbytes > size:
            return (f"tensor {tv.index} ({nbytes} bytes at offset {offset}) runs past the "
                    f"end of its {size}-byte arena")
        return None
    if t.data_buffer_idx > 0:
        return f"tensor {tv.index} is a constant, but the call writes it" if written else None
    if io:
        return None
    return f"tensor {tv.index} has no storage: not planned, not a constant, not an input/output"


def _dtype(st) -> str:
    """A ScalarType as the C runtime names it (int8, int32, float32...)."""
    entry = DTYPES.get(st)
    if entry is not None:
        return entry[0]
    try:
        return P.ScalarType(st).name.lower()
    except ValueError:
        return f"scalar type {int(st)}"


def _tensors(values: dict, schema) -> Iterator[tuple[str, TensorValue, bool]]:
    for a in schema.arguments:
        v = values[a.name]
        for item in (v if isinstance(v, tuple) else (v,)):
            if isinstance(item, TensorValue):
                yield a.name, item, a.is_out


def _kernel_call(plan, ins, k, source, known_only, views=frozenset(),
                 program=None) -> Iterator[Problem]:
    if not 0 <= ins.op_index < len(plan.operators):
        yield Problem(plan.name, k, "?", f"operator {ins.op_index} does not exist", source,
                      False)
        return
    opr = plan.operators[ins.op_index]
    label = f"{opr.name}.{opr.overload}" if opr.overload else opr.name
    if (opr.name, opr.overload) in PRIM_VIEWS:
        return
    op = by_et_name(opr.name, opr.overload)
    if op is None:
        if not known_only:
            yield Problem(plan.name, k, label, "mcu-aot has no such operator", source, True)
        return
    problem = lambda what, unsupported=False: Problem(plan.name, k, label, what, source,
                                                      unsupported)
    try:
        values = decode_call(plan, ins, op.schema)
    except ArgError as e:
        yield problem(str(e))
        return
    for name, tv, written in _tensors(values, op.schema):
        bad = _storage(plan, tv, written, views)
        if bad:
            yield problem(f"argument {name!r}: {bad}")
            return
    wrong = False
    for name, tv, _ in _tensors(values, op.schema):
        allowed = (op.arg_dtypes or {}).get(name)
        if allowed and tv.tensor.scalar_type not in allowed:
            wrong = True
            yield problem(f"argument {name!r}: tensor {tv.index} is "
                          f"{_dtype(tv.tensor.scalar_type)}, where {label} declares "
                          f"{' or '.join(_dtype(t) for t in allowed)}")
    if wrong:      # a malformed call, whatever the C runtime would say of it
        return
    try:
        check_call(op, values, program)     # (preconditions read constants' values)
    except Unsupported as e:
        if not known_only:
            yield problem(f"no C kernel: {e}", unsupported=True)
    except Invalid as e:
        yield problem(str(e))


def _view_outs(plan: P.ExecutionPlan) -> frozenset:
    """The value indices the plan's et_view calls write (their last argument)."""
    return frozenset(ins.args[-1] for chain in plan.chains for ins in chain.instructions
                     if isinstance(ins, P.KernelCall) and ins.args and
                     0 <= ins.op_index < len(plan.operators) and
                     (plan.operators[ins.op_index].name,
                      plan.operators[ins.op_index].overload) in PRIM_VIEWS)


def program_problems(program: P.Program, known_only: bool = False) -> list[Problem]:
    """Every problem of every instruction. ``known_only``: leave out what mcu-aot cannot run
    but which is well-formed (unknown operators, calls without a C kernel)."""
    problems = []
    for plan in program.execution_plan:
        views = _view_outs(plan)
        for chain in plan.chains:
            for k, ins in enumerate(chain.instructions):
                source = frame_text(chain, k)
                if isinstance(ins, P.KernelCall):
                    problems.extend(_kernel_call(plan, ins, k, source, known_only, views,
                                                  program))
                elif isinstance(ins, P.DelegateCall):
                    bad = [i for i in ins.args if not (0 <= i < len(plan.values) and
                                                       isinstance(plan.values[i], P.Tensor))]
                    if not 0 <= ins.delegate_index < len(plan.delegates) or bad:
                        problems.append(Problem(plan.name, k, "delegate call",
                                                f"delegate {ins.delegate_index} with "
                                                f"non-tensor arguments {bad}", source, False))
    return problems


def verify_program(program: P.Program) -> P.Program:
    """Every call of a Program we are about to write is well-formed and runs in C."""
    problems = program_problems(program)
    missing = [(f"{p.op} ({p.what})", p.source) for p in problems if p.unsupported]
    if missing:
        raise UnsupportedOpError(missing, where="the C runtime")
    if problems:
        lines = "\n".join(f"  {p}" for p in problems)
        raise AotError(f"the Program fails its check ({len(problems)} problem(s)); this is a "
                       f"bug in mcu-aot or in a pass or backend it ran:\n{lines}")
    return program


def executorch_lacks(program: P.Program) -> list[str]:
    """The operators of the Program that ExecuTorch 1.5.1's portable kernel library has no
    kernel for (its runtime refuses the .pte at load; mcu-aot's C runs it)."""
    names = set()
    for plan in program.execution_plan:
        for opr in plan.operators:
            op = by_et_name(opr.name, opr.overload)
            if op is not None and not op.in_executorch:
                names.add(op.key)
    return sorted(names)
