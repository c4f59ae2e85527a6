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
