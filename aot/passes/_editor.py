"""A small editing context for ExportedPrograms: read constants, add and drop them, rebuild.

Edge passes rewrite the FX graph in place through a ProgramEditor, then ``finish()`` returns a
fresh ExportedProgram whose signature, state_dict and constants agree with the graph.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import torch
from torch._guards import detect_fake_mode
from torch.export import ExportedProgram
from torch.export.graph_signature import (ExportGraphSignature, InputKind, InputSpec,
                                          OutputKind, OutputSpec, TensorArgument)
from torch.fx.traceback import NodeSource

_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


class ProgramEditor:
    def __init__(self, ep: ExportedProgram):
        self.ep = ep
        self.gm = ep.graph_module
        self.graph = self.gm.graph
        self.input_specs = list(ep.graph_signature.input_specs)
        self.output_specs = list(ep.graph_signature.output_specs)
        self.state_dict = dict(ep.state_dict)
        self.constants = dict(ep.constants)
        self._fake_mode = detect_fake_mode([n.meta.get("val") for n in self.graph.nodes
                                            if n.op == "placeholder"])
        self._mutated = {s.target for s in self.output_specs
                         if s.kind == OutputKind.BUFFER_MUTATION}
        self._counter = 0

    # -- reading -------------------------------------------------------------------------------
    def spec_of(self, node: torch.fx.Node) -> Optional[InputSpec]:
        if node.op != "placeholder":
            return None
        for spec in self.input_specs:
            if isinstance(spec.arg, TensorArgument) and spec.arg.name == node.name:
                return spec
        return None

    def const_value(self, node) -> Optional[torch.Tensor]:
        """The value of a placeholder that holds a parameter, a buffer no one mutates, or a
        lifted constant; None for user inputs, mutated buffers and computed nodes."""
        spec = self.spec_of(node) if isinstance(node, torch.fx.Node) else None
        if spec is None or spec.kind not in _CONSTANT_KINDS or spec.target in self._mutated:
            return None
        if spec.target in self.state_dict:
            return self.state_dict[spec.target]
        return self.constants.get(spec.target)

    def is_const(self, node) -> bool:
        return self.const_value(node) is not None

    # -- writing -------------------------------------------------------------------------------
    def add_const(self, value: torch.Tensor, hint: str) -> torch.fx.Node:
        """A new lifted-constant placeholder holding ``value``, placed before the user inputs."""
        value = value.detach().contiguous()
        while True:
            name = f"_c_{hint}_{self._counter}"
            self._counter += 1
            if name not in self.constants and not any(n.name == name for n in self.graph.nodes):
                break
        first = next(iter(self.graph.nodes))
        with self.graph.inserting_before(first):
            node = self.graph.placeholder(name)
        node.meta["val"] = self._fake_mode.from_tensor(value, static_shapes=True) \
            if self._fake_mode else value
        self.constants[name] = value
        self.input_specs.insert(0, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(name),
                                             target=name))
        return node

    def prune(self) -> None:
        """Drop dead nodes and constant placeholders no longer used."""
        self.graph.eliminate_dead_code()
        for node in [n for n in self.graph.nodes if n.op == "placeholder" and not n.users]:
            spec = self.spec_of(node)
            if spec is None or spec.kind not in _CONSTANT_KINDS or spec.target in self._mutated:
                continue
            self.input_specs.remove(spec)
            self.graph.erase_node(node)
            if spec.kind == InputKind.CONSTANT_TENSOR or spec.target in self.constants:
                self.constants.pop(spec.target, None)
            else:
                self.state_dict.pop(spec.target, None)

    def _sync_input_specs(self) -> None:
        """Input specs name their placeholders, in order: follow placeholders that were renamed
        (a deep copy of the program renames an input that shadows a Python builtin, such as
        nn.Sequential's ``input``, to ``input_1``)."""
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        self.input_specs = [
            dataclasses.replace(spec, arg=TensorArgument(node.name))
            if isinstance(spec.arg, TensorArgument) and spec.arg.name != node.name else spec
            for spec, node in zip(self.input_specs, placeholders)]

    def _sync_output_specs(self) -> None:
        """Output specs name their nodes: follow nodes that passes replaced."""
        out = next(n for n in reversed(self.graph.nodes) if n.op == "output")
        specs = []
        for spec, arg in zip(self.output_specs, out.args[0]):
            if isinstance(spec.arg, TensorArgument) and isinstance(arg, torch.fx.Node):
                spec = OutputSpec(spec.kind, TensorArgument(arg.name), spec.target)
            specs.append(spec)
        self.output_specs = specs

    def finish(self) -> ExportedProgram:
        self.prune()
        self._sync_input_specs()
        self._sync_output_specs()
        self.graph.lint()
        self.gm.recompile()
        ep = self.ep
        return ExportedProgram(
            root=self.gm, graph=self.graph,
            graph_signature=ExportGraphSignature(self.input_specs, self.output_specs),
            state_dict=self.state_dict, range_constraints=ep.range_constraints,
            module_call_graph=ep.module_call_graph, example_inputs=ep.example_inputs,
            constants=self.constants, verifiers=[ep.verifier])


def call_nodes(graph: torch.fx.Graph, *targets):
    """The call_function nodes with one of ``targets`` (all call_function nodes if none)."""
    return [n for n in graph.nodes if n.op == "call_function"
            and (not targets or n.target in targets)]


def replace_node(node: torch.fx.Node, target, args, kwargs=None) -> torch.fx.Node:
    """Insert a call to ``target`` in place of ``node``, keeping its metadata; the new node
    records that it came from ``node`` (``provenance.carry`` follows that)."""
    graph = node.graph
    with graph.inserting_before(node):
        new = graph.call_function(target, tuple(args), kwargs or {})
    new.meta = dict(node.meta)
    new.meta["from_node"] = [NodeSource(node, "replace_node")]
    node.replace_all_uses_with(new)
    graph.erase_node(node)
    return new
