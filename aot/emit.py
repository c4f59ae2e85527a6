"""Emit a Program from planned MethodGraphs: the one IR both the .pte and the C TU render.

Layout choices follow ExecuTorch's emitter so its runtime runs the result: every tensor is an
EValue; each KernelCall lists the out overload's schema arguments in order, then its result
again (the out tensor, or a TensorList of several); int lists are boxed (a list of Int EValue
indices); planned tensors carry ``allocation_info`` in arena 1; constants point into the
program's constant buffer; mutable state is planned *and* has initial data. A delegate call is
a DelegateCall (inputs then outputs) with one BackendDelegate entry; blobs are shared.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any, Mapping, Optional, Sequence

import torch

from . import program as P
from .errors import AotError
from torch.utils._pytree import tree_flatten, treespec_dumps

from .ir import SCALAR_TYPES, DelegateCallSpec, MethodGraph, Ref, TensorKind
from .memory import MemoryPlan

MEMORY_FORMATS = {torch.contiguous_format: 0, torch.preserve_format: 1}


class _Blobs:
    """A deduplicated list of byte blobs; entry 0 is reserved and empty."""

    def __init__(self):
        self.items: list[bytes] = [b""]
        self._index: dict[str, int] = {}

    def add(self, data: bytes) -> int:
        key = hashlib.sha256(data).hexdigest()
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(data)
        return self._index[key]


class _DelegateBlobs(_Blobs):
    """Program.backend_delegate_data: deduplicated, with no reserved entry."""

    def __init__(self):
        super().__init__()
        self.items = []


class _MethodEmitter:
    def __init__(self, graph: MethodGraph, plan: Optional[MemoryPlan], constants: _Blobs,
                 mutable: _Blobs, blobs: Optional[_DelegateBlobs] = None):
        self.graph, self.plan = graph, plan
        self.values: list[P.EValue] = []
        self.operators: list[P.Operator] = []
        self.blobs = blobs if blobs is not None else _DelegateBlobs()
        self.delegates: list[P.BackendDelegate] = []
        self._op_index: dict[tuple[str, str], int] = {}
        # Tensors first, so a tensor's value index is its spec id.
        for t in graph.tensors:
            self.values.append(self._tensor(t, constants, mutable))

    def _tensor(self, t, constants: _Blobs, mutable: _Blobs) -> P.Tensor:
        root = self.graph.root(t.id)
        alloc = None
        if self.plan is not None and root in self.plan.offsets:
            alloc = P.AllocationDetails.at(P.ARENA_MEMORY_ID, self.plan.offsets[root] +
                                           self.graph.root_offset(t.id))
        data_idx = 0
        if t.kind == TensorKind.CONSTANT:
            data_idx = constants.add(self.graph.constants[t.id].tobytes())
        elif t.kind == TensorKind.STATE:
            data_idx = mutable.add(self.graph.state[t.id].tobytes())
        return P.Tensor(t.scalar_type, 0, t.shape, t.dim_order, data_buffer_idx=data_idx,
                        allocation_info=alloc)

    def add(self, value: P.EValue) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def operator(self, name: str, overload: str) -> int:
        key = (name, overload)
        if key not in self._op_index:
            self._op_index[key] = len(self.operators)
            self.operators.append(P.Operator(name, overload))
        return self._op_index[key]

    def argument(self, value: Any, jit_type) -> int:
        if isinstance(jit_type, torch.OptionalType):
            if value is None:
                return self.add(P.Null())
            jit_type = jit_type.getElementType()
        if isinstance(value, Ref):
            return value.id
        if value is None:
            return self.add(P.Null())
        if isinstance(jit_type, torch.ListType):
            elem = jit_type.getElementType()
            if isinstance(elem, torch.OptionalType):
                return self.add(P.OptionalTensorList(tuple(-1 if v is None else v.id
                                                           for v in value)))
            if isinstance(elem, torch.TensorType):
                return self.add(P.TensorList(tuple(v.id for v in value)))
            if isinstance(elem, torch.BoolType):
                return self.add(P.BoolList(tuple(bool(v) for v in value)))
            if isinstance(elem, torch.FloatType):
                return self.add(P.DoubleList(tuple(float(v) for v in value)))
            return self.add(P.IntList(tuple(self.add(P.Int(int(v))) for v in value)))
        return self.add(_scalar(value, jit_type))

    def call(self, call) -> P.KernelCall:
        schema = call.op.schema
        given = dict(call.args)
        args = [self.argument(given[a.name], a.type) for a in schema.arguments]
        outs = [given[a.name] for a in schema.arguments if a.is_out]
        if len(outs) == 1 and isinstance(outs[0], Ref):
            args.append(outs[0].id)
        else:  # several outs, or one out list: the result is a TensorList of them
            flat = [r for o in outs for r in (o if isinstance(o, tuple) else (o,))]
            args.append(self.add(P.TensorList(tuple(r.id for r in flat))))
        return P.KernelCall(self.operator(call.op.et_name, call.op.et_overload), tuple(args))

    def delegate(self, call: DelegateCallSpec) -> P.DelegateCall:
        """As ExecuTorch lays it out: one BackendDelegate per call (its blob shared through
        Program.backend_delegate_data), args = input value indices then output value indices."""
        blob = self.blobs.add(call.processed_bytes)
        self.delegates.append(P.BackendDelegate(
            call.backend_id, P.BackendDelegateDataReference(P.DataLocation.INLINE, blob),
            tuple(call.compile_specs)))
        return P.DelegateCall(len(self.delegates) - 1, tuple(call.inputs) + tuple(call.outs))

    def emit(self) -> P.ExecutionPlan:
        g = self.graph
        instructions = tuple(self.delegate(c) if isinstance(c, DelegateCallSpec) else
                             self.call(c) for c in g.calls)
        frames = tuple(P.FrameList(_frames(c.source)) for c in g.calls)
        chain = P.Chain(g.inputs, g.outputs, instructions, frames)
        arena = self.plan.arena_size if self.plan is not None else 0
        return P.ExecutionPlan(g.name, P.ContainerMetadata(g.in_spec, g.out_spec),
                               tuple(self.values), g.inputs, g.outputs, (chain,),
                               tuple(self.operators), tuple(self.delegates), (0, arena))


MODULE_FRAME = "<module>"   # a frame that names the nn.Module, not a file


def _frames(src) -> tuple[P.Frame, ...]:
    """The user's frame last (as in a Python stack); the module path in a frame before it."""
    frames = [P.Frame(MODULE_FRAME, 0, src.module, "")] if src.module else []
    return tuple(frames + [P.Frame(src.filename, src.lineno, src.name, src.context)])


def frame_text(chain: P.Chain, i: int) -> str:
    """The source line of instruction i, from the chain's stacktrace (our emitter's layout:
    an optional module frame, then the user's frame last)."""
    if not chain.stacktrace or i >= len(chain.stacktrace) or not chain.stacktrace[i].items:
        return "(no source recorded)"
    frames = chain.stacktrace[i].items
    module = next((f.name for f in frames if f.filename == MODULE_FRAME), "")
    f = frames[-1]
    where = f" [{module}]" if module else ""
    if not f.filename or f.filename == MODULE_FRAME:
        return (f.name or "(no source recorded)") + where
    text = f"{os.path.basename(f.filename)}:{f.lineno} ({f.name})"
    return (f"{text}: {f.context}" if f.context else text) + where


def _scalar(value: Any, jit_type=None) -> P.EValue:
    """A Python value as an EValue of the schema's kind: ExecuTorch reads an ``int`` argument
    only from an Int, a ``float`` only from a Double and a ``bool`` only from a Bool."""
    if isinstance(jit_type, torch.FloatType) and isinstance(value, (int, float)):
        return P.Double(float(value))
    if isinstance(jit_type, (torch.IntType, torch.SymIntType)) and isinstance(value, int):
        return P.Int(int(value))
    if isinstance(jit_type, torch.BoolType) and isinstance(value, (bool, int)):
        return P.Bool(bool(value))
    if isinstance(value, bool):
        return P.Bool(value)
    if isinstance(value, int):
        return P.Int(value)
    if isinstance(value, float):
        return P.Double(value)
    if isinstance(value, str):
        return P.String(value)
    if isinstance(value, torch.dtype):
        return P.Int(int(SCALAR_TYPES[value]))
    if isinstance(value, torch.memory_format) and value in MEMORY_FORMATS:
        return P.Int(MEMORY_FORMATS[value])
    if isinstance(value, torch.layout):
        return P.Int(0 if value == torch.strided else 1)
    if isinstance(value, torch.device):
        return P.Null()
    raise AotError(f"cannot emit argument {value!r} of type {type(value).__name__}")


def _constant_method(name: str, value: Any, constants: _Blobs) -> P.ExecutionPlan:
    """A method with no instructions that returns ``value``'s leaves (ExecuTorch's config
    methods): each leaf is one EValue output; the pytree spec restores the structure."""
    leaves, spec = tree_flatten(value)
    values: list[P.EValue] = []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            t = leaf.detach().contiguous()
            values.append(P.Tensor(SCALAR_TYPES[t.dtype], 0, tuple(t.shape),
                                   tuple(range(t.dim())),
                                   data_buffer_idx=constants.add(t.numpy().tobytes())))
        else:
            values.append(_scalar(leaf))
    return P.ExecutionPlan(name, P.ContainerMetadata("", treespec_dumps(spec)), tuple(values),
                           (), tuple(range(len(values))), (P.Chain((), (), ()),), (), (), (0,))


def emit_program(methods: Sequence[tuple[MethodGraph, Optional[MemoryPlan]]],
                 constant_methods: Optional[Mapping[str, Any]] = None) -> P.Program:
    constants, mutable, blobs = _Blobs(), _Blobs(), _DelegateBlobs()
    plans = [_MethodEmitter(g, plan, constants, mutable, blobs).emit() for g, plan in methods]
    for name, value in (constant_methods or {}).items():
        plans.append(_constant_method(name, value, constants))
    mutable_data = (tuple(P.Buffer(b) for b in mutable.items),) if len(mutable.items) > 1 else ()
    return P.Program(0, tuple(plans), tuple(P.Buffer(b) for b in constants.items),
                     tuple(P.BackendDelegateInlineData(b) for b in blobs.items),
                     mutable_data=mutable_data)
