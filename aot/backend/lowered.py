"""LoweredBackendModule: an edge program compiled by a backend, usable as an nn.Module.

``to_backend(backend_id, edge_program, compile_specs)`` returns one. Called, it runs the
``executorch_call_delegate`` operator, so it can be a submodule of a new model that is exported
and lowered again (flow 2); ``program()`` is a program whose whole graph is that call, and
``buffer()`` its .pte.
"""
from __future__ import annotations

import operator
from types import MappingProxyType
from typing import Mapping, Optional, Sequence

import torch
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.exported_program import ModuleCallEntry, ModuleCallSignature
from torch.export.graph_signature import (ExportGraphSignature, InputKind, InputSpec,
                                          OutputKind, OutputSpec, TensorArgument)

from ..config import ExecutorchBackendConfig, MemoryPlanningPass
from ..errors import BackendError
from ..executorch import ExecutorchProgramManager
from .call_delegate import executorch_call_delegate
from .details import CompileSpec, get_backend


class LoweredBackendModule(torch.nn.Module):
    """The result of lowering a whole edge program to one backend.

    backend_id       the backend's name (its BackendDetails subclass)
    processed_bytes  the blob preprocess made: what the .pte carries for the backend
    compile_specs    the list of CompileSpec preprocess was given
    original_module  the edge ExportedProgram it was lowered from
    debug_handle_map backend-internal ids -> debug handles of the edge nodes they came from
    """

    def __init__(self, edge_program: ExportedProgram, backend_id: str, processed_bytes: bytes,
                 compile_specs: Sequence[CompileSpec],
                 debug_handle_map: Optional[Mapping[int, tuple]] = None):
        super().__init__()
        self._original_module = edge_program
        self._backend_id = backend_id
        self._processed_bytes = bytes(processed_bytes)
        self._compile_specs = list(compile_specs)
        self._debug_handle_map = MappingProxyType(dict(debug_handle_map or {}))

    backend_id = property(lambda self: self._backend_id)
    processed_bytes = property(lambda self: self._processed_bytes)
    compile_specs = property(lambda self: list(self._compile_specs))
    original_module = property(lambda self: self._original_module)
    debug_handle_map = property(lambda self: self._debug_handle_map)

    def forward(self, *args):
        return executorch_call_delegate(self, *args)

    def __deepcopy__(self, memo):
        # Everything it holds is immutable (the original program is never edited): share it.
        return LoweredBackendModule(self._original_module, self._backend_id,
                                    self._processed_bytes, self._compile_specs,
                                    self._debug_handle_map)

    def extra_repr(self) -> str:
        return f"backend_id={self._backend_id!r}, processed_bytes={len(self._processed_bytes)} B"

    def inplace_inputs(self) -> tuple[int, ...]:
        """The inputs whose storage output 0 may take over (its backend's ``inplace_inputs``)."""
        return tuple(get_backend(self._backend_id).inplace_inputs(self._processed_bytes,
                                                                  list(self._compile_specs)))

    def program(self) -> ExportedProgram:
        """A program with the original's user inputs and outputs whose graph is one call of
        this delegate (getitem nodes pick its outputs when there are several)."""
        original = self._original_module
        sig = original.graph_signature
        if sig.buffers_to_mutate:
            raise BackendError(f"backend {self._backend_id}: a delegate cannot mutate buffers "
                               f"({', '.join(sorted(sig.buffers_to_mutate.values()))})")
        graph = torch.fx.Graph()
        inputs = []
        for node in original.graph.nodes:
            if node.op == "placeholder" and node.name in sig.user_inputs:
                p = graph.placeholder(node.name)
                p.meta["val"] = node.meta["val"]
                inputs.append(p)
        root = torch.nn.Module()
        root.add_module("lowered_module_0", self)
        call = graph.call_function(executorch_call_delegate,
                                   (graph.get_attr("lowered_module_0"), *inputs))
        out_node = original.graph.output_node()
        leaves = [a.meta["val"] for a in out_node.args[0]]
        call.meta["val"] = pytree.tree_unflatten(leaves, original.call_spec.out_spec)
        if isinstance(call.meta["val"], torch.Tensor):
            outputs = [call]
        else:
            outputs = []
            for i, val in enumerate(leaves):
                item = graph.call_function(operator.getitem, (call, i))
                item.meta["val"] = val
                outputs.append(item)
        graph.output(tuple(outputs))
        gm = torch.fx.GraphModule(root, graph)
        signature = ExportGraphSignature(
            [InputSpec(InputKind.USER_INPUT, TensorArgument(p.name), None) for p in inputs],
            [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(o.name), None) for o in outputs])
        call_graph = [ModuleCallEntry("", ModuleCallSignature(
            [], [], original.call_spec.in_spec, original.call_spec.out_spec))]
        return ExportedProgram(root=gm, graph=gm.graph, graph_signature=signature,
                               state_dict={}, range_constraints={},
                               module_call_graph=call_graph, constants={})

    def buffer(self, extract_delegate_segments: bool = False, segment_alignment: int = 128,
               constant_tensor_alignment: Optional[int] = None,
               delegate_alignment: Optional[int] = None, memory_planning=None) -> bytes:
        """A .pte whose one method, "forward", calls this delegate."""
        config = ExecutorchBackendConfig(
            memory_planning_pass=memory_planning or MemoryPlanningPass(),
            extract_delegate_segments=extract_delegate_segments,
            segment_alignment=segment_alignment,
            constant_tensor_alignment=constant_tensor_alignment,
            delegate_alignment=delegate_alignment)
        return ExecutorchProgramManager({"forward": self.program()}, None, config).buffer
