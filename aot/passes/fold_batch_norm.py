"""Fold eval-mode batch norm into the convolution or linear layer that feeds it.

y = (conv(x, w) + b - mean) * gamma / sqrt(var + eps) + beta
  = conv(x, w * s) + (b - mean) * s + beta,          s = gamma / sqrt(var + eps)

The scale goes to each output channel: dim 0 of a conv weight, dim 1 of addmm's (already
transposed, constant-folded) ``mat2``. Only folds when the producer's weights are constants and
the batch norm is its only user.
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from ._editor import ProgramEditor, replace_node

aten = torch.ops.aten


def _bn_scale_shift(ed: ProgramEditor, bn: torch.fx.Node):
    _, gamma, beta, mean, var, _momentum, eps = bn.args
    mean, var = ed.const_value(mean), ed.const_value(var)
    if mean is None or var is None:
        return None
    gamma = ed.const_value(gamma) if gamma is not None else torch.ones_like(mean)
    beta = ed.const_value(beta) if beta is not None else torch.zeros_like(mean)
    if gamma is None or beta is None:
        return None
    scale = gamma.double() / torch.sqrt(var.double() + eps)
    return scale, beta.double() - mean.double() * scale


def _fold_conv(ed, conv, scale, shift):
    x, w, b = conv.args[:3]
    transposed = conv.args[6]
    w_val = ed.const_value(w)
    if w_val is None or transposed:
        return None
    b_val = ed.const_value(b) if b is not None else torch.zeros(w_val.shape[0])
    if b_val is None:
        return None
    shape = (-1,) + (1,) * (w_val.dim() - 1)
    new_w = (w_val.double() * scale.reshape(shape)).to(w_val.dtype)
    new_b = (b_val.double() * scale + shift).to(w_val.dtype)
    args = list(conv.args)
    args[1] = ed.add_const(new_w, "conv_bn_weight")
    args[2] = ed.add_const(new_b, "conv_bn_bias")
    return aten.convolution.default, args


def _fold_linear(ed, mm, scale, shift):
    if mm.target == aten.addmm.default:
        bias, x, mat2 = mm.args[:3]
        beta, alpha = mm.kwargs.get("beta", 1), mm.kwargs.get("alpha", 1)
        b_val = ed.const_value(bias)
    else:
        x, mat2 = mm.args
        beta, alpha, b_val = 1, 1, None
    w_val = ed.const_value(mat2)
    if w_val is None or (mm.target == aten.addmm.default and b_val is None):
        return None
    b_val = torch.zeros(w_val.shape[1]) if b_val is None else b_val
    new_w = (w_val.double() * alpha * scale.reshape(1, -1)).to(w_val.dtype)
    new_b = ((b_val.double() * beta) * scale + shift).to(w_val.dtype)
    return aten.addmm.default, [ed.add_const(new_b, "linear_bn_bias"), x,
                                ed.add_const(new_w, "linear_bn_weight")]


def fold_batch_norm(ep: ExportedProgram) -> ExportedProgram:
    ed = ProgramEditor(ep)
    for bn in list(ed.graph.nodes):
        if bn.op != "call_function" or \
                bn.target != aten._native_batch_norm_legit_no_training.default:
            continue
        producer = bn.args[0]
        users = list(bn.users)
        if not isinstance(producer, torch.fx.Node) or len(producer.users) != 1 or \
                not all(u.target.__name__ == "getitem" and u.args[1] == 0 or not u.users
                        for u in users):
            continue
        scale_shift = _bn_scale_shift(ed, bn)
        if scale_shift is None:
            continue
        if producer.target == aten.convolution.default:
            folded = _fold_conv(ed, producer, *scale_shift)
        elif producer.target in (aten.addmm.default, aten.mm.default) and \
                producer.meta["val"].dim() == 2:
            folded = _fold_linear(ed, producer, *scale_shift)
        else:
            folded = None
        if folded is None:
            continue
        new = replace_node(producer, folded[0], folded[1])
        for user in users:
            if user.users:
                user.replace_all_uses_with(new)
            ed.graph.erase_node(user)
        ed.graph.erase_node(bn)
    return ed.finish()
