"""Readable text dumps of a Program.

format_program(p) is condensed: per method its values, operators, delegates and
instructions, e.g.

    method 'forward': 10 values, inputs %0 %1, outputs %3
      memory areas: #1 = 64 B
      values:
        %0  f32[3]  arena 1 @ 0
        %2  i64  const #1 (8 B)
        %4  int 1
      instructions (chain 0):
        0: aten::add.out(%0, %1, %4=1, %3) -> %3

A kernel call's results are shown after "->": ExecuTorch lists the values a kernel returns
after its out arguments, repeating them (or as one tensor list of them).
format_program(p, verbose=True) prints every field of every table, one per line, in the
order of the schema.
"""
from __future__ import annotations

import dataclasses
import enum

from aot import program as ir

_DTYPE = {ir.ScalarType.BYTE: "u8", ir.ScalarType.CHAR: "i8", ir.ScalarType.SHORT: "i16",
          ir.ScalarType.INT: "i32", ir.ScalarType.LONG: "i64", ir.ScalarType.HALF: "f16",
          ir.ScalarType.FLOAT: "f32", ir.ScalarType.DOUBLE: "f64", ir.ScalarType.BOOL: "bool",
          ir.ScalarType.BFLOAT16: "bf16", ir.ScalarType.UINT16: "u16",
          ir.ScalarType.UINT32: "u32", ir.ScalarType.UINT64: "u64"}
_SCALARS = (ir.Null, ir.Int, ir.Bool, ir.Double, ir.String)


def format_program(program: ir.Program, verbose: bool = False) -> str:
    if verbose:
        return "\n".join(_fields("program", program, "")) + "\n"
    total = sum(len(b.storage) for b in program.constant_buffer)
    blobs = sum(len(b.data) for b in program.backend_delegate_data)
    lines = [f"program version {program.version}: {len(program.execution_plan)} method(s), "
             f"{max(len(program.constant_buffer) - 1, 0)} constant(s) ({total} B), "
             f"{len(program.backend_delegate_data)} delegate blob(s) ({blobs} B)"]
    for entry in program.named_data:
        lines.append(f"named data {entry.key!r}: {len(entry.data)} B")
    for plan in program.execution_plan:
        lines += _method(plan, program)
    return "\n".join(lines) + "\n"


# -- condensed ---------------------------------------------------------------------------------

def _method(plan: ir.ExecutionPlan, program: ir.Program) -> list[str]:
    ids = lambda xs: " ".join(f"%{i}" for i in xs) or "none"
    lines = [f"method {plan.name!r}: {len(plan.values)} values, inputs {ids(plan.inputs)}, "
             f"outputs {ids(plan.outputs)}"]
    areas = ", ".join(f"#{i} = {size} B" for i, size in enumerate(plan.non_const_buffer_sizes)
                      if i > 0)
    lines.append(f"  memory areas: {areas or 'none'}")
    lines.append("  values:")
    lines += [f"    %{i}  {_value(v, plan, program)}" for i, v in enumerate(plan.values)]
    if plan.operators:
        lines.append("  operators:")
        lines += [f"    {i}: {_op_name(op)}" for i, op in enumerate(plan.operators)]
    if plan.delegates:
        lines.append("  delegates:")
        for i, d in enumerate(plan.delegates):
            blob = program.backend_delegate_data[d.processed.index].data \
                if d.processed.index < len(program.backend_delegate_data) else b""
            specs = ", ".join(s.key for s in d.compile_specs)
            lines.append(f"    {i}: {d.id} ({len(blob)} B){f' specs: {specs}' if specs else ''}")
    for c, chain in enumerate(plan.chains):
        lines.append(f"  instructions (chain {c}):")
        for k, instr in enumerate(chain.instructions):
            where = ""
            if chain.stacktrace and k < len(chain.stacktrace) and chain.stacktrace[k].items:
                frame = chain.stacktrace[k].items[-1]
                where = f"    # {frame.filename}:{frame.lineno}"
            lines.append(f"    {k}: {_instruction(instr, plan)}{where}")
    return lines


def _op_name(op: ir.Operator) -> str:
    return f"{op.name}.{op.overload}" if op.overload else op.name


def _value(v: ir.EValue, plan: ir.ExecutionPlan, program: ir.Program) -> str:
    if isinstance(v, ir.Tensor):
        return _tensor(v, program)
    if isinstance(v, _SCALARS):
        return f"{type(v).__name__.lower()} {_literal(v)}".rstrip()
    if isinstance(v, ir.IntList):
        resolved = [_literal(plan.values[i]) if 0 <= i < len(plan.values) else "?"
                    for i in v.items]
        refs = ", ".join(f"%{i}" for i in v.items)
        return f"int_list [{refs}] = [{', '.join(resolved)}]"
    if isinstance(v, (ir.DoubleList, ir.BoolList)):
        return f"{'double' if isinstance(v, ir.DoubleList) else 'bool'}_list {list(v.items)}"
    refs = ", ".join("None" if i == -1 else f"%{i}" for i in v.items)
    kind = "tensor_list" if isinstance(v, ir.TensorList) else "optional_tensor_list"
    return f"{kind} [{refs}]"


def _literal(v: ir.EValue) -> str:
    if isinstance(v, ir.Null):
        return "None"
    if isinstance(v, ir.Int):
        return str(v.int_val)
    if isinstance(v, ir.Bool):
        return str(v.bool_val)
    if isinstance(v, ir.Double):
        return repr(v.double_val)
    if isinstance(v, ir.String):
        return repr(v.string_val)
    return "?"


def _tensor(t: ir.Tensor, program: ir.Program) -> str:
    dtype = _DTYPE.get(t.scalar_type, t.scalar_type.name.lower())
    text = f"{dtype}[{', '.join(map(str, t.sizes))}]" if t.sizes else dtype
    if list(t.dim_order) != list(range(len(t.dim_order))):
        text += f" dim_order {tuple(t.dim_order)}"
    if t.shape_dynamism != ir.TensorShapeDynamism.STATIC:
        text += f" {t.shape_dynamism.name.lower()}"
    extra = t.extra_tensor_info
    if extra is not None and extra.location == 1:
        return f"{text}  external {extra.fully_qualified_name!r}"
    where = []
    if t.allocation_info is not None:
        a = t.allocation_info
        where.append(f"arena {a.memory_id} @ {a.offset}")
    if t.data_buffer_idx and t.allocation_info is None:
        size = len(program.constant_buffer[t.data_buffer_idx].storage) \
            if t.data_buffer_idx < len(program.constant_buffer) else "?"
        where.append(f"const #{t.data_buffer_idx} ({size} B)")
    elif t.data_buffer_idx:
        where.append(f"initial value #{t.data_buffer_idx}")
    if extra is not None and extra.fully_qualified_name:
        where.append(repr(extra.fully_qualified_name))
    return f"{text}  {', '.join(where) or 'set at run time'}"


def _instruction(instr: ir.Instruction, plan: ir.ExecutionPlan) -> str:
    if isinstance(instr, ir.KernelCall):
        name = _op_name(plan.operators[instr.op_index]) \
            if 0 <= instr.op_index < len(plan.operators) else f"operator {instr.op_index}"
        args, results = _split_results(instr.args, plan)
        text = f"{name}({', '.join(_arg(a, plan) for a in args)})"
        return text + (f" -> {', '.join(f'%{r}' for r in results)}" if results else "")
    if isinstance(instr, ir.DelegateCall):
        name = plan.delegates[instr.delegate_index].id \
            if 0 <= instr.delegate_index < len(plan.delegates) else "?"
        return f"delegate {instr.delegate_index} {name}({', '.join(f'%{a}' for a in instr.args)})"
    if isinstance(instr, ir.MoveCall):
        return f"move %{instr.move_from} -> %{instr.move_to}"
    if isinstance(instr, ir.JumpFalseCall):
        return f"jump_false %{instr.cond_value_index} -> {instr.destination_instruction}"
    return f"free %{instr.value_index}"


def _split_results(args: tuple[int, ...], plan: ir.ExecutionPlan):
    """Split args into (arguments, results): the results are a tail repeating the block just
    before it, or a final tensor list of the block just before it."""
    last = args[-1] if args else -1
    if 0 <= last < len(plan.values) and isinstance(plan.values[last], ir.TensorList):
        items = plan.values[last].items
        if items and args[-1 - len(items):-1] == items:
            return args[:-1], args[-1:]
    for k in range(len(args) // 2, 0, -1):
        if args[-2 * k:-k] == args[-k:]:
            return args[:-k], args[-k:]
    return args, ()


def _arg(i: int, plan: ir.ExecutionPlan) -> str:
    v = plan.values[i] if 0 <= i < len(plan.values) else None
    return f"%{i}={_literal(v)}" if isinstance(v, _SCALARS) else f"%{i}"


# -- verbose -----------------------------------------------------------------------------------

def _fields(name: str, value, indent: str) -> list[str]:
    if dataclasses.is_dataclass(value):
        lines = [f"{indent}{name}: {type(value).__name__}"]
        for f in dataclasses.fields(value):
            lines += _fields(f.name, getattr(value, f.name), indent + "  ")
        return lines
    if isinstance(value, tuple) and any(dataclasses.is_dataclass(x) or isinstance(x, tuple)
                                        for x in value):
        lines = [f"{indent}{name}: [{len(value)}]"]
        for i, item in enumerate(value):
            lines += _fields(f"[{i}]", item, indent + "  ")
        return lines
    return [f"{indent}{name}: {_scalar(value)}"]


def _scalar(value) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        head = data[:16].hex(" ")
        return f"<{len(data)} bytes{': ' + head if data else ''}{' ...' if len(data) > 16 else ''}>"
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple):
        return "[" + ", ".join(_scalar(x) for x in value) + "]"
    return repr(value)
