"""serialize_pte -> load_program keeps a Program equal, and lays bytes out as the format says.

Layout facts are checked against the raw bytes (struct and bytes.find), not through our reader.
"""
import dataclasses
import io
import json
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import require_tool

from aot.pte import PteData, load_program, serialize_pte
from aot.program import (AllocationDetails, BackendDelegate, BackendDelegateDataReference,
                         BackendDelegateInlineData, Bool, BoolList, Buffer, Chain, CompileSpec,
                         ContainerMetadata, DataLocation, DataSegment, DelegateCall, Double,
                         DoubleList, ExecutionPlan, ExtraTensorInfo, Frame, FrameList, FreeCall,
                         Int, IntList, JumpFalseCall, KernelCall, MoveCall, NamedData,
                         NonConstBufferDevice, Null, Operator, OptionalTensorList, Program,
                         ScalarType, String, Tensor, TensorList, TensorShapeDynamism)

SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "program.fbs"

# Distinctive constant bytes, so tests can find them in the file. Sizes are not multiples of
# the alignments, so padding is needed between them.
W = bytes(range(1, 25))                              # f32[2, 3]: 24 bytes
B = bytes([0xB0 + i for i in range(12)])             # f32[3]: 12 bytes
INIT = bytes([0x5A] * 8)                             # i64 initial value of a mutable tensor
BLOB = b"delegate-blob-" + bytes(range(200, 250))    # a delegate's compiled blob
SHARED = b"named-blob-" + bytes(range(30))


def _f32(sizes, **kw):
    return Tensor(ScalarType.FLOAT, 0, tuple(sizes), tuple(range(len(sizes))), **kw)


def _frames(*lines):
    return FrameList(tuple(Frame("model.py", n, "forward", f"line {n}") for n in lines))


def forward_plan() -> ExecutionPlan:
    values = (
        _f32([2, 3], data_buffer_idx=1),                                        # 0 weight
        _f32([3], data_buffer_idx=2),                                           # 1 bias
        _f32([4, 2], allocation_info=AllocationDetails.at(1, 0)),               # 2 input
        _f32([4, 3], allocation_info=AllocationDetails.at(1, (5 << 32) + 64)),  # 3 planned
        Int(1),                                                                 # 4
        Bool(True),                                                             # 5
        Double(0.25),                                                           # 6
        Null(),                                                                 # 7
        String("mean"),                                                         # 8
        IntList((4, 4)),                                                        # 9
        DoubleList((1.5, -2.0)),                                                # 10
        BoolList((True, False, True)),                                          # 11
        TensorList((2, 3)),                                                     # 12
        OptionalTensorList((2, -1)),                                            # 13
        Tensor(ScalarType.LONG, 0, (), (), data_buffer_idx=1,                   # 14 mutable
               allocation_info=AllocationDetails.at(1, 128),
               extra_tensor_info=ExtraTensorInfo(0, "counter")),
        Tensor(ScalarType.CHAR, 0, (1, 4, 2, 2), (0, 2, 3, 1),                  # 15 runtime
               shape_dynamism=TensorShapeDynamism.DYNAMIC_BOUND),
        _f32([8], data_buffer_idx=3,                                            # 16 external
             extra_tensor_info=ExtraTensorInfo(fully_qualified_name="ext.w", location=1)),
        Tensor(ScalarType.BOOL, 0, (), (), allocation_info=AllocationDetails.at(1, 256)),  # 17
    )
    instructions = (
        KernelCall(0, (2, 0, 1, 4, 6, 3, 3)),
        DelegateCall(0, (3, 2)),
        MoveCall(2, 15),
        JumpFalseCall(17, 6),
        FreeCall(15),
        DelegateCall(1, (3,)),
    )
    return ExecutionPlan(
        name="forward",
        container_meta_type=ContainerMetadata("[in spec]", "[out spec]"),
        values=values,
        inputs=(2,),
        outputs=(3,),
        chains=(Chain((2,), (3,), instructions, tuple(_frames(10 + i) for i in range(6))),),
        operators=(Operator("aten::addmm", "out"),),
        delegates=(
            BackendDelegate("TestBackend", BackendDelegateDataReference(DataLocation.INLINE, 0),
                            (CompileSpec("level", b"\x03"), CompileSpec("empty", b""))),
            BackendDelegate("EmptyBackend", BackendDelegateDataReference(DataLocation.INLINE, 1)),
        ),
        non_const_buffer_sizes=(0, (5 << 32) + 512),
        non_const_buffer_device=(NonConstBufferDevice(1, 0, 0),),
    )


def second_plan() -> ExecutionPlan:
    values = (_f32([3], allocation_info=AllocationDetails.at(1, 0)),
              _f32([3], data_buffer_idx=2),
              _f32([3], allocation_info=AllocationDetails.at(1, 16)))
    return ExecutionPlan(
        name="other", container_meta_type=ContainerMetadata("", ""), values=values,
        inputs=(0,), outputs=(2,),
        chains=(Chain((0,), (2,), (KernelCall(0, (0, 1, 2, 2)), DelegateCall(0, (0, 2)))),),
        operators=(Operator("aten::mul", "out"),),
        delegates=(BackendDelegate("TestBackend",
                                   BackendDelegateDataReference(DataLocation.INLINE, 2)),),
        non_const_buffer_sizes=(0, 32))


def full_program() -> Program:
    """Every value kind, every instruction kind, two methods, delegates, named and mutable data.

    It is in the reader's canonical form: one delegate blob per delegate, in order."""
    return Program(
        version=0,
        execution_plan=(forward_plan(), second_plan()),
        constant_buffer=(Buffer(b""), Buffer(W), Buffer(B)),
        backend_delegate_data=(BackendDelegateInlineData(BLOB), BackendDelegateInlineData(b""),
                               BackendDelegateInlineData(BLOB)),
        named_data=(NamedData("a", SHARED), NamedData("b", b"other"), NamedData("c", SHARED)),
        mutable_data=((Buffer(b""), Buffer(INIT)),),
    )


OPTIONS = [dict(extract_constant_segment=c, extract_delegate_segments=d)
           for c in (True, False) for d in (True, False)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(
    f"{k.split('_')[1]}={int(v)}" for k, v in o.items()))
def test_full_program_roundtrips(options):
    program = full_program()
    assert load_program(bytes(serialize_pte(program, **options))) == program


@pytest.mark.parametrize("segment_alignment,constant_alignment", [(128, 16), (64, 32), (4096, 8)])
def test_roundtrip_with_other_alignments(segment_alignment, constant_alignment):
    program = full_program()
    data = serialize_pte(program, segment_alignment=segment_alignment,
                         constant_tensor_alignment=constant_alignment)
    assert load_program(bytes(data)) == program


def test_minimal_program_roundtrips_without_header():
    plan = ExecutionPlan("forward", ContainerMetadata("", ""), (Int(3),), (), (0,),
                         (Chain((), (0,), ()),), ())
    program = Program(0, (plan,))
    data = bytes(serialize_pte(program))
    assert data[8:12] != b"eh00"  # the only segment (the empty constant table) has no bytes
    assert load_program(data) == program


def test_output_is_deterministic():
    first = bytes(serialize_pte(full_program()))
    assert bytes(serialize_pte(full_program())) == first  # equal, separately built Programs
    program = full_program()
    assert bytes(serialize_pte(program)) == bytes(serialize_pte(program))


def _header(data: bytes):
    magic, length, program_size, base, size = struct.unpack_from("<4sIQQQ", data, 8)
    assert data[4:8] == b"ET12" and magic == b"eh00" and length == 32
    return program_size, base, size


@pytest.mark.parametrize("segment_alignment,constant_alignment", [(128, 16), (256, 64), (32, 32)])
def test_segment_and_constant_alignment_in_raw_bytes(segment_alignment, constant_alignment):
    data = bytes(serialize_pte(full_program(), segment_alignment=segment_alignment,
                               constant_tensor_alignment=constant_alignment))
    program_size, base, size = _header(data)
    assert program_size <= base < program_size + segment_alignment
    assert base % segment_alignment == 0
    assert base + size == len(data)
    # Constants: in the constant segment, the first segment, each aligned.
    w, b = data.find(W), data.find(B)
    assert base <= w < b
    assert (w - base) % constant_alignment == 0 and (b - base) % constant_alignment == 0
    assert w == base + 0  # constant 1 starts the segment (constant 0 is empty)
    assert data[w + len(W):b] == bytes(b - w - len(W))  # zero padding between constants
    # The delegate blob is a segment of its own, stored once though two delegates use it.
    blob = data.find(BLOB)
    assert (blob - base) % segment_alignment == 0
    assert data.count(BLOB) == 1 and data.count(SHARED) == 1


def test_inline_constants_are_aligned_in_the_flatbuffer():
    data = bytes(serialize_pte(full_program(), extract_constant_segment=False,
                               constant_tensor_alignment=64))
    program_size, _, _ = _header(data)  # the delegate and named segments still need a header
    for constant in (W, B):
        pos = data.find(constant)
        assert 0 < pos < program_size and pos % 64 == 0


def test_inline_delegates_are_aligned_in_the_flatbuffer():
    data = bytes(serialize_pte(full_program(), extract_delegate_segments=False,
                               delegate_alignment=32))
    program_size, _, _ = _header(data)
    pos = data.find(BLOB)
    assert 0 < pos < program_size and pos % 32 == 0
    assert data.count(BLOB) == 2  # inline blobs are written as given, one per entry


def test_header_padding_keeps_flatbuffer_alignment():
    # With 64-byte inline constants the header is padded to 64 bytes, so the tables after it
    # keep the alignment the builder gave them.
    data = bytes(serialize_pte(full_program(), extract_constant_segment=False,
                               constant_tensor_alignment=64))
    root = struct.unpack_from("<I", data, 0)[0]
    assert data[40:72] == bytes(32)  # header bytes 32..63 are padding
    assert root >= 72


def test_emit_stacktrace_false_drops_stacktraces():
    program = full_program()
    loaded = load_program(bytes(serialize_pte(program, emit_stacktrace=False)))
    assert all(c.stacktrace is None for p in loaded.execution_plan for c in p.chains)
    stripped = dataclasses.replace(program, execution_plan=tuple(
        dataclasses.replace(p, chains=tuple(dataclasses.replace(c, stacktrace=None)
                                            for c in p.chains))
        for p in program.execution_plan))
    assert loaded == stripped
    assert len(serialize_pte(program, emit_stacktrace=False)) < len(serialize_pte(program))


def test_pte_data_writes_chunks_without_joining(tmp_path):
    program = full_program()
    data = serialize_pte(program)
    joined = data.to_bytes()
    assert bytes(data) == joined and len(data) == len(joined)
    # The constant bytes are passed through as chunks of their own, not copied.
    assert any(chunk is program.constant_buffer[1].storage for chunk in data.chunks)
    out = io.BytesIO()
    data.write_to(out)
    assert out.getvalue() == joined
    data.write_to(tmp_path / "a.pte")
    data.write_to(str(tmp_path / "b.pte"))
    assert (tmp_path / "a.pte").read_bytes() == joined == (tmp_path / "b.pte").read_bytes()
    assert isinstance(data, PteData)


def test_load_accepts_paths_and_byte_types(tmp_path):
    program = full_program()
    data = bytes(serialize_pte(program))
    path = tmp_path / "m.pte"
    path.write_bytes(data)
    for source in (path, str(path), data, bytearray(data), memoryview(data)):
        assert load_program(source) == program


def test_loaded_constants_drop_segment_padding():
    # W is 24 bytes; in the segment it is followed by 8 bytes of zero padding before B.
    program = load_program(bytes(serialize_pte(full_program())))
    assert program.constant_buffer[1].storage == W


def test_reader_gives_each_delegate_its_own_blob():
    # Two delegates sharing one blob entry: the reader's form has one entry per delegate, and
    # that form is stable under serialize -> load.
    program = full_program()
    plan = program.execution_plan[1]
    shared = dataclasses.replace(plan, delegates=(dataclasses.replace(
        plan.delegates[0], processed=BackendDelegateDataReference(DataLocation.INLINE, 0)),))
    program = dataclasses.replace(program, execution_plan=(program.execution_plan[0], shared))
    for extract in (True, False):
        once = load_program(bytes(serialize_pte(program, extract_delegate_segments=extract)))
        assert once == full_program()
        assert load_program(bytes(serialize_pte(once))) == once


def test_serializer_rejects_wire_form_and_bad_options():
    program = full_program()
    with pytest.raises(ValueError, match="in-memory form"):
        serialize_pte(dataclasses.replace(program, segments=(DataSegment(0, 4),)))
    plan = program.execution_plan[1]
    bad = dataclasses.replace(plan, delegates=(dataclasses.replace(
        plan.delegates[0], processed=BackendDelegateDataReference(DataLocation.SEGMENT, 0)),))
    with pytest.raises(ValueError, match="must refer"):
        serialize_pte(dataclasses.replace(program, execution_plan=(program.execution_plan[0], bad)))
    for option in ("segment_alignment", "constant_tensor_alignment", "delegate_alignment"):
        with pytest.raises(ValueError, match="power of two"):
            serialize_pte(program, **{option: 24})


def _flatc_json(data: bytes, tmp_path) -> dict:
    flatc = require_tool("flatc")
    (tmp_path / "p.pte").write_bytes(data)
    subprocess.run([flatc, "--json", "--strict-json", "--defaults-json", "--raw-binary",
                    "-o", str(tmp_path), str(SCHEMA), "--", str(tmp_path / "p.pte")], check=True)
    return json.loads((tmp_path / "p.json").read_text())


def test_wire_fields_as_flatc_decodes_them(tmp_path):
    # flatc's own decoder (independent of our reader) sees the segment references we intend.
    data = bytes(serialize_pte(full_program()))
    j = _flatc_json(data, tmp_path)
    assert j["constant_buffer"] == []
    assert j["constant_segment"] == {"segment_index": 0, "offsets": [0, 0, 32]}  # W padded
    forward, other = j["execution_plan"]
    refs = [d["processed"] for d in forward["delegates"] + other["delegates"]]
    # The non-empty blob is one shared segment; the empty one stays inline.
    assert refs == [{"location": "SEGMENT", "index": 2}, {"location": "INLINE", "index": 0},
                    {"location": "SEGMENT", "index": 2}]
    assert [b["data"] for b in j["backend_delegate_data"]] == [[]]
    assert [n["key"] for n in j["named_data"]] == ["a", "b", "c"]
    assert [n["segment_index"] for n in j["named_data"]] == [3, 4, 3]
    assert j["mutable_data_segments"][0] == {"segment_index": 1, "offsets": [0, 0]}
    tensor = forward["values"][3]["val"]
    assert tensor["allocation_info"] == {"memory_id": 1, "memory_offset_low": 64,
                                         "memory_offset_high": 5}
    kinds = [i["instr_args_type"] for i in forward["chains"][0]["instructions"]]
    assert kinds == ["KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall",
                     "DelegateCall"]
    assert [v["val_type"] for v in forward["values"][4:14]] == [
        "Int", "Bool", "Double", "Null", "String", "IntList", "DoubleList", "BoolList",
        "TensorList", "OptionalTensorList"]
    segments = j["segments"]
    assert [s["size"] for s in segments] == [32 + len(B), len(INIT), len(BLOB), len(SHARED), 5]
    assert all(s["offset"] % 128 == 0 for s in segments)
