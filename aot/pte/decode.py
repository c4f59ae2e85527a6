"""Decode the flatbuffer part of a .pte file into a Program in its wire form, defensively.

The flatbuffers Python runtime trusts every offset it reads. Decoding is made safe for
arbitrary bytes by
- a buffer type whose slices fail instead of silently coming back short,
- checking each vector's claimed length against the buffer size before reading it, and
  charging every item read to a budget proportional to the buffer size, so offsets that
  point many times at the same data cannot make decoding take exponential time,
- checking enum values, and
- turning the low-level exceptions a corrupt offset provokes into DecodeError, with the
  path of the item being read.
The schema has no recursive types, so decoding depth is bounded by the schema.
"""
from __future__ import annotations

import re
import struct

from aot.pte._fb import (Bool as _Bool, BoolList as _BoolList, DelegateCall as _DelegateCall,
                         Double as _Double, DoubleList as _DoubleList, FreeCall as _FreeCall,
                         Int as _Int, IntList as _IntList, JumpFalseCall as _JumpFalseCall,
                         KernelCall as _KernelCall, MoveCall as _MoveCall,
                         OptionalTensorList as _OptionalTensorList, Program as _Program,
                         String as _String, Tensor as _Tensor, TensorList as _TensorList)
from aot.pte.flatbuffer import EVALUE_TAGS, INSTRUCTION_TAGS, NamedDataRef
from aot import program as ir

# Items one decode may read per byte of flatbuffer. Every item of a well-formed file has
# bytes of its own, so real files stay far below this.
_BUDGET_PER_BYTE = 2


class DecodeError(Exception):
    pass


def _snake(field: str) -> str:
    """The schema's name for a generated accessor, e.g. "DimOrder" -> "dim_order"."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", field).lower()


class _StrictBytes(bytes):
    """bytes whose slices raise IndexError when they reach outside the buffer."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop = key.start or 0, len(self) if key.stop is None else key.stop
            if not 0 <= start <= stop <= len(self):
                raise IndexError(f"bytes {start}..{stop} are outside the {len(self)}-byte buffer")
        return super().__getitem__(key)


def decode_program(data: bytes) -> tuple[ir.Program, tuple[NamedDataRef, ...]]:
    """The Program (segment fields as stored) and its named-data references."""
    decoder = _Decoder(_StrictBytes(data))
    try:
        return decoder.program()
    except (struct.error, IndexError, ValueError, OverflowError, TypeError) as e:
        if isinstance(e, TypeError) and not _raised_by_flatbuffers(e):
            raise  # a bug of ours, not a bad file
        where = ".".join(decoder.path) or "the root"
        raise DecodeError(f"malformed flatbuffer while reading {where}: {e}") from None


def _raised_by_flatbuffers(e: BaseException) -> bool:
    """Whether the innermost frame of e's traceback is in the flatbuffers runtime (which
    raises TypeError for an offset outside uint32)."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_globals.get("__name__", "").startswith("flatbuffers.")


_EVALUE_TYPES = {tag: cls for cls, tag in EVALUE_TAGS.items()}
_INSTRUCTION_TYPES = {tag: cls for cls, tag in INSTRUCTION_TAGS.items()}
_LIST_READERS = {ir.IntList: (_IntList.IntList, 8), ir.DoubleList: (_DoubleList.DoubleList, 8),
                 ir.BoolList: (_BoolList.BoolList, 1), ir.TensorList: (_TensorList.TensorList, 4),
                 ir.OptionalTensorList: (_OptionalTensorList.OptionalTensorList, 4)}
_SCALAR_READERS = {ir.Int: _Int.Int, ir.Bool: _Bool.Bool, ir.Double: _Double.Double,
                   ir.String: _String.String, ir.Tensor: _Tensor.Tensor}
_CALL_READERS = {ir.KernelCall: _KernelCall.KernelCall, ir.DelegateCall: _DelegateCall.DelegateCall,
                 ir.MoveCall: _MoveCall.MoveCall, ir.JumpFalseCall: _JumpFalseCall.JumpFalseCall,
                 ir.FreeCall: _FreeCall.FreeCall}


class _Decoder:
    def __init__(self, buf: _StrictBytes):
        self.buf = buf
        self.budget = _BUDGET_PER_BYTE * len(buf) + 64
        self.path: list[str] = []

    # -- primitives ----------------------------------------------------------------------------

    def fail(self, message: str) -> DecodeError:
        return DecodeError(f"{'.'.join(self.path) or 'root'}: {message}")

    def spend(self, count: int, item_size: int, what: str) -> int:
        if count * item_size > len(self.buf):
            raise self.fail(f"{what} claims {count} items, more than the "
                            f"{len(self.buf)}-byte flatbuffer can hold")
        self.budget -= count + 1
        if self.budget < 0:
            raise self.fail("offsets refer to more items than the file holds "
                            "(shared or overlapping tables)")
        return count

    def at(self, label: str, fn, *args):
        """fn(*args) with `label` on the path reported by errors."""
        self.path.append(label)
        result = fn(*args)
        self.path.pop()
        return result

    def numbers(self, obj, field: str, item_size: int) -> tuple:
        """A vector of scalars, e.g. numbers(tensor, "Sizes", 4)."""
        n = self.spend(getattr(obj, field + "Length")(), item_size, _snake(field))
        return tuple(getattr(obj, field + "AsNumpy")().tolist()) if n else ()

    def raw(self, obj, field: str) -> bytes:
        n = self.spend(getattr(obj, field + "Length")(), 1, _snake(field))
        return getattr(obj, field + "AsNumpy")().tobytes() if n else b""

    def tables(self, obj, field: str, fn) -> tuple:
        """fn applied to each table of a vector of tables."""
        name = _snake(field)
        n = self.spend(getattr(obj, field + "Length")(), 4, name)
        get = getattr(obj, field)
        return tuple(self.at(f"{name}[{j}]", fn, get(j)) for j in range(n))

    def text(self, raw: bytes | None) -> str:
        self.spend(0, 1, "string")
        try:
            return "" if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"string is not UTF-8 ({e.reason} at byte {e.start})") from None

    def optional_text(self, raw: bytes | None) -> str | None:
        return None if raw is None else self.text(raw)

    def enum(self, enum_type, value: int, what: str):
        try:
            return enum_type(value)
        except ValueError:
            raise self.fail(f"{what} {value} is not a valid {enum_type.__name__}") from None

    # -- tables --------------------------------------------------------------------------------

    def program(self) -> tuple[ir.Program, tuple[NamedDataRef, ...]]:
        root = int.from_bytes(self.buf[0:4], "little")
        if not 8 <= root < len(self.buf):
            raise self.fail(f"root table offset {root} is outside the {len(self.buf)}-byte "
                            "flatbuffer")
        p = _Program.Program.GetRootAs(self.buf, 0)
        sub = p.ConstantSegment()
        program = ir.Program(
            version=p.Version(),
            execution_plan=self.tables(p, "ExecutionPlan", self.plan),
            constant_buffer=self.tables(p, "ConstantBuffer",
                                        lambda b: ir.Buffer(self.raw(b, "Storage"))),
            backend_delegate_data=self.tables(
                p, "BackendDelegateData",
                lambda d: ir.BackendDelegateInlineData(self.raw(d, "Data"))),
            segments=self.tables(p, "Segments", lambda s: ir.DataSegment(s.Offset(), s.Size())),
            constant_segment=None if sub is None else self.at("constant_segment",
                                                               self.subsegments, sub),
            mutable_data_segments=self.tables(p, "MutableDataSegments", self.subsegments))
        named = self.tables(p, "NamedData", lambda n: NamedDataRef(self.text(n.Key()),
                                                                   n.SegmentIndex()))
        return program, named

    def subsegments(self, s) -> ir.SubsegmentOffsets:
        return ir.SubsegmentOffsets(s.SegmentIndex(), self.numbers(s, "Offsets", 8))

    def plan(self, p) -> ir.ExecutionPlan:
        meta = p.ContainerMetaType()
        return ir.ExecutionPlan(
            name=self.text(p.Name()),
            container_meta_type=ir.ContainerMetadata(
                *(("", "") if meta is None else (self.text(meta.EncodedInpStr()),
                                                 self.text(meta.EncodedOutStr())))),
            values=self.tables(p, "Values", self.evalue),
            inputs=self.numbers(p, "Inputs", 4),
            outputs=self.numbers(p, "Outputs", 4),
            chains=self.tables(p, "Chains", self.chain),
            operators=self.tables(p, "Operators", lambda o: ir.Operator(
                self.text(o.Name()), self.text(o.Overload()))),
            delegates=self.tables(p, "Delegates", self.delegate),
            non_const_buffer_sizes=self.numbers(p, "NonConstBufferSizes", 8),
            non_const_buffer_device=self.tables(p, "NonConstBufferDevice", lambda d: (
                ir.NonConstBufferDevice(d.BufferIdx(), d.DeviceType(), d.DeviceIndex()))))

    def chain(self, c) -> ir.Chain:
        stacktrace = None
        if not c.StacktraceIsNone():
            stacktrace = self.tables(c, "Stacktrace", lambda f: ir.FrameList(
                self.tables(f, "Items", self.frame)))
        return ir.Chain(inputs=self.numbers(c, "Inputs", 4),
                        outputs=self.numbers(c, "Outputs", 4),
                        instructions=self.tables(c, "Instructions", self.instruction),
                        stacktrace=stacktrace)

    def frame(self, f) -> ir.Frame:
        return ir.Frame(self.text(f.Filename()), f.Lineno(), self.text(f.Name()),
                        self.text(f.Context()))

    def delegate(self, d) -> ir.BackendDelegate:
        ref = d.Processed()
        if ref is None:
            raise self.fail("delegate has no 'processed' data reference")
        location = self.enum(ir.DataLocation, ref.Location(), "delegate data location")
        return ir.BackendDelegate(
            id=self.text(d.Id()),
            processed=ir.BackendDelegateDataReference(location, ref.Index()),
            compile_specs=self.tables(d, "CompileSpecs", lambda s: ir.CompileSpec(
                self.text(s.Key()), self.raw(s, "Value"))))

    def instruction(self, i) -> ir.Instruction:
        cls = _INSTRUCTION_TYPES.get(i.InstrArgsType())
        table = i.InstrArgs()
        if cls is None or table is None:
            raise self.fail(f"instruction has unknown or missing kind {i.InstrArgsType()}")
        call = _CALL_READERS[cls]()
        call.Init(table.Bytes, table.Pos)
        if cls is ir.KernelCall:
            return ir.KernelCall(call.OpIndex(), self.numbers(call, "Args", 4))
        if cls is ir.DelegateCall:
            return ir.DelegateCall(call.DelegateIndex(), self.numbers(call, "Args", 4))
        if cls is ir.MoveCall:
            return ir.MoveCall(call.MoveFrom(), call.MoveTo())
        if cls is ir.JumpFalseCall:
            return ir.JumpFalseCall(call.CondValueIndex(), call.DestinationInstruction())
        return ir.FreeCall(call.ValueIndex())

    # -- values --------------------------------------------------------------------------------

    def evalue(self, e) -> ir.EValue:
        cls = _EVALUE_TYPES.get(e.ValType())
        table = e.Val()
        if cls is None or table is None:
            raise self.fail(f"value has unknown or missing kind {e.ValType()}")
        if cls is ir.Null:
            return ir.Null()
        if cls in _LIST_READERS:
            reader, item_size = _LIST_READERS[cls]
            lst = reader()
            lst.Init(table.Bytes, table.Pos)
            return cls(self.numbers(lst, "Items", item_size))
        reader = _SCALAR_READERS[cls]()
        reader.Init(table.Bytes, table.Pos)
        if cls is ir.Int:
            return ir.Int(reader.IntVal())
        if cls is ir.Bool:
            return ir.Bool(bool(reader.BoolVal()))
        if cls is ir.Double:
            return ir.Double(reader.DoubleVal())
        if cls is ir.String:
            return ir.String(self.text(reader.StringVal()))
        return self.tensor(reader)

    def tensor(self, t) -> ir.Tensor:
        alloc, extra = t.AllocationInfo(), t.ExtraTensorInfo()
        if alloc is not None:
            alloc = ir.AllocationDetails(alloc.MemoryId(), alloc.MemoryOffsetLow(),
                                         alloc.MemoryOffsetHigh())
        if extra is not None:
            extra = ir.ExtraTensorInfo(extra.MutableDataSegmentsIdx(),
                                       self.optional_text(extra.FullyQualifiedName()),
                                       extra.Location(), extra.DeviceType(), extra.DeviceIndex())
        return ir.Tensor(
            scalar_type=self.enum(ir.ScalarType, t.ScalarType(), "scalar type"),
            storage_offset=t.StorageOffset(),
            sizes=self.numbers(t, "Sizes", 4),
            dim_order=self.numbers(t, "DimOrder", 1),
            requires_grad=bool(t.RequiresGrad()),
            data_buffer_idx=t.DataBufferIdx(),
            allocation_info=alloc,
            layout=t.Layout(),
            shape_dynamism=self.enum(ir.TensorShapeDynamism, t.ShapeDynamism(),
                                     "shape dynamism"),
            extra_tensor_info=extra)
