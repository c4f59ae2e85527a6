"""Replace view ops by their *_copy forms, which the op table knows.

view_copy, squeeze_copy and unsqueeze_copy keep the bytes as they are: the lowering later makes
them zero-copy aliases wherever both sides live in the arena. Permutes, expands and slices move
data, so they stay real copies. Pure aliases disappear.
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor, replace_node

aten = torch.ops.aten


def _squeeze_dims(node):
    val = node.args[0].meta["val"]
    if node.target == aten.squeeze.default:
        return [i for i, s in enumerate(val.shape) if s == 1]
    dims = node.args[1] if len(node.args) > 1 else []
    return [dims] if isinstance(dims, int) else list(dims)


def _as_view(node):
    return (node.args[0], list(node.meta["val"].shape))


_RENAMES = {
    aten.view.default: (aten.view_copy.default, _as_view),
    aten._unsafe_view.default: (aten.view_copy.default, _as_view),
    aten.reshape.default: (aten.view_copy.default, _as_view),
    aten.squeeze.default: (aten.squeeze_copy.dims, lambda n: (n.args[0], _squeeze_dims(n))),
    aten.squeeze.dim: (aten.squeeze_copy.dims, lambda n: (n.args[0], _squeeze_dims(n))),
    aten.squeeze.dims: (aten.squeeze_copy.dims, lambda n: (n.args[0], _squeeze_dims(n))),
    aten.unsqueeze.default: (aten.unsqueeze_copy.default, lambda n: n.args),
    aten.permute.default: (aten.permute_copy.default, lambda n: n.args),
    aten.expand.default: (aten.expand_copy.default, lambda n: n.args[:2]),
    aten.slice.Tensor: (aten.slice_copy.Tensor, lambda n: n.args),
    aten.select.int: (aten.select_copy.int, lambda n: n.args),
    aten.split_with_sizes.default: (aten.split_with_sizes_copy.default, lambda n: n.args),
}


def _transpose_args(node):
    rank = node.args[0].meta["val"].dim()
    perm = list(range(rank))
    if node.target == aten.t.default:
        perm = perm[::-1]
    else:
        a, b = (d % rank for d in node.args[1:3])
        perm[a], perm[b] = perm[b], perm[a]
    return (node.args[0], perm)


_RENAMES[aten.t.default] = (aten.permute_copy.default, _transpose_args)
_RENAMES[aten.transpose.int] = (aten.permute_copy.default, _transpose_args)
_IDENTITY = {aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default}


def replace_views(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in _IDENTITY:
            node.replace_all_uses_with(node.args[0])
            ed.graph.erase_node(node)
        elif node.target in _RENAMES:
            target, args = _RENAMES[node.target]
            replace_node(node, target, args(node))
    return ed.finish()
