"""Layers that reach the exported graph as one op become the ops they compute, so that the
quantizer annotates each of them (aot.quantization.quantize runs this before annotating):

- ``nn.GRU``, ``nn.LSTM`` and ``nn.RNN`` (``aten.gru.input`` and friends): their cells unrolled
  over the fixed sequence, with ATen's own decompositions: linear layers, the gates (sigmoid,
  tanh), and the elementwise products and sums of the state;
- ``scaled_dot_product_attention`` without a mask, dropout or causality (``nn.MultiheadAttention``
  and ``nn.TransformerEncoderLayer`` call it): softmax(q k^T * scale) v as two bmm calls over
  [batch x heads, L, E], the scale applied to q. ATen's decomposition would also write the
  masking of fully masked rows (eq, any, where), which a call without a mask never needs.
"""
from __future__ import annotations

import math

import torch
from torch._decomp import decomposition_table
from torch.export import ExportedProgram

aten = torch.ops.aten

_RECURRENT = (aten.gru.input, aten.lstm.input, aten.rnn_tanh.input, aten.rnn_relu.input)
_SDPA = aten.scaled_dot_product_attention.default


def _attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
               enable_gqa=False):
    *batch, length, e = q.shape
    s = k.shape[-2]
    factor = scale if scale is not None else 1.0 / math.sqrt(e)
    q3 = q.reshape(-1, length, e) * factor
    w = torch.softmax(torch.bmm(q3, k.reshape(-1, s, e).transpose(1, 2)), dim=-1)
    out = torch.bmm(w, v.reshape(-1, s, v.shape[-1]))
    return out.reshape(*batch, length, v.shape[-1])


def _plain_attention(node: torch.fx.Node) -> bool:
    """An attention call this decomposition computes exactly: no mask, dropout, causality or
    grouped heads, q, k and v of one rank."""
    args = list(node.args) + [None] * (7 - len(node.args))
    kw = node.kwargs
    mask = kw.get("attn_mask", args[3])
    dropout = kw.get("dropout_p", args[4] or 0.0)
    causal = kw.get("is_causal", args[5] or False)
    gqa = kw.get("enable_gqa", False)
    ranks = {a.meta["val"].dim() for a in args[:3] if isinstance(a, torch.fx.Node)}
    return mask is None and not dropout and not causal and not gqa and len(ranks) == 1


def decompose_layers(ep: ExportedProgram) -> ExportedProgram:
    table = {}
    calls = [n for n in ep.graph.nodes if n.op == "call_function"]
    if any(n.target in _RECURRENT for n in calls):
        table.update({op: decomposition_table[op] for op in _RECURRENT})
    attention = [n for n in calls if n.target == _SDPA]
    if attention and all(_plain_attention(n) for n in attention):
        table[_SDPA] = _attention
    return ep.run_decompositions(table) if table else ep
