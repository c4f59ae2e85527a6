"""Encode a Program, in its wire form, as the flatbuffer of schema/program.fbs.

"Wire form" means the segment-related fields (segments, constant_segment,
mutable_data_segments, delegate references) already say where the data is; serialize.py
computes them. Tables are written depth first, children before parents, in field order, so
the same Program always gives the same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import flatbuffers
import numpy as np

from aot.pte._fb import (AllocationDetails as _AllocationDetails, BackendDelegate as _Delegate,
                         BackendDelegateDataReference as _DataRef,
                         BackendDelegateInlineData as _InlineData, Bool as _Bool,
                         BoolList as _BoolList, Buffer as _Buffer, Chain as _Chain,
                         CompileSpec as _CompileSpec, ContainerMetadata as _ContainerMetadata,
                         DataSegment as _DataSegment, DelegateCall as _DelegateCall,
                         Double as _Double, DoubleList as _DoubleList, EValue as _EValue,
                         ExecutionPlan as _Plan, ExtraTensorInfo as _ExtraTensorInfo,
                         Frame as _Frame, FrameList as _FrameList, FreeCall as _FreeCall,
                         Instruction as _Instruction, Int as _Int, IntList as _IntList,
                         JumpFalseCall as _JumpFalseCall, KernelCall as _KernelCall,
                         MoveCall as _MoveCall, NamedData as _NamedData,
                         NonConstBufferDevice as _NonConstBufferDevice, Null as _Null,
                         Operator as _Operator, OptionalTensorList as _OptionalTensorList,
                         Program as _Program, String as _String,
                         SubsegmentOffsets as _SubsegmentOffsets, Tensor as _Tensor,
                         TensorList as _TensorList)
from aot.pte.layout import FILE_IDENTIFIER
from aot import program as ir

# Union tags: the position of each member in the schema's union declaration.
EVALUE_TAGS = {ir.Null: 1, ir.Int: 2, ir.Bool: 3, ir.Double: 4, ir.Tensor: 5, ir.String: 6,
               ir.IntList: 7, ir.DoubleList: 8, ir.BoolList: 9, ir.TensorList: 10,
               ir.OptionalTensorList: 11}
INSTRUCTION_TAGS = {ir.KernelCall: 1, ir.DelegateCall: 2, ir.MoveCall: 3, ir.JumpFalseCall: 4,
                    ir.FreeCall: 5}


@dataclass(frozen=True)
class NamedDataRef:
    """The wire form of a NamedData entry: a name and the segment holding its blob."""
    key: str
    segment_index: int


@dataclass(frozen=True)
class Built:
    data: memoryview      # the finished flatbuffer, starting with its root offset
    max_alignment: int    # largest alignment any table or vector in it needs


def build(program: ir.Program, named_data: tuple[NamedDataRef, ...] = (), *,
          constant_alignment: int = 16, delegate_alignment: int = 16) -> Built:
    writer = _Writer(constant_alignment, delegate_alignment)
    root = writer.program(program, named_data)
    writer.b.Finish(root, file_identifier=FILE_IDENTIFIER)
    alignment = max(writer.b.minalign, constant_alignment, delegate_alignment)
    return Built(memoryview(writer.b.Bytes)[writer.b.Head():], alignment)


class _Writer:
    def __init__(self, constant_alignment: int, delegate_alignment: int):
        self.b = flatbuffers.Builder(4096)
        self.constant_alignment = constant_alignment
        self.delegate_alignment = delegate_alignment

    # -- vectors and strings ------------------------------------------------------------------

    def array(self, items, dtype: str) -> int:
        return self.b.CreateNumpyVector(np.asarray(items, dtype=dtype).reshape(-1))

    def raw_bytes(self, data: bytes, alignment: int = 1) -> int:
        b = self.b
        b.StartVector(1, len(data), alignment)
        b.head -= len(data)
        b.Bytes[b.head:b.head + len(data)] = data
        return b.EndVector()

    def tables(self, offsets: list[int]) -> int:
        self.b.StartVector(4, len(offsets), 4)
        for off in reversed(offsets):
            self.b.PrependUOffsetTRelative(off)
        return self.b.EndVector()

    def string(self, s: Optional[str]) -> int:
        return 0 if s is None else self.b.CreateString(s)

    # -- tables, root first (each builds its children before starting itself) ----------------

    def program(self, p: ir.Program, named_data: tuple[NamedDataRef, ...]) -> int:
        plans = self.tables([self.plan(x) for x in p.execution_plan])
        constants = self.tables([self.buffer(x) for x in p.constant_buffer])
        delegate_data = self.tables([self.inline_data(x) for x in p.backend_delegate_data])
        segments = self.tables([self.segment(x) for x in p.segments])
        constant_segment = self.subsegments(p.constant_segment) if p.constant_segment else 0
        # The two optional lists are left out when empty, as ExecuTorch does.
        mutable = p.mutable_data_segments and self.tables(
            [self.subsegments(x) for x in p.mutable_data_segments])
        named = named_data and self.tables([self.named(x) for x in named_data])
        b = self.b
        _Program.Start(b)
        _Program.AddVersion(b, p.version)
        _Program.AddExecutionPlan(b, plans)
        _Program.AddConstantBuffer(b, constants)
        _Program.AddBackendDelegateData(b, delegate_data)
        _Program.AddSegments(b, segments)
        if constant_segment:
            _Program.AddConstantSegment(b, constant_segment)
        if mutable:
            _Program.AddMutableDataSegments(b, mutable)
        if named:
            _Program.AddNamedData(b, named)
        return _Program.End(b)

    def plan(self, p: ir.ExecutionPlan) -> int:
        name = self.string(p.name)
        meta = self.container_metadata(p.container_meta_type)
        values = self.tables([self.evalue(v) for v in p.values])
        inputs = self.array(p.inputs, "<i4")
        outputs = self.array(p.outputs, "<i4")
        chains = self.tables([self.chain(c) for c in p.chains])
        operators = self.tables([self.operator(o) for o in p.operators])
        delegates = self.tables([self.delegate(d) for d in p.delegates])
        sizes = self.array(p.non_const_buffer_sizes, "<i8")
        devices = self.tables([self.buffer_device(d) for d in p.non_const_buffer_device]
                              ) if p.non_const_buffer_device else 0
        b = self.b
        _Plan.Start(b)
        _Plan.AddName(b, name)
        _Plan.AddContainerMetaType(b, meta)
        _Plan.AddValues(b, values)
        _Plan.AddInputs(b, inputs)
        _Plan.AddOutputs(b, outputs)
        _Plan.AddChains(b, chains)
        _Plan.AddOperators(b, operators)
        _Plan.AddDelegates(b, delegates)
        _Plan.AddNonConstBufferSizes(b, sizes)
        if devices:
            _Plan.AddNonConstBufferDevice(b, devices)
        return _Plan.End(b)

    def container_metadata(self, m: ir.ContainerMetadata) -> int:
        inp, out = self.string(m.encoded_inp_str), self.string(m.encoded_out_str)
        _ContainerMetadata.Start(self.b)
        _ContainerMetadata.AddEncodedInpStr(self.b, inp)
        _ContainerMetadata.AddEncodedOutStr(self.b, out)
        return _ContainerMetadata.End(self.b)

    def buffer_device(self, d: ir.NonConstBufferDevice) -> int:
        _NonConstBufferDevice.Start(self.b)
        _NonConstBufferDevice.AddBufferIdx(self.b, d.buffer_idx)
        _NonConstBufferDevice.AddDeviceType(self.b, d.device_type)
        _NonConstBufferDevice.AddDeviceIndex(self.b, d.device_index)
        return _NonConstBufferDevice.End(self.b)

    def chain(self, c: ir.Chain) -> int:
        inputs = self.array(c.inputs, "<i4")
        outputs = self.array(c.outputs, "<i4")
        instructions = self.tables([self.instruction(i) for i in c.instructions])
        stacktrace = None
        if c.stacktrace is not None:
            stacktrace = self.tables([self.frame_list(f) for f in c.stacktrace])
        b = self.b
        _Chain.Start(b)
        _Chain.AddInputs(b, inputs)
        _Chain.AddOutputs(b, outputs)
        _Chain.AddInstructions(b, instructions)
        if stacktrace is not None:
            _Chain.AddStacktrace(b, stacktrace)
        return _Chain.End(b)

    def frame_list(self, frames: ir.FrameList) -> int:
        items = self.tables([self.frame(f) for f in frames.items])
        _FrameList.Start(self.b)
        _FrameList.AddItems(self.b, items)
        return _FrameList.End(self.b)

    def frame(self, f: ir.Frame) -> int:
        filename, name = self.string(f.filename), self.string(f.name)
        context = self.string(f.context)
        b = self.b
        _Frame.Start(b)
        _Frame.AddFilename(b, filename)
        _Frame.AddLineno(b, f.lineno)
        _Frame.AddName(b, name)
        _Frame.AddContext(b, context)
        return _Frame.End(b)

    def operator(self, o: ir.Operator) -> int:
        name, overload = self.string(o.name), self.string(o.overload)
        _Operator.Start(self.b)
        _Operator.AddName(self.b, name)
        _Operator.AddOverload(self.b, overload)
        return _Operator.End(self.b)

    def delegate(self, d: ir.BackendDelegate) -> int:
        b = self.b
        ident = self.string(d.id)
        _DataRef.Start(b)
        _DataRef.AddLocation(b, int(d.processed.location))
        _DataRef.AddIndex(b, d.processed.index)
        processed = _DataRef.End(b)
        specs = self.tables([self.compile_spec(s) for s in d.compile_specs])
        _Delegate.Start(b)
        _Delegate.AddId(b, ident)
        _Delegate.AddProcessed(b, processed)
        _Delegate.AddCompileSpecs(b, specs)
        return _Delegate.End(b)

    def compile_spec(self, s: ir.CompileSpec) -> int:
        key, value = self.string(s.key), self.raw_bytes(s.value)
        _CompileSpec.Start(self.b)
        _CompileSpec.AddKey(self.b, key)
        _CompileSpec.AddValue(self.b, value)
        return _CompileSpec.End(self.b)

    # -- values --------------------------------------------------------------------------------

    def evalue(self, v: ir.EValue) -> int:
        tag = EVALUE_TAGS.get(type(v))
        if tag is None:
            raise TypeError(f"not an EValue: {v!r}")
        val = self.value(v)
        _EValue.Start(self.b)
        _EValue.AddValType(self.b, tag)
        _EValue.AddVal(self.b, val)
        return _EValue.End(self.b)

    def value(self, v: ir.EValue) -> int:
        b = self.b
        if isinstance(v, ir.Tensor):
            return self.tensor(v)
        if isinstance(v, ir.Null):
            _Null.Start(b)
            return _Null.End(b)
        if isinstance(v, ir.Int):
            _Int.Start(b)
            _Int.AddIntVal(b, v.int_val)
            return _Int.End(b)
        if isinstance(v, ir.Bool):
            _Bool.Start(b)
            _Bool.AddBoolVal(b, bool(v.bool_val))
            return _Bool.End(b)
        if isinstance(v, ir.Double):
            _Double.Start(b)
            _Double.AddDoubleVal(b, float(v.double_val))
            return _Double.End(b)
        if isinstance(v, ir.String):
            s = self.string(v.string_val)
            _String.Start(b)
            _String.AddStringVal(b, s)
            return _String.End(b)
        module, dtype = _LISTS[type(v)]
        items = self.array(v.items, dtype)
        module.Start(b)
        module.AddItems(b, items)
        return module.End(b)

    def tensor(self, t: ir.Tensor) -> int:
        b = self.b
        sizes = self.array(t.sizes, "<i4")
        dim_order = self.array(t.dim_order, "u1")
        alloc = self.allocation(t.allocation_info) if t.allocation_info else 0
        extra = self.extra_info(t.extra_tensor_info) if t.extra_tensor_info else 0
        _Tensor.Start(b)
        _Tensor.AddScalarType(b, int(t.scalar_type))
        _Tensor.AddStorageOffset(b, t.storage_offset)
        _Tensor.AddSizes(b, sizes)
        _Tensor.AddDimOrder(b, dim_order)
        _Tensor.AddRequiresGrad(b, bool(t.requires_grad))
        _Tensor.AddDataBufferIdx(b, t.data_buffer_idx)
        if alloc:
            _Tensor.AddAllocationInfo(b, alloc)
        _Tensor.AddLayout(b, t.layout)
        _Tensor.AddShapeDynamism(b, int(t.shape_dynamism))
        if extra:
            _Tensor.AddExtraTensorInfo(b, extra)
        return _Tensor.End(b)

    def allocation(self, a: ir.AllocationDetails) -> int:
        _AllocationDetails.Start(self.b)
        _AllocationDetails.AddMemoryId(self.b, a.memory_id)
        _AllocationDetails.AddMemoryOffsetLow(self.b, a.memory_offset_low)
        _AllocationDetails.AddMemoryOffsetHigh(self.b, a.memory_offset_high)
        return _AllocationDetails.End(self.b)

    def extra_info(self, e: ir.ExtraTensorInfo) -> int:
        b = self.b
        name = self.string(e.fully_qualified_name)
        _ExtraTensorInfo.Start(b)
        _ExtraTensorInfo.AddMutableDataSegmentsIdx(b, e.mutable_data_segments_idx)
        if name:
            _ExtraTensorInfo.AddFullyQualifiedName(b, name)
        _ExtraTensorInfo.AddLocation(b, e.location)
        _ExtraTensorInfo.AddDeviceType(b, e.device_type)
        _ExtraTensorInfo.AddDeviceIndex(b, e.device_index)
        return _ExtraTensorInfo.End(b)

    # -- instructions --------------------------------------------------------------------------

    def instruction(self, i: ir.Instruction) -> int:
        tag = INSTRUCTION_TAGS.get(type(i))
        if tag is None:
            raise TypeError(f"not an Instruction: {i!r}")
        args = self.instruction_args(i)
        _Instruction.Start(self.b)
        _Instruction.AddInstrArgsType(self.b, tag)
        _Instruction.AddInstrArgs(self.b, args)
        return _Instruction.End(self.b)

    def instruction_args(self, i: ir.Instruction) -> int:
        b = self.b
        if isinstance(i, ir.KernelCall):
            args = self.array(i.args, "<i4")
            _KernelCall.Start(b)
            _KernelCall.AddOpIndex(b, i.op_index)
            _KernelCall.AddArgs(b, args)
            return _KernelCall.End(b)
        if isinstance(i, ir.DelegateCall):
            args = self.array(i.args, "<i4")
            _DelegateCall.Start(b)
            _DelegateCall.AddDelegateIndex(b, i.delegate_index)
            _DelegateCall.AddArgs(b, args)
            return _DelegateCall.End(b)
        if isinstance(i, ir.MoveCall):
            _MoveCall.Start(b)
            _MoveCall.AddMoveFrom(b, i.move_from)
            _MoveCall.AddMoveTo(b, i.move_to)
            return _MoveCall.End(b)
        if isinstance(i, ir.JumpFalseCall):
            _JumpFalseCall.Start(b)
            _JumpFalseCall.AddCondValueIndex(b, i.cond_value_index)
            _JumpFalseCall.AddDestinationInstruction(b, i.destination_instruction)
            return _JumpFalseCall.End(b)
        _FreeCall.Start(b)
        _FreeCall.AddValueIndex(b, i.value_index)
        return _FreeCall.End(b)

    # -- data ----------------------------------------------------------------------------------

    def buffer(self, x: ir.Buffer) -> int:
        storage = self.raw_bytes(x.storage, self.constant_alignment)
        _Buffer.Start(self.b)
        _Buffer.AddStorage(self.b, storage)
        return _Buffer.End(self.b)

    def inline_data(self, x: ir.BackendDelegateInlineData) -> int:
        data = self.raw_bytes(x.data, self.delegate_alignment)
        _InlineData.Start(self.b)
        _InlineData.AddData(self.b, data)
        return _InlineData.End(self.b)

    def segment(self, s: ir.DataSegment) -> int:
        _DataSegment.Start(self.b)
        _DataSegment.AddOffset(self.b, s.offset)
        _DataSegment.AddSize(self.b, s.size)
        return _DataSegment.End(self.b)

    def subsegments(self, s: ir.SubsegmentOffsets) -> int:
        offsets = self.array(s.offsets, "<u8")
        _SubsegmentOffsets.Start(self.b)
        _SubsegmentOffsets.AddSegmentIndex(self.b, s.segment_index)
        _SubsegmentOffsets.AddOffsets(self.b, offsets)
        return _SubsegmentOffsets.End(self.b)

    def named(self, n: NamedDataRef) -> int:
        key = self.string(n.key)
        _NamedData.Start(self.b)
        _NamedData.AddKey(self.b, key)
        _NamedData.AddSegmentIndex(self.b, n.segment_index)
        return _NamedData.End(self.b)


_LISTS = {ir.IntList: (_IntList, "<i8"), ir.DoubleList: (_DoubleList, "<f8"),
          ir.BoolList: (_BoolList, "?"), ir.TensorList: (_TensorList, "<i4"),
          ir.OptionalTensorList: (_OptionalTensorList, "<i4")}
