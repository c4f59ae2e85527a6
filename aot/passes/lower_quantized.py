"""Lower a PT2E-quantized graph to int8 kernel calls.

PT2E writes int8 as float ops between dequantize (dq) and quantize (q) nodes. This pass folds
each dq -> op -> q into one int8 op of ``aot.quantization.ops`` with its requantization
precomputed:
- conv2d and conv1d (depthwise when groups == Cin; conv1d as a 2-D convolution of one row, as
  TFLite runs it) and linear, with per-channel (multiplier, shift) pairs rounded half away from
  zero as TFLite does; a relu, relu6, hardtanh or clamp after them (or after add) becomes the
  op's output range;
- add/sub and mul of two activations, or of one and a parameter tensor, with TFLite's input
  rescaling (left shift 20 for add);
- avg/max pooling of one or two dims, adaptive average pooling and means over the spatial dims
  (as an average pool), softmax
  over the last (or, in NHWC, the channel) dim, max/min, padding;
- sigmoid, tanh, hardswish, gelu, silu and any other float op PT2E quantized on both sides with
  one int8 input: a 256-entry lookup table, computed with PT2E's own dq -> op -> q, so the table
  is the quantized reference itself;
- views, permutes, concatenation and slices run on the int8 bytes; where the qparams that must be
  shared differ, a lookup table requantizes.
Anything else keeps its float kernel between an int8 -> float dequantize and a float -> int8
quantize, and is listed as a fallback in the report.

Layout: conv, depthwise and pooling work on NHWC (CMSIS-NN's and TFLite Micro's layout; a
rank-3 map (N, C, L) is stored (N, L, C) and viewed as (N, 1, L, C) for a 2-D kernel), their
filters repacked at compile time (OHWI, and [1, KH, KW, Cout] for depthwise). A transpose is
inserted only where a value crosses between an NHWC op and an op that needs NCHW (the model's
edges, or a flatten of a map that is not 1x1); elementwise ops take whichever layout their input
has. Values are tracked as QValue(node, scale, zero point, layout).

This module walks the graph; the rule of each op is in ``_int8_rules``, the values and their
qparams in ``_int8_values``.
"""
from __future__ import annotations

import copy
import math
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed ops)
from torch.export import ExportedProgram

from ..errors import QuantizationError
from ..quantization import arith
from ..quantization.ops import LIB, OPS as Q8
from ..source import source_of
from ._editor import ProgramEditor
from ._int8_rules import _VIEWS, ACTIVATION_BOUNDS, FUSES, RULES, WIDE_RULES, wide
from ._int8_values import (NCHW, NHWC, QConst, QParams, QValue, as_qparams, layout_perm,
                           f32 as _f32, mult_shift as _mult_shift, node_where, observed)
from .provenance import carry

if TYPE_CHECKING:
    from .patch_stage import PatchStage

aten = torch.ops.aten
QD = torch.ops.quantized_decomposed

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
class Fallback:
    """A float op the lowering left between int8 ones (no int8 rule took it)."""
    op: str          # the op as the user's program wrote it, e.g. "aten.cumsum.default"
    source: str      # the user's line
    why: str = ""    # why it stays float, as the report prints it


@dataclass(frozen=True)
class Int8Facts:
    """What the int8 lowering knows of a program's nodes, by node name: each int8 value's
    qparams and each float fallback. ``carried`` re-keys both after a pass."""
    qparams: Mapping[str, QParams] = field(default_factory=dict)
    fallbacks: Mapping[str, Fallback] = field(default_factory=dict)
    patches: Optional[PatchStage] = None    # the stage computed patch by patch

    def carried(self, old: ExportedProgram, new: ExportedProgram) -> "Int8Facts":
        """The same facts about ``new``, which a pass made of ``old``."""
        if not (self.qparams or self.fallbacks):
            return self
        return Int8Facts(carry(old, new, self.qparams), carry(old, new, self.fallbacks),
                         self.patches)


@dataclass(frozen=True)
class Int8Lowering:
    """What ``lower_quantized`` hands on: the program and the facts about its int8 nodes."""
    program: ExportedProgram
    facts: Int8Facts


class _Lowering:
    def __init__(self, ep: ExportedProgram, int8_io: bool = False):
        self.int8_io = int8_io
        self.ed = ProgramEditor(ep)
        self.graph = self.ed.graph
        self.values: dict[torch.fx.Node, QValue] = {}     # dq node -> the int8 value it reads
        self.consts: dict[torch.fx.Node, QConst] = {}     # dq node -> quantized constant
        self.int8: dict[torch.fx.Node, QValue] = {}       # int8 node -> its value
        self.converted: dict[tuple, torch.fx.Node] = {}   # (node, layout) -> transposed node
        self.splits: dict[torch.fx.Node, tuple] = {}      # float split -> (int8 split, ...)
        self.dequantized: set[torch.fx.Node] = set()      # int8 -> float, for float ops
        self.qparams: dict[torch.fx.Node, QParams] = {}   # int8 node -> its scale, zero point

    def mark(self, node: torch.fx.Node, scale, zp: int) -> None:
        """Record an int8 node's qparams (a filter's scale: its per-channel scales)."""
        self.qparams[node] = as_qparams(scale, zp)

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
        """A new int8 value, its qparams recorded (reports, the header, TFLite export)."""
        self.mark(node, scale, zp)
        return QValue(node, scale, zp, layout)

    def weight(self, values: torch.Tensor, c: "QConst", n: int) -> torch.fx.Node:
        """A repacked int8 filter, its per-channel scales recorded (reports, TFLite export)."""
        node = self.const(values, "weight")
        self.mark(node, np.broadcast_to(c.scales.astype(np.float32), (n,)), 0)
        return node

    def layout(self, v: QValue, want: str, before) -> QValue:
        out = self._layout(v, want, before)
        self.mark(out.node, v.scale, v.zp)
        return out

    def _layout(self, v: QValue, want: str, before) -> QValue:
        """``v`` in layout ``want`` (maps of rank 3 or 4 only), transposing once per value."""
        if v.layout == want or v.node.meta["val"].dim() not in (3, 4):
            return v if v.layout == want else QValue(v.node, v.scale, v.zp, want)
        key = (v.node, want)
        if key not in self.converted:
            perm = layout_perm(v.node.meta["val"].dim(), want)
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
        """Whether an NHWC map's bytes are already in NCHW order (C == 1, or one pixel)."""
        shape = v.node.meta["val"].shape
        return shape[-1] == 1 or math.prod(shape[1:-1]) == 1

    def requantize(self, v: QValue, scale: float, zp: int, before) -> Optional[QValue]:
        """``v`` with qparams (scale, zp): a lookup table, or ``v`` itself if they agree (None
        for an int16 value at other qparams)."""
        if _f32(v.scale) == _f32(scale) and v.zp == zp:
            return v
        if v.dtype != torch.int8:
            return None
        m, s = _mult_shift(_f32(v.scale) / _f32(scale))
        table = np.clip(arith.requantize(np.arange(-128, 128) - v.zp, m, s) + zp, -128, 127)
        node = self.call(Q8.quantized_activation.default,
                         [v.node, self.const(torch.from_numpy(table.astype(np.int8)), "lut")],
                         before)
        self.mark(node, scale, zp)
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
            if dtype == torch.int16 and (qmin, qmax) == (-32768, 32767) and \
                    (node.target in _DQC or int(node.args[2]) == 0):
                return     # an LSTM's cell state (the quantizer's CELL)
            if dtype != torch.int8:
                raise QuantizationError(f"{node_where(node)}: {dtype} quantization is not "
                                        "supported; mcu-aot runs int8 (activations and "
                                        "weights), and int16 only for an LSTM's cell state "
                                        "(symmetric)")
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
        self.sink_tables()

    def sink_tables(self) -> None:
        """Move each lookup table (a requantize or an activation) to just before its first
        reader. Its input and output are the same size, so between the two places one of them
        is live either way; where the input stays live anyway, the output no longer is (a
        recurrent layer requantizes every step's slice of one input projection up front)."""
        for node in reversed(list(self.graph.nodes)):
            if node.op != "call_function" or node.target != Q8.quantized_activation.default or \
                    not node.users:
                continue
            first = node.next
            while first not in node.users:
                first = first.next
            if first is not node.next and first.op != "output":
                first.prepend(node)

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
        if made is None and q.args[5] != torch.int8 and not self.constant(src):
            raise QuantizationError(f"{node_where(q)}: {q.args[5]} quantization is not "
                                    f"supported for {src.name}; mcu-aot runs int16 only for "
                                    "an LSTM's cell state (its products, sum and tanh)")
        if made is None:         # a float op between int8 ones: the report lists it
            node = self.call(Q8.quantize_per_tensor.default, list(q.args[:6]), q)
            made = QValue(node, scale, zp)
        self.int8[made.node] = made
        q.replace_all_uses_with(made.node)
        self.mark(made.node, made.scale, made.zp)

    def constant(self, node) -> bool:
        """Whether ``node`` computes a constant: no model input reaches it (fold_constants
        then folds it, and the quantize after it, into flash)."""
        if not isinstance(node, torch.fx.Node):
            return True
        ring, seen = [node], {node}
        while ring:
            n = ring.pop()
            if n.op == "placeholder" and not self.ed.is_const(n):
                return False
            for m in n.all_input_nodes:
                if m not in seen:
                    seen.add(m)
                    ring.append(m)
        return True

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
            if v.dtype != torch.int8:
                raise QuantizationError(f"{node_where(next(iter(dq.users)))}: "
                                        f"{v.dtype} quantization is not supported for a value "
                                        "read as float; mcu-aot runs int16 only for an LSTM's "
                                        "cell state (its products, sum and tanh)")
            if v.layout == NHWC:
                v = self.layout(v, NCHW, dq)
            if self.int8_io and set(dq.users) == {output}:
                self.mark(v.node, v.scale, v.zp)
                dq.replace_all_uses_with(v.node)
                continue
            node = self.call(Q8.dequantize_per_tensor.default,
                             [v.node, dq.args[1], dq.args[2], dq.args[3], dq.args[4],
                              torch.int8], dq)
            dq.replace_all_uses_with(node)
            self.dequantized.add(node)
        for dq, c in self.consts.items():
            if dq.graph is self.graph and dq.users:
                dq.replace_all_uses_with(self.const(c.real(), "dequantized"))

    def fallbacks(self) -> dict[str, Fallback]:
        """The float ops that read a dequantized int8 value or a float model input, directly
        or through other such ops: where the network runs float because no int8 rule took the
        op (or the quantizer left it unannotated, as a layer it does not know)."""
        floating = set(self.dequantized) | {
            n for n in self.graph.nodes if n.op == "placeholder" and not self.ed.is_const(n)
            and self.ed.spec_of(n) is not None and n.meta["val"].is_floating_point()}
        found = {}
        for node in self.graph.nodes:
            if node.op != "call_function" or node in floating or \
                    getattr(node.target, "namespace", None) == LIB.ns or \
                    not any(a in floating for a in node.all_input_nodes):
                continue
            floating.add(node)
            if node.target is operator.getitem:
                continue
            found[node.name] = Fallback(str(node.target), str(source_of(node)),
                                        _why_float(node))
            if node.target in _VIEWS:    # it becomes a zero-copy alias, no call: the dequantize
                for dq in set(node.all_input_nodes) & self.dequantized:   # it reads stands
                    found.setdefault(dq.name, found[node.name])            # for it
        return found

    # -- one float op, read as int8 ------------------------------------------------------------
    def act(self, node) -> Optional[QValue]:
        return self.values.get(node) if isinstance(node, torch.fx.Node) else None

    def lower_op(self, op, scale, zp, before) -> Optional[QValue]:
        lo, hi, core = -math.inf, math.inf, op
        bounds = ACTIVATION_BOUNDS.get(op.target)
        if bounds is not None and isinstance(op.args[0], torch.fx.Node) and \
                op.args[0].op == "call_function" and op.args[0].target in FUSES and \
                len(op.args[0].users) == 1:
            lo, hi = bounds(op)
            core = op.args[0]
        rule = RULES.get(core.target)
        if rule is None:
            return None
        values = [v for v in map(self.act, core.all_input_nodes) if v is not None]
        if wide(before, *values) and rule not in WIDE_RULES:
            return None
        return rule(self, core, scale, zp, (lo, hi), before)


def _why_float(node: torch.fx.Node) -> str:
    if node.target in RULES:
        return ("its int8 rule does not take this call (its arguments, operands or layout; "
                "docs/int8.md lists what each rule takes)")
    return "mcu-aot has no int8 kernel for this op"


def has_quantized_ops(ep: ExportedProgram) -> bool:
    return any(n.op == "call_function" and getattr(n.target, "namespace", None) ==
               "quantized_decomposed" for n in ep.graph.nodes)


def lower_quantized(ep: ExportedProgram, int8_io: bool = False) -> Int8Lowering:
    """dq -> op -> q patterns become int8 ops; the rest stays float between them (the
    fallbacks). With ``int8_io`` the model's float inputs and outputs become its int8 ones."""
    if not has_quantized_ops(ep):
        return Int8Lowering(ep, Int8Facts())
    lowering = _Lowering(copy.deepcopy(ep), int8_io)   # the user's program stays as it was
    lowering.run()
    fallbacks = lowering.fallbacks()
    program = lowering.ed.finish()
    live = {n.name for n in program.graph.nodes}
    return Int8Lowering(program, Int8Facts({n.name: q for n, q in lowering.qparams.items()
                                            if n.name in live}, fallbacks))
