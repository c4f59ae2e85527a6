"""Crafted corrupt programs: one check of the .pte loader each (issue 35).

Each Mutant takes a small real program that aot lowered (float32 or int8: tests/pte_programs.py
builds them, and holds the edits), changes one thing, and names the rt_status the loader
contract asks for: a refusal at load (rt_pte_load, or rt_pte_arena_size / rt_pte_state_size
before it) with the status that names the problem, never RT_OK. Most edits are made on the
aot.program dataclasses (dataclasses.replace) and re-serialized by aot.pte.serialize_pte;
header, truncation and offset cases edit the bytes.

    from pte_mutants import MUTANTS, build, host_outcomes, python_outcome
    pte = build(MUTANTS[0])                  # the mutant's .pte bytes
    outcomes = host_outcomes(MUTANTS)        # name -> HostOutcome (ASan + UBSan interpreter)

Three runners (tests/pte_runners.py, named here too) read them, each as a user's device or
tool would:
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
import struct
from dataclasses import dataclass
from typing import Callable, Optional

from pte_programs import (ADDMM, CONV_F32, QCONV, QLINEAR, QUANTIZE, RELU, _alloc, _append_values,
                          _arg, _call, _field, _first, _instructions, _plan, _plan_table, _put,
                          _ref, _replace_tensor, _root, _serialize, _set_instructions,
                          _set_values, _value_table, _vector, _with_plan, base_program, bases)

# The runners (python_outcome, host_outcomes, sanitizer_env, M4Rig ...) live in pte_runners,
# which reads this catalogue; they are named here too, for the tests that import them from here.
_RUNNERS = ("PythonOutcome", "python_outcome", "HostOutcome", "host_outcomes", "sanitizer_env",
            "BOARD", "M4_ARENA", "M4Outcome", "M4Rig")


def __getattr__(name: str):
    if name in _RUNNERS:
        import pte_runners
        return getattr(pte_runners, name)
    raise AttributeError(f"module 'pte_mutants' has no attribute {name!r}")


# The classes of issue 35, in the order the tables print them.
CLASSES = ("writes before checks", "signed/unsigned index checks", "alignment", "ranges",
           "truncation", "bad offsets", "vector lengths", "value indices", "operator indices",
           "list counts", "kinds", "dtypes", "limits", "header")

RT_PTE_MAX_OPERATORS = 64       # rt_pte.h
RT_PTE_MAX_INSTRUCTIONS = 1024
RT_PTE_MAX_IO = 16
RT_PTE_MAX_BUFFERS = 4
RT_MAX_DIMS = 6                 # rt_types.h


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
