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


def _bn_scale_shift(ed: ProgramEditor, gamma, beta, mean, var, eps):
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
        _, gamma, beta, mean, var, _momentum, eps = bn.args
        scale_shift = _bn_scale_shift(ed, gamma, beta, mean, var, eps)
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


_ATEN_WEIGHTED = (aten.conv1d.default, aten.conv2d.default, aten.linear.default)


def fold_batch_norm_aten(ep: ExportedProgram) -> ExportedProgram:
    """The same fold on a graph as ``torch.export`` writes it, before decomposition
    (``batch_norm`` after ``conv1d``/``conv2d``/``linear``). Quantization runs here: a batch
    norm folded first gives one weight to observe, as TFLite's converter does."""
    ed = ProgramEditor(ep)
    for bn in list(ed.graph.nodes):
        if bn.op != "call_function" or bn.target != aten.batch_norm.default or bn.args[5]:
            continue
        producer = bn.args[0]
        if not isinstance(producer, torch.fx.Node) or producer.target not in _ATEN_WEIGHTED \
                or len(producer.users) != 1:
            continue
        _, gamma, beta, mean, var, _training, _momentum, eps = bn.args[:8]
        scale_shift = _bn_scale_shift(ed, gamma, beta, mean, var, eps)
        if scale_shift is None:
            continue
        scale, shift = scale_shift
        args = list(producer.args) + [None] * (3 - len(producer.args))
        w_val = ed.const_value(args[1])
        b_val = ed.const_value(args[2]) if args[2] is not None else None
        if w_val is None or (args[2] is not None and b_val is None):
            continue
        b_val = torch.zeros(w_val.shape[0]) if b_val is None else b_val
        shape = (-1,) + (1,) * (w_val.dim() - 1)
        args[1] = ed.add_const((w_val.double() * scale.reshape(shape)).to(w_val.dtype),
                               "bn_weight")
        args[2] = ed.add_const((b_val.double() * scale + shift).to(w_val.dtype), "bn_bias")
        new = replace_node(producer, producer.target, args, producer.kwargs)
        bn.replace_all_uses_with(new)
        ed.graph.erase_node(bn)
    return ed.finish()
