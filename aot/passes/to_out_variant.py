"""Lower an edge ExportedProgram to a MethodGraph of out-variant calls.

Every op becomes a call to its out overload (the op table says which) with arguments laid out
as that overload's schema lists them; every tensor gets a TensorSpec. Views that keep bytes
(view_copy, squeeze_copy, unsqueeze_copy) become zero-copy aliases when both sides live in the
arena, and emit no call; so do splits, slices and selects whose every part is one run of the
input's bytes (the dims before the cut all 1: a GRU's gates), as aliases at an offset.
Elementwise ops write in place over their first input when that input dies at the op (the op
table marks which ops are safe), so relu after conv costs no memory. Buffers that the graph
mutates become STATE tensors, and a final ``copy.out`` writes their new value back so the state
survives to the next call. A delegate call (``executorch_call_delegate``) becomes a
DelegateCallSpec: the backend's blob, the tensors it reads and fresh activations for the
tensors it writes.
"""
from __future__ import annotations

import math
import operator
from types import MappingProxyType
from typing import Mapping, Optional

import numpy as np
import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils._pytree import tree_flatten, tree_unflatten, treespec_dumps

from ..config import MemoryPlanningPass
from ..errors import BackendError
from ..ir import (DelegateCallSpec, MethodGraph, OpCall, Ref, TensorKind, TensorSpec,
                  is_delegate_call)
from ..ops import CONVOLUTION_IN_PLACE, OPS, OUT, SCRATCH_ARGS, OpDef, bind_out_args
from ..source import UNKNOWN, source_of
from ._editor import ProgramEditor
from ._int8_values import QParams

aten = torch.ops.aten


def _numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().copy()
    return t.numpy().copy()


def _contiguous_parts(node) -> Optional[list[int]]:
    """The byte offset of each output of a split, slice (step 1) or select into its input,
    where every output is one contiguous run of the input's bytes (the dims before the one cut
    are all 1), else None."""
    x = node.args[0].meta["val"]
    if x.dim() == 0:
        return None
    a = dict(zip((arg.name for arg in node.target._schema.arguments), node.args))
    a.update(node.kwargs)
    dim = (a.get("dim") or 0) % x.dim()
    size = int(x.shape[dim])
    if math.prod(x.shape[:dim]) != 1:
        return None
    step = math.prod(x.shape[dim + 1:]) * x.element_size()
    if node.target == aten.split_with_sizes_copy.default:
        return [sum(a["split_sizes"][:i]) * step for i in range(len(a["split_sizes"]))]
    if node.target == aten.select_copy.int:
        return [(int(a["index"]) % size) * step]
    if (a.get("step") or 1) != 1:
        return None
    start = int(a.get("start") or 0)
    return [min(max(start + size if start < 0 else start, 0), size) * step]


_PARTS = (aten.split_with_sizes_copy.default, aten.slice_copy.Tensor, aten.select_copy.int)


def _shapes(op: OpDef, node) -> dict:
    """The call's arguments as an op's ``scratch`` functions take them: tensors as shapes."""
    return {a.name: tuple(v.meta["val"].shape) if isinstance(v, torch.fx.Node) else v
            for a, v in bind_out_args(op, node) if v is not OUT}


class _Builder:
    def __init__(self, ep: ExportedProgram, planning: MemoryPlanningPass,
                 qparams: Mapping[str, QParams]):
        self.ed = ProgramEditor(ep)
        self.planning = planning
        self.qparams = qparams
        self.tensors: list[TensorSpec] = []
        self.calls: list[OpCall | DelegateCallSpec] = []
        self.constants: dict[int, np.ndarray] = {}
        self.state: dict[int, np.ndarray] = {}
        self.env: dict[torch.fx.Node, object] = {}   # node -> tensor id or tuple of ids
        # Position of each node, and of its last reader (outputs read after everything).
        nodes = list(ep.graph.nodes)
        self.pos = {n: i for i, n in enumerate(nodes)}
        self.last_read = {n: max((self.pos[u] if u.op != "output" else len(nodes)
                                  for u in n.users), default=self.pos[n]) for n in nodes}
        self.root_last: dict[int, int] = {}   # root tensor id -> last read of any alias of it

    def new_tensor(self, name, val: torch.Tensor, kind: TensorKind, alias_of=None,
                   node: Optional[torch.fx.Node] = None, alias_offset: int = 0) -> int:
        tid = len(self.tensors)
        qparams = self.qparams.get(node.name) \
            if node is not None and val.dtype in (torch.int8, torch.int16) else None
        self.tensors.append(TensorSpec(tid, name, tuple(int(s) for s in val.shape), val.dtype,
                                       kind, alias_of, qparams, alias_offset))
        return tid

    def root(self, tid: int) -> int:
        while self.tensors[tid].alias_of is not None:
            tid = self.tensors[tid].alias_of
        return tid

    def note_reads(self, node, tid: int) -> None:
        r = self.root(tid)
        self.root_last[r] = max(self.root_last.get(r, -1), self.last_read[node])

    def _inplace_source(self, node, op, val) -> Optional[int]:
        """The tensor whose storage this op may write over, or None."""
        if not op.inplace or not isinstance(node.args[0], torch.fx.Node):
            return None
        return self._overwritable(node, node.args[0], node.args[1:], val)

    def _overwritable(self, node, arg, others, val) -> Optional[int]:
        """``arg``'s tensor if ``node``'s output ``val`` may take over its storage: same shape
        and dtype, an activation, read by no later node and by no other operand here, and not
        a part of a larger buffer (one gate of a recurrent step's projection: the output would
        hold all of it live as long as itself)."""
        src = self.env[arg]
        spec = self.tensors[src]
        if spec.shape != tuple(val.shape) or spec.dtype != val.dtype:
            return None
        if any(isinstance(a, torch.fx.Node) and a is not arg and
               self.root(self.env[a]) == self.root(src) for a in others):
            return None   # x * x: the other operand reads the bytes we would overwrite
        r = self.root(src)
        if self.tensors[r].kind != TensorKind.ACTIVATION or \
                self.root_last.get(r, -1) > self.pos[node] or \
                self.tensors[r].nbytes > spec.nbytes:
            return None
        return src

    def value(self, arg):
        """An FX argument as a MethodGraph argument: tensors become Refs."""
        if isinstance(arg, torch.fx.Node):
            ids = self.env[arg]
            return tuple(Ref(i) for i in ids) if isinstance(ids, tuple) else Ref(ids)
        if isinstance(arg, (list, tuple)):
            return tuple(self.value(a) for a in arg)
        return arg

    # -- graph pieces --------------------------------------------------------------------------
    def placeholder(self, node, mutated: dict):
        spec = self.ed.spec_of(node)
        val = node.meta["val"]
        if spec is not None and spec.kind == InputKind.BUFFER and spec.target in mutated:
            tid = self.new_tensor(node.name, val, TensorKind.STATE)
            init = self.ed.state_dict.get(spec.target, self.ed.constants.get(spec.target))
            self.state[tid] = _numpy(init)
        elif self.ed.is_const(node):
            tid = self.new_tensor(node.name, val, TensorKind.CONSTANT, node=node)
            self.constants[tid] = _numpy(self.ed.const_value(node))
        else:
            tid = self.new_tensor(node.name, val, TensorKind.INPUT, node=node)
        self.env[node] = tid
        self.note_reads(node, tid)

    def _can_alias(self, src: int, is_output: bool) -> bool:
        """May a view of ``src`` share its bytes? Only where both live in the arena."""
        root = self.tensors[self.root(src)]
        if root.kind in (TensorKind.CONSTANT, TensorKind.STATE):
            return False
        if root.kind == TensorKind.INPUT and not self.planning.alloc_graph_input:
            return False
        return not (is_output and not self.planning.alloc_graph_output)

    def call(self, node):
        if node.target is operator.getitem:
            self.env[node] = self.env[node.args[0]][node.args[1]]
            return
        if is_delegate_call(node):
            return self.delegate(node)
        op = self._in_place(node, OPS[node.target])
        val = node.meta["val"]
        is_output = any(u.op == "output" or u.target is operator.getitem and
                        any(v.op == "output" for v in u.users) for u in node.users)
        if node.target in _PARTS and isinstance(node.args[0], torch.fx.Node):
            src = self.env[node.args[0]]
            starts = _contiguous_parts(node)
            if starts is not None and self._can_alias(src, is_output):
                vals = list(val) if isinstance(val, (list, tuple)) else [val]
                ids = tuple(self.new_tensor(node.name if len(vals) == 1 else f"{node.name}_{i}",
                                            v, TensorKind.ACTIVATION, alias_of=src,
                                            node=node if len(vals) == 1 else None,
                                            alias_offset=start)
                            for i, (v, start) in enumerate(zip(vals, starts)))
                self.env[node] = ids if isinstance(val, (list, tuple)) else ids[0]
                for tid in ids:
                    self.note_reads(node, tid)
                return
        if op.alias and isinstance(node.args[0], torch.fx.Node):
            src = self.env[node.args[0]]
            if self._can_alias(src, is_output):
                self.env[node] = self.new_tensor(node.name, val, TensorKind.ACTIVATION,
                                                 alias_of=src, node=node)
                self.note_reads(node, self.env[node])
                return
        inplace = None if is_output and not self.planning.alloc_graph_output else \
            self._inplace_source(node, op, val)
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        args, outs = [], []
        for a, given in bind_out_args(op, node):
            if a.name in SCRATCH_ARGS and op.scratch is not None:
                args.append((a.name, Ref(self.scratch(node, op, a.name))))
            elif given is not OUT:
                args.append((a.name, self.value(given)))
            elif isinstance(a.type, torch.ListType):   # e.g. split_with_sizes_copy's out list
                ids = tuple(self.new_tensor(f"{node.name}_{i}", v, TensorKind.ACTIVATION)
                            for i, v in enumerate(vals))
                args.append((a.name, tuple(Ref(i) for i in ids)))
                outs.extend(ids)
            else:
                v = vals[len(outs)]
                tid = self.new_tensor(node.name if len(vals) == 1 else
                                      f"{node.name}_{len(outs)}", v, TensorKind.ACTIVATION,
                                      alias_of=inplace, node=node)
                args.append((a.name, Ref(tid)))
                outs.append(tid)
        self.calls.append(OpCall(op, tuple(args), tuple(outs), source_of(node),
                                 (self.pos[node],)))
        self.env[node] = outs[0] if not isinstance(val, (list, tuple)) else tuple(outs)
        for tid in outs:
            self.note_reads(node, tid)

    def _in_place(self, node, op: OpDef) -> OpDef:
        """Under MemoryPlanningPass(overlap=True), a float32 convolution whose kernels can run
        it with its output over its input becomes mcu_aot::convolution_in_place, whose scratch
        holds their bands (aot/overlap.py's conv_f32_scratch)."""
        if not self.planning.overlap or op.aten is not aten.convolution.default or \
                node.meta["val"].dtype != torch.float32:
            return op
        need = CONVOLUTION_IN_PLACE.in_place_scratch(_shapes(op, node),
                                                     [tuple(node.meta["val"].shape)])
        return CONVOLUTION_IN_PLACE if need > 0 else op

    def scratch(self, node, op, name: str) -> int:
        """A scratch buffer for this call: planned in the arena, live for the call only.
        ``op.scratch`` sizes the one named "scratch"; ExecuTorch's "output_scratch" (CMSIS-NN's
        accumulator for a transposed convolution, which our kernel does not need) is empty.
        Under MemoryPlanningPass(overlap=True) it also holds the bands of a kernel that honours
        an overlap through it (OpDef.in_place_scratch)."""
        shapes = _shapes(op, node)
        outs = [tuple(node.meta["val"].shape)]
        nbytes = int(op.scratch(shapes, outs)) if name == "scratch" else 0
        if name == "scratch" and self.planning.overlap and op.in_place_scratch is not None:
            nbytes = max(nbytes, int(op.in_place_scratch(shapes, outs)))
        return self.new_tensor(f"{node.name}_{name}", torch.empty(nbytes, dtype=torch.int8),
                               TensorKind.ACTIVATION)

    def delegate(self, node):
        """A delegate call: its inputs, then fresh activations for its outputs (output 0 may
        take over an input the backend lists in ``inplace_inputs``)."""
        lowered = self.ed.gm
        for part in node.args[0].target.split("."):
            lowered = getattr(lowered, part)
        takes_over = lowered.inplace_inputs()      # (BackendError for an unknown backend)
        args = node.args[1:]
        val = node.meta["val"]
        vals = [val] if isinstance(val, torch.Tensor) else list(val) \
            if isinstance(val, (list, tuple)) else None
        if vals is None or not all(isinstance(v, torch.Tensor) for v in vals) or \
                not all(isinstance(a, torch.fx.Node) and isinstance(self.env[a], int)
                        for a in args):
            raise BackendError(f"delegate {node.name} ({lowered.backend_id}): inputs and outputs "
                               "must be tensors (a flat tuple of them for several outputs)")
        inputs = tuple(self.env[a] for a in args)
        is_output = any(u.op == "output" or (u.target is operator.getitem and
                                             any(v.op == "output" for v in u.users))
                        for u in node.users)
        inplace = None
        if not (is_output and not self.planning.alloc_graph_output):
            for k in takes_over:
                if 0 <= k < len(args):
                    inplace = self._overwritable(node, args[k], args, vals[0])
                    if inplace is not None:
                        break
        outs = tuple(self.new_tensor(node.name if len(vals) == 1 else f"{node.name}_{i}", v,
                                     TensorKind.ACTIVATION, alias_of=inplace if i == 0 else None)
                     for i, v in enumerate(vals))
        self.calls.append(DelegateCallSpec(
            lowered.backend_id, lowered.processed_bytes, tuple(lowered.compile_specs), inputs,
            outs, source_of(node), (self.pos[node],), lowered.debug_handle_map,
            lowered.original_module))
        self.env[node] = outs[0] if isinstance(val, torch.Tensor) else outs
        for tid in outs:
            self.note_reads(node, tid)

    def write_back(self, buf: int, new: int):
        op = OPS[aten.copy.default]
        args = (("self", Ref(buf)), ("src", Ref(new)), ("non_blocking", False), ("out", Ref(buf)))
        self.calls.append(OpCall(op, args, (buf,), UNKNOWN))


def to_out_variant(ep: ExportedProgram, name: str,
                   planning: MemoryPlanningPass = MemoryPlanningPass(),
                   qparams: Mapping[str, QParams] = MappingProxyType({})) -> MethodGraph:
    """``ep``'s calls as out-variant kernel calls; ``qparams`` (node name -> scale, zero point,
    from the int8 lowering) go on the int8 tensors."""
    b = _Builder(ep, planning, qparams)
    sig = ep.graph_signature
    mutated = {s.target: s for s in sig.output_specs if s.kind == OutputKind.BUFFER_MUTATION}
    buffer_node = {s.target: s.arg.name for s in sig.input_specs if s.kind == InputKind.BUFFER}
    inputs, outputs = [], []
    for node in ep.graph.nodes:
        if node.op == "placeholder":
            b.placeholder(node, mutated)
            spec = b.ed.spec_of(node)
            if spec is not None and spec.kind == InputKind.USER_INPUT:
                inputs.append(b.env[node])
        elif node.op == "call_function":
            b.call(node)
        elif node.op == "output":
            by_name = {n.name: n for n in ep.graph.nodes}
            for spec, arg in zip(sig.output_specs, node.args[0]):
                if spec.kind == OutputKind.USER_OUTPUT:
                    outputs.append(b.env[arg] if isinstance(arg, torch.fx.Node) else None)
                elif spec.kind == OutputKind.BUFFER_MUTATION:
                    buf = b.env[by_name[buffer_node[spec.target]]]
                    b.write_back(buf, b.env[arg])
    return MethodGraph(name, tuple(b.tensors), tuple(b.calls), tuple(inputs), tuple(outputs),
                       b.constants, b.state, spec_text(ep.call_spec.in_spec),
                       spec_text(ep.call_spec.out_spec))


def spec_text(spec) -> str:
    """The pytree spec as the .pte stores it. torch's result named tuples (median, max.dim,
    sort, ...) have no serialized name: they are stored as the plain tuples they hold."""
    try:
        return treespec_dumps(spec)
    except NotImplementedError:
        tree = tree_unflatten(list(range(spec.num_leaves)), spec)
        return treespec_dumps(tree_flatten(_plain(tree))[1])


def _plain(x):
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x
