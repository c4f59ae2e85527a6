"""Give every tensor operand a tensor: Python numbers in tensor slots become scalar overloads
or constant tensors, as ExecuTorch's to_edge does.

torch.export keeps ``1 - x`` as ``sub.Tensor(1, x)`` and ``x + 2`` as ``add.Tensor(x, 2)``: a
number where the schema wants a tensor. A .pte must never pass one there (ExecuTorch aborts on
it), and the kernels read tensors. So, for each such call:
- a number on the right becomes the op's ``.Scalar`` overload (``add.Scalar(x, 2)``);
- a number on the left becomes the mirrored overload where one exists: ``rsub.Scalar`` for
  sub, ``pow.Scalar`` for pow, the operands swapped for add (alpha 1), mul, eq and ne, and the
  comparison reversed for lt, le, gt and ge (``2 < x`` is ``gt(x, 2)``);
- a number as ``self`` of a ``Scalar_Tensor`` overload (``remainder(2, x)``) becomes a constant
  of the Tensor-Tensor overload;
- anywhere else (``2 / x``, ``maximum(x, 0.5)``, ``where(c, 1.0, x)``, ...) the number becomes a
  rank-0 constant tensor of the dtype the op computes in, which broadcasts like the number.
"""
from __future__ import annotations

import numbers

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor

aten = torch.ops.aten

# Tensor-Tensor overload -> its overload with a number as `other`.
_RIGHT = {aten.add.Tensor: aten.add.Scalar, aten.sub.Tensor: aten.sub.Scalar,
          aten.mul.Tensor: aten.mul.Scalar, aten.div.Tensor: aten.div.Scalar,
          aten.div.Tensor_mode: aten.div.Scalar_mode,
          aten.pow.Tensor_Tensor: aten.pow.Tensor_Scalar,
          aten.remainder.Tensor: aten.remainder.Scalar, aten.fmod.Tensor: aten.fmod.Scalar}
for _n in ("eq", "ne", "lt", "le", "gt", "ge"):
    _RIGHT[getattr(aten, _n).Tensor] = getattr(aten, _n).Scalar
# A number as `self`: the overload that takes the operands the other way round.
_MIRROR = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_LEFT = {getattr(aten, a).Tensor: getattr(aten, b).Scalar for a, b in _MIRROR.items()}
_LEFT[aten.mul.Tensor] = aten.mul.Scalar
# Overloads whose first operand is a number: the number becomes a constant, the op its
# Tensor-Tensor overload.
_NUMBER_FIRST = {aten.remainder.Scalar_Tensor: aten.remainder.Tensor}


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, complex)


def _compute_dtype(node, number) -> torch.dtype:
    """The dtype the op computes in: its result's, except that comparisons return bool."""
    out = node.meta["val"]
    if out.dtype != torch.bool:
        return out.dtype
    tensors = [a.meta["val"] for a in node.args if isinstance(a, torch.fx.Node)]
    return torch.result_type(tensors[0], number) if tensors else torch.get_default_dtype()


def _replace(node, target, args, kwargs) -> None:
    node.target = target
    node.args = tuple(args)
    node.kwargs = dict(kwargs)


def _scalar_form(node) -> bool:
    """Rewrite a binary call with a number operand into a scalar overload; False if none fits."""
    op, args, kwargs = node.target, list(node.args), dict(node.kwargs)
    if len(args) < 2:
        return False
    left, right = _is_number(args[0]), _is_number(args[1])
    if right and not left and op in _RIGHT:
        _replace(node, _RIGHT[op], args, kwargs)
        return True
    if not left or right:
        return False
    other, number = args[1], args[0]
    if op in _LEFT:
        _replace(node, _LEFT[op], [other, number], kwargs)
        return True
    if op == aten.add.Tensor and kwargs.get("alpha", 1) == 1 and len(args) == 2:
        _replace(node, aten.add.Scalar, [other, number], kwargs)
        return True
    if op == aten.sub.Tensor:        # number - alpha * x
        alpha = args[2] if len(args) > 2 else kwargs.pop("alpha", 1)
        _replace(node, aten.rsub.Scalar, [other, number, alpha], kwargs)
        return True
    if op == aten.pow.Tensor_Tensor:
        _replace(node, aten.pow.Scalar, [number, other], kwargs)
        return True
    return False


def lower_scalar_operands(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for node in list(ed.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if _scalar_form(node):
            continue
        if node.target in _NUMBER_FIRST and _is_number(node.args[0]):
            number = ed.add_const(torch.tensor(node.args[0], dtype=_compute_dtype(node, 0)),
                                  "scalar")
            _replace(node, _NUMBER_FIRST[node.target], [number, *node.args[1:]], node.kwargs)
            continue
        schema = node.target._schema.arguments
        args = list(node.args)
        changed = False
        for i, (a, v) in enumerate(zip(schema, args)):
            if _is_number(v) and isinstance(a.type, torch.TensorType):
                value = torch.tensor(v, dtype=_compute_dtype(node, v))
                args[i] = ed.add_const(value, "scalar")
                changed = True
        if changed:
            node.args = tuple(args)
    return ed.finish()
