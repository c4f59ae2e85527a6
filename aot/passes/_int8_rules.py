"""The rules of the int8 lowering: one float op PT2E quantized (read between its dequantize
and quantize nodes) -> int8 ops of ``aot.quantization.ops``, or None where the op stays float.

Each rule is ``rule(L, node, scale, zp, bounds, before)``: ``L`` is the lowering under way
(aot.passes.lower_quantized: it reads int8 values with ``L.act`` and makes nodes with ``L.call``,
``L.const``, ``L.weight``, ``L.value``, ``L.layout`` and ``L.requantize``), ``(scale, zp)`` the
output's qparams, ``bounds`` the real range of an activation folded into the op, and the new
nodes go before ``before``.

An LSTM's cell state is int16 (the quantizer's CELL): the rules in WIDE_RULES take int16
values (the products, sum and tanh of the state, and views of its constant first value); the
others see no int16 value (the lowering does not call them with one).
"""
from __future__ import annotations

import math
import operator
from typing import Callable, Optional

import numpy as np
import torch

from ..errors import QuantizationError
from ..quantization import arith
from ..quantization.ops import OPS as Q8
from ._int8_values import (NCHW, NHWC, QConst, QValue, f32 as _f32, layout_perm,
                           mult_shift as _mult_shift, node_where)

aten = torch.ops.aten
QD = torch.ops.quantized_decomposed


def _relu(n):
    return 0.0, math.inf


def _relu6(n):
    return 0.0, 6.0


def _hardtanh(n):
    args = list(n.args) + [-1.0, 1.0][len(n.args) - 1:]
    return float(args[1]), float(args[2])


def _clamp(n):
    args = list(n.args) + [None, None][len(n.args) - 1:]
    lo = n.kwargs.get("min", args[1])
    hi = n.kwargs.get("max", args[2])
    return (-math.inf if lo is None else float(lo)), (math.inf if hi is None else float(hi))


ACTIVATION_BOUNDS = {aten.relu.default: _relu, aten.relu6.default: _relu6,
                      aten.hardtanh.default: _hardtanh, aten.clamp.default: _clamp}


def _bias_values(L, b, s_in: float, s_w: np.ndarray, where) -> \
        Optional[torch.Tensor]:
    """The int32 bias at scale s_in * s_w[c]: PT2E's own int32 values when its scale is that,
    else the real bias rounded (XNNPACK's quantizer leaves the bias in float)."""
    if b is None:
        return None
    want = (np.float32(s_in) * s_w.astype(np.float32)).astype(np.float64)
    if b in L.consts:
        c = L.consts[b]
        if c.values.dtype == torch.int32 and np.array_equal(
                np.broadcast_to(c.scales.astype(np.float32), want.shape), want.astype(np.float32)):
            return c.values.to(torch.int32)
        real = c.real().double().numpy()
    else:
        value = L.ed.const_value(b)
        if value is None:
            raise QuantizationError(f"{node_where(where)}: the bias is not a constant")
        real = value.detach().double().numpy()
    q = np.array([arith.round_half_away(v) for v in (real / want).tolist()], np.int64)
    return torch.from_numpy(np.clip(q, -(2 ** 31), 2 ** 31 - 1).astype(np.int32))


def _weight(L, w, where) -> Optional[QConst]:
    c = L.consts.get(w)
    if c is None or c.values.dtype != torch.int8:
        return None
    if np.any(c.zps != 0):
        raise QuantizationError(f"{node_where(where)}: asymmetric int8 weights (zero point "
                                f"{int(c.zps[c.zps != 0][0])}) are not supported; the int8 "
                                "kernels take symmetric weights, as TFLite's spec")
    return c


def _out_range(bounds, scale, zp) -> tuple[int, int]:
    return arith.activation_bounds(bounds[0], bounds[1], _f32(scale), zp)


def _channel_mults(s_in, s_w: np.ndarray, s_out, n: int) -> tuple[list[int], list[int]]:
    s_w = np.broadcast_to(s_w.astype(np.float32), (n,))
    return arith.quantize_multipliers(
        [float(np.float32(s_in)) * float(sw) / float(np.float32(s_out)) for sw in s_w])


def _requant_tensors(L, mults: list[int], shifts: list[int]) -> tuple:
    """A layer's per-channel (multiplier, shift) pairs as two int32 constant tensors."""
    return (L.const(torch.tensor(mults, dtype=torch.int32), "mults"),
            L.const(torch.tensor(shifts, dtype=torch.int32), "shifts"))


def _rows_of(L, x: QValue, before) -> Optional[QValue]:
    """``x`` for an op over its last dim: in NCHW (a map's logical order), or None where it
    stays an NHWC map whose bytes are already that order."""
    x = L.layout(x, NCHW, before) if not (x.layout == NHWC and L.nchw_view_ok(x)) else x
    return None if x.layout == NHWC else x


def _as_rows(L, v: QValue, before) -> QValue:
    """A 1-D NHWC map (N, L, C) viewed as one row of a 2-D one, (N, 1, L, C): the same bytes."""
    n, length, c = v.node.meta["val"].shape
    return L.value(L.call(aten.view.default, [v.node, [n, 1, length, c]], before), v.scale, v.zp,
                   NHWC)


def _nhwc_out(L, new, scale, zp, before, one_d: bool) -> QValue:
    """A 2-D NHWC kernel's result as a value; a 1-D op's, (N, 1, L, C), as the 1-D map
    (N, L, C) it stands for."""
    if not one_d:
        return L.value(new, scale, zp, NHWC)
    n, _, length, c = new.meta["val"].shape
    L.mark(new, scale, zp)
    return L.value(L.call(aten.view.default, [new, [n, length, c]], before), scale, zp, NHWC)


def _hw(v, unit: int, one_d: bool) -> list:
    """A conv or pool parameter (an int, or a list of one or two) as [h, w]; a 1-D op's as the
    parameter of one row, [unit, v] (kernel, stride and dilation 1, padding 0 across rows)."""
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return [unit, v[0]] if one_d else v * 2 if len(v) == 1 else v


def _conv(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """conv2d, and conv1d as a 2-D convolution of one row (H = 1), as TFLite runs it."""
    one_d = node.target == aten.conv1d.default
    args = list(node.args) + [None] * (7 - len(node.args))
    x, w, b, groups = L.act(args[0]), args[1], args[2], args[6] or 1
    if x is None or x.node.meta["val"].dim() != (3 if one_d else 4) or isinstance(args[4], str):
        return None
    stride, dilation = _hw(args[3] or 1, 1, one_d), _hw(args[5] or 1, 1, one_d)
    padding = _hw(args[4] if args[4] is not None else 0, 0, one_d)
    wc = _weight(L, w, node)
    if wc is None:
        return None
    if one_d:
        wc = QConst(wc.values.unsqueeze(2), wc.scales, wc.zps, wc.axis)   # [Cout, Cin, 1, K]
    cout, cin_g = wc.values.shape[0], wc.values.shape[1]
    cin = x.node.meta["val"].shape[1 if x.layout == NCHW else -1]
    mults, shifts = _channel_mults(x.scale, wc.scales, scale, cout)
    bias = _bias_values(L, b, x.scale, np.broadcast_to(wc.scales, (cout,)), node)
    lo, hi = _out_range(bounds, scale, zp)
    xin = L.layout(x, NHWC, before)
    mult_t, shift_t = _requant_tensors(L, mults, shifts)
    bias_n = None if bias is None else L.const(bias, "bias")
    if one_d:
        xin = _as_rows(L, xin, before)
    common = [stride, padding, dilation]
    # groups == Cin is depthwise; so is a one-channel input (each output channel filters the
    # same plane), which ExecuTorch's lowering and CMSIS-NN also take as depthwise.
    if cin_g == 1 and groups == cin and (groups > 1 or cin == 1):
        weight = wc.values.permute(1, 2, 3, 0).contiguous()      # [1, KH, KW, Cout]
        new = L.call(Q8.quantized_depthwise_conv2d_nhwc.default,
                     [xin.node, L.weight(weight, wc, cout), bias_n, *common, cout // cin,
                      -x.zp, zp, mult_t, shift_t, lo, hi], before)
    else:
        weight = wc.values.permute(0, 2, 3, 1).contiguous()      # OHWI
        new = L.call(Q8.quantized_conv2d_nhwc.default,
                     [xin.node, L.weight(weight, wc, cout), bias_n, *common, -x.zp, zp, mult_t,
                      shift_t, lo, hi], before)
    return _nhwc_out(L, new, scale, zp, before, one_d)


def _transpose_conv(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """conv_transpose2d of one group (TFLite's TRANSPOSE_CONV): the filter [Cin, Cout, KH, KW]
    repacked OHWI, O the output channels, whose per-channel scales PT2E observed on axis 1.
    conv_transpose1d runs as one of a single row."""
    one_d = node.target == aten.conv_transpose1d.default
    args = list(node.args) + [None] * (8 - len(node.args))
    x, w, b = L.act(args[0]), args[1], args[2]
    groups = args[6] or 1
    if x is None or x.node.meta["val"].dim() != (3 if one_d else 4) or groups != 1:
        return None
    stride, padding = _hw(args[3] or 1, 1, one_d), _hw(args[4] or 0, 0, one_d)
    out_pad, dilation = _hw(args[5] or 0, 0, one_d), _hw(args[7] or 1, 1, one_d)
    wc = _weight(L, w, node)
    if wc is None or wc.axis != 1:
        return None
    if one_d:
        wc = QConst(wc.values.unsqueeze(2), wc.scales, wc.zps, wc.axis)   # [Cin, Cout, 1, K]
    cout = wc.values.shape[1]
    scales = np.broadcast_to(wc.scales, (cout,))
    mults, shifts = _channel_mults(x.scale, scales, scale, cout)
    bias = _bias_values(L, b, x.scale, scales, node)
    lo, hi = _out_range(bounds, scale, zp)
    xin = L.layout(x, NHWC, before)
    if one_d:
        xin = _as_rows(L, xin, before)
    weight = wc.values.permute(1, 2, 3, 0).contiguous()          # OHWI
    new = L.call(Q8.quantized_transpose_conv2d_nhwc.default,
                 [xin.node, L.weight(weight, wc, cout),
                  None if bias is None else L.const(bias, "bias"), stride, padding, out_pad,
                  dilation, -x.zp, zp, *_requant_tensors(L, mults, shifts), lo, hi], before)
    return _nhwc_out(L, new, scale, zp, before, one_d)


def _linear(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    args = list(node.args) + [None] * (3 - len(node.args))
    x, w, b = L.act(args[0]), args[1], args[2]
    wc = _weight(L, w, node)
    if x is None or wc is None:
        return None
    x = _rows_of(L, x, before)
    if x is None:
        return None
    cout = wc.values.shape[0]
    per_channel = wc.scales.size > 1
    mults, shifts = _channel_mults(x.scale, wc.scales, scale, cout if per_channel else 1)
    bias = _bias_values(L, b, x.scale, np.broadcast_to(wc.scales, (cout,)), node)
    lo, hi = _out_range(bounds, scale, zp)
    ksum = _kernel_sum(wc.values, bias, -x.zp)
    if ksum is not None:           # the kernel sum stands in for the bias
        bias_n, ksum_n = None, L.const(ksum, "kernel_sum")
    else:
        bias_n, ksum_n = None if bias is None else L.const(bias, "bias"), None
    new = L.call(Q8.quantized_linear.default,
                 [x.node, L.weight(wc.values.contiguous(), wc, cout if per_channel else 1),
                  bias_n, ksum_n, -x.zp, 0, zp, mults, shifts, hi, lo], before)
    return L.value(new, scale, zp, NCHW)


def _kernel_sum(w: torch.Tensor, bias: Optional[torch.Tensor], x_off: int) \
        -> Optional[torch.Tensor]:
    """ExecuTorch's MVE form of a linear's bias (its cortex_m passes for the M55):
    kernel_sum[o] = x_off * sum_i w[o, i] + bias[o], so that the kernel sums x * w alone (the
    weights are symmetric here: no filter offset). The sum is exact, so every arch computes the
    same int32 sums; the kernels then skip the input offset's work (a VADDVA per sixteen
    weights on Helium). None, keeping the bias, where the sum would leave int32 or there is
    neither an input offset nor a bias to fold."""
    if x_off == 0 and bias is None:
        return None
    w64 = w.to(torch.int64)
    s = w64.sum(dim=1) * x_off
    if bias is not None:
        s = s + bias.to(torch.int64)
    products = int(w64.abs().sum(dim=1).max()) * 128   # bounds sum x * w
    if int(s.abs().max()) >= 2 ** 31 or products >= 2 ** 31:
        return None
    return s.to(torch.int32).reshape(1, -1)


def _operand(L, arg, other: Optional[QValue]) -> Optional[QValue]:
    """An int8 constant operand of a binary op (``x * nn.Parameter(...)``), per-tensor
    quantized, as a flash tensor in ``other``'s layout: a map's operand is broadcast from the
    trailing dims, so it is viewed at the map's rank and stored NHWC."""
    c = L.consts.get(arg) if isinstance(arg, torch.fx.Node) else None
    if c is None or other is None or c.values.dtype != torch.int8 or c.scales.size != 1:
        return None
    values, rank = c.values, other.node.meta["val"].dim()
    layout = NCHW
    if other.layout == NHWC and values.dim() <= rank:
        values = values.reshape((1,) * (rank - values.dim()) + tuple(values.shape))
        values, layout = values.permute(*layout_perm(rank, NHWC)), NHWC
    node = L.const(values.contiguous(), "operand")
    return L.value(node, float(c.scales[0]), int(c.zps[0]), layout)


def _binary_inputs(L, node, before) -> Optional[tuple[QValue, QValue]]:
    a, b = L.act(node.args[0]), L.act(node.args[1]) if len(node.args) > 1 else None
    a = a if a is not None else _operand(L, node.args[0], b)
    b = b if b is not None else _operand(L, node.args[1], a)
    if a is None or b is None:
        return None
    ra, rb = a.node.meta["val"].dim(), b.node.meta["val"].dim()
    if a.layout != b.layout:       # meet in NHWC if both are maps, else in NCHW
        want = NHWC if ra == rb and ra in (3, 4) else NCHW
        a, b = L.layout(a, want, before), L.layout(b, want, before)
    elif a.layout == NHWC and ra != rb:
        a, b = L.layout(a, NCHW, before), L.layout(b, NCHW, before)
    return a, b


def _add_sub(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    if not isinstance(node.args[1], torch.fx.Node):     # x + number: a lookup table
        return _lut(L, node, scale, zp, bounds, before)
    alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
    if alpha != 1:
        return None
    pair = _binary_inputs(L, node, before)
    if pair is None:
        return None
    a, b = pair
    if wide(before, a, b):
        return _add_s16(L, node, a, b, scale, zp, bounds, before)
    sa, sb, so = _f32(a.scale), _f32(b.scale), _f32(scale)
    twice = 2.0 * max(sa, sb)
    ma, sha = _mult_shift(sa / twice)
    mb, shb = _mult_shift(sb / twice)
    mo, sho = _mult_shift(twice / ((1 << arith.ADD_LEFT_SHIFT) * so))
    if node.target == aten.sub.Tensor:
        mb = -mb
    lo, hi = _out_range(bounds, scale, zp)
    new = L.call(Q8.quantized_add.default,
                 [a.node, a.zp, ma, sha, b.node, b.zp, mb, shb, zp, mo, sho, lo, hi], before)
    return L.value(new, scale, zp, a.layout)


def _mul(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    if not isinstance(node.args[1], torch.fx.Node):     # x * number: a lookup table
        return _lut(L, node, scale, zp, bounds, before)
    pair = _binary_inputs(L, node, before)
    if pair is None or bounds != (-math.inf, math.inf):
        return None
    a, b = pair
    if wide(before, a, b):
        return _mul_s16(L, node, a, b, scale, zp, before)
    m, s = _mult_shift(_f32(a.scale) * _f32(b.scale) / _f32(scale))
    new = L.call(Q8.quantized_mul.default, [a.node, a.zp, b.node, b.zp, zp, m, s], before)
    return L.value(new, scale, zp, a.layout)


# -- the int16 cell state of an LSTM ------------------------------------------------------------

def wide(before, *values: QValue) -> bool:
    """Whether an op reads or writes int16 (``before``: the quantize of its output)."""
    return before.args[5] != torch.int8 or any(v.dtype != torch.int8 for v in values)


def _same_shape(node, *values: QValue) -> bool:
    return all(v.node.meta["val"].shape == node.meta["val"].shape for v in values)


def _mul_s16(L, node, a: QValue, b: QValue, scale, zp, before) -> Optional[QValue]:
    """A gate times the cell state or two gates, into the int16 state: int8 x (int8 or
    int16) -> int16 at zero point 0, no broadcasting."""
    if a.dtype != torch.int8:
        a, b = b, a
    if a.dtype != torch.int8 or before.args[5] != torch.int16 or zp != 0 or \
            (b.dtype == torch.int16 and b.zp != 0) or not _same_shape(node, a, b):
        return None
    m, s = _mult_shift(_f32(a.scale) * _f32(b.scale) / _f32(scale))
    new = L.call(Q8.quantized_mul_s16.default, [a.node, a.zp, b.node, b.zp, m, s], before)
    return L.value(new, scale, zp, a.layout)


def _add_s16(L, node, a: QValue, b: QValue, scale, zp, bounds, before) -> Optional[QValue]:
    """The cell state's sum: two int16 values of its one scale (the quantizer shares it)."""
    same = {(_f32(v.scale), v.zp, v.dtype) for v in (a, b)} == {(_f32(scale), 0, torch.int16)}
    if not same or node.target != aten.add.Tensor or bounds != (-math.inf, math.inf) or \
            before.args[5] != torch.int16 or not _same_shape(node, a, b):
        return None
    return L.value(L.call(Q8.add_s16.default, [a.node, b.node], before), scale, zp, a.layout)


def step_table(op, args, kwargs, s_in: float, scale: float, zp: int, bounds) \
        -> Optional[tuple[torch.Tensor, int]]:
    """``op`` of an int16 value at (s_in, 0) into int8 at (scale, zp), as PT2E's dq -> op -> q
    computes it on all 65,536 codes, kept as its steps: the lowest code of each output above
    the first (at most 255 int16s, not a 64 K table), and the first output. None where the
    function is not non-decreasing (it has no such steps)."""
    codes = torch.arange(-32768, 32768, dtype=torch.int16)
    real = QD.dequantize_per_tensor.default(codes, s_in, 0, -32768, 32767, torch.int16)
    with torch.no_grad():
        y = torch.clamp(op(real, *args, **kwargs), bounds[0], bounds[1])
    table = QD.quantize_per_tensor.default(y.float(), scale, zp, -128, 127, torch.int8)
    table = table.to(torch.int64).numpy()
    if (np.diff(table) < 0).any():
        return None
    first = int(table[0])
    steps = np.searchsorted(table, np.arange(first + 1, int(table[-1]) + 1), side="left")
    return torch.from_numpy((steps - 32768).astype(np.int16)), first


def _steps(L, node, x: QValue, scale, zp, bounds, before) -> Optional[QValue]:
    """A one-input op of the int16 cell state into int8 (its tanh): a step table."""
    made = step_table(node.target, node.args[1:], node.kwargs, x.scale, scale, zp, bounds) \
        if before.args[5] == torch.int8 and x.zp == 0 else None
    if made is None:
        return None
    steps, first = made
    new = L.call(Q8.step_s16.default, [x.node, L.const(steps, "steps"), first], before)
    return L.value(new, scale, zp, x.layout)


def _matmul(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """bmm, and matmul of two activations of one rank (2 or more, equal batch dims), as
    quantized_batch_matmul over [B, M, K] x [B, N, K]: the right operand transposed, which is
    the bytes it came from when it is itself a transpose of the last two dims (attention's
    k.transpose(-2, -1)), else one transpose."""
    a, b = L.act(node.args[0]), L.act(node.args[1])
    if a is None or b is None or bounds != (-math.inf, math.inf):
        return None
    a, b = L.layout(a, NCHW, before), L.layout(b, NCHW, before)
    sa, sb = a.node.meta["val"].shape, b.node.meta["val"].shape
    if len(sa) != len(sb) or len(sa) < 2 or sa[:-2] != sb[:-2] or sa[-1] != sb[-2]:
        return None
    batch, (m, k), n = math.prod(sa[:-2]), sa[-2:], sb[-1]
    lhs = L.call(aten.view.default, [a.node, [batch, m, k]], before)
    src = b.node
    if src.op == "call_function" and src.target == aten.transpose.int and \
            sorted(d % len(sb) for d in src.args[1:]) == [len(sb) - 2, len(sb) - 1] and \
            src.args[0].meta["val"].dtype == torch.int8:
        rhs = L.call(aten.view.default, [src.args[0], [batch, n, k]], before)
    else:
        rhs = L.call(Q8.transpose.default,
                     [L.call(aten.view.default, [b.node, [batch, k, n]], before), [0, 2, 1]],
                     before)
    for part, v in ((lhs, a), (rhs, b)):
        L.mark(part, v.scale, v.zp)
    mult, shift = _mult_shift(_f32(a.scale) * _f32(b.scale) / _f32(scale))
    new = L.call(Q8.quantized_batch_matmul.default,
                 [lhs, -a.zp, rhs, -b.zp, zp, mult, shift], before)
    L.mark(new, scale, zp)
    out = L.call(aten.view.default, [new, list(node.meta["val"].shape)], before)
    return L.value(out, scale, zp, NCHW)


def _layer_norm(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """layer_norm over the last dim: quantized_layer_norm (ours; no TFLite kernel to match),
    its weight and bias the float32 constants they are."""
    x = L.act(node.args[0])
    args = list(node.args) + [None] * (5 - len(node.args))
    if x is None or bounds != (-math.inf, math.inf) or len(args[1]) != 1:
        return None
    x = _rows_of(L, x, before)
    if x is None or x.node.meta["val"].shape[-1] != args[1][0]:
        return None
    affine = []
    for arg in args[2:4]:
        value = L.ed.const_value(arg) if isinstance(arg, torch.fx.Node) else None
        if arg is not None and value is None:
            return None
        affine.append(None if value is None else
                      L.const(value.detach().float().contiguous(), "layer_norm"))
    eps = 1e-5 if args[4] is None else float(args[4])
    new = L.call(Q8.quantized_layer_norm.default,
                 [x.node, *affine, float(x.scale), eps, float(scale), zp], before)
    return L.value(new, scale, zp, NCHW)


def _lut(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Any one-input elementwise float op: PT2E's dq -> op -> q over all 256 int8 codes."""
    x = L.act(node.args[0])
    rest = node.args[1:]
    if x is None or any(isinstance(a, torch.fx.Node) for a in rest) or \
            node.meta["val"].shape != node.args[0].meta["val"].shape:
        return None
    if wide(before, x):
        return _steps(L, node, x, scale, zp, bounds, before)
    codes = torch.arange(-128, 128, dtype=torch.int8)
    real = QD.dequantize_per_tensor.default(codes, x.scale, x.zp, -128, 127, torch.int8)
    with torch.no_grad():
        y = node.target(real, *rest, **node.kwargs)
        y = torch.clamp(y, bounds[0], bounds[1])          # a relu/clamp folded into it
    table = QD.quantize_per_tensor.default(y.float(), scale, zp, -128, 127, torch.int8)
    new = L.call(Q8.quantized_activation.default, [x.node, L.const(table, "lut")], before)
    return L.value(new, scale, zp, x.layout)


def _pool_args(node, one_d: bool = False):
    """A pooling's kernel, stride and padding as [h, w] (a 1-D pooling's: one row, h = 1 and
    no padding), and its arguments."""
    a = list(node.args)
    kernel = _hw(a[1], 1, one_d)
    stride = _hw(a[2], 1, one_d) if len(a) > 2 and a[2] else kernel
    padding = _hw(a[3] if len(a) > 3 else 0, 0, one_d)
    return kernel, stride, padding, a


def _pooled_map(L, node) -> tuple[Optional[QValue], bool]:
    """A pooling's input, and whether it pools one dim (a rank-3 map) rather than two."""
    one_d = node.target in (aten.max_pool1d.default, aten.avg_pool1d.default)
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != (3 if one_d else 4):
        return None, one_d
    return x, one_d


def _shared_out(L, v: QValue, scale, zp, before) -> QValue:
    return L.requantize(v, scale, zp, before)


def _avg_pool(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    x, one_d = _pooled_map(L, node)
    if x is None or bounds != (-math.inf, math.inf):
        return None
    kernel, stride, padding, a = _pool_args(node, one_d)
    ceil_mode = a[4] if len(a) > 4 else False
    count_include_pad = a[5] if len(a) > 5 else True
    divisor = a[6] if len(a) > 6 else None
    if ceil_mode or divisor is not None:
        return None
    xin = L.layout(x, NHWC, before)
    if one_d:
        xin = _as_rows(L, xin, before)
    if any(padding) and count_include_pad:    # the padding counts: make it real, value z_in
        xin = L.value(L.call(Q8.pad.default, [xin.node, [0, padding[0], padding[1], 0],
                                             [0, padding[0], padding[1], 0], x.zp], before),
                     x.scale, x.zp, NHWC)
        padding = [0, 0]
    return _avg_pool_nhwc(L, xin, kernel, stride, padding, scale, zp, before, one_d)


def _avg_pool_nhwc(L, xin: QValue, kernel, stride, padding, scale, zp, before,
                   one_d: bool = False) -> QValue:
    m, s = _mult_shift(1.0)
    new = L.call(Q8.quantized_avg_pool2d_nhwc.default,
                 [xin.node, kernel, stride, padding, False, xin.zp, m, s], before)
    return _shared_out(L, _nhwc_out(L, new, xin.scale, xin.zp, before, one_d), scale, zp,
                       before)


def _adaptive_avg_pool(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf):
        return None
    shape = x.node.meta["val"].shape
    h, w = (shape[2], shape[3]) if x.layout == NCHW else (shape[1], shape[2])
    out = node.args[1]
    oh, ow = (out, out) if isinstance(out, int) else out
    if oh is None or ow is None or h % oh or w % ow:
        return None
    kernel = [h // oh, w // ow]
    return _avg_pool_nhwc(L, L.layout(x, NHWC, before), kernel, kernel, [0, 0], scale, zp,
                          before)


def _reduced_dims(node, rank: int) -> list[int]:
    """A reduction's dims, normalized and sorted (none given, or [], is every dim)."""
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", None)
    dims = [dims] if isinstance(dims, int) else dims
    return sorted({d % rank for d in dims}) if dims else list(range(rank))


def _reduced_rows(L, x: QValue, dims: list[int], before, map_view: bool = True) -> \
        Optional[tuple[QValue, int]]:
    """``x`` viewed as an NHWC map (A, R, 1, B) whose R rows are the reduced ``dims`` (see
    _reduced_dims), or as (A, R, B) without ``map_view``, and R: they must be one run in
    memory order (the value's own, else NCHW's, a transpose away), the kept dims in their
    logical order around it. None, with the graph untouched, where neither order has them so."""
    rank = x.node.meta["val"].dim()

    def order_of(layout: str) -> Optional[tuple[int, ...]]:
        order = layout_perm(rank, NHWC) if layout == NHWC else tuple(range(rank))
        where = [order.index(d) for d in dims]
        kept = [d for d in order if d not in dims]
        run = where == list(range(where[0], where[0] + len(dims)))
        return order if run and kept == sorted(kept) else None

    order = order_of(x.layout)
    if order is None and x.layout == NHWC and order_of(NCHW) is not None:
        x, order = L.layout(x, NCHW, before), order_of(NCHW)
    if order is None:
        return None
    size = dict(zip(order, x.node.meta["val"].shape))   # (an NHWC node's shape is physical)
    first, last = order.index(dims[0]), order.index(dims[-1])
    a = math.prod(size[d] for d in order[:first])
    r = math.prod(size[d] for d in dims)
    b = math.prod(size[d] for d in order[last + 1:])
    view = L.call(aten.view.default, [x.node, [a, r, 1, b] if map_view else [a, r, b]], before)
    return L.value(view, x.scale, x.zp, NHWC if map_view else NCHW), r


def _reduction(L, node, before, map_view: bool = True) -> Optional[tuple[QValue, int]]:
    """A reduction's input as (A, R, 1, B) or (A, R, B) rows (see _reduced_rows), and R."""
    x = L.act(node.args[0])
    if x is None:
        return None
    return _reduced_rows(L, x, _reduced_dims(node, x.node.meta["val"].dim()), before, map_view)


def _reduced_out(L, pooled: QValue, node, scale, zp, before) -> QValue:
    """A pool over (A, R, 1, B) rows, (A, 1, 1, B), as the reduction's output (its kept dims in
    logical order: NCHW)."""
    L.mark(pooled.node, pooled.scale, pooled.zp)
    view = L.call(aten.view.default, [pooled.node, list(node.meta["val"].shape)], before)
    return _shared_out(L, L.value(view, pooled.scale, pooled.zp, NCHW), scale, zp, before)


def _mean(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """The mean over any dims that are one run in memory (a map's H and W, tokens, features):
    one average pool window over the rows they make."""
    if bounds != (-math.inf, math.inf):
        return None
    x = L.act(node.args[0])
    rank = x.node.meta["val"].dim() if x is not None else 0
    if rank in (3, 4) and _reduced_dims(node, rank) == list(range(2, rank)):
        return _mean_spatial(L, node, x, rank, scale, zp, before)
    rows = _reduction(L, node, before)
    if rows is None:
        return None
    xin, r = rows
    pooled = _avg_pool_nhwc(L, xin, [r, 1], [r, 1], [0, 0], xin.scale, xin.zp, before)
    return _reduced_out(L, pooled, node, scale, zp, before)


def _mean_spatial(L, node, x: QValue, rank: int, scale, zp, before) -> QValue:
    """The mean of a map over its spatial dims (H, W; or L of a rank-3 map): one average pool
    window over the whole NHWC map."""
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    xin = L.layout(x, NHWC, before)
    if rank == 3:
        xin = _as_rows(L, xin, before)
    n, h, w, c = xin.node.meta["val"].shape
    pooled = _avg_pool_nhwc(L, xin, [h, w], [h, w], [0, 0], scale, zp, before)
    if keepdim and rank == 4:
        return pooled
    view = L.call(aten.view.default, [pooled.node, [n, c] + [1] * (rank - 2) * keepdim],
                  before)
    return L.value(view, scale, zp, NCHW)


def _amax(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """The largest value over any dims that are one run in memory: one max pool window over
    the rows they make (exact: the input's qparams, which the output shares)."""
    rows = _reduction(L, node, before) if bounds == (-math.inf, math.inf) else None
    if rows is None:
        return None
    xin, r = rows
    lo, hi = _out_range(bounds, xin.scale, xin.zp)
    new = L.call(Q8.quantized_max_pool2d_nhwc.default,
                 [xin.node, [r, 1], [r, 1], [0, 0], [1, 1], False, xin.zp, xin.zp, lo, hi],
                 before)
    return _reduced_out(L, L.value(new, xin.scale, xin.zp, NHWC), node, scale, zp, before)


def _rows_out(L, new, node, scale, zp, before) -> QValue:
    """A reduction over (A, R, B) rows, (A, 1, B) at (scale, zp), as the reduction's output."""
    L.mark(new, scale, zp)
    view = L.call(aten.view.default, [new, list(node.meta["val"].shape)], before)
    return L.value(view, scale, zp, NCHW)


def _sum(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """The sum over any dims that are one run in memory, as TFLite's SUM: the rows' sum of
    (x - z_in), requantized by s_in / s_out."""
    if bounds != (-math.inf, math.inf) or node.kwargs.get("dtype") is not None:
        return None
    x = L.act(node.args[0])
    if x is None:
        return None
    rank = x.node.meta["val"].dim()
    r = math.prod(x.node.meta["val"].shape[d] for d in _reduced_dims(node, rank)) if rank \
        else 1
    m, s = _mult_shift(float(np.float64(_f32(x.scale)) / np.float64(_f32(scale))))
    if r < 1 or (r * 255) << max(s, 0) >= 1 << 31:
        return None         # (decided before the graph changes: a fallback reads x as it is)
    rows = _reduction(L, node, before, map_view=False)
    if rows is None:
        return None
    xin, _ = rows
    new = L.call(Q8.quantized_reduce_sum.default, [xin.node, xin.zp, zp, m, s], before)
    return _rows_out(L, new, node, scale, zp, before)


def _amin(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """The least value over any dims that are one run in memory, as TFLite's REDUCE_MIN (exact:
    the input's qparams, which the output shares)."""
    rows = _reduction(L, node, before, map_view=False) \
        if bounds == (-math.inf, math.inf) else None
    if rows is None:
        return None
    xin, _ = rows
    new = L.call(Q8.reduce_min.default, [xin.node], before)
    return _shared_out(L, _rows_out(L, new, node, xin.scale, xin.zp, before), scale, zp,
                       before)


def _max_pool(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    x, one_d = _pooled_map(L, node)
    if x is None:
        return None
    kernel, stride, padding, a = _pool_args(node, one_d)
    dilation = _hw(a[4] if len(a) > 4 else 1, 1, one_d)
    ceil_mode = a[5] if len(a) > 5 else False
    xin = L.layout(x, NHWC, before)
    if one_d:
        xin = _as_rows(L, xin, before)
    lo, hi = _out_range(bounds, x.scale, x.zp)
    new = L.call(Q8.quantized_max_pool2d_nhwc.default,
                 [xin.node, kernel, stride, padding, dilation, ceil_mode, x.zp, x.zp, lo, hi],
                 before)
    return _shared_out(L, _nhwc_out(L, new, x.scale, x.zp, before, one_d), scale, zp, before)


def _softmax(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or bounds != (-math.inf, math.inf) or len(node.args) < 2:
        return None
    if node.target == aten._softmax.default and node.args[2]:
        return None
    real = min(_f32(x.scale) * float(1 << 26), float((1 << 31) - 1))
    m, s = _mult_shift(real)
    if _f32(scale) != _f32(1 / 256) or zp != -128 or s < 0:
        return None        # (decided before the graph changes: a fallback reads x as it is)
    diff_min = -math.floor(31.0 * (1 << 26) / (1 << s))
    return _over_last_dim(L, x, node.args[1], scale, zp, before,
                          lambda v, dim: [Q8.softmax.default,
                                          [v, dim, x.zp, zp, m, s, diff_min]])


def _log_softmax(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """TFLite's LOG_SOFTMAX: its output at scale 16/256, zero point 127 (the quantizer fixes
    them so), rows of up to LOG_SOFTMAX_ROW_MAX."""
    x = L.act(node.args[0])
    if x is None or bounds != (-math.inf, math.inf) or len(node.args) < 2:
        return None
    if node.target == aten._log_softmax.default and node.args[2]:
        return None
    shape = x.node.meta["val"].shape
    if _f32(scale) != _f32(16 / 256) or zp != 127 or not shape or \
            shape[node.args[1] % len(shape)] > arith.LOG_SOFTMAX_ROW_MAX:
        return None
    try:
        params = arith.log_softmax_params(x.scale)
    except ValueError:
        return None
    return _over_last_dim(L, x, node.args[1], scale, zp, before,
                          lambda v, dim: [Q8.log_softmax.default, [v, dim, *params]])


def _over_last_dim(L, x: QValue, dim: int, scale, zp, before, call) -> QValue:
    """An op over the last dim (``call(node, dim)`` gives its target and arguments) applied
    over ``dim``: the channels of an NHWC map are its last dim; any other dim moves last by a
    transpose, and back by another."""
    rank = x.node.meta["val"].dim()
    dim = dim % max(rank, 1)
    if x.layout == NHWC and dim != 1:
        x = L.layout(x, NCHW, before)
    last = (x.layout == NHWC and dim == 1) or (x.layout == NCHW and dim == rank - 1)
    perm = list(range(rank)) if last else [d for d in range(rank) if d != dim] + [dim]
    if not last:
        x = L.value(L.call(Q8.transpose.default, [x.node, perm], before), x.scale, x.zp)
    new = L.call(*call(x.node, rank - 1), before)
    if not last:
        L.mark(new, scale, zp)
        new = L.call(Q8.transpose.default, [new, [perm.index(d) for d in range(rank)]], before)
    return L.value(new, scale, zp, x.layout)


def _minmax(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    pair = _binary_inputs(L, node, before)
    if pair is None or bounds != (-math.inf, math.inf):
        return None
    a, b = pair
    b = L.requantize(b, a.scale, a.zp, before)
    target = Q8.maximum.default if node.target == aten.maximum.default else Q8.minimum.default
    new = L.call(target, [a.node, b.node], before)
    return _shared_out(L, L.value(new, a.scale, a.zp, a.layout), scale, zp, before)


def _movement(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Views, permutes, slices and the like: the same op on the int8 bytes (in NCHW)."""
    x = L.act(node.args[0])
    if x is None or bounds != (-math.inf, math.inf) or \
            any(isinstance(a, torch.fx.Node) for a in node.args[1:]):
        return None
    if x.layout == NHWC and not (node.target in _VIEWS and L.nchw_view_ok(x)):
        x = L.layout(x, NCHW, before)
    elif x.layout == NHWC:    # same bytes: view the NHWC map as its NCHW shape first
        x = L.value(L.call(aten.view.default, [x.node, list(node.args[0].meta["val"].shape)],
                          before), x.scale, x.zp, NCHW)
    copies = node.target in (aten.clone.default, aten.contiguous.default)
    if node.target == aten.dropout.default or \
            copies and x.node.meta["val"].is_contiguous():
        new = x.node            # (a copy of a transposed view stays: a view after it needs it)
    else:
        new = L.call(node.target, [x.node, *node.args[1:]], before, dict(node.kwargs))
    return _shared_out(L, L.value(new, x.scale, x.zp, NCHW), scale, zp, before)


def _map_dim(v: QValue, dim: int) -> int:
    """Where logical dim ``dim`` of ``v`` lives in its bytes (an NHWC map keeps C last)."""
    rank = v.node.meta["val"].dim()
    dim %= max(rank, 1)
    return layout_perm(rank, NHWC).index(dim) if v.layout == NHWC else dim


def _cat(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Concatenation of int8 values of one rank: in NHWC when every part is an NHWC map (no
    transposes around a channel concat), else in NCHW."""
    parts = [L.act(t) or _cat_constant(L, t, scale, zp) for t in node.args[0]]
    if any(p is None for p in parts) or bounds != (-math.inf, math.inf):
        return None
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    layout = NHWC if all(p.layout == NHWC for p in parts) else NCHW
    parts = [L.requantize(L.layout(p, layout, before), scale, zp, before) for p in parts]
    new = L.call(aten.cat.default, [[p.node for p in parts], _map_dim(parts[0], dim)], before)
    return L.value(new, scale, zp, layout)


def _stack(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """torch.stack (an LSTM's final states): each part viewed with the new dim, concatenated."""
    parts = [L.act(t) for t in node.args[0]]
    if any(p is None for p in parts) or bounds != (-math.inf, math.inf):
        return None
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    dim = dim % node.meta["val"].dim()
    views = []
    for p in parts:
        p = L.requantize(L.layout(p, NCHW, before), scale, zp, before)
        if p is None:
            return None
        shape = list(p.node.meta["val"].shape)
        views.append(L.call(aten.view.default, [p.node, shape[:dim] + [1] + shape[dim:]],
                            before))
        L.mark(views[-1], scale, zp)
    new = views[0] if len(views) == 1 else L.call(aten.cat.default, [views, dim], before)
    return L.value(new, scale, zp, NCHW)


def _pixel_shuffle(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """pixel_shuffle / pixel_unshuffle of an NHWC map: one permute of its bytes, as
    (N, H, W, C, r, r) -> (N, H, r, W, r, C) and back. (In NCHW the same op costs a transpose
    on each side.)"""
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf):
        return None
    r = int(node.args[1])
    n, c, h, w = node.args[0].meta["val"].shape
    xin = L.layout(x, NHWC, before)
    if node.target == aten.pixel_shuffle.default:
        c //= r * r
        view, perm, out = [n, h, w, c, r, r], [0, 1, 4, 2, 5, 3], [n, h * r, w * r, c]
    else:
        h, w = h // r, w // r
        view, perm, out = [n, h, r, w, r, c], [0, 1, 3, 5, 2, 4], [n, h, w, c * r * r]
    parts = L.call(aten.view.default, [xin.node, view], before)
    moved = L.call(Q8.transpose.default, [parts, perm], before)
    for step in (parts, moved):
        L.mark(step, x.scale, x.zp)
    new = L.call(aten.view.default, [moved, out], before)
    return _shared_out(L, L.value(new, x.scale, x.zp, NHWC), scale, zp, before)


def _cat_constant(L, arg, scale, zp) -> Optional[QValue]:
    """A constant part of a concatenation (a transformer's class token), quantized at the
    output's qparams, which PT2E shares with it."""
    c = L.consts.get(arg) if isinstance(arg, torch.fx.Node) else None
    if c is None or c.values.dtype != torch.int8 or c.scales.size != 1:
        return None
    real = c.real().numpy()
    q = torch.from_numpy(arith.quantize_f32(real, _f32(scale), zp).astype(np.int8))
    return L.value(L.const(q.contiguous(), "operand"), scale, zp, NCHW)


_SPLITS = {aten.split.Tensor, aten.split_with_sizes.default, aten.chunk.default,
           aten.unbind.int, aten.tensor_split.sections}


def _split_part(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """One output (``getitem``) of a split, chunk or unbind of an int8 value: the split runs
    once on the int8 bytes, in the value's layout (a channel split of an NHWC map stays NHWC),
    and each part is requantized to its own qparams if they differ."""
    split, index = node.args
    if not (isinstance(split, torch.fx.Node) and split.op == "call_function" and
            split.target in _SPLITS) or bounds != (-math.inf, math.inf):
        return None
    x = L.act(split.args[0])
    if x is None or any(isinstance(a, torch.fx.Node) for a in split.args[1:]):
        return None
    if split not in L.splits:
        if split.target == aten.unbind.int:
            dim = split.args[1] if len(split.args) > 1 else split.kwargs.get("dim", 0)
            x = L.layout(x, NCHW, before)              # the parts lose the split dim
            sizes = [1] * x.node.meta["val"].shape[dim]
        else:
            dim = split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)
            sizes = [int(t.shape[dim]) for t in split.meta["val"]]
        parts = L.call(aten.split_with_sizes.default, [x.node, sizes, _map_dim(x, dim)],
                       before, after=x.node)
        L.splits[split] = (parts, x, split.target == aten.unbind.int)
    parts, x, unbind = L.splits[split]
    part = L.call(operator.getitem, [parts, index], before)
    if unbind:
        shape = list(node.meta["val"].shape)
        part = L.call(aten.view.default, [part, shape], before)
    return _shared_out(L, L.value(part, x.scale, x.zp, x.layout), scale, zp, before)


def _pad(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or bounds != (-math.inf, math.inf):
        return None
    pad = list(node.args[1])
    if node.target == aten.pad.default:
        mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
        value = node.args[3] if len(node.args) > 3 else node.kwargs.get("value", None)
        if mode != "constant":
            return None
    else:
        value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
    rank = x.node.meta["val"].dim()
    if rank > 4 or len(pad) % 2 or len(pad) // 2 > rank:
        return None
    q = x.zp + arith.round_half_away((value or 0.0) / _f32(x.scale))
    if not -128 <= q <= 127 or abs((q - x.zp) * _f32(x.scale) - (value or 0.0)) > 1e-6:
        return None    # a pad value int8 cannot hold
    pre, post = [0] * 4, [0] * 4
    for i in range(len(pad) // 2):           # pad lists the last dim first
        pre[3 - i], post[3 - i] = pad[2 * i], pad[2 * i + 1]
    if x.layout == NHWC:                     # NCHW dims (n, c, h, w) live at (0, 3, 1, 2)
        pre = [pre[0], pre[2], pre[3], pre[1]]
        post = [post[0], post[2], post[3], post[1]]
    new = L.call(Q8.pad.default, [x.node, pre, post, q], before)
    return _shared_out(L, L.value(new, x.scale, x.zp, x.layout), scale, zp, before)


def _upsample_nearest(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Nearest upsampling by whole factors (the usual x2), on an NHWC map: each pixel's C bytes
    repeated kh x kw times, as one expand of the map viewed (N, H, 1, W, 1, C), then viewed
    (N, H*kh, W*kw, C). Other factors keep the float op."""
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf) or \
            any(isinstance(a, torch.fx.Node) for a in node.args[1:]):
        return None
    n, c, h, w = node.args[0].meta["val"].shape
    oh, ow = node.meta["val"].shape[2:]
    if oh % h or ow % w:
        return None
    kh, kw = oh // h, ow // w
    # The source row and column of each output pixel, as the float op computes them (its
    # scale arithmetic is float): the rule holds only where that is dst // k.
    index = torch.arange(h * w, dtype=torch.float32).reshape(1, 1, h, w)
    with torch.no_grad():
        src = node.target(index, *node.args[1:], **node.kwargs)
    want = (torch.arange(oh) // kh).reshape(-1, 1) * w + torch.arange(ow) // kw
    if not torch.equal(src.reshape(oh, ow), want.to(torch.float32)):
        return None
    xin = L.layout(x, NHWC, before)
    rows = L.call(aten.view.default, [xin.node, [n, h, 1, w, 1, c]], before)
    wide = L.call(aten.expand_copy.default, [rows, [n, h, kh, w, kw, c]], before)
    new = L.call(aten.view.default, [wide, [n, oh, ow, c]], before)
    for step in (rows, wide):
        L.mark(step, x.scale, x.zp)
    return _shared_out(L, L.value(new, x.scale, x.zp, NHWC), scale, zp, before)


def _upsample_bilinear(L, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Bilinear resize of an NHWC map (TFLite's RESIZE_BILINEAR: the input's qparams, which
    PT2E shares with the output). Taken where torch's source positions are TFLite's: an output
    size, or scale factors that give it exactly (torch otherwise uses the factor itself)."""
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf) or \
            any(isinstance(a, torch.fx.Node) for a in node.args[1:]):
        return None
    a = dict(zip((arg.name for arg in node.target._schema.arguments), node.args))
    a.update(node.kwargs)       # (.vec: scale_factors; .default: scales_h, scales_w)
    h, w = node.args[0].meta["val"].shape[2:]
    oh, ow = node.meta["val"].shape[2:]
    factors = a.get("scale_factors") or [a.get("scales_h"), a.get("scales_w")]
    if any(f is not None and f * size != out
                       for f, size, out in zip(factors, (h, w), (oh, ow))):
        return None
    align = bool(a.get("align_corners", False))
    xin = L.layout(x, NHWC, before)
    new = L.call(Q8.resize_bilinear_nhwc.default, [xin.node, [oh, ow], align, not align],
                 before)
    return _shared_out(L, L.value(new, x.scale, x.zp, NHWC), scale, zp, before)


# The rules that take int16 values (an LSTM's cell state): see the module docstring.
WIDE_RULES = frozenset({_mul, _add_sub, _lut, _movement, _split_part})

FUSES = {aten.conv2d.default, aten.conv1d.default, aten.linear.default, aten.add.Tensor,
         aten.sub.Tensor, aten.conv_transpose2d.input, aten.conv_transpose1d.default}
_VIEWS = {aten.view.default, aten._unsafe_view.default, aten.reshape.default,
          aten.flatten.using_ints, aten.unflatten.int,
          aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default}
_LUT_OPS = (aten.sigmoid.default, aten.tanh.default, aten.hardswish.default, aten.gelu.default,
            aten.silu.default, aten.hardsigmoid.default, aten.exp.default, aten.log.default,
            aten.sqrt.default, aten.rsqrt.default, aten.abs.default, aten.neg.default,
            aten.leaky_relu.default, aten.elu.default, aten.erf.default, aten.reciprocal.default,
            aten.div.Tensor, aten.rsub.Scalar)      # (the last two: by a number only)

RULES: dict[object, Callable] = {
    aten.conv2d.default: _conv, aten.conv1d.default: _conv, aten.linear.default: _linear,
    aten.conv_transpose2d.input: _transpose_conv, aten.conv_transpose1d.default: _transpose_conv,
    aten.add.Tensor: _add_sub, aten.sub.Tensor: _add_sub, aten.mul.Tensor: _mul,
    aten.bmm.default: _matmul, aten.matmul.default: _matmul,
    aten.layer_norm.default: _layer_norm,
    aten.avg_pool2d.default: _avg_pool, aten.adaptive_avg_pool2d.default: _adaptive_avg_pool,
    aten.mean.dim: _mean, aten.amax.default: _amax, aten.amin.default: _amin,
    aten.sum.dim_IntList: _sum, aten.sum.default: _sum, aten.max_pool2d.default: _max_pool,
    aten.max_pool1d.default: _max_pool, aten.avg_pool1d.default: _avg_pool,
    aten.softmax.int: _softmax, aten._softmax.default: _softmax,
    aten.log_softmax.int: _log_softmax, aten._log_softmax.default: _log_softmax,
    aten.maximum.default: _minmax, aten.minimum.default: _minmax,
    aten.pixel_shuffle.default: _pixel_shuffle, aten.pixel_unshuffle.default: _pixel_shuffle,
    aten.upsample_nearest2d.vec: _upsample_nearest,
    aten.upsample_nearest2d.default: _upsample_nearest,
    aten.upsample_bilinear2d.vec: _upsample_bilinear,
    aten.upsample_bilinear2d.default: _upsample_bilinear,
    aten.cat.default: _cat, aten.stack.default: _stack, operator.getitem: _split_part,
    aten.pad.default: _pad,
    aten.constant_pad_nd.default: _pad,
    **{op: _lut for op in ACTIVATION_BOUNDS},    # a relu no producer took (may requantize)
    **{op: _lut for op in _LUT_OPS},
    **{op: _movement for op in (*_VIEWS, aten.permute.default, aten.transpose.int,
                                aten.slice.Tensor, aten.select.int, aten.dropout.default,
                                aten.clone.default, aten.contiguous.default)},
}

