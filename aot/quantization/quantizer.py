"""Int8Quantizer: PT2E annotations that follow the TFLite int8 spec, and ``quantize``.

- conv2d/conv1d, linear and conv_transpose2d/1d: per-channel symmetric int8 weights in
  [-127, 127] (axis 0; a transposed convolution's output channels, axis 1), int32
  bias with scale = input scale x weight scale, per-tensor asymmetric int8 activations;
- add, sub, mul, bmm and matmul, hardswish, gelu, silu, layer_norm (its weight and bias stay
  float32), sum, and division by (or subtraction from) a number: free output qparams;
- relu, relu6, hardtanh and clamp right after conv/linear/add/sub are annotated as part of
  that op (its output is observed after the activation), so the lowering folds them into the
  producer's output range;
- pooling, mean, amax/amin, concat and stack, padding, max/min and the view ops share their
  input's qparams, and so does every part of a split, chunk or unbind (an unrolled recurrent
  layer's steps read their slices of one input projection as they are, with no
  requantization);
- softmax and sigmoid output at (1/256, -128), tanh at (1/128, 0), log_softmax at (16/256,
  127), as TFLite fixes them;
- an LSTM's cell state (``lstm_cells``: every step's state, its two products and its constant
  first value) takes one symmetric int16 observer, as TFLite Micro's int8 LSTM keeps it.

It annotates what the graph computes, not how the model spells it: in-place forms (``relu_``,
``x += y``, ``inplace=True``) are first rewritten to the functional ops they compute
(aot.passes.functional_spellings).

Ops it does not know stay in float: PT2E puts dequantize before and quantize after them, and the
lowering runs them as float32 kernels between the two (the report lists them as fallbacks).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Iterable, Optional

import torch
from torch.export import ExportedProgram

from ..errors import AotError, QuantizationError
from .. import api, quiet
from ..passes.fold_batch_norm import fold_batch_norm_aten
from ..passes.decompose_layers import decompose_layers
from ..passes.functional_spellings import functional_spellings
from ..passes._int8_values import observed

quiet.quiet_third_party()   # torchao logs the CUDA extensions it cannot load
from torchao.quantization.pt2e.observer import (HistogramObserver, MinMaxObserver,  # noqa: E402
                                                PerChannelMinMaxObserver)
from torchao.quantization.pt2e.quantizer import (DerivedQuantizationSpec,  # noqa: E402
                                                 FixedQParamsQuantizationSpec,
                                                 QuantizationAnnotation, QuantizationSpec,
                                                 Quantizer, SharedQuantizationSpec)
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402

aten = torch.ops.aten

ACT = QuantizationSpec(torch.int8, HistogramObserver.with_args(eps=2 ** -12), -128, 127,
                       torch.per_tensor_affine)
ACT_MINMAX = QuantizationSpec(torch.int8, MinMaxObserver.with_args(eps=2 ** -12), -128, 127,
                              torch.per_tensor_affine)
WEIGHT = QuantizationSpec(torch.int8, PerChannelMinMaxObserver.with_args(eps=2 ** -12), -127,
                          127, torch.per_channel_symmetric, ch_axis=0)
SOFTMAX_OUT = FixedQParamsQuantizationSpec(torch.int8, 1.0 / 256, -128, -128, 127,
                                           torch.per_tensor_affine)
TANH_OUT = FixedQParamsQuantizationSpec(torch.int8, 1.0 / 128, 0, -128, 127,
                                        torch.per_tensor_affine)
# TFLite's LOG_SOFTMAX output: [-255/16, 0] in steps of 1/16.
LOG_SOFTMAX_OUT = FixedQParamsQuantizationSpec(torch.int8, 16.0 / 256, 127, -128, 127,
                                               torch.per_tensor_affine)

# An LSTM's cell state: int16, symmetric, one scale for every step (TFLite Micro's int8 LSTM
# keeps its cell state so; at int8 the state's small values would lose their precision).
CELL = QuantizationSpec(torch.int16, MinMaxObserver.with_args(eps=2 ** -20), -32768, 32767,
                        torch.per_tensor_symmetric)

WEIGHT_IO = QuantizationSpec(torch.int8, PerChannelMinMaxObserver.with_args(eps=2 ** -12), -127,
                             127, torch.per_channel_symmetric, ch_axis=1)   # [Cin, Cout, ...]

TRANSPOSED = {aten.conv_transpose2d.input, aten.conv_transpose1d.default}
WEIGHTED = {aten.conv2d.default, aten.conv1d.default, aten.linear.default, *TRANSPOSED}
ARITH = {aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.bmm.default,
         aten.matmul.default}
FREE_OUT = {aten.hardswish.default, aten.gelu.default, aten.silu.default,
            aten.layer_norm.default, aten.sum.dim_IntList, aten.sum.default}
# One tensor and a number (x / 2, 1 - x): free output qparams, the number folded in.
BY_NUMBER = {aten.div.Tensor, aten.rsub.Scalar}
FIXED_OUT = {aten.softmax.int: SOFTMAX_OUT, aten._softmax.default: SOFTMAX_OUT,
             aten.log_softmax.int: LOG_SOFTMAX_OUT, aten._log_softmax.default: LOG_SOFTMAX_OUT,
             aten.sigmoid.default: SOFTMAX_OUT, aten.tanh.default: TANH_OUT}
ACTIVATIONS = {aten.relu.default, aten.relu6.default, aten.hardtanh.default,
               aten.clamp.default}
# Output takes the first input's qparams (every tensor input shares them).
SHARED = {aten.max_pool2d.default, aten.avg_pool2d.default, aten.adaptive_avg_pool2d.default,
          aten.mean.dim, aten.amax.default, aten.amin.default, aten.cat.default, aten.pad.default,
          aten.constant_pad_nd.default, aten.stack.default, aten.maximum.default,
          aten.minimum.default,
          aten.flatten.using_ints, aten.view.default, aten._unsafe_view.default,
          aten.reshape.default, aten.permute.default,
          aten.unflatten.int, aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default,
          aten.transpose.int, aten.slice.Tensor, aten.split.Tensor, aten.split_with_sizes.default,
          aten.chunk.default, aten.unbind.int, aten.upsample_nearest2d.vec,
          aten.upsample_nearest2d.default, aten.upsample_bilinear2d.vec,
          aten.upsample_bilinear2d.default, aten.pixel_shuffle.default,
          aten.pixel_unshuffle.default,
          aten.max_pool1d.default, aten.avg_pool1d.default, aten.dropout.default,
          aten.clone.default, aten.contiguous.default, aten.relu.default, aten.relu6.default,
          aten.hardtanh.default, aten.clamp.default}


def _bias_qparams(obs):
    """Bias scale = input scale x per-channel weight scale, zero point 0."""
    act, weight = obs
    s_act, _ = act.calculate_qparams()
    s_w, _ = weight.calculate_qparams()
    scale = (s_act * s_w).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _tensor_args(node) -> list:
    out = []
    for a in node.args:
        if isinstance(a, torch.fx.Node):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, torch.fx.Node))
    return [a for a in out if isinstance(a.meta.get("val"), torch.Tensor)
            and a.meta["val"].is_floating_point()]


def _annotated(node) -> bool:
    a = node.meta.get("quantization_annotation")
    return a is not None and a._annotated


class Int8Quantizer(Quantizer):
    """TFLite-spec int8 (see the module docstring). ``observer="histogram"`` (the default)
    calibrates activations as ExecuTorch's quantizers do; "minmax" as TFLite's converter does."""

    def __init__(self, observer: str = "histogram"):
        super().__init__()
        if observer not in ("histogram", "minmax"):
            raise AotError(f"Int8Quantizer: observer must be 'histogram' or 'minmax', not "
                           f"{observer!r}")
        self.act = ACT if observer == "histogram" else ACT_MINMAX

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        for chain in lstm_cells(model.graph):
            self._cell_state(chain)
        for node in model.graph.nodes:
            if node.op != "call_function" or _annotated(node):
                continue
            if node.target in WEIGHTED:
                self._weighted(node)
            elif node.target in ARITH:
                self._arith(node)
        for node in model.graph.nodes:
            if node.op != "call_function" or _annotated(node):
                continue
            if node.target in FREE_OUT or node.target in BY_NUMBER and \
                    len(_tensor_args(node)) == 1 and isinstance(node.args[0], torch.fx.Node):
                self._mark(node, {a: self.act for a in _tensor_args(node)[:1]}, self.act)
            elif node.target in FIXED_OUT:
                self._mark(node, {a: self.act for a in _tensor_args(node)[:1]},
                           FIXED_OUT[node.target])
            elif node.target in SHARED:
                ins = list(dict.fromkeys(_tensor_args(node)))   # cat([x, x]): x once
                if not ins:
                    continue
                first = ins[0]
                spec = {first: self.act}
                for other in ins[1:]:
                    spec[other] = SharedQuantizationSpec((first, node))
                self._mark(node, spec, SharedQuantizationSpec((first, node)))
        for node in model.graph.nodes:     # the parts of a split, chunk or unbind share too
            part_of = node.args[0] if node.op == "call_function" and \
                node.target is operator.getitem else None
            if isinstance(part_of, torch.fx.Node) and _annotated(part_of) and \
                    part_of.target in SHARED and not _annotated(node):
                first = _tensor_args(part_of)[0]
                self._mark(node, {}, SharedQuantizationSpec((first, part_of)))
        return model

    def _fused_activation(self, node) -> Optional[torch.fx.Node]:
        users = list(node.users)
        if len(users) == 1 and users[0].op == "call_function" and \
                users[0].target in ACTIVATIONS and not _annotated(users[0]):
            return users[0]
        return None

    def _output(self, node, spec) -> None:
        """Observe ``node``'s output, after a relu/clamp that follows it if there is one."""
        act = self._fused_activation(node)
        if act is None:
            return spec
        self._mark(act, {}, spec)
        return None

    def _weighted(self, node) -> None:
        x, w = node.args[0], node.args[1]
        b = node.args[2] if len(node.args) > 2 else None
        if not isinstance(w, torch.fx.Node):
            return
        spec = {x: self.act, w: WEIGHT_IO if node.target in TRANSPOSED else WEIGHT}
        if isinstance(b, torch.fx.Node):
            spec[b] = DerivedQuantizationSpec([(x, node), (w, node)], _bias_qparams, torch.int32,
                                              -(2 ** 31), 2 ** 31 - 1,
                                              torch.per_channel_symmetric, ch_axis=0)
        self._mark(node, spec, self._output(node, self.act))

    def _arith(self, node) -> None:
        ins = _tensor_args(node)
        if not ins:
            return
        # add/sub take a folded relu (their int8 kernel clamps); mul and the matmuls have no
        # output range in ExecuTorch's cortex_m ops, so a relu after them is its own op.
        fused = node.target in (aten.add.Tensor, aten.sub.Tensor)
        self._mark(node, {a: self.act for a in ins},
                   self._output(node, self.act) if fused else self.act)

    def _cell_state(self, chain: "CellChain") -> None:
        """One int16 observer for the cell state of every step: c_t = f * c_(t-1) + i * g,
        its two products and the initial state (read through its views); tanh(c_t) reads it."""
        cell = "cell"
        marks = []                          # (node, {input: spec}, output spec)
        for view in chain.initial_views:
            marks.append((view, {view.args[0]: cell} if view.target is not operator.getitem
                          else {}, cell))
        for step in chain.cells:
            i, g = step.input_gate.args
            marks.append((step.input_gate, {i: self.act, g: self.act}, cell))
            f = next(a for a in step.forget.args if a is not step.previous)
            marks.append((step.forget, {f: self.act, step.previous: cell}, cell))
            marks.append((step.state, {step.forget: cell, step.input_gate: cell}, cell))
            marks.append((step.tanh, {step.state: cell}, TANH_OUT))
        # PT2E observes in graph order, a node's inputs before its output: the first of the
        # state's edges observes it (CELL), and every other shares that observer.
        order = {n: k for k, n in enumerate(chain.cells[0].state.graph.nodes)}
        node, inputs, _ = min(marks, key=lambda m: order[m[0]])
        edge = next(((a, node) for a, spec in inputs.items() if spec == cell), node)
        shared = SharedQuantizationSpec(edge)

        def spec(s, here):
            return s if s != cell else CELL if here == edge else shared
        for node, inputs, out in marks:
            self._mark(node, {a: spec(v, (a, node)) for a, v in inputs.items()},
                       spec(out, node))

    @staticmethod
    def _mark(node, inputs, output) -> None:
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map=inputs, output_qspec=output, _annotated=True)

    def validate(self, model: torch.fx.GraphModule) -> None:
        pass


@dataclass(frozen=True)
class Cell:
    """One step of an unrolled LSTM: state = forget + input_gate, where forget =
    sigmoid(.) * previous and input_gate = sigmoid(.) * tanh(.); tanh reads the state."""
    state: torch.fx.Node
    forget: torch.fx.Node
    input_gate: torch.fx.Node
    previous: torch.fx.Node
    tanh: torch.fx.Node


@dataclass(frozen=True)
class CellChain:
    """The steps of one LSTM layer, first to last, and the views (first to last) through
    which the first step reads a constant initial state."""
    cells: tuple[Cell, ...]
    initial_views: tuple[torch.fx.Node, ...]


def _is(node, *targets) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and \
        node.target in targets


def _cell(add) -> Optional[Cell]:
    if not _is(add, aten.add.Tensor) or len(add.args) != 2 or add.kwargs.get("alpha", 1) != 1:
        return None
    muls = [a for a in add.args if _is(a, aten.mul.Tensor) and len(a.users) == 1]
    if len(muls) != 2 or muls[0] is muls[1]:
        return None

    def sigmoid_and(m) -> Optional[torch.fx.Node]:
        """The other operand of a product of a sigmoid and one other tensor."""
        a, b = m.args[:2]
        if _is(a, aten.sigmoid.default) and isinstance(b, torch.fx.Node):
            return b
        return a if _is(b, aten.sigmoid.default) and isinstance(a, torch.fx.Node) else None

    tanh = [u for u in add.users if _is(u, aten.tanh.default)]
    for gate, forget in (muls, muls[::-1]):
        other, previous = sigmoid_and(gate), sigmoid_and(forget)
        if _is(other, aten.tanh.default) and previous is not None and len(tanh) == 1 and \
                previous.meta["val"].shape == add.meta["val"].shape == \
                forget.meta["val"].shape:
            return Cell(add, forget, gate, previous, tanh[0])
    return None


_STATE_VIEWS = {aten.unbind.int, aten.unsqueeze.default, aten.squeeze.dim, aten.view.default,
                aten.reshape.default, aten.select.int, operator.getitem}


def _initial_views(node) -> Optional[tuple[torch.fx.Node, ...]]:
    """The views from a constant (an op of no tensor input, as ``zeros``) to ``node``, or
    None if ``node`` is not such a constant seen through views, each read once."""
    views = []
    while _is(node, *_STATE_VIEWS):
        if len(node.users) != 1:
            return None
        views.append(node)
        node = node.args[0]
    if not (isinstance(node, torch.fx.Node) and node.op == "call_function" and
            not node.all_input_nodes and len(node.users) == 1):
        return None
    return tuple(reversed(views))


def lstm_cells(graph: torch.fx.Graph) -> list[CellChain]:
    """The LSTM layers of an unrolled graph whose cell state can be int16: every state is read
    only by its tanh and the next step, and the first step starts from a constant."""
    cells = {n: c for n in graph.nodes if (c := _cell(n)) is not None}
    after = {c.previous: c for c in cells.values() if c.previous in cells}
    chains = []
    for first in (c for c in cells.values() if c.previous not in cells):
        views = _initial_views(first.previous)
        steps = [first]
        while steps[-1].state in after:
            steps.append(after[steps[-1].state])
        readers_ok = all(set(c.state.users) <= {c.tanh} | ({after[c.state].forget}
                                                         if c.state in after else set())
                         for c in steps)
        if views is not None and readers_ok and len(first.previous.users) == 1:
            chains.append(CellChain(tuple(steps), views))
    return chains


def _check_calibrated(prepared: torch.fx.GraphModule) -> None:
    """Observers that saw no data give scale 1 and zero point 0: refuse that, naming the value
    each one watches (a weight, an input, an op's output) and its source line."""
    idle, named = [], set()
    for node in prepared.graph.nodes:
        if node.op != "call_module" or node.target in named or not node.args:
            continue
        mn = getattr(prepared.get_submodule(node.target), "min_val", None)
        if isinstance(mn, torch.Tensor) and (mn.numel() == 0 or not torch.isfinite(mn).all()):
            named.add(node.target)
            value = node.args[0]
            reader = next((u for u in node.users if u.op == "call_function"), node)
            idle.append(f"{observed(value, reader, value.op == 'get_attr')} "
                        f"(observer {node.target})")
    if idle:
        listed = "".join(f"\n  {what}" for what in idle[:8]) + \
            (f"\n  ... and {len(idle) - 8} more" if len(idle) > 8 else "")
        raise QuantizationError(f"the model was prepared for quantization but never "
                                f"calibrated: {len(idle)} observer(s) saw no data:{listed}\n"
                                "Give aot.quantize a calibration iterable of input tuples "
                                "that runs through every layer.")


def quantize(model: torch.nn.Module, example_inputs: tuple, calibration: Iterable,
             quantizer: Optional[Quantizer] = None) -> ExportedProgram:
    """PT2E int8: export, prepare with ``quantizer`` (default Int8Quantizer), run every input
    tuple of ``calibration`` through the observers, convert, and export the result.

    The returned ExportedProgram goes to ``aot.to_edge``; its ``.module()`` runs the quantized
    reference in torch, and ``torch.export.save`` writes it for the CLI."""
    quantizer = quantizer or Int8Quantizer()
    example_inputs = tuple(example_inputs)
    ep = api.export(model.eval(), example_inputs)
    ep = fold_batch_norm_aten(functional_spellings(decompose_layers(ep)))
    prepared = prepare_pt2e(ep.module(check_guards=False), quantizer)
    seen = 0
    with torch.no_grad():
        for batch in calibration:
            batch = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)
            prepared(*batch)
            seen += 1
    if seen == 0:
        raise AotError("aot.quantize: the calibration iterable is empty; give it input tuples")
    _check_calibrated(prepared)
    converted = convert_pt2e(prepared)
    return torch.export.export(converted, example_inputs, strict=False)


__all__ = ["Int8Quantizer", "quantize"]
