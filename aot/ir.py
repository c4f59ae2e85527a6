"""Typed values the executorch stage hands on: a method as out-variant calls over tensor specs.

``to_out_variant`` builds a MethodGraph from an edge ExportedProgram; the planner reads its
tensor lifetimes; the emitter turns MethodGraph + MemoryPlan into a Program.
"""
from __future__ import annotations

import math

import enum
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Optional, Union

import numpy as np
import torch

from .ops import OpDef
from .program import CompileSpec, ScalarType
from .source import SourceLoc


class TensorKind(enum.Enum):
    INPUT = "input"            # a user input
    ACTIVATION = "activation"  # written by one call, read by later ones (outputs included)
    CONSTANT = "constant"      # weights and folded constants: flash
    STATE = "state"            # a mutable buffer: planned for the whole method, kept across calls


SCALAR_TYPES = {
    torch.uint8: ScalarType.BYTE, torch.int8: ScalarType.CHAR, torch.int16: ScalarType.SHORT,
    torch.int32: ScalarType.INT, torch.int64: ScalarType.LONG, torch.float16: ScalarType.HALF,
    torch.float32: ScalarType.FLOAT, torch.float64: ScalarType.DOUBLE, torch.bool: ScalarType.BOOL,
    torch.bfloat16: ScalarType.BFLOAT16, torch.uint16: ScalarType.UINT16,
    torch.uint32: ScalarType.UINT32, torch.uint64: ScalarType.UINT64,
}
TORCH_DTYPES = {v: k for k, v in SCALAR_TYPES.items()}


@dataclass(frozen=True)
class TensorSpec:
    id: int
    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    kind: TensorKind
    # A zero-copy view: this tensor is the bytes of tensor `alias_of` under another shape,
    # from `alias_offset` bytes in (a contiguous part of it, e.g. one output of a split).
    alias_of: Optional[int] = None
    # An int8 (or int16 cell state) tensor's (scale, zero point): real = (q - zero_point) * scale.
    qparams: Optional[tuple[float, int]] = None
    alias_offset: int = 0

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * torch.empty((), dtype=self.dtype).element_size()

    @property
    def dim_order(self) -> tuple[int, ...]:
        return tuple(range(len(self.shape)))  # contiguous

    @property
    def scalar_type(self) -> ScalarType:
        return SCALAR_TYPES[self.dtype]


@dataclass(frozen=True)
class Ref:
    """An argument that names a tensor spec."""
    id: int


@dataclass(frozen=True)
class OpCall:
    """One out-variant kernel call. ``args`` follow the out overload's schema, out args
    included, as (schema argument name, value); tensors are Refs, tensor lists tuples of Refs."""
    op: OpDef
    args: tuple[tuple[str, Any], ...]
    outs: tuple[int, ...]
    source: SourceLoc
    debug_handles: tuple[int, ...] = ()   # positions of the edge-graph nodes it came from

    def arg(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        raise KeyError(name)

    @property
    def reads(self) -> tuple[int, ...]:
        ids = []
        for _, value in self.args:
            for v in (value if isinstance(value, tuple) else (value,)):
                if isinstance(v, Ref) and v.id not in self.outs:
                    ids.append(v.id)
        return tuple(ids)


DELEGATE_CALL = "executorch_call_delegate"   # the operator a delegate call is in an FX graph


def is_delegate_call(node: torch.fx.Node) -> bool:
    """A call_function node that calls a delegate (ours, or torch's operator of that name)."""
    return node.op == "call_function" and getattr(node.target, "__name__", "") == DELEGATE_CALL


@dataclass(frozen=True)
class DelegateOp:
    """What reports read of a delegate call, in OpDef's terms (a delegate has no aten op)."""
    backend_id: str
    aten: None = None

    @property
    def key(self) -> str:
        return f"delegate:{self.backend_id}"

    def macs(self, args: dict, outs: list) -> int:
        return 0   # unknown: the backend's business


@dataclass(frozen=True)
class DelegateCallSpec:
    """One call of a backend delegate: its blob runs on ``inputs`` and writes ``outs``, as the
    .pte's DelegateCall lays them out (input value indices, then output value indices)."""
    backend_id: str
    processed_bytes: bytes = field(repr=False)
    compile_specs: tuple[CompileSpec, ...]
    inputs: tuple[int, ...]
    outs: tuple[int, ...]
    source: SourceLoc
    debug_handles: tuple[int, ...] = ()          # positions of the edge-graph node it came from
    debug_handle_map: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # The edge program the delegate was lowered from: the interpreter runs it when the backend
    # has no Python reference. Not part of the call's identity.
    original: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "debug_handle_map",
                           MappingProxyType(dict(self.debug_handle_map)))

    @property
    def op(self) -> DelegateOp:
        return DelegateOp(self.backend_id)

    @property
    def args(self) -> tuple[tuple[str, Any], ...]:
        return (("inputs", tuple(Ref(i) for i in self.inputs)),
                ("outs", tuple(Ref(o) for o in self.outs)))

    @property
    def reads(self) -> tuple[int, ...]:
        return tuple(i for i in self.inputs if i not in self.outs)


Call = Union[OpCall, DelegateCallSpec]


@dataclass(frozen=True)
class MethodGraph:
    name: str
    tensors: tuple[TensorSpec, ...]
    calls: tuple[Call, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    constants: Mapping[int, np.ndarray]   # tensor id -> data, for CONSTANT tensors
    state: Mapping[int, np.ndarray]       # tensor id -> initial data, for STATE tensors
    in_spec: str                          # the pytree specs ExecuTorch stores, encoded
    out_spec: str

    def __post_init__(self):
        object.__setattr__(self, "constants", MappingProxyType(dict(self.constants)))
        object.__setattr__(self, "state", MappingProxyType(dict(self.state)))

    def root(self, tid: int) -> int:
        """The tensor whose storage ``tid`` uses (itself unless it is an alias)."""
        while self.tensors[tid].alias_of is not None:
            tid = self.tensors[tid].alias_of
        return tid

    def root_offset(self, tid: int) -> int:
        """Where ``tid``'s bytes start in its root's storage."""
        offset = 0
        while self.tensors[tid].alias_of is not None:
            offset += self.tensors[tid].alias_offset
            tid = self.tensors[tid].alias_of
        return offset
