"""The Program: the one in-memory IR that every emitter renders.

These frozen dataclasses mirror the ExecuTorch Program flatbuffer table for table (see
``schema/program.fbs``). ``aot.to_executorch`` builds one; ``aot.load_program`` reads one back
from any .pte; the .pte serializer and the static C generator both render it.

In memory, constants and delegate blobs are always *inline* (``constant_buffer`` and
``backend_delegate_data``); the serializer moves them into segments on the way out and the
reader moves them back, so a Program compares equal across load -> serialize -> load.
"""
from __future__ import annotations

import math

import enum
from dataclasses import dataclass
from typing import Optional, Union


class ScalarType(enum.IntEnum):
    BYTE = 0
    CHAR = 1
    SHORT = 2
    INT = 3
    LONG = 4
    HALF = 5
    FLOAT = 6
    DOUBLE = 7
    BOOL = 11
    QINT8 = 12
    QUINT8 = 13
    QINT32 = 14
    BFLOAT16 = 15
    QUINT4X2 = 16
    QUINT2X4 = 17
    BITS16 = 22
    FLOAT8E5M2 = 23
    FLOAT8E4M3FN = 24
    FLOAT8E5M2FNUZ = 25
    FLOAT8E4M3FNUZ = 26
    UINT16 = 27
    UINT32 = 28
    UINT64 = 29


class TensorShapeDynamism(enum.IntEnum):
    STATIC = 0
    DYNAMIC_BOUND = 1
    DYNAMIC_UNBOUND = 2


class DataLocation(enum.IntEnum):
    INLINE = 0
    SEGMENT = 1


# Memory ids as ExecuTorch numbers them: 0 is reserved (constants live in their own segment),
# 1 is the first planned arena.
CONSTANT_MEMORY_ID = 0
ARENA_MEMORY_ID = 1


@dataclass(frozen=True)
class AllocationDetails:
    memory_id: int
    memory_offset_low: int
    memory_offset_high: int = 0

    @property
    def offset(self) -> int:
        return self.memory_offset_low | (self.memory_offset_high << 32)

    @staticmethod
    def at(memory_id: int, offset: int) -> "AllocationDetails":
        return AllocationDetails(memory_id, offset & 0xFFFFFFFF, offset >> 32)


@dataclass(frozen=True)
class ExtraTensorInfo:
    mutable_data_segments_idx: int = 0
    fully_qualified_name: Optional[str] = None
    location: int = 0        # 0: data in this file, 1: external (found by fully_qualified_name)
    device_type: int = 0     # 0: CPU
    device_index: int = 0


@dataclass(frozen=True)
class Tensor:
    scalar_type: ScalarType
    storage_offset: int
    sizes: tuple[int, ...]
    dim_order: tuple[int, ...]
    requires_grad: bool = False
    # > 0: index into Program.constant_buffer (0 is reserved, meaning "not a constant").
    data_buffer_idx: int = 0
    # Set: planned in arena `memory_id` at that offset. Unset and not constant: supplied at run time.
    allocation_info: Optional[AllocationDetails] = None
    layout: int = 0
    shape_dynamism: TensorShapeDynamism = TensorShapeDynamism.STATIC
    extra_tensor_info: Optional[ExtraTensorInfo] = None

    @property
    def numel(self) -> int:
        return math.prod(self.sizes)


# Bytes per element, by ScalarType value. The sub-byte types (QUINT4X2, QUINT2X4) are left
# out: their byte size is not numel times a whole number.
ELEMENT_SIZE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 12: 1, 13: 1, 14: 4,
                15: 2, 22: 2, 23: 1, 24: 1, 25: 1, 26: 1, 27: 2, 28: 4, 29: 8}


def tensor_nbytes(t: Tensor) -> Optional[int]:
    """Bytes of the tensor's data, or None if that cannot be known from its metadata."""
    size = ELEMENT_SIZE.get(int(t.scalar_type))
    if size is None or any(s < 0 for s in t.sizes):
        return None
    return t.numel * size


@dataclass(frozen=True)
class Null:
    pass


@dataclass(frozen=True)
class Int:
    int_val: int


@dataclass(frozen=True)
class Bool:
    bool_val: bool


@dataclass(frozen=True)
class Double:
    double_val: float


@dataclass(frozen=True)
class String:
    string_val: str


@dataclass(frozen=True)
class IntList:
    items: tuple[int, ...]  # value indices of Int EValues, as ExecuTorch stores them


@dataclass(frozen=True)
class DoubleList:
    items: tuple[float, ...]


@dataclass(frozen=True)
class BoolList:
    items: tuple[bool, ...]


@dataclass(frozen=True)
class TensorList:
    items: tuple[int, ...]  # value indices


@dataclass(frozen=True)
class OptionalTensorList:
    items: tuple[int, ...]  # value indices, -1 for None


EValue = Union[Null, Int, Bool, Double, Tensor, String, IntList, DoubleList, BoolList,
               TensorList, OptionalTensorList]


@dataclass(frozen=True)
class Operator:
    name: str        # e.g. "aten::convolution"
    overload: str    # e.g. "out"


@dataclass(frozen=True)
class KernelCall:
    op_index: int
    args: tuple[int, ...]


@dataclass(frozen=True)
class DelegateCall:
    delegate_index: int
    args: tuple[int, ...]


@dataclass(frozen=True)
class MoveCall:
    move_from: int
    move_to: int


@dataclass(frozen=True)
class JumpFalseCall:
    cond_value_index: int
    destination_instruction: int


@dataclass(frozen=True)
class FreeCall:
    value_index: int


Instruction = Union[KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall]


@dataclass(frozen=True)
class Frame:
    filename: str
    lineno: int
    name: str
    context: str


@dataclass(frozen=True)
class FrameList:
    items: tuple[Frame, ...]


@dataclass(frozen=True)
class Chain:
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    instructions: tuple[Instruction, ...]
    stacktrace: Optional[tuple[FrameList, ...]] = None  # one FrameList per instruction


@dataclass(frozen=True)
class CompileSpec:
    key: str
    value: bytes


@dataclass(frozen=True)
class BackendDelegateDataReference:
    location: DataLocation
    index: int


@dataclass(frozen=True)
class BackendDelegate:
    id: str
    processed: BackendDelegateDataReference
    compile_specs: tuple[CompileSpec, ...] = ()


@dataclass(frozen=True)
class ContainerMetadata:
    encoded_inp_str: str
    encoded_out_str: str


@dataclass(frozen=True)
class NonConstBufferDevice:
    buffer_idx: int          # index into ExecutionPlan.non_const_buffer_sizes
    device_type: int = 0     # 0: CPU
    device_index: int = 0


@dataclass(frozen=True)
class ExecutionPlan:
    name: str
    container_meta_type: ContainerMetadata
    values: tuple[EValue, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    chains: tuple[Chain, ...]
    operators: tuple[Operator, ...]
    delegates: tuple[BackendDelegate, ...] = ()
    # Index 0 is reserved by ExecuTorch; index 1 is the arena (ARENA_MEMORY_ID).
    non_const_buffer_sizes: tuple[int, ...] = (0,)
    non_const_buffer_device: tuple[NonConstBufferDevice, ...] = ()  # empty: all on CPU


@dataclass(frozen=True)
class Buffer:
    storage: bytes


@dataclass(frozen=True)
class BackendDelegateInlineData:
    data: bytes


@dataclass(frozen=True)
class DataSegment:
    offset: int
    size: int


@dataclass(frozen=True)
class SubsegmentOffsets:
    segment_index: int
    offsets: tuple[int, ...]


@dataclass(frozen=True)
class NamedData:
    # On the wire a name points at a segment; in memory it holds the blob itself.
    key: str
    data: bytes


@dataclass(frozen=True)
class Program:
    version: int
    execution_plan: tuple[ExecutionPlan, ...]
    # Constants, inline in memory. Entry 0 is reserved and empty.
    constant_buffer: tuple[Buffer, ...] = (Buffer(b""),)
    backend_delegate_data: tuple[BackendDelegateInlineData, ...] = ()
    # Wire-only: always empty in memory. The serializer computes them from the inline data
    # and the reader resolves them back into constant_buffer, backend_delegate_data and
    # mutable_data.
    segments: tuple[DataSegment, ...] = ()
    constant_segment: Optional[SubsegmentOffsets] = None
    mutable_data_segments: tuple[SubsegmentOffsets, ...] = ()
    # Named blobs, inline in memory (the serializer gives each distinct blob a segment).
    named_data: tuple[NamedData, ...] = ()
    # Initial values of mutable tensors, inline in memory: mutable_data[k][i] is what
    # wire-format mutable_data_segments[k].offsets[i] points at. Entry 0 of each is reserved.
    mutable_data: tuple[tuple[Buffer, ...], ...] = ()

    def method(self, name: str = "forward") -> ExecutionPlan:
        for plan in self.execution_plan:
            if plan.name == name:
                return plan
        names = ", ".join(p.name for p in self.execution_plan)
        raise KeyError(f"program has no method {name!r} (methods: {names})")
