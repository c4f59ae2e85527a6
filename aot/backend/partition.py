"""Turn the tagged nodes of an edge program into delegate calls (the third to_backend flow).

For each tag, in graph order: check the tagged nodes form one connected group that does not
need an outside node which itself depends on the group (a cycle); cut them out as their own
ExportedProgram (inputs: the values they read from outside; outputs: the values read after
them); lower that program to the tag's backend; put ``executorch_call_delegate`` and one getitem
per output where the nodes were.
"""
from __future__ import annotations

import heapq
import operator
from typing import Callable

import torch
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.exported_program import ModuleCallEntry, ModuleCallSignature
from torch.export.graph_signature import (ExportGraphSignature, InputKind, InputSpec,
                                          OutputKind, OutputSpec, TensorArgument)

from ..errors import BackendError
from ..passes._editor import ProgramEditor
from .call_delegate import executorch_call_delegate
from .partitioner import TAG, DelegationSpec

Lower = Callable[[str, ExportedProgram, tuple], torch.nn.Module]


def _names(nodes) -> str:
    return ", ".join(n.name for n in nodes)


def _group(graph: torch.fx.Graph, tag: str) -> list[torch.fx.Node]:
    """The call_function nodes with ``tag``, plus getitems of tagged nodes, in graph order."""
    nodes: dict[torch.fx.Node, None] = {}
    for n in graph.nodes:
        if n.op != "call_function":
            continue
        if n.meta.get(TAG) == tag or (n.target is operator.getitem and n.args[0] in nodes):
            nodes[n] = None
    return list(nodes)


def check_partition(tag: str, backend_id: str, nodes: list[torch.fx.Node]) -> None:
    """BackendError unless ``nodes`` are connected and fusing them makes no cycle."""
    inside = set(nodes)
    # Outside nodes downstream of the group; one of them feeding the group again is a cycle.
    below, todo = set(), [u for n in nodes for u in n.users if u not in inside]
    while todo:
        n = todo.pop()
        if n in below:
            continue
        below.add(n)
        todo.extend(u for u in n.users if u not in inside)
    for n in sorted(below, key=_order(nodes[0].graph)):
        back = [u for u in n.users if u in inside]
        if back:
            source = [m for m in nodes if m in _ancestors(n, inside)]
            raise BackendError(
                f"partition {tag!r} for backend {backend_id} would create a cycle: node "
                f"{n.name} is outside the partition but reads {_names(source)} and feeds "
                f"{_names(back)}, which are inside; tag {n.name} too or split the tag")
    # Connected: every node reachable from the first through edges inside the group.
    seen, todo = set(), [nodes[0]]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(m for m in (*n.all_input_nodes, *n.users) if m in inside)
    if len(seen) != len(nodes):
        rest = [n for n in nodes if n not in seen]
        first = [n for n in nodes if n in seen]
        raise BackendError(
            f"partition {tag!r} for backend {backend_id} is not contiguous: nodes "
            f"{_names(first)} and {_names(rest)} are not connected inside it; give each "
            "connected group its own tag")


def _ancestors(node, inside) -> set:
    seen, todo = set(), list(node.all_input_nodes)
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(n.all_input_nodes)
    return seen & inside


def _order(graph):
    index = {n: i for i, n in enumerate(graph.nodes)}
    return lambda n: index[n]


def _meta(node) -> dict:
    return {k: v for k, v in node.meta.items() if k != TAG}


def _subprogram(ed: ProgramEditor, nodes, consumed, inputs, outputs) -> ExportedProgram:
    """The tagged nodes as their own program: consumed constants first, then user inputs."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    specs, constants = [], {}
    for n in consumed:
        p = env[n] = graph.placeholder(n.name)
        p.meta = _meta(n)
        constants[n.name] = ed.const_value(n).detach()   # a plain tensor, even for a Parameter
        specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(n.name), n.name))
    for n in inputs:
        p = env[n] = graph.placeholder(n.name)
        p.meta = _meta(n)
        specs.append(InputSpec(InputKind.USER_INPUT, TensorArgument(n.name), None))
    for n in nodes:
        env[n] = graph.node_copy(n, lambda a: env[a])
        env[n].meta = _meta(n)
    graph.output(tuple(env[n] for n in outputs))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    out_specs = [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(env[n].name), None)
                 for n in outputs]
    in_spec = pytree.tree_flatten((tuple(inputs), {}))[1]
    out_spec = pytree.tree_flatten(tuple(outputs))[1]
    return ExportedProgram(root=gm, graph=gm.graph,
                           graph_signature=ExportGraphSignature(specs, out_specs),
                           state_dict={}, range_constraints={},
                           module_call_graph=[ModuleCallEntry("", ModuleCallSignature(
                               [], [], in_spec, out_spec))],
                           constants=constants)


def _stable_toposort(graph: torch.fx.Graph) -> None:
    """Reorder nodes so every node follows its inputs, moving as little as possible."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    waiting = {n: len(set(n.all_input_nodes)) for n in graph.nodes}
    ready = [(order[n], n.name, n) for n, k in waiting.items() if k == 0]
    heapq.heapify(ready)
    result = []
    while ready:
        _, _, n = heapq.heappop(ready)
        result.append(n)
        for u in n.users:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (order[u], u.name, u))
    if len(result) != len(order):   # check_partition rules this out
        raise BackendError("delegation left a cycle in the graph")
    out = graph.output_node()
    for n in result:
        if n is not out:
            out.prepend(n)


def _free_name(gm: torch.fx.GraphModule) -> str:
    i = 0
    while hasattr(gm, f"lowered_module_{i}"):
        i += 1
    return f"lowered_module_{i}"


def _lower_group(ed: ProgramEditor, tag: str, spec: DelegationSpec, nodes, lower: Lower):
    graph = ed.graph
    inside = set(nodes)
    consumed, inputs = [], []
    for n in nodes:
        for a in n.all_input_nodes:
            if a in inside or a in consumed or a in inputs:
                continue
            if a.op == "placeholder" and a.meta.get(TAG) == tag and ed.is_const(a):
                consumed.append(a)
            else:
                inputs.append(a)
    at = _order(graph)
    consumed.sort(key=at)
    inputs.sort(key=at)
    outputs = [n for n in nodes if any(u not in inside for u in n.users)]
    for n in inputs + outputs:
        if not isinstance(n.meta.get("val"), torch.Tensor):
            raise BackendError(f"partition {tag!r} for backend {spec.backend_id}: node "
                               f"{n.name} crosses the partition boundary but is not a tensor")
    lowered = lower(spec.backend_id, _subprogram(ed, nodes, consumed, inputs, outputs),
                    spec.compile_specs)
    name = _free_name(ed.gm)
    ed.gm.add_module(name, lowered)
    last = nodes[-1]
    with graph.inserting_after(last):
        attr = graph.get_attr(name)
    with graph.inserting_after(attr):
        call = graph.call_function(executorch_call_delegate, (attr, *inputs))
    call.meta["val"] = tuple(n.meta["val"] for n in outputs)
    for key in ("stack_trace", "nn_module_stack"):
        if key in nodes[0].meta:
            call.meta[key] = nodes[0].meta[key]
    anchor = call
    for i, n in enumerate(outputs):
        with graph.inserting_after(anchor):
            item = graph.call_function(operator.getitem, (call, i))
        item.meta = {"val": n.meta["val"]}
        n.replace_all_uses_with(item, delete_user_cb=lambda u: u not in inside)
        anchor = item
    for n in reversed(nodes):
        graph.erase_node(n)
    _stable_toposort(graph)


def lower_partitions(ep: ExportedProgram, tags: dict[str, DelegationSpec],
                     lower: Lower) -> ExportedProgram:
    """Replace each tag's nodes in ``ep`` (edited in place) by a call of its delegate."""
    ed = ProgramEditor(ep)
    stray = sorted({n.meta[TAG] for n in ed.graph.nodes
                    if n.op == "call_function" and n.meta.get(TAG) not in (None, *tags)})
    if stray:
        nodes = [n.name for n in ed.graph.nodes if n.meta.get(TAG) in stray]
        raise BackendError(f"nodes {', '.join(nodes)} carry tag(s) {stray} for which the "
                           "partitioner returned no DelegationSpec")
    groups = [(tag, _group(ed.graph, tag)) for tag in tags]
    order = _order(ed.graph)
    for tag, nodes in sorted((g for g in groups if g[1]), key=lambda g: order(g[1][0])):
        check_partition(tag, tags[tag].backend_id, nodes)
    for tag, _ in groups:
        nodes = _group(ed.graph, tag)   # earlier groups changed the graph: check again
        if nodes:
            check_partition(tag, tags[tag].backend_id, nodes)
            _lower_group(ed, tag, tags[tag], nodes, lower)
    for n in ed.graph.nodes:
        n.meta.pop(TAG, None)
    return ed.finish()
