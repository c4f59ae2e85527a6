"""Lower a PT2E-quantized graph to int8 kernel calls.

PT2E writes int8 as float ops between dequantize (dq) and quantize (q) nodes. This pass folds
each dq -> op -> q into one int8 op of ``aot.quantization.ops`` with its requantization
precomputed:
- conv2d (depthwise when groups == Cin) and linear, with per-channel (multiplier, shift) pairs
  rounded half away from zero as TFLite does; a relu, relu6, hardtanh or clamp after them (or
  after add) becomes the op's output range;
- add/sub and mul, with TFLite's input rescaling (left shift 20 for add);
- avg/max pooling, adaptive average pooling and means over H, W (as an average pool), softmax
  over the last (or, in NHWC, the channel) dim, max/min, padding;
- sigmoid, tanh, hardswish, gelu, silu and any other float op PT2E quantized on both sides with
  one int8 input: a 256-entry lookup table, computed with PT2E's own dq -> op -> q, so the table
  is the quantized reference itself;
- views, permutes, concatenation and slices run on the int8 bytes; where the qparams that must be
  shared differ, a lookup table requantizes.
Anything else keeps its float kernel between an int8 -> float dequantize and a float -> int8
quantize, and is listed as a fallback in the report.

Layout: conv, depthwise and pooling work on NHWC (CMSIS-NN's and TFLite Micro's layout), their
filters repacked at compile time (OHWI, and [1, KH, KW, Cout] for depthwise). A transpose is
inserted only where a value crosses between an NHWC op and an op that needs NCHW (the model's
edges, or a flatten of a map that is not 1x1); elementwise ops take whichever layout their input
has. Values are tracked as QValue(node, scale, zero point, layout).
"""
from __future__ import annotations

import copy
import math
import operator
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed ops)
from torch.export import ExportedProgram

from ..errors import QuantizationError
from ..quantization import arith
from ..quantization.ops import OPS as Q8
from ..source import source_of
from ._editor import ProgramEditor

aten = torch.ops.aten
QD = torch.ops.quantized_decomposed

NCHW, NHWC = "nchw", "nhwc"
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)

_Q = {QD.quantize_per_tensor.default}
# The qparams quantizers fix for sigmoid, softmax and tanh outputs (no observer behind them).
_FIXED_QPARAMS = {(float(np.float32(s)), zp) for s, zp in
                  ((1 / 256, -128), (1 / 256, 0), (1 / 128, 0), (1 / 128, 128))}
_DQ = {QD.dequantize_per_tensor.default}
_DQC = {QD.dequantize_per_channel.default}
_DYNAMIC = {"quantize_per_tensor.tensor", "quantize_per_tensor.tensor2",
            "dequantize_per_tensor.tensor", "dequantize_per_tensor.tensor2",
            "choose_qparams.tensor", "choose_qparams_symmetric.tensor",
            "quantize_per_token.default", "dequantize_per_token.default",
            "choose_qparams_per_token_asymmetric.default"}


@dataclass(frozen=True)
class QValue:
    """An int8 activation: its node, qparams and physical layout (4-D only: NCHW or NHWC)."""
    node: torch.fx.Node
    scale: float
    zp: int
    layout: str = NCHW


@dataclass(frozen=True)
class QConst:
    """A quantized constant (weight or bias): integer values and per-channel qparams."""
    values: torch.Tensor
    scales: np.ndarray
    zps: np.ndarray
    axis: int

    def real(self) -> torch.Tensor:
        shape = [1] * self.values.dim()
        if self.values.dim():
            shape[self.axis] = -1
        s = torch.from_numpy(self.scales.astype(np.float32)).reshape(shape)
        z = torch.from_numpy(self.zps.astype(np.float32)).reshape(shape)
        return (self.values.float() - z) * s


def mark_qparams(node: torch.fx.Node, scale, zp: int) -> None:
    """Record an int8 node's qparams where torch keeps them through re-tracing. A filter's
    scale is the tuple of its per-channel scales."""
    scale = tuple(float(s) for s in scale) if isinstance(scale, (tuple, list, np.ndarray)) \
        else float(scale)
    node.meta.setdefault("custom", {})["qparams"] = (scale, int(zp))


def qparams_of(node: torch.fx.Node):
    return (node.meta.get("custom") or {}).get("qparams")


def _located(node: torch.fx.Node, steps: int = 3) -> Optional[torch.fx.Node]:
    """The node nearest ``node`` whose stack names a file: itself, else (breadth first, out to
    ``steps`` edges) its readers and what it reads. A quantize or dequantize node or an
    observer often has no stack of its own; the op it belongs to has."""
    seen, ring = {node}, [node]
    for _ in range(steps + 1):
        for n in ring:
            if source_of(n).filename:
                return n
        ring = [m for n in ring for m in (*n.users, *n.all_input_nodes)
                if not (m in seen or seen.add(m))]
    return None


def node_where(node: torch.fx.Node) -> str:
    """The node's name and the line of the user's code it comes from (that of the op it
    belongs to, for a quantize or dequantize node without a stack of its own)."""
    at = _located(node)
    return node.name if at is None else f"{node.name} at {source_of(at)}"


def observed(value: torch.fx.Node, reader: torch.fx.Node, weight: bool) -> str:
    """How an error names the value an observer watched, with the user's source line: the
    weight of the op ``reader``, a model input, or an op's output."""
    if weight:
        return f"the weight of {node_where(reader)}"
    if value.op == "placeholder":
        return f"the input {node_where(value)}"
    return f"the output of {node_where(value)}"


def _f32(x) -> float:
    return float(np.float32(x))


def _mult_shift(real: float) -> tuple[int, int]:
    return arith.quantize_multiplier(real)


class _Lowering:
    def __init__(self, ep: ExportedProgram, int8_io: bool = False):
        self.int8_io = int8_io
        self.ed = ProgramEditor(ep)
        self.graph = self.ed.graph
        self.values: dict[torch.fx.Node, QValue] = {}     # dq node -> the int8 value it reads
        self.consts: dict[torch.fx.Node, QConst] = {}     # dq node -> quantized constant
        self.int8: dict[torch.fx.Node, QValue] = {}       # int8 node -> its value
        self.converted: dict[tuple, torch.fx.Node] = {}   # (node, layout) -> transposed node
        self.fallbacks: list[str] = []

    # -- graph building ------------------------------------------------------------------------
    def call(self, target, args, before, kwargs=None, after=None) -> torch.fx.Node:
        """A new node, before ``before`` (or right after ``after``), with its fake value."""
        place = self.graph.inserting_after(after) if after is not None else \
            self.graph.inserting_before(before)
        with place:
            node = self.graph.call_function(target, tuple(args), kwargs or {})
        node.meta = {k: v for k, v in before.meta.items()
                     if k in ("stack_trace", "nn_module_stack", "source_fn_stack")}
        fake = [a.meta["val"] if isinstance(a, torch.fx.Node) else
                [x.meta["val"] if isinstance(x, torch.fx.Node) else x for x in a]
                if isinstance(a, (list, tuple)) else a for a in args]
        with self.ed._fake_mode:
            node.meta["val"] = target(*fake, **(kwargs or {}))
        return node

    def const(self, value: torch.Tensor, hint: str) -> torch.fx.Node:
        return self.ed.add_const(value, hint)

    def value(self, node: torch.fx.Node, scale: float, zp: int, layout: str = NCHW) -> QValue:
        """A new int8 value; its node records the qparams (reports, TFLite export)."""
        mark_qparams(node, scale, zp)
        return QValue(node, scale, zp, layout)

    def weight(self, values: torch.Tensor, c: "QConst", n: int) -> torch.fx.Node:
        """A repacked int8 filter, its per-channel scales recorded (reports, TFLite export)."""
        node = self.const(values, "weight")
        mark_qparams(node, np.broadcast_to(c.scales.astype(np.float32), (n,)), 0)
        return node

    def layout(self, v: QValue, want: str, before) -> QValue:
        out = self._layout(v, want, before)
        mark_qparams(out.node, v.scale, v.zp)
        return out

    def _layout(self, v: QValue, want: str, before) -> QValue:
        """``v`` in layout ``want`` (4-D values only), transposing once per value."""
        if v.layout == want or v.node.meta["val"].dim() != 4:
            return v if v.layout == want else QValue(v.node, v.scale, v.zp, want)
        key = (v.node, want)
        if key not in self.converted:
            perm = TO_NHWC if want == NHWC else TO_NCHW
            shape = list(v.node.meta["val"].shape)
            moved = [d for d in perm if shape[d] > 1]
            # Right after the value: every later reader (in any order) may share it. When only
            # size-1 dims move (a one-channel input, a 1x1 map), the bytes are already in the
            # new order: a view, no copy and no kernel.
            if moved == sorted(moved):
                self.converted[key] = self.call(aten.view.default,
                                                [v.node, [shape[d] for d in perm]], before,
                                                after=v.node)
            else:
                self.converted[key] = self.call(Q8.transpose.default, [v.node, list(perm)],
                                                before, after=v.node)
        return QValue(self.converted[key], v.scale, v.zp, want)

    def nchw_view_ok(self, v: QValue) -> bool:
        """Whether an NHWC map's bytes are already in NCHW order (C == 1 or H * W == 1)."""
        n, h, w, c = v.node.meta["val"].shape
        return c == 1 or h * w == 1

    def requantize(self, v: QValue, scale: float, zp: int, before) -> QValue:
        """``v`` with qparams (scale, zp): a lookup table, or ``v`` itself if they agree."""
        if _f32(v.scale) == _f32(scale) and v.zp == zp:
            return v
        m, s = _mult_shift(_f32(v.scale) / _f32(scale))
        table = np.clip(arith.requantize(np.arange(-128, 128) - v.zp, m, s) + zp, -128, 127)
        node = self.call(Q8.quantized_activation.default,
                         [v.node, self.const(torch.from_numpy(table.astype(np.int8)), "lut")],
                         before)
        mark_qparams(node, scale, zp)
        return QValue(node, scale, zp, v.layout)

    # -- reading the PT2E graph ----------------------------------------------------------------
    def check(self, node) -> None:
        name = f"{node.target}" if node.op == "call_function" else ""
        short = name.split("quantized_decomposed.")[-1]
        if short in _DYNAMIC:
            raise QuantizationError(f"{node_where(node)}: dynamic quantization ({short}) is "
                                    "not supported; quantize statically (aot.quantize with a "
                                    "calibration set)")
        if node.target in _Q | _DQ | _DQC:
            dtype = node.args[-1] if not node.kwargs.get("dtype") else node.kwargs["dtype"]
            qmin, qmax = node.args[-3], node.args[-2]
            if dtype == torch.int32 and node.target in _DQ | _DQC and \
                    self.ed.is_const(node.args[0]):
                return     # an int32 bias
            if dtype != torch.int8:
                raise QuantizationError(f"{node_where(node)}: {dtype} quantization is not "
                                        "supported; mcu-aot runs int8 (activations and weights)")
            if qmax - qmin < 200:
                bits = int(math.log2(qmax - qmin + 1))
                raise QuantizationError(f"{node_where(node)}: {bits}-bit values (range "
                                        f"[{qmin}, {qmax}]) are not supported; mcu-aot runs "
                                        "8-bit int8")

    def check_calibrated(self) -> None:
        """Refuse a model PT2E converted without calibration. An observer that saw no data
        leaves PT2E's defaults in the converted graph: scale 1.0 and zero point 0 (one scale,
        however many channels, for a per-channel weight), so the weights round to zeros and
        the int8 model computes zeros. A calibrated observer can give (1.0, 0) only where the
        data spans exactly [-128, 127] (a weight's then reaches the end of the int8 range), so
        the graph is refused where a per-channel weight has the lone default scale, or where
        every observed value has the defaults (fixed qparams, as softmax's, aside) and every
        weight under them rounds to a few steps of zero."""
        idle, certain, calibrated = [], False, False
        for node in self.graph.nodes:
            if node.op != "call_function":
                continue
            if node.target in _DQ | _DQC and self.ed.is_const(node.args[0]):
                state = self._weight_state(node)
                if state is None:
                    continue
                if state == "calibrated":
                    calibrated = True
                    continue
                certain = certain or state == "idle"
                idle.append(observed(node.args[0], next(iter(node.users), node), True))
            elif node.target in _Q and not self.ed.is_const(node.args[0]):
                qparams = (_f32(node.args[1]), int(node.args[2]))
                if qparams == (1.0, 0):
                    idle.append(observed(node.args[0], node, False))
                elif qparams not in _FIXED_QPARAMS:
                    calibrated = True
        if idle and (certain or not calibrated):
            listed = "".join(f"\n  {what}" for what in idle[:8]) + \
                (f"\n  ... and {len(idle) - 8} more" if len(idle) > 8 else "")
            raise QuantizationError(
                f"the model was quantized but never calibrated: {len(idle)} observer(s) saw no "
                "data, so PT2E gave them its defaults (scale 1.0, zero point 0) and the int8 "
                f"model would compute zeros:{listed}\nRun calibration inputs through the "
                "prepared model (prepare_pt2e) before convert_pt2e, or use aot.quantize with a "
                "calibration set.")

    def _weight_state(self, dq) -> Optional[str]:
        """For the dequantize of an int8 constant: "idle" (the lone default scale of a
        per-channel weight: certainly no data), "default" (scale 1.0 and zero point 0, the
        values a few steps from zero), "calibrated", or None (not an int8 weight)."""
        values = self.ed.const_value(dq.args[0])
        if values is None or values.dtype != torch.int8 or values.numel() == 0:
            return None
        qmin, qmax = dq.args[-3], dq.args[-2]
        if dq.target in _DQC:
            scales = self.ed.const_value(dq.args[1])
            zps = self.ed.const_value(dq.args[2]) if dq.args[2] is not None else None
            if scales is None:
                return None
            axis = dq.args[3]
            channels = values.shape[axis] if values.dim() else 1
            default = bool((scales == 1.0).all()) and (zps is None or not bool(zps.any()))
            if scales.numel() != channels:
                if default and scales.numel() == 1:
                    return "idle"
                raise QuantizationError(f"{node_where(dq)}: {scales.numel()} per-channel "
                                        f"scales for a weight of {channels} channels (axis "
                                        f"{axis})")
        else:
            default = _f32(dq.args[1]) == 1.0 and int(dq.args[2]) == 0
        if not default:
            return "calibrated"
        spread = int(values.to(torch.int64).abs().max())
        return "default" if spread < (qmax - qmin) // 4 else "calibrated"

    def read_dq(self, node) -> None:
        src = node.args[0]
        if node.target in _DQC:
            values = self.ed.const_value(src)
            scales = self.ed.const_value(node.args[1])
            zps = self.ed.const_value(node.args[2]) if node.args[2] is not None else None
            if values is None or scales is None:
                raise QuantizationError(f"{node_where(node)}: per-channel dequantize of a "
                                        "tensor that is not a constant")
            zps = np.zeros(scales.numel(), np.int64) if zps is None else \
                zps.numpy().astype(np.int64)
            self.consts[node] = QConst(values, scales.double().numpy(), zps, node.args[3])
            return
        scale, zp = float(node.args[1]), int(node.args[2])
        if src in self.int8:        # a q node this pass already replaced
            self.values[node] = self.int8[src]
            return
        value = self.ed.const_value(src) if isinstance(src, torch.fx.Node) else None
        if value is not None:
            self.consts[node] = QConst(value, np.array([scale]), np.array([zp]), 0)
            return
        self.values[node] = QValue(src, scale, zp)   # an int8 graph input

    # -- the pass ------------------------------------------------------------------------------
    def run(self) -> None:
        self.check_calibrated()
        for node in list(self.graph.nodes):
            if node.op != "call_function":
                continue
            self.check(node)
            if node.target in _DQ | _DQC:
                self.read_dq(node)
            elif node.target in _Q:
                self.lower_q(node)
        self.finish_dequantizes()

    def lower_q(self, q) -> None:
        src, scale, zp = q.args[0], float(q.args[1]), int(q.args[2])
        made = None
        if src in self.values:                       # dq -> q: a requantize
            made = self.requantize(self.values[src], scale, zp, q)
        elif isinstance(src, torch.fx.Node) and src.op == "call_function" and \
                len(src.users) == 1:
            made = self.lower_op(src, scale, zp, q)
        if made is None and self.int8_io and isinstance(src, torch.fx.Node) and \
                src.op == "placeholder" and len(src.users) == 1 and \
                self.ed.spec_of(src) is not None and not self.ed.is_const(src):
            made = self.int8_input(src, scale, zp)
        if made is None:
            if isinstance(src, torch.fx.Node) and src.op == "call_function" and \
                    src.target is not operator.getitem:
                self.fallbacks.append(f"{src.target}: {node_where(src)}")
            node = self.call(Q8.quantize_per_tensor.default, list(q.args[:5]) + [torch.int8],
                             q)
            made = QValue(node, scale, zp)
        self.int8[made.node] = made
        q.replace_all_uses_with(made.node)
        mark_qparams(made.node, made.scale, made.zp)

    def int8_input(self, x, scale, zp) -> QValue:
        """A float graph input that is only quantized becomes an int8 input."""
        val = x.meta["val"]
        x.meta["val"] = self.ed._fake_mode.from_tensor(
            torch.empty(tuple(val.shape), dtype=torch.int8), static_shapes=True)
        return QValue(x, scale, zp)

    def finish_dequantizes(self) -> None:
        """Each dq still read by a float op (or the output) becomes a real dequantize; with
        int8 I/O, a dq read only by the output goes, and the output is the int8 value."""
        output = next(n for n in reversed(self.graph.nodes) if n.op == "output")
        self.graph.eliminate_dead_code()          # the float ops that int8 ops replaced
        for dq, v in list(self.values.items()):
            if dq.graph is not self.graph:        # removed as dead
                continue
            if not dq.users:
                continue
            if v.layout == NHWC:
                v = self.layout(v, NCHW, dq)
            if self.int8_io and set(dq.users) == {output}:
                mark_qparams(v.node, v.scale, v.zp)
                dq.replace_all_uses_with(v.node)
                continue
            node = self.call(Q8.dequantize_per_tensor.default,
                             [v.node, dq.args[1], dq.args[2], dq.args[3], dq.args[4],
                              torch.int8], dq)
            dq.replace_all_uses_with(node)
        for dq, c in self.consts.items():
            if dq.graph is self.graph and dq.users:
                dq.replace_all_uses_with(self.const(c.real(), "dequantized"))

    # -- one float op, read as int8 ------------------------------------------------------------
    def act(self, node) -> Optional[QValue]:
        return self.values.get(node) if isinstance(node, torch.fx.Node) else None

    def lower_op(self, op, scale, zp, before) -> Optional[QValue]:
        lo, hi, core = -math.inf, math.inf, op
        bounds = _ACTIVATION_BOUNDS.get(op.target)
        if bounds is not None and isinstance(op.args[0], torch.fx.Node) and \
                op.args[0].op == "call_function" and op.args[0].target in _FUSES and \
                len(op.args[0].users) == 1:
            lo, hi = bounds(op)
            core = op.args[0]
        rule = _RULES.get(core.target)
        if rule is None:
            return None
        return rule(self, core, scale, zp, (lo, hi), before)


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


_ACTIVATION_BOUNDS = {aten.relu.default: _relu, aten.relu6.default: _relu6,
                      aten.hardtanh.default: _hardtanh, aten.clamp.default: _clamp}


# -- rules: float op -> int8 op ------------------------------------------------------------------

def _bias_values(L: _Lowering, b, s_in: float, s_w: np.ndarray, where) -> \
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


def _weight(L: _Lowering, w, where) -> Optional[QConst]:
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


def _conv(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    args = list(node.args) + [None] * (7 - len(node.args))
    x, w, b = L.act(args[0]), args[1], args[2]
    stride, padding, dilation, groups = (args[3] or [1, 1]), args[4], (args[5] or [1, 1]), \
        (args[6] or 1)
    if x is None or x.node.meta["val"].dim() != 4 or isinstance(padding, str):
        return None
    padding = padding if padding is not None else [0, 0]
    stride, padding, dilation = ([v] * 2 if isinstance(v, int) else list(v) * (2 // len(v))
                                 for v in (stride, padding, dilation))
    wc = _weight(L, w, node)
    if wc is None:
        return None
    cout, cin_g = wc.values.shape[0], wc.values.shape[1]
    cin = x.node.meta["val"].shape[1 if x.layout == NCHW else 3]
    mults, shifts = _channel_mults(x.scale, wc.scales, scale, cout)
    bias = _bias_values(L, b, x.scale, np.broadcast_to(wc.scales, (cout,)), node)
    lo, hi = _out_range(bounds, scale, zp)
    xin = L.layout(x, NHWC, before)
    mult_t = L.const(torch.tensor(mults, dtype=torch.int32), "mults")
    shift_t = L.const(torch.tensor(shifts, dtype=torch.int32), "shifts")
    bias_n = None if bias is None else L.const(bias, "bias")
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
    return L.value(new, scale, zp, NHWC)


def _linear(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    args = list(node.args) + [None] * (3 - len(node.args))
    x, w, b = L.act(args[0]), args[1], args[2]
    wc = _weight(L, w, node)
    if x is None or wc is None:
        return None
    x = L.layout(x, NCHW, before) if not (x.layout == NHWC and L.nchw_view_ok(x)) else x
    if x.layout == NHWC:
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


def _binary_inputs(L: _Lowering, node, before) -> Optional[tuple[QValue, QValue]]:
    a, b = L.act(node.args[0]), L.act(node.args[1]) if len(node.args) > 1 else None
    if a is None or b is None:
        return None
    ra, rb = a.node.meta["val"].dim(), b.node.meta["val"].dim()
    if a.layout != b.layout:       # meet in NHWC if both are maps, else in NCHW
        want = NHWC if ra == rb == 4 else NCHW
        a, b = L.layout(a, want, before), L.layout(b, want, before)
    elif a.layout == NHWC and ra != rb:
        a, b = L.layout(a, NCHW, before), L.layout(b, NCHW, before)
    return a, b


def _add_sub(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    if not isinstance(node.args[1], torch.fx.Node):     # x + number: a lookup table
        return _lut(L, node, scale, zp, bounds, before)
    alpha = node.kwargs.get("alpha", node.args[2] if len(node.args) > 2 else 1)
    if alpha != 1:
        return None
    pair = _binary_inputs(L, node, before)
    if pair is None:
        return None
    a, b = pair
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


def _mul(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    if not isinstance(node.args[1], torch.fx.Node):     # x * number: a lookup table
        return _lut(L, node, scale, zp, bounds, before)
    pair = _binary_inputs(L, node, before)
    if pair is None or bounds != (-math.inf, math.inf):
        return None
    a, b = pair
    m, s = _mult_shift(_f32(a.scale) * _f32(b.scale) / _f32(scale))
    new = L.call(Q8.quantized_mul.default, [a.node, a.zp, b.node, b.zp, zp, m, s], before)
    return L.value(new, scale, zp, a.layout)


def _lut(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    """Any one-input elementwise float op: PT2E's dq -> op -> q over all 256 int8 codes."""
    x = L.act(node.args[0])
    rest = node.args[1:]
    if x is None or any(isinstance(a, torch.fx.Node) for a in rest) or \
            node.meta["val"].shape != node.args[0].meta["val"].shape:
        return None
    codes = torch.arange(-128, 128, dtype=torch.int8)
    real = QD.dequantize_per_tensor.default(codes, x.scale, x.zp, -128, 127, torch.int8)
    with torch.no_grad():
        y = node.target(real, *rest, **node.kwargs)
        y = torch.clamp(y, bounds[0], bounds[1])          # a relu/clamp folded into it
    table = QD.quantize_per_tensor.default(y.float(), scale, zp, -128, 127, torch.int8)
    new = L.call(Q8.quantized_activation.default, [x.node, L.const(table, "lut")], before)
    return L.value(new, scale, zp, x.layout)


def _pool_args(node):
    a = list(node.args)
    kernel = list(a[1]) if isinstance(a[1], (list, tuple)) else [a[1]] * 2
    stride = a[2] if len(a) > 2 and a[2] else kernel
    stride = list(stride) if isinstance(stride, (list, tuple)) else [stride] * 2
    padding = a[3] if len(a) > 3 else 0
    padding = list(padding) if isinstance(padding, (list, tuple)) else [padding] * 2
    kernel, stride, padding = ([v[0]] * 2 if len(v) == 1 else v for v in (kernel, stride,
                                                                          padding))
    return kernel, stride, padding, a


def _shared_out(L, v: QValue, scale, zp, before) -> QValue:
    return L.requantize(v, scale, zp, before)


def _avg_pool(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf):
        return None
    kernel, stride, padding, a = _pool_args(node)
    ceil_mode = a[4] if len(a) > 4 else False
    count_include_pad = a[5] if len(a) > 5 else True
    divisor = a[6] if len(a) > 6 else None
    if ceil_mode or divisor is not None:
        return None
    xin = L.layout(x, NHWC, before)
    if any(padding) and count_include_pad:    # the padding counts: make it real, value z_in
        xin = L.value(L.call(Q8.pad.default, [xin.node, [0, padding[0], padding[1], 0],
                                             [0, padding[0], padding[1], 0], x.zp], before),
                     x.scale, x.zp, NHWC)
        padding = [0, 0]
    return _avg_pool_nhwc(L, xin, kernel, stride, padding, scale, zp, before)


def _avg_pool_nhwc(L, xin: QValue, kernel, stride, padding, scale, zp, before) -> QValue:
    m, s = _mult_shift(1.0)
    new = L.call(Q8.quantized_avg_pool2d_nhwc.default,
                 [xin.node, kernel, stride, padding, False, xin.zp, m, s], before)
    return _shared_out(L, L.value(new, xin.scale, xin.zp, NHWC), scale, zp, before)


def _adaptive_avg_pool(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
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


def _mean(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4 or bounds != (-math.inf, math.inf):
        return None
    dims = sorted(d % 4 for d in node.args[1])
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    if dims != [2, 3]:
        return None
    shape = x.node.meta["val"].shape
    h, w = (shape[2], shape[3]) if x.layout == NCHW else (shape[1], shape[2])
    pooled = _avg_pool_nhwc(L, L.layout(x, NHWC, before), [h, w], [h, w], [0, 0], scale, zp,
                            before)
    if keepdim:
        return pooled
    n, c = shape[0], (shape[1] if x.layout == NCHW else shape[3])
    view = L.call(aten.view.default, [pooled.node, [n, c]], before)
    return L.value(view, scale, zp, NCHW)


def _max_pool(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or x.node.meta["val"].dim() != 4:
        return None
    kernel, stride, padding, a = _pool_args(node)
    dilation = a[4] if len(a) > 4 else [1, 1]
    dilation = list(dilation) if isinstance(dilation, (list, tuple)) else [dilation] * 2
    dilation = dilation * 2 if len(dilation) == 1 else dilation
    ceil_mode = a[5] if len(a) > 5 else False
    xin = L.layout(x, NHWC, before)
    lo, hi = _out_range(bounds, x.scale, x.zp)
    new = L.call(Q8.quantized_max_pool2d_nhwc.default,
                 [xin.node, kernel, stride, padding, dilation, ceil_mode, x.zp, x.zp, lo, hi],
                 before)
    return _shared_out(L, L.value(new, x.scale, x.zp, NHWC), scale, zp, before)


def _softmax(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    x = L.act(node.args[0])
    if x is None or bounds != (-math.inf, math.inf) or len(node.args) < 2:
        return None
    if node.target == aten._softmax.default and node.args[2]:
        return None
    rank = x.node.meta["val"].dim()
    dim = node.args[1] % max(rank, 1)
    if x.layout == NHWC and dim != 1:
        x = L.layout(x, NCHW, before)
    last = (x.layout == NHWC and dim == 1) or (x.layout == NCHW and dim == rank - 1)
    if not last or _f32(scale) != _f32(1 / 256) or zp != -128:
        return None
    real = min(_f32(x.scale) * float(1 << 26), float((1 << 31) - 1))
    m, s = _mult_shift(real)
    if s < 0:
        return None
    diff_min = -math.floor(31.0 * (1 << 26) / (1 << s))
    new = L.call(Q8.softmax.default, [x.node, rank - 1, x.zp, zp, m, s, diff_min], before)
    return L.value(new, scale, zp, x.layout)


def _minmax(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    pair = _binary_inputs(L, node, before)
    if pair is None or bounds != (-math.inf, math.inf):
        return None
    a, b = pair
    b = L.requantize(b, a.scale, a.zp, before)
    target = Q8.maximum.default if node.target == aten.maximum.default else Q8.minimum.default
    new = L.call(target, [a.node, b.node], before)
    return _shared_out(L, L.value(new, a.scale, a.zp, a.layout), scale, zp, before)


def _movement(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
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
    if node.target in (aten.dropout.default, aten.clone.default, aten.contiguous.default):
        new = x.node
    else:
        new = L.call(node.target, [x.node, *node.args[1:]], before, dict(node.kwargs))
    return _shared_out(L, L.value(new, x.scale, x.zp, NCHW), scale, zp, before)


def _cat(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
    parts = [L.act(t) for t in node.args[0]]
    if any(p is None for p in parts) or bounds != (-math.inf, math.inf):
        return None
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    parts = [L.requantize(L.layout(p, NCHW, before), scale, zp, before) for p in parts]
    new = L.call(aten.cat.default, [[p.node for p in parts], dim], before)
    return L.value(new, scale, zp, NCHW)


def _pad(L: _Lowering, node, scale, zp, bounds, before) -> Optional[QValue]:
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


_FUSES = {aten.conv2d.default, aten.linear.default, aten.add.Tensor, aten.sub.Tensor}
_VIEWS = {aten.view.default, aten.reshape.default, aten.flatten.using_ints,
          aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default}
_LUT_OPS = (aten.sigmoid.default, aten.tanh.default, aten.hardswish.default, aten.gelu.default,
            aten.silu.default, aten.hardsigmoid.default, aten.exp.default, aten.log.default,
            aten.sqrt.default, aten.rsqrt.default, aten.abs.default, aten.neg.default,
            aten.leaky_relu.default, aten.elu.default, aten.erf.default, aten.reciprocal.default)

_RULES: dict[object, Callable] = {
    aten.conv2d.default: _conv, aten.linear.default: _linear,
    aten.add.Tensor: _add_sub, aten.sub.Tensor: _add_sub, aten.mul.Tensor: _mul,
    aten.avg_pool2d.default: _avg_pool, aten.adaptive_avg_pool2d.default: _adaptive_avg_pool,
    aten.mean.dim: _mean, aten.max_pool2d.default: _max_pool,
    aten.softmax.int: _softmax, aten._softmax.default: _softmax,
    aten.maximum.default: _minmax, aten.minimum.default: _minmax,
    aten.cat.default: _cat, aten.pad.default: _pad, aten.constant_pad_nd.default: _pad,
    **{op: _lut for op in _ACTIVATION_BOUNDS},    # a relu no producer took (may requantize)
    **{op: _lut for op in _LUT_OPS},
    **{op: _movement for op in (*_VIEWS, aten.permute.default, aten.transpose.int,
                                aten.slice.Tensor, aten.select.int, aten.dropout.default,
                                aten.clone.default, aten.contiguous.default)},
}


def has_quantized_ops(ep: ExportedProgram) -> bool:
    return any(n.op == "call_function" and getattr(n.target, "namespace", None) ==
               "quantized_decomposed" for n in ep.graph.nodes)


def lower_quantized(ep: ExportedProgram, int8_io: bool = False) -> ExportedProgram:
    """dq -> op -> q patterns become int8 ops; the rest stays float between them. With
    ``int8_io`` the model's float inputs and outputs become its int8 ones."""
    if not has_quantized_ops(ep):
        return ep
    lowering = _Lowering(copy.deepcopy(ep), int8_io)   # the user's program stays as it was
    lowering.run()
    out = lowering.ed.finish()
    out.graph_module.meta["int8_fallbacks"] = tuple(lowering.fallbacks)
    return out
