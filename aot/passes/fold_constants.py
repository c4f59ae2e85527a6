"""Evaluate at compile time every op whose inputs are all constants.

This is what keeps weight transposes (``permute_copy`` of a linear weight) and dtype casts of
constants out of the inference path. An op whose result would be larger than its inputs (an
expand of a scalar, say) is left to run, so folding never grows flash.

An uninitialized tensor (``empty`` and its kin, which decompositions such as circular padding
create and then overwrite) folds to zeros: its bytes would otherwise be whatever the compiler's
heap held, and the generated files would differ from run to run.
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor

_MIN_FOLD_BYTES = 64  # small results fold even if the inputs were smaller
_UNINITIALIZED = {"aten::empty", "aten::empty_like", "aten::new_empty", "aten::empty_strided",
                  "aten::empty_permuted"}


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def fold_constants(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    known: dict[torch.fx.Node, object] = {}

    def value(arg):
        if isinstance(arg, torch.fx.Node):
            return known[arg] if arg in known else ed.const_value(arg)
        if isinstance(arg, (list, tuple)):
            return type(arg)(value(a) for a in arg)
        return arg

    def foldable(arg) -> bool:
        if isinstance(arg, torch.fx.Node):
            return arg in known or ed.is_const(arg)
        if isinstance(arg, (list, tuple)):
            return all(foldable(a) for a in arg)
        return True

    for node in list(ed.graph.nodes):
        if node.op != "call_function" or not all(foldable(a) for a in node.args) or \
                not all(foldable(a) for a in node.kwargs.values()):
            continue
        if node.target.__name__ == "getitem":
            known[node] = value(node.args[0])[node.args[1]]
            continue
        if not isinstance(node.target, torch._ops.OpOverload) or \
                torch.Tag.nondeterministic_seeded in node.target.tags:
            continue
        inputs = [a for a in node.all_input_nodes]
        in_bytes = sum(_nbytes(value(a)) for a in inputs if isinstance(value(a), torch.Tensor))
        result = node.target(*value(node.args), **value(node.kwargs))
        if node.target._schema.name in _UNINITIALIZED:
            result = torch.zeros_like(result)
        outs = result if isinstance(result, (list, tuple)) else [result]
        out_bytes = sum(_nbytes(t) for t in outs if isinstance(t, torch.Tensor))
        if out_bytes > max(in_bytes, _MIN_FOLD_BYTES) and inputs:
            continue
        known[node] = result

    # Replace every folded node that a live (unfolded) node or the output still reads.
    for node, result in known.items():
        if not isinstance(result, torch.Tensor):
            continue
        if all(user in known for user in node.users):
            continue
        const = ed.add_const(result, node.name)
        for user in list(node.users):
            if user not in known:
                user.replace_input_with(node, const)
    return ed.finish()
