"""load_program on malformed input: it loads or raises PteFormatError, nothing else, and fast;
and what loads, the C generator renders or refuses with an AotError naming the problem.

Every load runs under a SIGALRM guard, so a hang fails the test instead of stalling it.
"""
import contextlib
import signal
import struct

import flatbuffers
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from aot.errors import PteFormatError
from aot.pte import load_program, serialize_pte
from aot.pte._fb import (Chain as FbChain, ExecutionPlan as FbPlan, FreeCall as FbFreeCall,
                         Instruction as FbInstruction, Program as FbProgram,
                         Tensor as FbTensor)
from aot.program import (AllocationDetails, BackendDelegate, BackendDelegateDataReference,
                         BackendDelegateInlineData, Buffer, Chain, ContainerMetadata,
                         DataLocation, DelegateCall, ExecutionPlan, Frame, FrameList, Int,
                         IntList, KernelCall, NamedData, Operator, Program, ScalarType, Tensor)

SECONDS_PER_LOAD = 5


@contextlib.contextmanager
def _deadline(seconds: int):
    def expire(signum, frame):
        raise TimeoutError(f"load_program took more than {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def load_or_reject(data: bytes) -> None:
    """Load `data`; a PteFormatError is fine, any other exception fails the test.

    Whatever does load must also survive serialize -> load. (Compared as bytes, since a
    corrupted double may be a NaN, which never compares equal.)"""
    with _deadline(SECONDS_PER_LOAD):
        try:
            program = load_program(data)
        except PteFormatError as e:
            assert str(e).startswith("<bytes>: ")
            return
        assert isinstance(program, Program)
        once = bytes(serialize_pte(program))
        assert bytes(serialize_pte(load_program(once))) == once


def _program(op_index: int = 0, value_type=ScalarType.FLOAT) -> Program:
    tensor = lambda **kw: Tensor(value_type, 0, (2, 2), (0, 1), **kw)
    values = (tensor(data_buffer_idx=1), tensor(allocation_info=AllocationDetails.at(1, 0)),
              tensor(allocation_info=AllocationDetails.at(1, 16)), Int(1), IntList((3, 3)))
    # add.out(self, other, alpha, out) and the result again; value 4 is read by no call.
    chain = Chain((1,), (2,), (KernelCall(op_index, (0, 1, 3, 2, 2)), DelegateCall(0, (1, 2))),
                  (FrameList((Frame("m.py", 1, "f", "x"),)), FrameList(())))
    plan = ExecutionPlan("forward", ContainerMetadata("in", "out"), values, (1,), (2,), (chain,),
                         (Operator("aten::add", "out"),),
                         (BackendDelegate("B", BackendDelegateDataReference(
                             DataLocation.INLINE, 0)),),
                         (0, 32))
    return Program(0, (plan,), (Buffer(b""), Buffer(bytes(range(16)))),
                   (BackendDelegateInlineData(b"blob" * 5),),
                   named_data=(NamedData("k", b"named"),))


VALID = bytes(serialize_pte(_program()))
VALID_INLINE = bytes(serialize_pte(_program(), extract_constant_segment=False,
                                   extract_delegate_segments=False))
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def test_the_valid_files_load():
    assert load_program(VALID) == _program() == load_program(VALID_INLINE)


@pytest.mark.parametrize("valid", [VALID, VALID_INLINE], ids=["segments", "inline"])
def test_every_truncation_is_rejected(valid):
    for length in range(len(valid)):
        with pytest.raises(PteFormatError):
            with _deadline(SECONDS_PER_LOAD):
                load_program(valid[:length])


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes(data):
    load_or_reject(data)


@FUZZ
@given(st.binary(max_size=2048), st.sampled_from([b"\x10\x00\x00\x00", b"\x40\x00\x00\x00"]))
def test_random_bytes_behind_a_valid_identifier(tail, root):
    load_or_reject(root + b"ET12" + tail)


@FUZZ
@given(st.sampled_from([VALID, VALID_INLINE]),
       st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1,
                max_size=8))
def test_random_byte_changes(valid, changes):
    data = bytearray(valid)
    for position, value in changes:
        data[position % len(data)] = value
    load_or_reject(bytes(data))


@FUZZ
@given(st.sampled_from([VALID, VALID_INLINE]), st.integers(0, 1 << 16), st.integers(0, 7),
       st.sampled_from([0, 1, 0x7F, 0x80, 0xFF]))
def test_single_bit_flips_and_extreme_words(valid, position, bit, fill):
    flipped = bytearray(valid)
    flipped[position % len(valid)] ^= 1 << bit
    load_or_reject(bytes(flipped))
    word = bytearray(valid)
    start = position % (len(valid) - 4) & ~3  # overwrite one aligned 32-bit word
    word[start:start + 4] = bytes([fill]) * 4
    load_or_reject(bytes(word))


def test_wrong_identifier():
    with pytest.raises(PteFormatError, match=r"<bytes>: file identifier is b'ET11'"):
        load_program(VALID[:4] + b"ET11" + VALID[8:])


def test_too_short_and_missing_file(tmp_path):
    with pytest.raises(PteFormatError, match="too short"):
        load_program(b"ET12")
    with pytest.raises(PteFormatError, match=r"nope\.pte: cannot read"):
        load_program(tmp_path / "nope.pte")


def test_truncated_segment_data_is_named_as_such():
    with pytest.raises(PteFormatError, match="truncated"):
        load_program(VALID[:-3])


def test_segment_past_end_of_file():
    # Grow the declared size of the last segment (named data, 5 bytes) past the file's end.
    segments = FbProgram.Program.GetRootAs(VALID, 0).Segments(2)
    size_field = segments._tab.Pos + segments._tab.Offset(6)
    assert struct.unpack_from("<Q", VALID, size_field)[0] == 5
    data = bytearray(VALID)
    struct.pack_into("<Q", data, size_field, 1 << 40)
    with pytest.raises(PteFormatError, match="segment 2 .* runs past the end"):
        load_program(bytes(data))


def test_out_of_range_operator_index():
    with pytest.raises(PteFormatError, match="instruction 0 refers to operator 7, but there are 1"):
        load_program(bytes(serialize_pte(_program(op_index=7))))


def test_unknown_value_kind():
    value = FbProgram.Program.GetRootAs(VALID, 0).ExecutionPlan(0).Values(3)
    tag = value._tab.Pos + value._tab.Offset(4)
    assert VALID[tag] == 2  # Int
    data = bytearray(VALID)
    data[tag] = 42
    with pytest.raises(PteFormatError, match="values\\[3\\]: value has unknown or missing kind 42"):
        load_program(bytes(data))


def test_unknown_scalar_type():
    union = FbProgram.Program.GetRootAs(VALID, 0).ExecutionPlan(0).Values(0).Val()
    tensor = FbTensor.Tensor()
    tensor.Init(union.Bytes, union.Pos)
    pos = tensor._tab.Pos + tensor._tab.Offset(4)  # scalar_type, the first field
    assert VALID[pos] == ScalarType.FLOAT
    data = bytearray(VALID)
    data[pos] = 9  # a complex type: not declared
    with pytest.raises(PteFormatError, match="scalar type 9 is not a valid ScalarType"):
        load_program(bytes(data))


def test_absurd_vector_length():
    plan = FbProgram.Program.GetRootAs(VALID, 0).ExecutionPlan(0)
    length_field = plan._tab.Vector(plan._tab.Offset(8)) - 4  # values vector length
    data = bytearray(VALID)
    struct.pack_into("<I", data, length_field, 0xFFFFFFF0)
    with pytest.raises(PteFormatError, match=r"execution_plan\[0\]: values claims 4294967280"):
        load_program(bytes(data))


def _shared_offsets_bomb(n: int) -> bytes:
    """A small file whose n plans are one table, whose n chains are one table, whose n
    instructions are one table: n**3 instructions to decode if offsets were followed blindly."""
    b = flatbuffers.Builder(0)

    def repeated(table: int) -> int:
        b.StartVector(4, n, 4)
        for _ in range(n):
            b.PrependUOffsetTRelative(table)
        return b.EndVector()

    FbFreeCall.Start(b)
    call = FbFreeCall.End(b)
    FbInstruction.Start(b)
    FbInstruction.AddInstrArgsType(b, 5)
    FbInstruction.AddInstrArgs(b, call)
    instructions = repeated(FbInstruction.End(b))
    FbChain.Start(b)
    FbChain.AddInstructions(b, instructions)
    chains = repeated(FbChain.End(b))
    FbPlan.Start(b)
    FbPlan.AddChains(b, chains)
    plans = repeated(FbPlan.End(b))
    FbProgram.Start(b)
    FbProgram.AddExecutionPlan(b, plans)
    b.Finish(FbProgram.End(b), file_identifier=b"ET12")
    return bytes(b.Output())


def test_shared_offsets_cannot_blow_up_decoding():
    data = _shared_offsets_bomb(1000)
    assert len(data) < 20_000
    with _deadline(SECONDS_PER_LOAD):
        with pytest.raises(PteFormatError, match="more items than the file holds"):
            load_program(data)


def test_unrelated_types_are_a_type_error():
    with pytest.raises(TypeError):
        load_program(12345)


# -- the C generator on mutants of a real model's .pte ------------------------------------------

def _model_pte() -> bytes:
    """A small model touching the argument kinds the generator reads: tensors, optional
    tensors, int lists (conv stride/padding, pooling, permute, cat), ints, floats, bools."""
    import torch
    import aot

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = torch.nn.Conv2d(2, 4, 3, stride=2, padding=1)
            self.fc = torch.nn.Linear(8, 3)

        def forward(self, x):
            y = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
            y = torch.cat([y, y * 0.5], dim=1).permute(0, 2, 3, 1).reshape(1, 8) + 1
            return torch.softmax(self.fc(y), dim=-1), y.mean(dim=-1, keepdim=True)

    ep = torch.export.export(Net().eval(), (torch.randn(1, 2, 4, 4),))
    return aot.to_edge(ep).to_executorch().buffer


MODEL = _model_pte()


def load_and_generate(data: bytes) -> None:
    """Load a .pte and render it to C: every failure is an AotError with a message, which
    for a file that loaded names an instruction or an op."""
    from aot.codegen.c import generate_c
    from aot.errors import AotError
    with _deadline(SECONDS_PER_LOAD):
        try:
            program = load_program(data)
        except PteFormatError as e:
            assert str(e).startswith("<bytes>: ")
            return
        try:
            generate_c(program, name="m")
        except AotError as e:
            assert str(e).strip()


def test_the_model_renders():
    from aot.codegen.c import generate_c
    generate_c(load_program(MODEL), name="m")


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1,
                max_size=3))
def test_mutants_load_and_render_or_fail_cleanly(changes):
    data = bytearray(MODEL)
    program_end = len(data) if data[8:12] != b"eh00" else \
        struct.unpack_from("<Q", data, 16)[0]      # mutate the flatbuffer, not the weights
    for position, value in changes:
        data[position % program_end] = value
    load_and_generate(bytes(data))


def test_wrong_length_stride_is_a_format_error():
    """A conv stride list of three entries in a 2-D convolution: named at load."""
    import dataclasses
    from aot import program as P
    program = load_program(MODEL)
    plan = program.execution_plan[0]
    conv = next(i for i, o in enumerate(plan.operators) if o.name == "aten::convolution")
    call = next(c for c in plan.chains[0].instructions
                if isinstance(c, P.KernelCall) and c.op_index == conv)
    stride = plan.values[call.args[3]]
    values = list(plan.values)
    values[call.args[3]] = dataclasses.replace(stride, items=stride.items + stride.items[:1])
    bad = dataclasses.replace(program, execution_plan=(
        dataclasses.replace(plan, values=tuple(values)),))
    with pytest.raises(PteFormatError, match=r"instruction 0 \(aten::convolution.out\).*"
                       r"argument 'stride' has 3 entries"):
        load_program(bytes(serialize_pte(bad)))


def test_int_list_of_doubles_is_a_format_error():
    import dataclasses
    from aot import program as P
    program = load_program(MODEL)
    plan = program.execution_plan[0]
    k = next(i for i, v in enumerate(plan.values) if isinstance(v, P.IntList))
    values = list(plan.values)
    values[values[k].items[0]] = P.Double(1.5)
    bad = dataclasses.replace(program, execution_plan=(
        dataclasses.replace(plan, values=tuple(values)),))
    with pytest.raises(PteFormatError, match=r"value \d+ \(IntList\) item 0 is value \d+, a "
                       r"Double, not an Int"):
        load_program(bytes(serialize_pte(bad)))


# -- the C loader's rules (rt_pte_load), in load_program and generate_c ------------------------
# tests/host/test_pte_readers_agree.py runs both readers on the same mutants; these pin each
# rule's message.

def _edited(edit, **options) -> bytes:
    """MODEL's Program after edit(plan) -> plan (or program), serialized."""
    import dataclasses
    program = load_program(MODEL)
    out = edit(program.execution_plan[0])
    if isinstance(out, Program):
        return bytes(serialize_pte(out, **options))
    return bytes(serialize_pte(dataclasses.replace(program, execution_plan=(out,)), **options))


def _first_planned_float(plan) -> int:
    return next(i for i, v in enumerate(plan.values) if isinstance(v, Tensor) and
                v.allocation_info is not None and v.scalar_type == ScalarType.FLOAT)


def _set(plan, i, **changes):
    import dataclasses
    values = list(plan.values)
    values[i] = dataclasses.replace(values[i], **changes)
    return dataclasses.replace(plan, values=tuple(values))


def test_a_float_at_an_odd_arena_offset_is_refused():
    """`aot compile` wrote (float *)(arena + 165) for such a file (issue 35)."""
    import dataclasses

    def edit(plan):
        i = _first_planned_float(plan)
        sizes = (0, plan.non_const_buffer_sizes[1] + 4096)
        return _set(dataclasses.replace(plan, non_const_buffer_sizes=sizes), i,
                    allocation_info=AllocationDetails.at(1, 165))
    with pytest.raises(PteFormatError, match=r"value \d+: allocation_info offset 165 in memory "
                       r"area 1 is not a multiple of the 4-byte elements of its float32 data"):
        load_program(_edited(edit))


@pytest.mark.parametrize("memory_id", [0, 2, 0xFFFFFFFF])
def test_a_memory_id_outside_the_areas_is_refused(memory_id):
    edit = lambda plan: _set(plan, _first_planned_float(plan),
                             allocation_info=AllocationDetails.at(memory_id, 0))
    with pytest.raises(PteFormatError, match=rf"allocation_info.memory_id is {memory_id}, but "
                       r"the method's memory areas are 1..1 \(0 is reserved\)"):
        load_program(_edited(edit))


def test_a_tensor_past_its_area_is_refused():
    def edit(plan):
        i = _first_planned_float(plan)
        return _set(plan, i, allocation_info=AllocationDetails.at(
            1, plan.non_const_buffer_sizes[1] - 4))
    with pytest.raises(PteFormatError, match=r"run past the end of memory area 1"):
        load_program(_edited(edit))


def test_a_constant_misaligned_in_the_file_is_refused():
    """Constants packed 1 byte apart after a 3-byte one: a float constant at an odd offset."""
    import dataclasses

    def edit(plan):
        program = load_program(MODEL)
        buffers = list(program.constant_buffer)
        buffers[1] = Buffer(buffers[1].storage + b"\1\2\3")
        return dataclasses.replace(program, constant_buffer=tuple(buffers))
    with pytest.raises(PteFormatError, match=r"value \d+ \(float32 tensor\) has its data "
                       r"\(constant \d+\) at file offset \d+, not a multiple of its 4-byte"):
        load_program(_edited(edit, constant_tensor_alignment=1))


def test_constants_out_of_order_or_overlapping_load():
    """The C reads a constant where its offset says, on to the segment's end: so does the
    reader (items in any order; an item no tensor reads anywhere), and the Program survives
    serialize -> load."""
    sub = FbProgram.Program.GetRootAs(VALID, 0).ConstantSegment()
    first = sub._tab.Vector(sub._tab.Offset(6))     # offsets[0], the placeholder
    data = bytearray(VALID)
    struct.pack_into("<Q", data, first, 1 << 40)    # read by no tensor
    program = load_program(bytes(data))
    assert program.constant_buffer == _program().constant_buffer
    again = bytes(serialize_pte(program))
    assert load_program(again) == program


def _root_vtable(data: bytes) -> int:
    root = struct.unpack_from("<I", data, 0)[0]
    return root - struct.unpack_from("<i", data, root)[0]


def test_a_table_smaller_than_its_fields_is_refused():
    data = bytearray(VALID)
    struct.pack_into("<H", data, _root_vtable(VALID) + 2, 4)    # the root table: 4 bytes
    with pytest.raises(PteFormatError, match=r"the program: field \w+ lies at byte \d+ of a "
                       r"4-byte table"):
        load_program(bytes(data))


def test_an_odd_vtable_is_refused():
    data = bytearray(VALID)
    vt = _root_vtable(VALID)
    struct.pack_into("<H", data, vt, struct.unpack_from("<H", VALID, vt)[0] + 1)
    with pytest.raises(PteFormatError, match=r"the program: a vtable of \d+ bytes over a table"):
        load_program(bytes(data))


def test_a_string_without_its_nul_is_refused():
    op = FbProgram.Program.GetRootAs(VALID, 0).ExecutionPlan(0).Operators(0)
    name = op._tab.Vector(op._tab.Offset(4))        # "aten::add": its bytes
    data = bytearray(VALID)
    length = struct.unpack_from("<I", VALID, name - 4)[0]
    assert VALID[name + length] == 0
    data[name + length] = ord("x")
    with pytest.raises(PteFormatError, match=r"execution_plan\[0\].operators\[0\]: name \(9 "
                       r"bytes\) has no terminating NUL"):
        load_program(bytes(data))


def test_an_int_list_item_must_be_an_int():
    import dataclasses
    from aot import program as P

    def edit(plan):
        k = next(i for i, v in enumerate(plan.values) if isinstance(v, P.IntList) and v.items)
        t = next(i for i, v in enumerate(plan.values) if isinstance(v, Tensor))
        values = list(plan.values)
        values[k] = P.IntList((t,) + values[k].items[1:])
        return dataclasses.replace(plan, values=tuple(values))
    with pytest.raises(PteFormatError, match=r"\(IntList\) item 0 is value \d+, a Tensor, "
                       r"not an Int"):
        load_program(_edited(edit))


def _refused_by_generate_c(data: bytes, pattern: str) -> None:
    from aot.codegen.c import generate_c
    program = load_program(data)                    # a valid ExecuTorch program
    with pytest.raises(PteFormatError, match=pattern):
        generate_c(program, name="m")


def _with_instructions(plan, instructions):
    import dataclasses
    chain = dataclasses.replace(plan.chains[0], instructions=tuple(instructions),
                                stacktrace=None)
    return dataclasses.replace(plan, chains=(chain,))


def _append_value(plan, value):
    import dataclasses
    return dataclasses.replace(plan, values=plan.values + (value,)), len(plan.values)


@pytest.mark.parametrize("case", ["move", "jump_int", "jump_back", "rank7", "half", "dim_order",
                                  "storage_offset", "dynamic", "arena_2g", "no_chain",
                                  "input_int"])
def test_what_running_asks_is_refused_by_generate_c(case):
    import dataclasses
    from aot import program as P

    def edit(plan):
        ins = plan.chains[0].instructions
        i = _first_planned_float(plan)
        if case == "move":
            return _with_instructions(plan, ins + (P.MoveCall(i, i),))
        if case in ("jump_int", "jump_back"):
            plan, cond = _append_value(plan, P.Int(0) if case == "jump_int" else P.Bool(False))
            return _with_instructions(plan, ins[:2] + (P.JumpFalseCall(cond, 0),) + ins[2:])
        if case == "rank7":
            t = plan.values[i]
            return _set(plan, i, sizes=t.sizes + (1,) * (7 - len(t.sizes)),
                        dim_order=tuple(range(7)))
        if case == "half":
            return _set(plan, i, scalar_type=ScalarType.HALF)
        if case == "dim_order":
            return _set(plan, i, dim_order=tuple(reversed(plan.values[i].dim_order)))
        if case == "storage_offset":
            return _set(plan, i, storage_offset=4)
        if case == "dynamic":
            return _set(plan, i, shape_dynamism=P.TensorShapeDynamism.DYNAMIC_BOUND)
        if case == "arena_2g":
            return dataclasses.replace(plan, non_const_buffer_sizes=(0, 1 << 31))
        if case == "no_chain":
            return dataclasses.replace(plan, chains=())
        k = next(j for j, v in enumerate(plan.values) if isinstance(v, P.Int))
        return dataclasses.replace(plan, inputs=(k,) + plan.inputs[1:])
    pattern = {
        "move": r"instruction \d+ \(MoveCall\) .*: a MoveCall, which the C runtime does not run",
        "jump_int": r"instruction 2 \(JumpFalseCall\) .*: cond_value_index is value \d+, an "
                    r"Int, not a Bool",
        "jump_back": r"instruction 2 \(JumpFalseCall\) .*: destination_instruction 0 is not "
                     r"after it",
        "rank7": r"value \d+ is a tensor of rank 7; the C runtime takes rank 6 at most",
        "half": r"value \d+ is a tensor of HALF, a dtype the C runtime does not take",
        "dim_order": r"value \d+ has dim_order \[.*\] for sizes .*; the C runtime takes "
                     r"contiguous tensors",
        "storage_offset": r"value \d+ has storage_offset 4",
        "dynamic": r"value \d+ has shape_dynamism DYNAMIC_BOUND",
        "arena_2g": r"non_const_buffer_sizes\[1\] is 2147483648 bytes",
        "no_chain": r"method 'forward' has no chain of instructions",
        "input_int": r"inputs\[0\] is value \d+, an Int, not a tensor",
    }[case]
    _refused_by_generate_c(_edited(edit), pattern)


def test_a_free_call_and_an_empty_dim_order_render():
    """As the interpreter takes them: a FreeCall does nothing in a static plan, and a tensor
    without a dim_order is contiguous."""
    from aot import program as P
    from aot.codegen.c import generate_c

    def edit(plan):
        i = _first_planned_float(plan)
        plan = _set(plan, i, dim_order=())
        return _with_instructions(plan, plan.chains[0].instructions + (P.FreeCall(i),))
    generate_c(load_program(_edited(edit)), name="m")


def test_a_call_no_kernel_takes_is_an_unsupported_call_and_a_format_error():
    from aot.errors import UnsupportedCallError, UnsupportedOpError
    from aot import program as P

    def edit(plan):
        conv = next(ins for ins in plan.chains[0].instructions
                    if isinstance(ins, P.KernelCall) and
                    plan.operators[ins.op_index].name == "aten::convolution")
        return _set(plan, conv.args[1], scalar_type=ScalarType.CHAR)    # int8 weights
    from aot.codegen.c import generate_c
    with pytest.raises(UnsupportedCallError, match=r"instruction \d+ aten::convolution.out") \
            as info:
        generate_c(load_program(_edited(edit)), name="m")
    assert isinstance(info.value, PteFormatError) and isinstance(info.value, UnsupportedOpError)
