"""In-place spellings of an op become its functional form, where that computes the same, and
ATen's other names of an op (``clip``, ``multiply``, ``subtract``) its own name.

``nn.ReLU(inplace=True)``, ``x.relu_()``, ``x += y`` and ``F.hardtanh(x, 0, 6, inplace=True)``
reach ``torch.export``'s graph as ``relu_``, ``add_``, ``hardtanh_``: the same computation as
``relu``, ``add``, ``hardtanh`` when nothing reads the overwritten tensor afterwards. The
quantizer annotates what the graph computes, so it runs on this normal form, where each op has
one spelling (aot.quantization.quantize).

An in-place call is rewritten only when no later node can see the overwrite: its first argument
is a computed tensor (not an input, parameter or buffer), not a view of another tensor, and
neither it nor any view of it is read after the call. Otherwise it stays as written, and the
quantizer leaves it in float, as before.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor, replace_node

_ALIAS = {"clip": "clamp", "multiply": "mul", "subtract": "sub", "divide": "div",
          "absolute": "abs", "negative": "neg"}


def functional_of(target) -> Optional[torch._ops.OpOverload]:
    """The functional overload of an in-place one (``aten.relu_.default`` ->
    ``aten.relu.default``), or None."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    schema = target._schema
    name = schema.name.split("::")[-1]
    first = schema.arguments[0] if schema.arguments else None
    if not name.endswith("_") or name.endswith("__") or first is None or \
            first.alias_info is None or not first.alias_info.is_write:
        return None
    packet = getattr(getattr(torch.ops, target.namespace), name[:-1], None)
    functional = getattr(packet, target._overloadname, None) if packet is not None else None
    if functional is None or len(functional._schema.arguments) != len(schema.arguments):
        return None
    return functional


def canonical_of(target) -> Optional[torch._ops.OpOverload]:
    """The op of ATen's own name for another name of it (``aten.clip.default`` ->
    ``aten.clamp.default``), or None."""
    if not isinstance(target, torch._ops.OpOverload) or target.namespace != "aten":
        return None
    name = target._schema.name.split("::")[-1]
    packet = getattr(torch.ops.aten, _ALIAS.get(name, ""), None)
    op = getattr(packet, target._overloadname, None) if packet is not None else None
    return op if op is not None and str(op._schema).split("(", 1)[1] == \
        str(target._schema).split("(", 1)[1] else None


def _aliases(node: torch.fx.Node) -> bool:
    """Whether ``node``'s output may share storage with an input (a view, reshape, ...)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return node.op != "call_function"
    returns = node.target._schema.returns
    return bool(returns) and returns[0].alias_info is not None


def _unseen_after(call: torch.fx.Node, order: dict) -> bool:
    """Whether overwriting ``call``'s first argument in place is invisible to later nodes."""
    base = call.args[0]
    if not isinstance(base, torch.fx.Node) or base.op != "call_function" or _aliases(base):
        return False
    views, todo = {base}, [base]
    while todo:                         # the base and every view of it, transitively
        for user in todo.pop().users:
            if user is not call and user not in views and _aliases(user) and \
                    user.args and user.args[0] in views:
                views.add(user)
                todo.append(user)
    return all(order[user] < order[call] for v in views for user in v.users if user is not call)


def functional_spellings(ep: ExportedProgram) -> ExportedProgram:
    """``ep`` with each in-place call whose overwrite no later node sees replaced by the
    functional op, and each op under another name by the op of its own name."""
    ed = ProgramEditor(ep)
    changed = False
    for node in list(ed.graph.nodes):
        if node.op != "call_function":
            continue
        functional = functional_of(node.target)
        if functional is not None:
            order = {n: i for i, n in enumerate(ed.graph.nodes)}
            if not _unseen_after(node, order):
                continue
            node = replace_node(node, functional, node.args, node.kwargs)
            changed = True
        canonical = canonical_of(node.target)
        if canonical is not None:
            replace_node(node, canonical, node.args, node.kwargs)
            changed = True
    return ed.finish() if changed else ep
