"""Type promotion: make every tensor input of a mixed-dtype op the dtype the op computes in.

Kernels then see uniform dtypes (float32 + int64 becomes float32 + float32), at the cost of an
explicit, visible ``_to_copy`` that constant folding removes when the input is a constant.
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor

aten = torch.ops.aten

_ARITH = {aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.div.Tensor,
          aten.div.Tensor_mode, aten.pow.Tensor_Tensor, aten.remainder.Tensor,
          aten.fmod.Tensor, aten.maximum.default, aten.minimum.default, aten.where.self}
_COMPARE = {getattr(aten, n).Tensor for n in ("eq", "ne", "lt", "le", "gt", "ge")}
_COMPARE_SCALAR = {getattr(aten, n).Scalar for n in ("eq", "ne", "lt", "le", "gt", "ge")}


def _compute_dtype(node) -> torch.dtype:
    if node.target in _COMPARE:
        a, b = (x.meta["val"] for x in node.args[:2])
        return torch.result_type(a, b)
    return node.meta["val"].dtype


# Overloads with a number as `other`: `self` is cast to the dtype the op computes in.
_SCALAR_ARITH = {aten.add.Scalar, aten.sub.Scalar, aten.rsub.Scalar, aten.mul.Scalar,
                 aten.div.Scalar, aten.div.Scalar_mode, aten.pow.Tensor_Scalar,
                 aten.remainder.Scalar, aten.fmod.Scalar}


def _cast(ed, node, arg, want):
    with ed.graph.inserting_before(node):
        cast = ed.graph.call_function(aten._to_copy.default, (arg,), {"dtype": want})
    cast.meta = dict(node.meta)
    cast.meta["val"] = arg.meta["val"].to(want)
    return cast


def promote_types(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        if node.op == "call_function" and node.target in (_SCALAR_ARITH | _COMPARE_SCALAR) \
                and isinstance(node.args[0], torch.fx.Node):
            val = node.args[0].meta["val"]
            want = node.meta["val"].dtype if node.target in _SCALAR_ARITH else \
                torch.result_type(val, node.args[1])
            if val.dtype != want:
                node.args = (_cast(ed, node, node.args[0], want),) + tuple(node.args[1:])
            continue
        if node.op != "call_function" or node.target not in (_ARITH | _COMPARE | {aten.cat.default}):
            continue
        want = _compute_dtype(node) if node.target != aten.cat.default else node.meta["val"].dtype
        first = 1 if node.target == aten.where.self else 0  # where's condition stays bool
        args = list(node.args)
        tensors = args[0] if node.target == aten.cat.default else args
        changed = False
        for i, arg in enumerate(tensors):
            if i < first or not isinstance(arg, torch.fx.Node):
                continue
            val = arg.meta.get("val")
            if isinstance(val, torch.Tensor) and val.dtype != want:
                tensors[i] = _cast(ed, node, arg, want)
                changed = True
        if changed:
            node.args = (list(tensors),) + tuple(args[1:]) if node.target == aten.cat.default \
                else tuple(tensors)
    return ed.finish()
