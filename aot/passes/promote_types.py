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
          aten.maximum.default, aten.minimum.default, aten.where.self}
_COMPARE = {getattr(aten, n).Tensor for n in ("eq", "ne", "lt", "le", "gt", "ge")}
_COMPARE_SCALAR = {getattr(aten, n).Scalar for n in ("eq", "ne", "lt", "le", "gt", "ge")}


def _compute_dtype(node) -> torch.dtype:
    if node.target in _COMPARE:
        a, b = (x.meta["val"] for x in node.args[:2])
        return torch.result_type(a, b)
    return node.meta["val"].dtype


_SCALAR_FORM = {getattr(aten, n).Tensor: getattr(aten, n).Scalar
                for n in ("add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge")}


def promote_types(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        # `x + 2` arrives as add.Tensor with a Python number: call the Scalar overload instead.
        if node.op == "call_function" and node.target in _SCALAR_FORM and \
                not isinstance(node.args[1], torch.fx.Node):
            node.target = _SCALAR_FORM[node.target]
            want = node.meta["val"].dtype if node.target not in _COMPARE_SCALAR else None
            val = node.args[0].meta["val"]
            if want is not None and val.dtype != want:
                with ed.graph.inserting_before(node):
                    cast = ed.graph.call_function(aten._to_copy.default, (node.args[0],),
                                                  {"dtype": want})
                cast.meta = dict(node.meta)
                cast.meta["val"] = val.to(want)
                node.args = (cast,) + tuple(node.args[1:])
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
                with ed.graph.inserting_before(node):
                    cast = ed.graph.call_function(aten._to_copy.default, (arg,), {"dtype": want})
                cast.meta = dict(node.meta)
                cast.meta["val"] = val.to(want)
                tensors[i] = cast
                changed = True
        if changed:
            node.args = (list(tensors),) + tuple(args[1:]) if node.target == aten.cat.default \
                else tuple(tensors)
    return ed.finish()
