"""The int8 lowering on its own: what each pattern becomes, fallbacks, requantization, the
report, the header, and the errors for what mcu-aot cannot run as int8."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import aot
import aot.host
from aot.config import EdgeCompileConfig
from aot.errors import AotError, QuantizationError
from aot.firmware import output_scales
from aot.interpret import ArenaInterpreter
from aot.quantization import arith
from aot.report import format_report, op_rows

from conftest import require_module
from int8_models import INT8_MODELS


def _quantize(name):
    model, example, cal = INT8_MODELS[name]()
    return model, example, aot.quantize(model, example, cal)


def _ops(manager) -> list[str]:
    return [c.op.key for c in manager.lowered().graph.calls]


def test_quantize_returns_a_pt2e_program_that_saves(tmp_path):
    model, example, ep = _quantize("mlp")
    ref = model(*example)
    got = ep.module()(*example)
    assert (got - ref).abs().max() < 0.1          # the PT2E reference is close to float
    path = tmp_path / "mlp_int8.pt2"
    torch.export.save(ep, str(path))
    again = torch.export.load(str(path))
    assert torch.equal(again.module()(*example), got)


def test_conv_relu_folds_and_layout_is_nhwc_with_edge_transposes():
    _, _, ep = _quantize("conv_blocks")
    ops = _ops(aot.to_edge(ep).to_executorch())
    assert ops.count("cortex_m::transpose.out") == 2          # in and out, nowhere else
    assert "cortex_m::quantized_depthwise_conv2d_nhwc.out" in ops
    assert not any(o.startswith("aten::") for o in ops)        # relu6/hardtanh/relu folded


def test_activation_bounds_match_tflite():
    # relu6 on an output scale of 0.05, zero point -128: [-128, -128 + 120]
    assert arith.activation_bounds(0.0, 6.0, 0.05, -128) == (-128, -8)
    assert arith.activation_bounds(0.0, float("inf"), 0.1, 3) == (3, 127)


def test_quantize_multiplier_rounds_half_away_from_zero():
    # (0.5 + 2^-32) * 2^-7: the fraction times 2^31 is exactly x.5; TFLite rounds up.
    m, s = arith.quantize_multiplier((0.5 + 2 ** -32) * 2 ** -7)
    assert (m, s) == (1073741825, -7)
    assert arith.quantize_multiplier(1.0) == (1 << 30, 1)
    assert arith.quantize_multiplier(0.0) == (0, 0)


class _RunningSum(nn.Module):
    """A running sum over the width has no int8 rule: it stays float between two convs."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 3, 1)

    def forward(self, x):
        return self.b(torch.cumsum(self.a(x), dim=-1))


def test_fallback_is_listed_in_the_report_and_runs():
    example = (torch.randn(1, 2, 6, 6),)
    ep = aot.quantize(_RunningSum().eval(), example, [(torch.randn(1, 2, 6, 6),)
                                                      for _ in range(4)])
    manager = aot.to_edge(ep).to_executorch()
    rows = op_rows(manager.lowered())
    fallbacks = [r for r in rows if r.fallback]
    assert [r.op for r in fallbacks] == ["aten::cumsum.out"]
    text = format_report(manager.lowered())
    assert "FALLBACK" in text and "cumsum" in text and "test_int8_lowering.py" in text
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(*example)[0]
    want = ep.module()(*example)
    (scale,) = output_scales(manager.executorch_program)
    assert (got - want).abs().max() <= 3 * scale


def test_nearest_upsampling_is_an_int8_expand():
    """Nearest upsampling by whole factors runs on the int8 NHWC map (an expand of it viewed
    with unit dims); its output equals PT2E's bit for bit, and a factor that is not whole
    stays float."""
    class Up(nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor
            self.a, self.b = nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 3, 1)

        def forward(self, x):
            return self.b(nn.functional.interpolate(self.a(x), scale_factor=self.factor))
    cal = [(torch.randn(1, 2, 5, 4),) for _ in range(4)]
    for factor, int8 in ((2.0, True), ((3.0, 2.0), True), (1.5, False)):
        ep = aot.quantize(Up(factor).eval(), cal[0], cal)
        m = aot.to_edge(ep).to_executorch().lowered()
        ops = [c.op.key for c in m.graph.calls]
        assert ("aten::expand_copy.out" in ops) == int8, (factor, ops)
        assert (not m.fallbacks) == int8
        got = ArenaInterpreter(m.graph, m.plan)(*cal[1])[0]
        want = ep.module()(*cal[1])
        (scale,) = output_scales(aot.to_edge(ep).to_executorch().executorch_program)
        assert (got - want).abs().max() <= 1.01 * scale


def test_pixel_shuffle_is_one_int8_permute_of_the_nhwc_map():
    """pixel_shuffle and pixel_unshuffle between convs: one transpose of the NHWC bytes each,
    no fallback, and the bytes PT2E's graph moves (within the convs' rounding)."""
    class Shuffle(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(2, 4, 1)

        def forward(self, x):
            y = self.b(nn.functional.pixel_shuffle(self.a(x), 2))
            return nn.functional.pixel_unshuffle(y, 2)
    cal = [(torch.randn(1, 3, 4, 6),) for _ in range(4)]
    ep = aot.quantize(Shuffle().eval(), cal[0], cal)
    manager = aot.to_edge(ep).to_executorch()
    m = manager.lowered()
    ops = [c.op.key for c in m.graph.calls]
    assert not m.fallbacks
    assert ops.count("cortex_m::transpose.out") == 4     # the model's edges, and one each
    got = ArenaInterpreter(m.graph, m.plan)(*cal[1])[0]
    (scale,) = output_scales(manager.executorch_program)
    assert (got - ep.module()(*cal[1])).abs().max() <= 1.01 * scale
    (c_out,) = aot.host.build(aot.generate_c(manager, name="q_pixel_shuffle"))(cal[1][0].numpy())
    np.testing.assert_array_equal(c_out, got.numpy())


class _FloatMiddle(nn.Module):
    """A running sum has no int8 rule: one op in the user's program, one float call after
    decomposition, between int8 ones (a matmul of two activations, a layer norm, a linear)."""
    def __init__(self):
        super().__init__()
        self.lin, self.norm, self.out = nn.Linear(8, 8), nn.LayerNorm(4), nn.Linear(4, 5)

    def forward(self, x):
        y = self.lin(x)
        return self.out(torch.cumsum(self.norm(torch.relu(y @ y.transpose(1, 2))), -1))


def test_lowering_hands_on_its_fallbacks_through_every_later_pass():
    """lower_quantized returns the program with its float fallbacks; to_edge carries them by
    node through decomposition, to_backend and to_executorch, and the report reads them there."""
    from aot.passes.lower_quantized import Int8Lowering, lower_quantized
    x = torch.randn(1, 4, 8)
    ep = aot.quantize(_FloatMiddle().eval(), (x,), [(torch.randn(1, 4, 8),) for _ in range(4)])
    got = lower_quantized(ep)
    assert isinstance(got, Int8Lowering)
    assert sorted(f.op for f in got.facts.fallbacks.values()) == ["aten.cumsum.default"]
    assert all(f.why == "mcu-aot has no int8 kernel for this op"
               for f in got.facts.fallbacks.values())
    assert all("test_int8_lowering.py" in f.source for f in got.facts.fallbacks.values())

    edge = aot.to_edge(ep)
    for manager in (edge, edge.to_backend({})):
        m = manager.to_executorch().lowered()
        float_calls = [m.graph.calls[i].op.key for i in sorted(m.fallbacks)]
        assert float_calls == ["aten::cumsum.out"]
        # the rows the report marks are exactly those calls, each named by its user's op
        assert [r.index for r in op_rows(m) if r.fallback] == sorted(m.fallbacks)
        assert {f.op for f in m.fallbacks.values()} == {f.op for f in got.facts.fallbacks.values()}
        # every other call writes int8 or is one of the lowering's own conversions
        for i, call in enumerate(m.graph.calls):
            if i not in m.fallbacks:
                assert call.op.key.startswith("cortex_m::") or not call.outs or \
                    not m.graph.tensors[call.outs[0]].dtype.is_floating_point


def test_a_float_program_has_no_fallbacks():
    m = aot.to_edge(aot.export(_FloatMiddle().eval(), (torch.randn(1, 4, 8),))) \
        .to_executorch().lowered()
    assert m.fallbacks == {} and "FALLBACK" not in format_report(m)


class _UnsharedCat(nn.Module):
    def forward(self, x):
        return torch.cat([x * 2.0, torch.relu(x) * 0.5], dim=1)


def test_differing_qparams_of_a_cat_are_requantized():
    """Int8Quantizer shares a cat's qparams; a quantizer that does not (here: the inputs
    observed separately) gets a lookup-table requantize per differing input."""
    from aot.quantization.quantizer import ACT, Int8Quantizer

    class NoShare(Int8Quantizer):
        def annotate(self, model):
            super().annotate(model)
            for n in model.graph.nodes:
                if n.target == torch.ops.aten.cat.default:
                    ins = list(n.args[0])
                    self._mark(n, {a: ACT for a in ins}, ACT)
            return model

    x = torch.randn(1, 3, 4, 4)
    ep = aot.quantize(_UnsharedCat(), (x,), [(torch.randn(1, 3, 4, 4),) for _ in range(4)],
                      quantizer=NoShare())
    manager = aot.to_edge(ep).to_executorch()
    ops = _ops(manager)
    assert ops.count("cortex_m::quantized_activation.out") >= 3   # x*2, *0.5, a requantize
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(x)[0]
    assert (got - ep.module()(x)).abs().max() < 0.1


def test_int8_io_header_states_scale_and_zero_point():
    _, _, ep = _quantize("mlp")
    manager = aot.to_edge(ep, compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()
    g = manager.lowered().graph
    assert g.tensors[g.inputs[0]].dtype == torch.int8
    assert g.tensors[g.outputs[0]].dtype == torch.int8
    header = aot.generate_c(manager, name="mlp").files["mlp.h"]
    s, z = g.tensors[g.inputs[0]].qparams
    assert "MLP_INPUT0_SCALE" in header and f"MLP_INPUT0_ZERO_POINT {z}" in header
    assert "MLP_OUTPUT0_SCALE" in header and "MLP_INPUT0_DTYPE_INT8" in header
    ops = _ops(manager)
    assert "cortex_m::quantize_per_tensor.out" not in ops
    assert "cortex_m::dequantize_per_tensor.out" not in ops


def test_pte_names_the_cortex_m_ops():
    _, _, ep = _quantize("residual")
    program = aot.to_edge(ep).to_executorch().executorch_program
    names = {f"{o.name}.{o.overload}" for o in program.execution_plan[0].operators}
    assert {"cortex_m::quantized_conv2d_nhwc.out", "cortex_m::quantized_add.out",
            "cortex_m::quantized_mul.out", "cortex_m::quantized_max_pool2d_nhwc.out",
            "cortex_m::quantized_avg_pool2d_nhwc.out"} <= names


def test_a_board_run_of_an_int8_program_skips_the_executorch_reference():
    """ExecuTorch's runtime has no cortex_m kernels: run_on_board given an int8 program as a
    manager or a Program (not the ExportedProgram, whose reference is PT2E) compares it with
    nothing rather than failing to load it; a float program keeps the runtime as reference."""
    from aot.firmware.model import _resolve
    model, example, ep = _quantize("conv_blocks")
    manager = aot.to_edge(ep).to_executorch()
    for given in (manager, manager.executorch_program):
        assert _resolve(given, "forward").reference is None
    f32 = aot.to_edge(aot.export(model, example)).to_executorch()
    require_module("executorch")   # the interop oracle (a dev extra)
    assert _resolve(f32, "forward").reference_name == "ExecuTorch runtime"


def test_lowering_is_deterministic():
    _, _, ep = _quantize("activations")
    a = aot.to_edge(ep).to_executorch()
    b = aot.to_edge(ep).to_executorch()
    assert a.buffer == b.buffer
    assert aot.generate_c(a, name="m").files == aot.generate_c(b, name="m").files


# -- what int8 cannot run: clear errors ----------------------------------------------------------

class _Tiny(nn.Module):
    def __init__(self, bias: bool = True):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, bias=bias)

    def forward(self, x):
        return torch.relu(self.conv(x))


def _quantizer_with(act=None, weight=None):
    from aot.quantization import quantizer as q

    class Custom(q.Int8Quantizer):
        pass

    c = Custom()
    if act is not None:
        c.act = act
    if weight is not None:
        q_weight = weight

        def _weighted(node, self=c):
            x, w = node.args[0], node.args[1]
            self._mark(node, {x: self.act, w: q_weight}, self._output(node, self.act))
        c._weighted = _weighted
    return c


def _cal():
    return [(torch.randn(1, 2, 5, 5),) for _ in range(3)]


@pytest.mark.parametrize("what", ["int16", "uint8"])
def test_other_activation_dtypes_are_refused(what):
    from torchao.quantization.pt2e.observer import MinMaxObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    dtype, lo, hi = {"int16": (torch.int16, -32768, 32767), "uint8": (torch.uint8, 0, 255)}[what]
    spec = QuantizationSpec(dtype, MinMaxObserver, lo, hi, torch.per_tensor_affine)
    ep = aot.quantize(_Tiny(), (torch.randn(1, 2, 5, 5),), _cal(), _quantizer_with(act=spec))
    with pytest.raises(QuantizationError, match=rf"torch\.{what} quantization is not supported"):
        aot.to_edge(ep)


def test_four_bit_weights_are_refused():
    from torchao.quantization.pt2e.observer import PerChannelMinMaxObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    w4 = QuantizationSpec(torch.int8, PerChannelMinMaxObserver, -8, 7,
                          torch.per_channel_symmetric, ch_axis=0)
    ep = aot.quantize(_Tiny(), (torch.randn(1, 2, 5, 5),), _cal(), _quantizer_with(weight=w4))
    with pytest.raises(QuantizationError, match=r"at test_int8_lowering.py:\d+ .*4-bit values \(range \[-8, 7\]\)"):
        aot.to_edge(ep)


def test_dynamic_quantization_is_refused():
    from torchao.quantization.pt2e.observer import PlaceholderObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    dyn = QuantizationSpec(torch.int8, PlaceholderObserver, -128, 127, torch.per_tensor_affine,
                           is_dynamic=True)
    ep = aot.quantize(_Tiny(bias=False), (torch.randn(1, 2, 5, 5),), _cal(),
                      _quantizer_with(act=dyn))
    with pytest.raises(QuantizationError, match="dynamic quantization"):
        aot.to_edge(ep)


def test_uncalibrated_model_is_refused():
    with pytest.raises(AotError, match="calibration iterable is empty"):
        aot.quantize(_Tiny(), (torch.randn(1, 2, 5, 5),), [])
    from aot.quantization.quantizer import _check_calibrated
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e
    gm = torch.export.export(_Tiny().eval(), (torch.randn(1, 2, 5, 5),)).module()
    prepared = prepare_pt2e(gm, aot.Int8Quantizer())
    with pytest.raises(AotError, match="never calibrated"):
        _check_calibrated(prepared)


def test_cli_quantized_zoo_report_and_compile(tmp_path, capsys):
    from aot import cli
    pt2 = tmp_path / "ae_int8.pt2"
    assert cli.main(["zoo", "autoencoder", "--int8", "-o", str(pt2)]) == 0
    assert cli.main(["report", str(pt2)]) == 0
    text = capsys.readouterr().out
    assert "cortex_m::quantized_linear.out" in text and "int8 " in text
    assert "0 float fallback(s)" in text and "@" in text            # scale@zero point column
    out = tmp_path / "c"
    assert cli.main(["compile", str(pt2), "-o", str(out), "--name", "ae", "--int8-io"]) == 0
    header = (out / "ae.h").read_text()
    assert "AE_INPUT0_DTYPE_INT8" in header and "AE_OUTPUT0_ZERO_POINT" in header
    assert (out / "ae.pte").stat().st_size > 0


def test_relu_after_mul_is_an_int8_clamp_not_a_fallback():
    class MulRelu(nn.Module):
        def forward(self, a, b):
            return torch.relu(a * b)

    x = (torch.randn(2, 5), torch.randn(2, 5))
    ep = aot.quantize(MulRelu(), x, [x, (torch.randn(2, 5), torch.randn(2, 5))])
    manager = aot.to_edge(ep).to_executorch()
    rows = op_rows(manager.lowered())
    assert [r.op for r in rows if r.fallback] == []
    assert "cortex_m::quantized_mul.out" in [r.op for r in rows]
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(*x)[0]
    assert torch.equal(got, ep.module()(*x))


def _int8_within_one_step(ep, x):
    """``ep`` lowered with no float fallback, its program run in torch over the planned arena:
    within one output step of PT2E's. Returns the manager and that output."""
    manager = aot.to_edge(ep).to_executorch()
    assert [r.op for r in op_rows(manager.lowered()) if r.fallback] == []
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(x)[0]
    (scale,) = output_scales(manager.executorch_program)
    assert ((got - ep.module()(x)) / scale).round().abs().max() <= 1
    return manager, got


def _int8_and_its_c(model: nn.Module, shape) -> None:
    """``model`` quantized on seeded data: int8 within one step of PT2E (as above), and its C
    computes the same bytes as the planned program."""
    torch.manual_seed(0)
    x = torch.randn(shape)
    ep = aot.quantize(model.eval(), (x,), [(torch.randn(shape),) for _ in range(4)])
    manager, got = _int8_within_one_step(ep, x)
    (c_out,) = aot.host.build(aot.generate_c(manager, name="m"))(x.numpy())
    np.testing.assert_array_equal(c_out, got.numpy())


def test_a_top_level_sequential_lowers_to_int8():
    """nn.Sequential's forward names its input ``input``, which shadows a Python builtin: the
    lowering's copy of the program renames that placeholder, and its signature follows."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 1)).eval()
    x = torch.randn(1, 3, 8, 8)
    ep = aot.quantize(model, (x,), [(torch.randn(1, 3, 8, 8),) for _ in range(4)])
    manager, _ = _int8_within_one_step(ep, x)
    assert _ops(manager).count("cortex_m::quantized_conv2d_nhwc.out") == 2


class _Shuffle(nn.Module):
    """ShuffleNet's channel shuffle between two convs: view, transpose, contiguous, view."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 1)

    def forward(self, x):
        y = self.a(x)
        b, c, h, w = y.shape
        y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, -1, h, w)
        return self.b(y)


def test_a_channel_shuffle_lowers_to_int8():
    """The contiguous copy of a transposed view is kept (a view after it needs it)."""
    torch.manual_seed(0)
    x = torch.randn(1, 3, 6, 6)
    ep = aot.quantize(_Shuffle().eval(), (x,), [(torch.randn(1, 3, 6, 6),) for _ in range(4)])
    _int8_within_one_step(ep, x)


class _Between(nn.Module):
    """``middle`` between two convs."""

    def __init__(self, middle):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 1)
        self.b2 = nn.Conv2d(8, 4, 1)
        self.p = nn.Parameter(torch.rand(1, 4, 1, 1) + 0.5)      # per channel
        self.q = nn.Parameter(torch.randn(4, 1, 1) * 0.3)         # per channel, rank 3
        self.r = nn.Parameter(torch.randn(6) * 0.3)               # along the width
        self.middle = middle

    def forward(self, x):
        return self.middle(self, self.a(x))


BETWEEN = {
    "x / 2": lambda s, y: s.b(y / 2),
    "x.div(3.0)": lambda s, y: s.b(y.div(3.0)),
    "1 - sigmoid(x)": lambda s, y: s.b(1 - torch.sigmoid(y)),
    "cat([x, x])": lambda s, y: s.b2(torch.cat([y, y], 1)),
    "x * parameter": lambda s, y: s.b(y * s.p),
    "parameter * x": lambda s, y: s.b(s.p * y),
    "x + parameter (rank 3)": lambda s, y: s.b(y + s.q),
    "x - parameter (width)": lambda s, y: s.b(y - s.r),
    "x *= parameter": lambda s, y: s.b(y.mul_(s.q)),
}


@pytest.mark.parametrize("name", sorted(BETWEEN))
def test_a_number_operand_and_a_repeated_input_lower_to_int8(name):
    """Division by a number and subtraction from one are lookup tables over the 256 codes
    (exactly PT2E's dq -> op -> q); a cat of one tensor twice shares its qparams (it recursed
    without end in the quantizer's annotation); a parameter operand of add, sub or mul is an
    int8 constant in the map's layout, broadcast by the kernel."""
    _int8_and_its_c(_Between(BETWEEN[name]), (1, 3, 6, 6))


class _After(nn.Module):
    """``tail`` after a conv: its output is the model's."""

    def __init__(self, tail):
        super().__init__()
        self.a, self.tail = nn.Conv2d(3, 4, 3, padding=1), tail

    def forward(self, x):
        return self.tail(self.a(x))


# Reductions over any dims that are one run in memory (the map's own NHWC order, else NCHW's),
# softmax over any dim, on an NHWC map and on tokens, and bilinear resizes.
AFTER = {
    "x.mean(1)": lambda y: y.mean(1),
    "x.mean(-1)": lambda y: y.mean(-1),
    "x.mean((1, 2), keepdim=True)": lambda y: y.mean((1, 2), keepdim=True),
    "tokens.mean(1)": lambda y: y.flatten(2).transpose(1, 2).mean(1),
    "tokens.mean(-1)": lambda y: y.flatten(2).transpose(1, 2).mean(-1),
    "x.amax(1, keepdim=True)": lambda y: y.amax(1, keepdim=True),
    "x.amax((2, 3))": lambda y: y.amax((2, 3)),
    "torch.amax(x, -2)": lambda y: torch.amax(y, -2),
    "x.amin(1)": lambda y: y.amin(1),
    "torch.amin(tokens, -1, keepdim=True)": lambda y: torch.amin(
        y.flatten(2).transpose(1, 2), -1, keepdim=True),
    "x.sum(1)": lambda y: y.sum(1),
    "x.sum((2, 3), keepdim=True)": lambda y: y.sum((2, 3), keepdim=True),
    "torch.sum(tokens, 1)": lambda y: torch.sum(y.flatten(2).transpose(1, 2), 1),
    "x.sum()": lambda y: y.sum(),
    "x.softmax(2)": lambda y: y.softmax(2),
    "tokens.softmax(1)": lambda y: y.flatten(2).transpose(1, 2).softmax(1),
    "F.softmax(x, 1)": lambda y: nn.functional.softmax(y, 1),
    "x.log_softmax(1)": lambda y: y.log_softmax(1),
    "F.log_softmax(tokens, -1)": lambda y: nn.functional.log_softmax(
        y.flatten(2).transpose(1, 2), -1),
    "torch.log_softmax(x, 2)": lambda y: torch.log_softmax(y, 2),
    "bilinear x2": lambda y: nn.functional.interpolate(y, scale_factor=2, mode="bilinear"),
    "bilinear to (9, 7), corners aligned": lambda y: nn.functional.interpolate(
        y, size=(9, 7), mode="bilinear", align_corners=True),
    "nn.Upsample(bilinear) down": lambda y: nn.Upsample(size=(4, 3), mode="bilinear")(y),
}


@pytest.mark.parametrize("name", sorted(AFTER))
def test_reductions_softmax_and_resizes_lower_to_int8(name):
    """mean and amax pool the rows their dims make (amax exactly, in the input's qparams), sum
    and amin reduce them as TFLite's SUM and REDUCE_MIN; log_softmax is TFLite's LOG_SOFTMAX;
    softmax over a dim other than the last runs between two transposes; a bilinear resize is
    TFLite's RESIZE_BILINEAR on the NHWC map. Within one step of PT2E, and the C computes the
    same bytes as the planned program."""
    _int8_and_its_c(_After(AFTER[name]), (1, 3, 6, 5))


def test_a_1d_network_is_int8_and_stays_channels_last():
    """conv1d, its relu, max/avg pool1d, a depthwise conv1d, a residual add and a mean over
    time all lower to int8 (as one-row 2-D layers); the map is transposed once, at the input.
    (That its C equals TFLite Micro's: tests/int8/test_int8_networks.py, "conv1d".)"""
    manager = aot.to_edge(_quantize("conv1d")[2]).to_executorch()
    assert [r.op for r in op_rows(manager.lowered()) if r.fallback] == []
    ops = _ops(manager)
    assert ops.count("cortex_m::transpose.out") == 1
    assert ops.count("cortex_m::quantized_conv2d_nhwc.out") == 2
    assert ops.count("cortex_m::quantized_depthwise_conv2d_nhwc.out") == 1


def test_qparams_reach_the_tensors_through_the_typed_result():
    """The int8 lowering's qparams travel in its typed result (Int8Lowering.facts), re-keyed
    after every pass: every int8 output of a call in the lowered method has them, and no
    node.meta side channel carries them."""
    from aot.passes.lower_quantized import lower_quantized
    _, example, ep = _quantize("movement")
    lowered = lower_quantized(ep)
    assert lowered.facts.qparams and all(isinstance(zp, int) for _, zp in
                                         lowered.facts.qparams.values())
    m = aot.to_edge(ep).to_executorch().lowered()
    int8 = [m.graph.tensors[o] for call in m.graph.calls for o in call.outs
            if m.graph.tensors[o].dtype == torch.int8]
    assert int8 and all(t.qparams is not None for t in int8)
    aot_dir = Path(aot.__file__).resolve().parent
    assert not [p for p in aot_dir.rglob("*.py") if '"custom"' in p.read_text()]


class _Flat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 3), nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        return self.b(self.a(x).reshape(1, -1))


def test_a_view_left_float_between_int8_ops_is_reported(monkeypatch):
    """A view becomes a zero-copy alias with no call of its own, so where no int8 rule takes it
    (here: its rule removed) the dequantize it reads is the call the report flags, naming the
    view and its source line; the dequantize and quantize around it are not hidden."""
    from aot.passes import _int8_rules
    for view in (torch.ops.aten.view.default, torch.ops.aten.reshape.default):
        monkeypatch.delitem(_int8_rules.RULES, view)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 6, 6)
    ep = aot.quantize(_Flat().eval(), (x,), [(torch.randn(1, 3, 6, 6),) for _ in range(4)])
    method = aot.to_edge(ep).to_executorch().lowered()
    rows = [r for r in op_rows(method) if r.fallback]
    assert [r.op for r in rows] == ["cortex_m::dequantize_per_tensor.out"]
    (why,) = method.fallbacks.values()
    assert why.op in ("aten.view.default", "aten.reshape.default") and "forward" in why.source
