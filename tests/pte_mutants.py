"""Crafted corrupt programs: one check of the .pte loader each (issue 35).

Each Mutant takes a small real program that aot lowered (float32 or int8), changes one thing,
and names the rt_status the loader contract asks for: a refusal at load (rt_pte_load, or
rt_pte_arena_size / rt_pte_state_size before it) with the status that names the problem, never
RT_OK. Most edits are made on the aot.program dataclasses (dataclasses.replace) and
re-serialized by aot.pte.serialize_pte; header, truncation and offset cases edit the bytes.

    from pte_mutants import MUTANTS, build, host_outcomes, python_outcome
    pte = build(MUTANTS[0])                  # the mutant's .pte bytes
    outcomes = host_outcomes(MUTANTS)        # name -> HostOutcome (ASan + UBSan interpreter)

Three runners read them, each as a user's device or tool would:
  - host_outcomes: the interpreter built with ASan and UBSan (aot.interpreter.build_host with
    sanitize=True, only the base programs' operators), in a child python with libasan
    preloaded; the .pte, the arena and the state each in a block of exactly the size the
    interpreter reports (rt_pte_arena_size, rt_pte_state_size), so a byte read or written past
    any of them is a sanitizer report. A program that loads is also run (inputs and outputs it
    does not plan in blocks of exactly their size).
  - M4Rig: one interpreter firmware for mps2-an386 with every kernel; each mutant written
    over its program slot by QEMU's loader (the same ELF, never relinked).
  - python_outcome: aot.load_program, then aot.generate_c.

`c_open` / `py_open` say why the C interpreter / the Python reader does not refuse a mutant
yet (another engineer's open work on issue 35); the tests mark those xfail(strict=True), so
that a fix turns them into failures until the mark goes.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

# The classes of issue 35, in the order the tables print them.
CLASSES = ("writes before checks", "signed/unsigned index checks", "alignment", "ranges",
           "truncation", "bad offsets", "vector lengths", "value indices", "operator indices",
           "list counts", "kinds", "dtypes", "limits", "header")

RT_PTE_MAX_OPERATORS = 64       # rt_pte.h
RT_PTE_MAX_INSTRUCTIONS = 1024
RT_PTE_MAX_IO = 16
RT_PTE_MAX_BUFFERS = 4
RT_MAX_DIMS = 6                 # rt_types.h


# -- the base programs ------------------------------------------------------------------------

def _f32_module():
    import torch
    from torch import nn

    class ConvLinear(nn.Module):
        """conv 3x3 (2 -> 4 channels, padding 1), relu, flatten, linear 64 -> 3."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.fc = nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    torch.manual_seed(0)
    return ConvLinear().eval(), (torch.randn(1, 2, 4, 4),)


@functools.lru_cache(maxsize=None)
def bases() -> dict[str, bytes]:
    """name -> .pte bytes of the small programs the mutants start from (a few KB each):
    f32   float32 conv + relu + linear (aten::convolution, relu, addmm)
    mlp   int8 linear 12 -> 16 -> 4, per-channel (its first layer's requantization: two
          int lists of 16 items, which rt_pte_load caches in the state), tests/int8_models.py
    conv  int8 strided, dilated, grouped, depthwise and pointwise convolutions
          (tests/int8_models.py conv_blocks)"""
    import torch
    import aot
    sys.path.insert(0, str(TESTS))
    from int8_models import lowered
    module, example = _f32_module()
    f32 = aot.to_edge(torch.export.export(module, example)).to_executorch()
    return {"f32": bytes(f32.buffer), "mlp": bytes(lowered("mlp", False).buffer),
            "conv": bytes(lowered("conv_blocks", False).buffer)}


@functools.lru_cache(maxsize=None)
def base_program(name: str):
    from aot.pte import load_program
    return load_program(bases()[name])


def base_inputs(name: str) -> list[np.ndarray]:
    """Zeros of each input of a base program (the M4's inputs slot)."""
    from aot.ir import TORCH_DTYPES
    import torch
    plan = base_program(name).method("forward")
    out = []
    for i in plan.inputs:
        v = plan.values[i]
        dtype = torch.empty(0, dtype=TORCH_DTYPES[v.scalar_type]).numpy().dtype
        out.append(np.zeros(v.sizes, dtype))
    return out


# -- editing a Program --------------------------------------------------------------------------

def _plan(program):
    return program.execution_plan[0]


def _with_plan(program, **changes):
    plan = dataclasses.replace(_plan(program), **changes)
    return dataclasses.replace(program, execution_plan=(plan,) + program.execution_plan[1:])


def _set_values(program, changes: dict):
    values = list(_plan(program).values)
    for i, v in changes.items():
        values[i] = v
    return _with_plan(program, values=tuple(values))


def _append_values(program, *new):
    """(program with `new` appended to its values, index of the first one)."""
    values = _plan(program).values
    return _with_plan(program, values=values + tuple(new)), len(values)


def _instructions(program):
    return _plan(program).chains[0].instructions


def _set_instructions(program, instructions):
    chain = _plan(program).chains[0]
    stack = chain.stacktrace if len(instructions) == len(chain.instructions) else None
    chain = dataclasses.replace(chain, instructions=tuple(instructions), stacktrace=stack)
    return _with_plan(program, chains=(chain,) + _plan(program).chains[1:])


def _call(program, op: str, nth: int = 0):
    """(instruction index, KernelCall) of the nth call of operator `op` (name.overload)."""
    plan = _plan(program)
    found = [(i, ins) for i, ins in enumerate(_instructions(program))
             if hasattr(ins, "op_index") and
             f"{plan.operators[ins.op_index].name}.{plan.operators[ins.op_index].overload}" == op]
    return found[nth]


def _arg(program, op: str, k: int, nth: int = 0) -> int:
    """The value index of argument k of the nth call of `op`."""
    return _call(program, op, nth)[1].args[k]


def _replace_tensor(program, v: int, **changes):
    return _set_values(program, {v: dataclasses.replace(_plan(program).values[v], **changes)})


def _alloc(memory_id: int, offset: int):
    from aot.program import AllocationDetails
    return AllocationDetails(memory_id, offset, 0)


def _serialize(program, **options) -> bytes:
    from aot.pte import serialize_pte
    return bytes(serialize_pte(program, **options))


def _first(program, kind) -> int:
    return next(i for i, v in enumerate(_plan(program).values) if isinstance(v, kind))


CONV_F32 = "aten::convolution.out"
RELU = "aten::relu.out"
ADDMM = "aten::addmm.out"
QLINEAR = "cortex_m::quantized_linear.out"
QCONV = "cortex_m::quantized_conv2d_nhwc.out"
QUANTIZE = "cortex_m::quantize_per_tensor.out"


# -- the bytes of a .pte: a few reads of its flatbuffer -----------------------------------------

def _u32(b, at: int) -> int:
    return struct.unpack_from("<I", b, at)[0]


def _ref(b, at: int) -> int:
    return at + _u32(b, at)


def _field(b, table: int, f: int) -> Optional[int]:
    """File position of field f of the table at `table`, None when absent."""
    vt = table - struct.unpack_from("<i", b, table)[0]
    at = 4 + 2 * f
    if at + 2 > struct.unpack_from("<H", b, vt)[0]:
        return None
    off = struct.unpack_from("<H", b, vt + at)[0]
    return table + off if off else None


def _root(b) -> int:
    return _ref(b, 0)


def _vector(b, table: int, f: int) -> int:
    """Position of the length word of vector field f."""
    return _ref(b, _field(b, table, f))


def _plan_table(b) -> int:
    plans = _vector(b, _root(b), 1)          # Program.execution_plan
    return _ref(b, plans + 4)


def _value_table(b, v: int) -> int:
    values = _vector(b, _plan_table(b), 2)   # ExecutionPlan.values
    return _ref(b, values + 4 + 4 * v)


def _put(b: bytes, at: int, fmt: str, value) -> bytes:
    out = bytearray(b)
    struct.pack_into(fmt, out, at, value)
    return bytes(out)


# -- the mutants ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Mutant:
    name: str
    cls: str            # one of CLASSES
    what: str           # one line
    base: str           # a key of bases()
    edit: Callable      # (base program, base bytes) -> mutant .pte bytes
    expect: str         # the rt_status name the contract asks for (never RT_OK)
    c_open: Optional[str] = None    # why the C interpreter does not refuse it yet
    py_open: Optional[str] = None   # why aot.load_program / generate_c does not refuse it yet
    # Set where only the C interpreter's build refuses it (its fixed-size state): a valid
    # file the static C runs, which aot.load_program and generate_c must take.
    build_limit: bool = False


def _p(fn):
    """An edit made on the Program: fn(program) -> program, serialized as aot writes it."""
    def edit(program, data):
        return _serialize(fn(program))
    edit.program_edit = fn
    return edit


def _b(fn):
    """An edit made on the bytes: fn(program, data) -> bytes."""
    return fn


# writes before checks ----------------------------------------------------------------------

def _wide_last_cached_item(p):
    """The last int list of 16 items or more (the last one rt_pte_load caches into the
    state's tail): its last item's Int set to 2**31, which does not fit int32."""
    from aot.program import Int, IntList
    values = _plan(p).values
    last = max(i for i, v in enumerate(values) if isinstance(v, IntList) and len(v.items) >= 16)
    return _set_values(p, {values[last].items[-1]: Int(1 << 31)})


# signed/unsigned index checks --------------------------------------------------------------

def _memory_id(p):
    return _replace_tensor(p, _arg(p, CONV_F32, -1), allocation_info=_alloc(0xFFFFFFFF, 0))


def _data_buffer_idx(p):
    return _replace_tensor(p, _arg(p, CONV_F32, 1), data_buffer_idx=0x80000000)


def _free_minus_one(p):
    from aot.program import FreeCall
    return _set_instructions(p, _instructions(p) + (FreeCall(-1),))


def _op_index_negative(p):
    i, call = _call(p, RELU)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, op_index=-1)
    return _set_instructions(p, ins)


def _arg_negative(p):
    i, call = _call(p, RELU)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=(-1,) + call.args[1:])
    return _set_instructions(p, ins)


def _jump_backwards(p):
    from aot.program import Bool, JumpFalseCall
    p, cond = _append_values(p, Bool(False))
    ins = list(_instructions(p))
    ins.insert(2, JumpFalseCall(cond, 0))        # instruction 2 -> 0: a loop
    return _set_instructions(p, ins)


# alignment ----------------------------------------------------------------------------------

def _float_odd_offset(p):
    v = _arg(p, CONV_F32, -1)                    # the conv's float output, 256 bytes
    return _replace_tensor(p, v, allocation_info=_alloc(1, 1))


def _int32_misaligned_constant(p, data):
    """quantized_linear's int32 kernel_sum (its bias) at a constant offset of 2 mod 4: the
    constants packed 2-aligned, the constant before it 2 bytes longer when needed."""
    from aot.program import Buffer
    v = _arg(p, QLINEAR, 3)
    j = _plan(p).values[v].data_buffer_idx
    buffers = list(p.constant_buffer)
    pos = 0
    for k in range(j):
        pos = (pos + 1) // 2 * 2 + len(buffers[k].storage)
    if (pos + 1) // 2 * 2 % 4 == 0:
        buffers[j - 1] = Buffer(buffers[j - 1].storage + b"\0\0")
    p = dataclasses.replace(p, constant_buffer=tuple(buffers))
    return _serialize(p, constant_tensor_alignment=2)


# ranges -----------------------------------------------------------------------------------

def _short_shift(p):
    """The second linear layer's shift list (4 items: decoded per call, not cached)."""
    from aot.program import Int
    items = _plan(p).values[_arg(p, QLINEAR, 8, nth=1)].items
    return _set_values(p, {items[0]: Int(83886072)})


def _cached_multiplier(p):
    """The first linear layer's multiplier list (16 items: cached in the state)."""
    from aot.program import Int
    items = _plan(p).values[_arg(p, QLINEAR, 7)].items
    return _set_values(p, {items[3]: Int(-5)})


def _conv_tensor_item(k: int, value: int):
    """Argument k of the first quantized conv (its int32 multiplier or shift constant): item 0
    set to `value`."""
    def edit(p):
        from aot.program import Buffer
        j = _plan(p).values[_arg(p, QCONV, k)].data_buffer_idx
        buffers = list(p.constant_buffer)
        data = bytearray(buffers[j].storage)
        struct.pack_into("<i", data, 0, value)
        buffers[j] = Buffer(bytes(data))
        return dataclasses.replace(p, constant_buffer=tuple(buffers))
    return edit


def _conv_pair(k: int, value: int):
    """Argument k of the first quantized conv (stride 3, padding 4, dilation 5): both items
    set to `value` (new Int values: the old ones may be shared)."""
    def edit(p):
        from aot.program import Int, IntList
        p, first = _append_values(p, Int(value), Int(value))
        return _set_values(p, {_arg(p, QCONV, k): IntList((first, first + 1))})
    return edit


def _conv_ints_three(p):
    from aot.program import IntList
    items = _plan(p).values[_arg(p, QCONV, 3)].items
    return _set_values(p, {_arg(p, QCONV, 3): IntList(items + items[:1])})


K_OVERFLOW = 34000


def _linear_k_overflow(p):
    """The second linear layer with K = 34000 inputs and one output, input and filter
    offsets 128: 34000 * 255 * 255 > 2**31 - 1. The int8 input and weights are planned in
    the arena (nothing of them in the file: only the shapes say so)."""
    from aot.program import Int, IntList, Null, ScalarType
    i, call = _call(p, QLINEAR, 1)
    plan = _plan(p)
    x = plan.values[call.args[0]]
    mult = plan.values[call.args[7]].items[0]
    shift = plan.values[call.args[8]].items[0]

    def planned(sizes, offset):
        return dataclasses.replace(x, scalar_type=ScalarType.CHAR, sizes=sizes,
                                   dim_order=tuple(range(len(sizes))), data_buffer_idx=0,
                                   allocation_info=_alloc(1, offset))
    k = K_OVERFLOW
    p, first = _append_values(p, planned((1, k), 0), planned((1, k), k), planned((1, 1), 2 * k),
                              Null(), IntList((mult,)), IntList((shift,)), Int(128), Int(128))
    xv, wv, ov, none, mv, sv, in_off, w_off = range(first, first + 8)
    args = list(call.args)
    args[0], args[1], args[2], args[3] = xv, wv, none, none
    args[4], args[5], args[7], args[8], args[11], args[12] = in_off, w_off, mv, sv, ov, ov
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=tuple(args))
    p = _set_instructions(p, ins)
    sizes = list(_plan(p).non_const_buffer_sizes)
    sizes[1] = max(sizes[1], 2 * k + 16)
    return _with_plan(p, non_const_buffer_sizes=tuple(sizes))


def _quantize_zero_point(p):
    from aot.program import Int
    p, v = _append_values(p, Int(300))
    i, call = _call(p, QUANTIZE)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=call.args[:2] + (v,) + call.args[3:])
    return _set_instructions(p, ins)


def _past_buffer(p):
    v = _arg(p, CONV_F32, -1)                    # 256 bytes, in a buffer of 384
    size = _plan(p).non_const_buffer_sizes[1]
    return _replace_tensor(p, v, allocation_info=_alloc(1, size - 128))


def _arena_2g(p):
    return _with_plan(p, non_const_buffer_sizes=(0, 1 << 31))


def _numel_overflow(p):
    return _replace_tensor(p, _arg(p, ADDMM, 2), sizes=(65536, 65536))


# truncation, offsets, vector lengths (bytes) -------------------------------------------------

def _truncated(p, data):
    return data[:len(data) // 2 & ~15]


def _root_offset(p, data):
    return _put(data, 0, "<I", 0xFFFFFF00)


def _vtable_outside(p, data):
    return _put(data, _root(data), "<i", -0x40000000)


def _values_length(p, data):
    return _put(data, _vector(data, _plan_table(data), 2), "<I", 0x7FFFFFF0)


def _segment_size(p, data):
    """Program.segments[0] (the constants): its size past the end of the file."""
    segments = _vector(data, _root(data), 4)
    segment = _ref(data, segments + 4)
    return _put(data, _field(data, segment, 1), "<Q", len(data))


def _constant_offset(p, data):
    """constant_segment.offsets[1] (the first constant) far past the segment."""
    sub = _ref(data, _field(data, _root(data), 5))        # Program.constant_segment
    offsets = _vector(data, sub, 1)
    return _put(data, offsets + 4 + 8 * 1, "<Q", 0x10000000)


def _string_length(p, data):
    """An operator's name: its length past the file."""
    operators = _vector(data, _plan_table(data), 6)
    op = _ref(data, operators + 4)
    return _put(data, _vector(data, op, 0), "<I", len(data))


# value indices, operators, counts, kinds, dtypes, limits --------------------------------------

def _args_past_values(p):
    i, call = _call(p, RELU)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=call.args[:-1] + (len(_plan(p).values) + 7,))
    return _set_instructions(p, ins)


def _list_item_past_values(p):
    from aot.program import IntList
    v = _first(p, IntList)
    items = _plan(p).values[v].items
    return _set_values(p, {v: IntList(items[:-1] + (len(_plan(p).values) + 3,))})


def _output_past_values(p):
    return _with_plan(p, outputs=(len(_plan(p).values),))


def _unknown_operator(p):
    from aot.program import Operator
    ops = list(_plan(p).operators)
    ops[_call(p, RELU)[1].op_index] = Operator("aten::no_such_op", "out")
    return _with_plan(p, operators=tuple(ops))


def _arg_count(p):
    i, call = _call(p, RELU)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=call.args[:-1])
    return _set_instructions(p, ins)


def _arg_kind(p):
    """The conv's stride (an int list) given a Bool."""
    from aot.program import Bool
    p, v = _append_values(p, Bool(True))
    i, call = _call(p, CONV_F32)
    ins = list(_instructions(p))
    ins[i] = dataclasses.replace(call, args=call.args[:3] + (v,) + call.args[4:])
    return _set_instructions(p, ins)


def _list_item_kind(p):
    from aot.program import IntList
    v = _first(p, IntList)
    items = _plan(p).values[v].items
    return _set_values(p, {v: IntList((_arg(p, CONV_F32, 0),) + items[1:])})


def _evalue_tag(p, data):
    """The union tag of an Int value set to 42 (no such kind)."""
    from aot.program import Int
    ev = _value_table(data, _first(p, Int))
    return _put(data, _field(data, ev, 0), "<B", 42)


def _input_not_tensor(p):
    from aot.program import Int
    return _with_plan(p, inputs=(_first(p, Int),))


def _negative_size(p):
    return _replace_tensor(p, _arg(p, CONV_F32, -1), sizes=(1, -4, 4, 4))


def _rank7(p):
    return _replace_tensor(p, _arg(p, CONV_F32, -1), sizes=(1, 1, 1, 4, 4, 4, 1),
                           dim_order=tuple(range(7)))


def _unknown_dtype(p):
    return _replace_tensor(p, _arg(p, CONV_F32, -1), scalar_type=99)


def _wrong_dtype(p):
    from aot.program import ScalarType
    return _replace_tensor(p, _arg(p, CONV_F32, 1), scalar_type=ScalarType.CHAR)


def _move_call(p):
    from aot.program import MoveCall
    out = _arg(p, RELU, -1)
    return _set_instructions(p, _instructions(p) + (MoveCall(out, out),))


def _jump_cond_int(p):
    from aot.program import Int, JumpFalseCall
    ins = list(_instructions(p))
    ins.insert(0, JumpFalseCall(_first(p, Int), 1))
    return _set_instructions(p, ins)


def _many_operators(p):
    ops = _plan(p).operators
    more = ops * (RT_PTE_MAX_OPERATORS // len(ops) + 1)
    return _with_plan(p, operators=more[:RT_PTE_MAX_OPERATORS + 1])


def _many_instructions(p):
    from aot.program import FreeCall
    v = _arg(p, RELU, -1)
    extra = RT_PTE_MAX_INSTRUCTIONS + 1 - len(_instructions(p))
    return _set_instructions(p, _instructions(p) + (FreeCall(v),) * extra)


def _many_buffers(p):
    sizes = _plan(p).non_const_buffer_sizes
    return _with_plan(p, non_const_buffer_sizes=sizes + (16,) * RT_PTE_MAX_BUFFERS)


def _many_inputs(p):
    return _with_plan(p, inputs=_plan(p).inputs * (RT_PTE_MAX_IO + 1))


# header -------------------------------------------------------------------------------------

def _magic(p, data):
    return data[:4] + b"ET99" + data[8:]


def _header_segments(p, data):
    """segment_data_size past the end of the file."""
    return _put(data, 8 + 24, "<Q", len(data))


def _header_length(p, data):
    return _put(data, 8 + 4, "<I", 8)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("cached_list_wide_last_item", "writes before checks",
           "the last cached int list (16 items): its last item 2**31, no int32", "mlp",
           _p(_wide_last_cached_item), "RT_ERR_PTE_ARGS"),
    Mutant("memory_id_ffffffff", "signed/unsigned index checks",
           "a planned tensor's memory_id 0xFFFFFFFF", "f32", _p(_memory_id),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("data_buffer_idx_80000000", "signed/unsigned index checks",
           "a constant's data_buffer_idx 0x80000000", "f32", _p(_data_buffer_idx),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("free_call_minus_one", "signed/unsigned index checks",
           "a FreeCall of value -1", "f32", _p(_free_minus_one), "RT_ERR_PTE_CORRUPT"),
    Mutant("op_index_negative", "signed/unsigned index checks",
           "a KernelCall of operator -1", "f32", _p(_op_index_negative), "RT_ERR_PTE_CORRUPT"),
    Mutant("arg_index_negative", "signed/unsigned index checks",
           "a KernelCall argument of value -1", "f32", _p(_arg_negative), "RT_ERR_PTE_CORRUPT"),
    Mutant("jump_backwards", "signed/unsigned index checks",
           "a JumpFalseCall from instruction 2 back to 0", "f32", _p(_jump_backwards),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("float_odd_arena_offset", "alignment",
           "a float32 tensor planned at arena offset 1", "f32", _p(_float_odd_offset),
           "RT_ERR_PTE_ALIGN"),
    Mutant("int32_bias_misaligned", "alignment",
           "an int32 bias (kernel_sum) at a constant offset of 2 mod 4", "mlp",
           _int32_misaligned_constant, "RT_ERR_PTE_ALIGN"),
    Mutant("shift_83886072_short_list", "ranges",
           "a linear layer's requantization shift 83886072 (a 4-item list)", "mlp",
           _p(_short_shift), "RT_ERR_PTE_ARGS"),
    Mutant("multiplier_negative_cached_list", "ranges",
           "a linear layer's multiplier -5 (a 16-item list, cached at load)", "mlp",
           _p(_cached_multiplier), "RT_ERR_PTE_ARGS"),
    Mutant("conv_shift_tensor_83886072", "ranges",
           "a conv's int32 shift constant 83886072", "conv",
           _p(_conv_tensor_item(9, 83886072)), "RT_ERR_PTE_ARGS"),
    Mutant("conv_multiplier_tensor_negative", "ranges",
           "a conv's int32 multiplier constant -5", "conv",
           _p(_conv_tensor_item(8, -5)), "RT_ERR_PTE_ARGS"),
    Mutant("conv_stride_overflow", "ranges",
           "a conv's stride 2**30: (out - 1) * stride overflows int32", "conv",
           _p(_conv_pair(3, 1 << 30)), "RT_ERR_PTE_ARGS"),
    Mutant("conv_padding_overflow", "ranges",
           "a conv's padding 2**31 - 1: in + 2 * padding overflows int32", "conv",
           _p(_conv_pair(4, (1 << 31) - 1)), "RT_ERR_PTE_ARGS"),
    Mutant("conv_dilation_overflow", "ranges",
           "a conv's dilation 2**30: (kernel - 1) * dilation overflows int32", "conv",
           _p(_conv_pair(5, 1 << 30)), "RT_ERR_PTE_ARGS"),
    Mutant("linear_k_accumulation_overflow", "ranges",
           f"a linear layer of K = {K_OVERFLOW}, offsets 128: K * 255 * 255 > 2**31 - 1",
           "mlp", _p(_linear_k_overflow), "RT_ERR_PTE_ARGS"),
    Mutant("quantize_zero_point_300", "ranges",
           "a quantize's zero point 300, outside int8", "mlp", _p(_quantize_zero_point),
           "RT_ERR_PTE_ARGS"),
    Mutant("tensor_past_its_buffer", "ranges",
           "a 256-byte tensor planned 128 bytes before its buffer's end", "f32",
           _p(_past_buffer), "RT_ERR_PTE_CORRUPT"),
    Mutant("arena_2gb", "ranges",
           "a planned buffer of 2**31 bytes", "f32", _p(_arena_2g), "RT_ERR_PTE_ARENA"),
    Mutant("numel_overflow", "ranges",
           "a 65536 x 65536 float32 constant (16 GB)", "f32", _p(_numel_overflow),
           "RT_ERR_PTE_LIMIT"),
    Mutant("truncated_file", "truncation",
           "the file cut in half", "mlp", _b(_truncated), "RT_ERR_PTE_TRUNCATED"),
    Mutant("root_offset_past_file", "bad offsets",
           "the flatbuffer's root offset 0xFFFFFF00", "f32", _b(_root_offset),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("vtable_outside_file", "bad offsets",
           "the root table's vtable offset -2**30", "f32", _b(_vtable_outside),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("segment_past_file", "bad offsets",
           "the constant segment's size past the end of the file", "f32", _b(_segment_size),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("constant_offset_past_segment", "bad offsets",
           "a constant's offset past its segment", "f32", _b(_constant_offset),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("values_length_past_file", "vector lengths",
           "the values vector's length 0x7FFFFFF0", "f32", _b(_values_length),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("string_length_past_file", "vector lengths",
           "an operator name's length past the file", "f32", _b(_string_length),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("args_index_past_values", "value indices",
           "a KernelCall argument past the values", "f32", _p(_args_past_values),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("list_item_past_values", "value indices",
           "an int list item past the values", "f32", _p(_list_item_past_values),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("output_past_values", "value indices",
           "the method's output past the values", "f32", _p(_output_past_values),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("unknown_operator", "operator indices",
           "an operator the kernel table lacks (aten::no_such_op.out)", "f32",
           _p(_unknown_operator), "RT_ERR_PTE_OPERATOR"),
    Mutant("kernel_call_arg_count", "list counts",
           "relu called with one argument less", "f32", _p(_arg_count), "RT_ERR_PTE_ARGS"),
    Mutant("conv_stride_three_items", "list counts",
           "a 2-D conv's stride of three items", "conv", _p(_conv_ints_three),
           "RT_ERR_PTE_ARGS"),
    Mutant("arg_wrong_kind", "kinds",
           "a conv's stride given as a Bool", "f32", _p(_arg_kind), "RT_ERR_PTE_ARGS"),
    Mutant("list_item_not_int", "kinds",
           "an int list item that is a Tensor", "f32", _p(_list_item_kind),
           "RT_ERR_PTE_CORRUPT"),
    Mutant("evalue_unknown_kind", "kinds",
           "a value of union tag 42", "f32", _b(_evalue_tag), "RT_ERR_PTE_CORRUPT"),
    Mutant("input_not_tensor", "kinds",
           "the method's input an Int", "f32", _p(_input_not_tensor),
           "RT_ERR_PTE_UNSUPPORTED"),
    Mutant("move_call", "kinds",
           "a MoveCall", "f32", _p(_move_call), "RT_ERR_PTE_UNSUPPORTED"),
    Mutant("jump_condition_int", "kinds",
           "a JumpFalseCall on an Int", "f32", _p(_jump_cond_int), "RT_ERR_PTE_UNSUPPORTED"),
    Mutant("negative_size", "ranges",
           "a tensor of size (1, -4, 4, 4)", "f32", _p(_negative_size), "RT_ERR_PTE_CORRUPT"),
    Mutant("unknown_dtype", "dtypes",
           "a tensor of ScalarType 99", "f32", _p(_unknown_dtype), "RT_ERR_PTE_DTYPE"),
    Mutant("conv_weight_int8", "dtypes",
           "a float conv's weight as int8", "f32", _p(_wrong_dtype), "RT_ERR_PTE_DTYPE"),
    Mutant("rank_7", "limits",
           "a tensor of rank 7", "f32", _p(_rank7), "RT_ERR_PTE_LIMIT"),
    Mutant("operators_65", "limits",
           f"{RT_PTE_MAX_OPERATORS + 1} operators", "f32", _p(_many_operators),
           "RT_ERR_PTE_LIMIT", build_limit=True),
    Mutant("instructions_1025", "limits",
           f"{RT_PTE_MAX_INSTRUCTIONS + 1} instructions", "f32", _p(_many_instructions),
           "RT_ERR_PTE_LIMIT", build_limit=True),
    Mutant("buffers_5", "limits",
           f"{RT_PTE_MAX_BUFFERS + 1} planned buffers", "f32", _p(_many_buffers),
           "RT_ERR_PTE_LIMIT"),
    Mutant("inputs_17", "limits",
           f"{RT_PTE_MAX_IO + 1} method inputs", "f32", _p(_many_inputs), "RT_ERR_PTE_LIMIT",
           build_limit=True),
    Mutant("magic_et99", "header",
           "the file identifier ET99", "f32", _b(_magic), "RT_ERR_PTE_CORRUPT"),
    Mutant("header_segments_past_file", "header",
           "the extended header's segment data past the file", "f32", _b(_header_segments),
           "RT_ERR_PTE_TRUNCATED"),
    Mutant("header_length_8", "header",
           "the extended header's length 8", "f32", _b(_header_length), "RT_ERR_PTE_CORRUPT"),
)

BY_NAME = {m.name: m for m in MUTANTS}
assert len(BY_NAME) == len(MUTANTS)


@functools.lru_cache(maxsize=None)
def build(m: Mutant) -> bytes:
    """The mutant's .pte bytes (16-byte multiple, as a board's slot and the fuzzers keep)."""
    data = m.edit(base_program(m.base), bases()[m.base])
    return data + bytes(-len(data) % 16) if m.cls != "truncation" else data


def mutant_program(m: Mutant):
    """The in-memory Program a Program-level mutant serializes (None for other edits)."""
    fn = getattr(m.edit, "program_edit", None)
    return fn(base_program(m.base)) if fn is not None else None


def status_code(name: str) -> int:
    from aot.codegen.runtime import STATUS_NAMES
    return {v: k for k, v in STATUS_NAMES.items()}[name]


def status_name(code: int) -> str:
    from aot.codegen.runtime import STATUS_NAMES
    return STATUS_NAMES.get(code, f"status {code}")


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
import pte_mutants
pte_mutants._child_main(sys.argv[1])
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
