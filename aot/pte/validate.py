"""Check that every index in an in-memory Program points inside the table it indexes.

The reader runs this on every file it loads, so a corrupt file fails at load time with a
message instead of sending a later stage (or the runtime) out of bounds.
"""
from __future__ import annotations

from aot import program as ir


# Bytes per element, by ScalarType value. The sub-byte types (QUINT4X2, QUINT2X4) are left
# out: their byte size is not numel times a whole number.
ELEMENT_SIZE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 12: 1, 13: 1, 14: 4,
                15: 2, 22: 2, 23: 1, 24: 1, 25: 1, 26: 1, 27: 2, 28: 4, 29: 8}


def tensor_nbytes(t: ir.Tensor) -> int | None:
    """Bytes of the tensor's data, or None if that cannot be known from its metadata."""
    size = ELEMENT_SIZE.get(int(t.scalar_type))
    if size is None or any(s < 0 for s in t.sizes):
        return None
    return t.numel * size


class _Bad(Exception):
    pass


def find_bad_reference(program: ir.Program) -> str | None:
    """Describe the first out-of-range index in `program`, or return None if there is none."""
    for plan in program.execution_plan:
        try:
            _check_plan(plan, program)
        except _Bad as e:
            return f"method {plan.name!r}: {e}"
    return None


def _in_range(where: str, index: int, count: int, noun: str, *, allow: tuple = ()) -> None:
    if not (0 <= index < count or index in allow):
        raise _Bad(f"{where} refers to {noun} {index}, but there are {count}")


def _check_plan(plan: ir.ExecutionPlan, program: ir.Program) -> None:
    n = len(plan.values)

    def values(where: str, indices, allow: tuple = ()) -> None:
        for i in indices:
            _in_range(where, i, n, "value", allow=allow)

    values("inputs", plan.inputs)
    values("outputs", plan.outputs)
    for v, value in enumerate(plan.values):
        where = f"value {v}"
        if isinstance(value, (ir.IntList, ir.TensorList)):
            values(where, value.items)
        elif isinstance(value, ir.OptionalTensorList):
            values(where, value.items, allow=(-1,))  # -1 is None
        elif isinstance(value, ir.Tensor):
            _check_tensor(where, value, plan, program)
    for c, chain in enumerate(plan.chains):
        values(f"chain {c} inputs", chain.inputs)
        values(f"chain {c} outputs", chain.outputs)
        for k, instr in enumerate(chain.instructions):
            where = f"chain {c} instruction {k}"
            if isinstance(instr, ir.KernelCall):
                _in_range(where, instr.op_index, len(plan.operators), "operator")
                values(where, instr.args)
            elif isinstance(instr, ir.DelegateCall):
                _in_range(where, instr.delegate_index, len(plan.delegates), "delegate")
                values(where, instr.args)
            elif isinstance(instr, ir.MoveCall):
                values(where, (instr.move_from, instr.move_to))
            elif isinstance(instr, ir.JumpFalseCall):
                values(where, (instr.cond_value_index,))
                # Jumping to len(instructions) ends the chain.
                _in_range(where, instr.destination_instruction, len(chain.instructions) + 1,
                          "instruction")
            else:
                values(where, (instr.value_index,))


def _check_tensor(where: str, t: ir.Tensor, plan: ir.ExecutionPlan, program: ir.Program) -> None:
    extra = t.extra_tensor_info
    if any(s < 0 for s in t.sizes):
        raise _Bad(f"{where} is a tensor with a negative size {t.sizes}")
    if t.allocation_info is not None:
        _in_range(where, t.allocation_info.memory_id, len(plan.non_const_buffer_sizes),
                  "memory area")
    if t.data_buffer_idx == 0 or (extra is not None and extra.location == 1):
        return  # no data in this file
    if t.allocation_info is None:
        _in_range(where, t.data_buffer_idx, len(program.constant_buffer), "constant")
        data = program.constant_buffer[t.data_buffer_idx].storage
    else:
        k = extra.mutable_data_segments_idx if extra is not None else 0
        _in_range(where, k, len(program.mutable_data), "mutable data table")
        _in_range(where, t.data_buffer_idx, len(program.mutable_data[k]), "mutable data entry")
        data = program.mutable_data[k][t.data_buffer_idx].storage
    needed = tensor_nbytes(t)
    if needed is not None and len(data) < needed:
        raise _Bad(f"{where} is a {needed}-byte tensor, but its data {t.data_buffer_idx} has "
                   f"only {len(data)} bytes")
