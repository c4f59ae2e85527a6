"""The seeded mutants of tests/host/test_pte_readers_agree.py: a few small real programs
(float32 and int8), and from each, random byte and word changes of its flatbuffer and
structured edits of its aot.program dataclasses, re-serialized by aot.pte.serialize_pte.

    from agree_mutants import base_programs, mutants
    items = mutants(base_programs())     # seed SEED (AOT_AGREE_SEED), CASES of each kind
"""
from __future__ import annotations

import dataclasses
import math
import os
import random
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from aot import program as P
from aot.pte import load_program, serialize_pte

SEED = int(os.environ.get("AOT_AGREE_SEED", "35"))
CASES = int(os.environ.get("AOT_AGREE_CASES", "36"))    # per base, for each of the two kinds


# -- the base programs ------------------------------------------------------------------------

def _float_net():
    """15 operators over the argument kinds: tensors, optional tensors, int lists, ints,
    doubles, bools, a string, tensor lists; a bool tensor, an int64 tensor."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = nn.Conv2d(2, 4, 3, stride=2, padding=1)
            self.fc = nn.Linear(8, 3)
            self.ln = nn.LayerNorm(8)

        def forward(self, x):
            y = F.max_pool2d(torch.relu(self.conv(x)), 2)
            y = torch.cat([y, y * 0.5], dim=1).permute(0, 2, 3, 1).reshape(1, 8) + 1
            z = F.gelu(self.ln(y), approximate="tanh")
            z = torch.where(z > 0, z, -z)
            return torch.softmax(self.fc(z), dim=-1), y.mean(dim=-1, keepdim=True)

    return Net().eval(), (torch.randn(1, 2, 4, 4),)


def _with_view(program: P.Program) -> P.Program:
    """view_flatten's relu -> mul with an executorch_prim::et_view between them (its out
    planned on the relu's bytes), as tests/host/test_interpreter.py builds it."""
    plan = program.execution_plan[0]
    relu, mul = plan.chains[0].instructions
    src, dst = relu.args[-1], mul.args[0]
    values = list(plan.values)
    first = len(values)
    values += [P.Int(int(d)) for d in values[dst].sizes]
    values.append(P.IntList(tuple(range(first, len(values)))))
    operators = tuple(plan.operators) + (P.Operator("executorch_prim::et_view", "default"),)
    view = P.KernelCall(len(operators) - 1, (src, len(values) - 1, dst))
    chain = dataclasses.replace(plan.chains[0], instructions=(relu, view, mul), stacktrace=None)
    return dataclasses.replace(program, execution_plan=(dataclasses.replace(
        plan, values=tuple(values), operators=operators, chains=(chain,)),))


def base_programs() -> dict[str, bytes]:
    """name -> .pte bytes: float32 programs (a 15-operator net, a stateful counter, an
    et_view) and int8 ones (a per-channel MLP with float I/O, convolutions with int8 I/O)."""
    import torch
    import aot
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from int8_models import lowered
    from op_models import OP_MODELS, Counter

    def lower(module, example) -> bytes:
        ep = torch.export.export(module.eval(), tuple(example))
        return bytes(aot.to_edge(ep).to_executorch().buffer)

    out = {"net": lower(*_float_net()),
           "counter": lower(Counter(), (torch.randn(2, 3),))}
    flat = load_program(lower(*OP_MODELS["view_flatten"]))
    out["view"] = bytes(serialize_pte(_with_view(flat)))
    out["q_mlp"] = bytes(lowered("mlp", False).buffer)
    out["q_conv"] = bytes(lowered("conv_blocks", True).buffer)
    return out


# -- mutants ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mutant:
    name: str           # <base>-<kind>-<k>
    base: str
    what: str           # one line
    data: bytes
    changed: tuple = ()  # byte and word mutants: the positions changed


def program_size(data: bytes) -> int:
    return struct.unpack_from("<Q", data, 16)[0] if data[8:12] == b"eh00" else len(data)


_WORDS = (0, 1, 2, 3, 4, 0x10, 0xFF, 0x7FFF, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
          0xFFFFFFF0, 0xFFFFFFFF)


def _bytes_mutant(rng: random.Random, base: str, data: bytes, k: int) -> Mutant:
    size = program_size(data)
    out = bytearray(data)
    changed = []
    how = rng.choice(("byte", "byte", "word", "word", "nudge", "header"))
    if how == "byte":
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(size)
            out[at] = rng.randrange(256)
            changed.append(at)
        what = "bytes " + ", ".join(f"{a}={out[a]:#x}" for a in changed)
        changed = [a for a in changed if out[a] != data[a]]
    elif how in ("word", "nudge"):
        at = rng.randrange(size // 4) * 4
        old = struct.unpack_from("<I", data, at)[0]
        new = rng.choice(_WORDS) if how == "word" else \
            (old + rng.choice((-8, -4, -2, -1, 1, 2, 4, 8, 16))) & 0xFFFFFFFF
        struct.pack_into("<I", out, at, new)
        changed = [a for a in range(at, at + 4) if out[a] != data[a]]
        what = f"word at {at}: {old:#x} -> {new:#x}"
    else:                                   # the extended header
        at = rng.randrange(8, 40)
        out[at] = rng.randrange(256)
        changed = [at] if out[at] != data[at] else []
        what = f"header byte {at}={out[at]:#x}"
    return Mutant(f"{base}-bytes-{k}", base, what, bytes(out), tuple(changed))


def _plan(p: P.Program) -> P.ExecutionPlan:
    return p.execution_plan[0]


def _with_plan(p: P.Program, **changes) -> P.Program:
    return dataclasses.replace(p, execution_plan=(dataclasses.replace(_plan(p), **changes),))


def _set_value(p: P.Program, i: int, value) -> P.Program:
    values = list(_plan(p).values)
    values[i] = value
    return _with_plan(p, values=tuple(values))


def _append(p: P.Program, *new) -> tuple[P.Program, int]:
    values = _plan(p).values
    return _with_plan(p, values=values + tuple(new)), len(values)


def _set_instructions(p: P.Program, instructions) -> P.Program:
    chain = _plan(p).chains[0]
    keep = chain.stacktrace if len(instructions) == len(chain.instructions) else None
    return _with_plan(p, chains=(dataclasses.replace(chain, instructions=tuple(instructions),
                                                     stacktrace=keep),))


def _indices(p: P.Program, pred) -> list[int]:
    return [i for i, v in enumerate(_plan(p).values) if pred(v)]


def _planned(v) -> bool:
    return isinstance(v, P.Tensor) and v.allocation_info is not None


def _constant(v) -> bool:
    return isinstance(v, P.Tensor) and v.allocation_info is None and v.data_buffer_idx > 0


def _calls(p: P.Program) -> list[int]:
    return [i for i, ins in enumerate(_plan(p).chains[0].instructions)
            if isinstance(ins, P.KernelCall)]


_HOSTILE_INTS = (-(1 << 63), -(1 << 31), -2, -1, 0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 255, 256,
                 (1 << 15), (1 << 30), (1 << 31) - 1, 1 << 31, (1 << 32) + 1, (1 << 62))


def _edit_offset(rng, p):
    i = rng.choice(_indices(p, _planned))
    t = _plan(p).values[i]
    a = t.allocation_info
    size = _plan(p).non_const_buffer_sizes[a.memory_id] \
        if a.memory_id < len(_plan(p).non_const_buffer_sizes) else 0
    nbytes = t.numel * 4
    off = rng.choice((a.memory_offset_low + rng.choice((1, 2, 3, 4, 6, 8, 16, 165)),
                      max(size - nbytes, 0) + rng.choice((0, 4, 8)), size, 0xFFFFFFF0))
    return f"value {i}: allocation offset {a.memory_offset_low} -> {off}", _set_value(
        p, i, dataclasses.replace(t, allocation_info=dataclasses.replace(
            a, memory_offset_low=off & 0xFFFFFFFF)))


def _edit_misalign(rng, p):
    """A tensor of 2-, 4- or 8-byte elements planned at an offset that is not a multiple of
    its element size, or constants packed at odd file offsets (a constant padded by 1 to 3
    bytes, the constants packed 1 byte apart)."""
    if rng.random() < 0.5:
        i = rng.choice(_indices(p, lambda v: _planned(v) and v.scalar_type in (
            P.ScalarType.FLOAT, P.ScalarType.INT, P.ScalarType.LONG, P.ScalarType.SHORT)))
        t = _plan(p).values[i]
        off = rng.choice((1, 2, 3, 5, 6, 165))
        sizes = list(_plan(p).non_const_buffer_sizes)
        sizes[1] = max(sizes[1], off + t.numel * 8)
        p = _with_plan(p, non_const_buffer_sizes=tuple(sizes))
        return f"value {i}: planned at offset {off}", _set_value(
            p, i, dataclasses.replace(t, allocation_info=P.AllocationDetails(1, off)))
    i = rng.choice(_indices(p, _constant))
    j = _plan(p).values[i].data_buffer_idx
    buffers = list(p.constant_buffer)
    pad = rng.choice((1, 2, 3))
    buffers[j - 1] = P.Buffer(buffers[j - 1].storage + b"\x01" * pad)
    return (f"constant {j - 1} padded by {pad} bytes, the constants packed 1 byte apart",
            dataclasses.replace(p, constant_buffer=tuple(buffers)),
            dict(constant_tensor_alignment=1, segment_alignment=16))


def _edit_memory(rng, p):
    i = rng.choice(_indices(p, _planned))
    t = _plan(p).values[i]
    if rng.random() < 0.3:
        change, what = dict(memory_offset_high=rng.choice((1, 0xFFFFFFFF))), "offset_high"
    else:
        change, what = dict(memory_id=rng.choice((0, 2, 5, 0x80000000, 0xFFFFFFFF))), "memory_id"
    a = dataclasses.replace(t.allocation_info, **change)
    return f"value {i}: {what} {list(change.values())[0]:#x}", _set_value(
        p, i, dataclasses.replace(t, allocation_info=a))


def _edit_buffer_idx(rng, p):
    n = len(p.constant_buffer)
    if rng.random() < 0.3:
        i = rng.choice(_indices(p, _planned))      # a planned tensor made state
        idx = rng.choice((1, 2, 0x80000000))
    else:
        i = rng.choice(_indices(p, _constant))
        idx = rng.choice((0, rng.randrange(1, n), n, n + 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF))
    return f"value {i}: data_buffer_idx {idx:#x}", _set_value(
        p, i, dataclasses.replace(_plan(p).values[i], data_buffer_idx=idx))


def _edit_state(rng, p):
    i = rng.choice(_indices(p, lambda v: _planned(v) and v.data_buffer_idx > 0) or
                   _indices(p, _planned))
    t = _plan(p).values[i]
    extra = t.extra_tensor_info or P.ExtraTensorInfo()
    change = rng.choice((dict(location=1), dict(location=2), dict(mutable_data_segments_idx=1),
                         dict(mutable_data_segments_idx=1 << 40)))
    return f"value {i}: extra_tensor_info {change}", _set_value(
        p, i, dataclasses.replace(t, extra_tensor_info=dataclasses.replace(extra, **change)))


def _edit_sizes(rng, p):
    i = rng.choice(_indices(p, lambda v: isinstance(v, P.Tensor) and v.sizes))
    t = _plan(p).values[i]
    sizes, order = list(t.sizes), list(t.dim_order)
    how = rng.choice(("dim", "dim", "rank7", "drop"))
    if how == "dim":
        d = rng.randrange(len(sizes))
        sizes[d] = rng.choice((-1, 0, sizes[d] + 1, sizes[d] * 2, 1 << 20, 0x7FFFFFFF))
    elif how == "rank7":
        sizes += [1] * (7 - len(sizes))
        order = list(range(len(sizes)))
    else:
        sizes, order = sizes[1:], list(range(len(sizes) - 1))
    return f"value {i}: sizes {list(t.sizes)} -> {sizes}", _set_value(
        p, i, dataclasses.replace(t, sizes=tuple(sizes), dim_order=tuple(order)))


def _edit_layout(rng, p):
    i = rng.choice(_indices(p, lambda v: isinstance(v, P.Tensor) and len(v.sizes) > 1))
    t = _plan(p).values[i]
    change = rng.choice((dict(dim_order=tuple(reversed(t.dim_order))),
                         dict(dim_order=t.dim_order[:-1]), dict(dim_order=()),
                         dict(storage_offset=rng.choice((1, 4, -1))),
                         dict(shape_dynamism=rng.choice((1, 2)))))
    return f"value {i}: {change}", _set_value(p, i, dataclasses.replace(t, **change))


def _edit_dtype(rng, p):
    i = rng.choice(_indices(p, lambda v: isinstance(v, P.Tensor)))
    st = rng.choice(list(P.ScalarType))
    return f"value {i}: scalar type {st.name}", _set_value(
        p, i, dataclasses.replace(_plan(p).values[i], scalar_type=st))


def _edit_arg(rng, p):
    k = rng.choice(_calls(p))
    ins = _plan(p).chains[0].instructions[k]
    n = len(_plan(p).values)
    args = list(ins.args)
    how = rng.choice(("index", "index", "index", "count"))
    if how == "index":
        a = rng.randrange(len(args))
        args[a] = rng.choice((rng.randrange(n), rng.randrange(n), -1, n, n + 100, 0x7FFFFFFF))
        what = f"instruction {k}: argument {a} -> value {args[a]}"
    else:
        args = args[:-1] if rng.random() < 0.5 else args + [args[-1]]
        what = f"instruction {k}: {len(args)} arguments"
    ins2 = dataclasses.replace(ins, args=tuple(args))
    instructions = list(_plan(p).chains[0].instructions)
    instructions[k] = ins2
    return what, _set_instructions(p, instructions)


def _edit_op_index(rng, p):
    k = rng.choice(_calls(p))
    ins = _plan(p).chains[0].instructions[k]
    n = len(_plan(p).operators)
    op = rng.choice((-1, n, n + 7, rng.randrange(n)))
    instructions = list(_plan(p).chains[0].instructions)
    instructions[k] = dataclasses.replace(ins, op_index=op)
    return f"instruction {k}: op_index {op}", _set_instructions(p, instructions)


def _edit_list_item(rng, p):
    lists = _indices(p, lambda v: isinstance(v, (P.IntList, P.TensorList, P.OptionalTensorList))
                     and v.items)
    i = rng.choice(lists)
    v = _plan(p).values[i]
    n = len(_plan(p).values)
    items = list(v.items)
    j = rng.randrange(len(items))
    other = _indices(p, lambda x: not isinstance(x, P.Int)) if isinstance(v, P.IntList) else \
        _indices(p, lambda x: not isinstance(x, P.Tensor))
    items[j] = rng.choice((rng.choice(other), -1, n, n + 5, rng.randrange(n)))
    return f"value {i}: item {j} -> {items[j]}", _set_value(
        p, i, dataclasses.replace(v, items=tuple(items)))


def _edit_int(rng, p):
    i = rng.choice(_indices(p, lambda v: isinstance(v, P.Int)))
    x = rng.choice(_HOSTILE_INTS + (_plan(p).values[i].int_val + rng.choice((-1, 1)),))
    return f"value {i}: Int {_plan(p).values[i].int_val} -> {x}", _set_value(p, i, P.Int(x))


def _edit_double(rng, p):
    doubles = _indices(p, lambda v: isinstance(v, (P.Double, P.Bool)))
    if not doubles:
        return _edit_int(rng, p)
    i = rng.choice(doubles)
    x = rng.choice((P.Double(math.nan), P.Double(math.inf), P.Double(-math.inf),
                    P.Double(1e300), P.Double(-0.0), P.Int(1), P.Bool(True), P.Null(),
                    P.String("none")))
    return f"value {i}: {_plan(p).values[i]} -> {x}", _set_value(p, i, x)


def _edit_io(rng, p):
    n = len(_plan(p).values)
    field = rng.choice(("inputs", "outputs"))
    io = list(getattr(_plan(p), field))
    k = rng.randrange(len(io))
    io[k] = rng.choice((rng.choice(_indices(p, lambda v: not isinstance(v, P.Tensor))), n, -1,
                        rng.randrange(n)))
    return f"{field}[{k}] -> {io[k]}", _with_plan(p, **{field: tuple(io)})


def _edit_instructions(rng, p):
    instructions = list(_plan(p).chains[0].instructions)
    n = len(_plan(p).values)
    how = rng.choice(("move", "free", "free_bad", "jump", "jump_int", "delete", "repeat"))
    at = rng.randrange(len(instructions) + 1)
    if how == "move":
        ins = P.MoveCall(rng.randrange(n), rng.randrange(n))
    elif how == "free":
        ins = P.FreeCall(rng.randrange(n))
    elif how == "free_bad":
        ins = P.FreeCall(rng.choice((-1, n, 0x7FFFFFFF)))
    elif how in ("jump", "jump_int"):
        p, cond = _append(p, P.Bool(False) if how == "jump" else P.Int(0))
        dest = rng.choice((0, at, at + 1, len(instructions) + 1, len(instructions) + 2))
        ins = P.JumpFalseCall(cond, dest)
    elif how == "delete":
        k = rng.randrange(len(instructions))
        del instructions[k]
        return f"instruction {k} deleted", _set_instructions(p, instructions)
    else:
        k = rng.randrange(len(instructions))
        ins = instructions[k]
    instructions.insert(at, ins)
    return f"{ins} inserted at {at}", _set_instructions(p, instructions)


def _edit_buffers(rng, p):
    sizes = list(_plan(p).non_const_buffer_sizes)
    how = rng.choice(("shrink", "shrink", "huge", "more", "empty"))
    if how == "shrink":
        sizes[1] = rng.choice((0, sizes[1] // 2, sizes[1] - 4, sizes[1] - 16))
    elif how == "huge":
        sizes[1] = rng.choice(((1 << 31) - 1, 1 << 31, (1 << 31) - 8, 1 << 40))
    elif how == "more":
        sizes += [16] * rng.choice((1, 4))
    else:
        sizes = sizes[:rng.choice((0, 1))]
    return f"non_const_buffer_sizes {sizes}", _with_plan(p, non_const_buffer_sizes=tuple(sizes))


def _edit_constant(rng, p):
    """A constant's bytes: cut short, or an int32 item made hostile (int8 layers keep their
    requantization multipliers and shifts in int32 constants)."""
    i = rng.choice(_indices(p, _constant))
    t = _plan(p).values[i]
    buffers = list(p.constant_buffer)
    data = bytearray(buffers[t.data_buffer_idx].storage)
    if t.scalar_type == P.ScalarType.INT and len(data) >= 4 and rng.random() < 0.7:
        at = 4 * rng.randrange(len(data) // 4)
        x = rng.choice((-5, -1, 0, 31, 32, 63, -32, -33, 83886072, (1 << 31) - 1, -(1 << 31)))
        struct.pack_into("<i", data, at, x)
        what = f"value {i}: int32 item {at // 4} of constant {t.data_buffer_idx} = {x}"
    else:
        data = data[:len(data) // 2]
        what = f"value {i}: constant {t.data_buffer_idx} cut to {len(data)} bytes"
    buffers[t.data_buffer_idx] = P.Buffer(bytes(data))
    return what, dataclasses.replace(p, constant_buffer=tuple(buffers))


def _edit_operator(rng, p):
    ops = list(_plan(p).operators)
    k = rng.randrange(len(ops))
    how = rng.choice(("unknown", "overload", "swap"))
    if how == "unknown":
        ops[k] = P.Operator("aten::no_such_op", "out")
    elif how == "overload":
        ops[k] = dataclasses.replace(ops[k], overload=ops[k].overload + "_x")
    else:
        j = rng.randrange(len(ops))
        ops[k], ops[j] = ops[j], ops[k]
    return f"operators: {how} {k}", _with_plan(p, operators=tuple(ops))


def _edit_values_cut(rng, p):
    n = len(_plan(p).values)
    keep = rng.randrange(n // 2, n)
    return f"values cut to {keep}", _with_plan(p, values=_plan(p).values[:keep])


def _edit_string(rng, p):
    strings = _indices(p, lambda v: isinstance(v, P.String))
    if not strings:
        return _edit_double(rng, p)
    i = rng.choice(strings)
    s = rng.choice(("", "none", "tanh ", "bogus", "x" * 300))
    return f"value {i}: string {s!r}", _set_value(p, i, P.String(s))


EDITS: tuple[Callable, ...] = (
    _edit_offset, _edit_misalign, _edit_misalign, _edit_memory, _edit_buffer_idx, _edit_state,
    _edit_sizes,
    _edit_layout, _edit_dtype, _edit_arg, _edit_arg, _edit_op_index, _edit_list_item,
    _edit_int, _edit_int, _edit_double, _edit_io, _edit_instructions, _edit_instructions,
    _edit_buffers, _edit_constant, _edit_constant, _edit_operator, _edit_values_cut,
    _edit_string)

# serialize_pte options: constants packed 1, 2 or 4 bytes apart, segments likewise.
_PACKINGS = (dict(), dict(), dict(), dict(constant_tensor_alignment=1, segment_alignment=1),
             dict(constant_tensor_alignment=2, segment_alignment=2),
             dict(constant_tensor_alignment=4, segment_alignment=4),
             dict(constant_tensor_alignment=16, segment_alignment=8))


def _structured_mutant(rng: random.Random, base: str, program: P.Program,
                       k: int) -> Optional[Mutant]:
    edit = rng.choice(EDITS)
    packing = rng.choice(_PACKINGS)
    try:
        what, edited, *forced = edit(rng, program)
        packing = forced[0] if forced else packing
        data = bytes(serialize_pte(edited, **packing))
    except (IndexError, ValueError):    # nothing of the kind in this base
        return None
    except (struct.error, OverflowError, TypeError) as e:
        what, data = f"{edit.__name__}: {e}", None    # not representable in the schema
    if data is None:
        return None
    if packing:
        what += f" (packed {packing})"
    return Mutant(f"{base}-edit-{k}", base, f"{edit.__name__[6:]}: {what}", data)


def mutants(bases: dict[str, bytes], seed: int = SEED, cases: int = CASES) -> list[Mutant]:
    """`cases` byte and word mutants and `cases` structured ones of each base (the unmutated
    bases too), from `seed`."""
    out = []
    for b, (name, data) in enumerate(sorted(bases.items())):
        rng = random.Random(f"{seed}/{name}")
        program = load_program(data)
        out.append(Mutant(f"{name}-base", name, "unchanged", data))
        for k in range(cases):
            out.append(_bytes_mutant(rng, name, data, k))
        made = 0
        for k in range(cases * 3):
            if made == cases:
                break
            m = _structured_mutant(rng, name, program, k)
            if m is not None:
                out.append(m)
                made += 1
    return out
