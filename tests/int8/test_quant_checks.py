"""The quantization checks: a model PT2E converted without calibration is refused, naming what
each idle observer watched and its source line; the Program check refuses a kernel argument of
a dtype the op does not declare (an int32 constant as int8 weights), in our own Programs and in
.pte files read back; the refusal of int16 names the source line."""
from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np
import pytest
import torch
from torch import nn

import aot
from aot import program as P
from aot.errors import AotError, PteFormatError, QuantizationError
from aot.interpret import ArenaInterpreter
from aot.passes.verify_program import program_problems, verify_program
from aot.pte import load_program
from aot.pte.serialize import serialize_pte
from conftest import require_module

HERE = "test_quant_checks.py"
# PT2E warns of each observer that saw no data: here that is the point.
pytestmark = pytest.mark.filterwarnings("ignore:must run observer")


@pytest.fixture(autouse=True, scope="module")
def _torchao():
    require_module("torchao")     # PT2E


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 16)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.a(x))
        return self.b(h)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)

    def forward(self, x):
        return torch.relu(self.conv(x))


class AddSigmoid(nn.Module):
    """No weights at all: only activation observers."""

    def forward(self, x, y):
        return torch.sigmoid(x + y)


def _line(cls, text: str) -> int:
    """The line of ``cls.forward`` that holds ``text``, in this file."""
    lines, first = inspect.getsourcelines(cls.forward)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _inputs(cls, seed: int = 0) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    shapes = {Mlp: [(1, 8)], ConvNet: [(1, 2, 5, 5)], AddSigmoid: [(2, 6), (2, 6)]}[cls]
    return tuple(torch.randn(s, generator=gen) for s in shapes)


def _model(cls) -> nn.Module:
    torch.manual_seed(0)
    return cls().eval()


def _quantizes(ep) -> list:
    return [n for n in ep.graph.nodes if n.op == "call_function" and
            str(n.target) == "quantized_decomposed.quantize_per_tensor.default"]


def _runs_as_pt2e(manager, ep, inputs) -> None:
    """The lowered int8 program gives PT2E's reference within a couple of output steps."""
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(*inputs)[0]
    want = ep.module()(*inputs)
    step = float(_quantizes(ep)[-1].args[1])            # the output's scale
    assert want.abs().max() > 0 and (got - want).abs().max() <= 2 * step + 1e-6


def _pt2e(cls, batches: int, quantizer=None):
    """What a user writes: export, prepare_pt2e, run ``batches`` calibration inputs (none:
    uncalibrated), convert_pt2e, export again."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    example = _inputs(cls)
    gm = torch.export.export(_model(cls), example).module()
    prepared = prepare_pt2e(gm, quantizer or aot.Int8Quantizer())
    with torch.no_grad():
        for k in range(batches):
            prepared(*_inputs(cls, seed=k + 1))
    return example, torch.export.export(convert_pt2e(prepared), example)


# -- observers that saw no data ------------------------------------------------------------------

UNCALIBRATED = {
    # model: (what the first listed observer watched, the line it names)
    Mlp: ("the weight of linear", "h = torch.relu(self.a(x))"),
    ConvNet: ("the weight of conv2d", "return torch.relu(self.conv(x))"),
    AddSigmoid: ("the input x", "return torch.sigmoid(x + y)"),
}


@pytest.mark.parametrize("cls", list(UNCALIBRATED), ids=lambda c: c.__name__)
def test_uncalibrated_pt2e_model_is_refused_naming_the_node(cls):
    _, ep = _pt2e(cls, batches=0)
    # The premise: PT2E left its defaults in the graph (scale 1.0, zero point 0).
    assert (1.0, 0) in [(float(n.args[1]), int(n.args[2])) for n in _quantizes(ep)]
    with pytest.raises(QuantizationError) as info:
        aot.to_edge(ep)
    text = str(info.value)
    what, source = UNCALIBRATED[cls]
    first = text.splitlines()[1].strip()
    assert "never calibrated" in text and "saw no data" in text
    assert first.startswith(f"{what} at {HERE}:{_line(cls, source)} ")
    # Every observer is listed, each with the user's line.
    listed = text.splitlines()[1:-1]
    assert len(listed) == int(re.search(r"(\d+) observer\(s\)", text).group(1)) >= 2
    assert all(f" at {HERE}:" in line for line in listed)


def test_uncalibrated_model_never_reaches_c():
    """The issue's case end to end: no Program, so no C passing zeros as weights."""
    _, ep = _pt2e(Mlp, batches=0)
    with pytest.raises(QuantizationError, match="never calibrated"):
        aot.generate_c(aot.to_edge(ep).to_executorch(), name="mlp")


@pytest.mark.parametrize("cls", list(UNCALIBRATED), ids=lambda c: c.__name__)
def test_calibrated_pt2e_model_still_lowers(cls):
    example, ep = _pt2e(cls, batches=4)
    manager = aot.to_edge(ep).to_executorch()
    assert any(c.op.key.startswith("cortex_m::") for c in manager.lowered().graph.calls)
    _runs_as_pt2e(manager, ep, example)
    assert "m_run" in aot.generate_c(manager, name="m").files["m.c"]


def test_data_that_spans_exactly_the_int8_range_is_not_taken_for_no_data():
    """A calibrated observer gives PT2E's defaults where the data spans exactly [-128, 127]:
    an input of int8 codes with a min/max observer. The weights and the other values are
    calibrated, so the model lowers."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    codes = [(torch.randint(-128, 128, (4, 8)).float(),) for _ in range(3)]
    for c in codes:
        c[0][0, 0], c[0][0, 1] = -128.0, 127.0
    gm = torch.export.export(_model(Mlp), codes[0]).module()
    prepared = prepare_pt2e(gm, aot.Int8Quantizer(observer="minmax"))
    for c in codes:
        prepared(*c)
    ep = torch.export.export(convert_pt2e(prepared), codes[0])
    q_x = next(n for n in ep.graph.nodes if n.op == "call_function" and n.args and
               getattr(n.args[0], "name", "") == "x")
    assert (float(q_x.args[1]), int(q_x.args[2])) == (1.0, 0)     # the premise
    _runs_as_pt2e(aot.to_edge(ep).to_executorch(), ep, codes[0])


def test_aot_quantize_names_the_idle_observers():
    from aot.quantization.quantizer import _check_calibrated
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e
    gm = torch.export.export(_model(Mlp), _inputs(Mlp)).module()
    prepared = prepare_pt2e(gm, aot.Int8Quantizer())
    with pytest.raises(QuantizationError, match="never calibrated") as info:
        _check_calibrated(prepared)
    text = str(info.value)
    assert f"the weight of linear at {HERE}:{_line(Mlp, 'self.a(x)')} " in text
    assert f"the output of linear_1 at {HERE}:{_line(Mlp, 'self.b(h)')} " in text
    assert "the input x at " in text and "observer activation_post_process_" in text
    prepared(*_inputs(Mlp))                      # one batch: every observer saw data
    _check_calibrated(prepared)


# -- the Program check: each tensor argument's dtype, as the op declares it ----------------------

def _int32_weights(program: P.Program) -> tuple[P.Program, int, int]:
    """``program`` with the weights of its first quantized_linear replaced by an int32
    constant of the same shape; (program, instruction, value index)."""
    plan = program.execution_plan[0]
    linear = next(i for i, o in enumerate(plan.operators)
                  if (o.name, o.overload) == ("cortex_m::quantized_linear", "out"))
    chain = plan.chains[0]
    k, ins = next((k, ins) for k, ins in enumerate(chain.instructions)
                  if isinstance(ins, P.KernelCall) and ins.op_index == linear)
    index = ins.args[1]                                     # (input, weights, ...)
    weights = plan.values[index]
    assert weights.scalar_type == P.ScalarType.CHAR and weights.data_buffer_idx > 0
    data = np.arange(weights.numel, dtype=np.int32).tobytes()
    buffers = program.constant_buffer + (P.Buffer(data),)
    bad = dataclasses.replace(weights, scalar_type=P.ScalarType.INT,
                              data_buffer_idx=len(buffers) - 1)
    values = plan.values[:index] + (bad,) + plan.values[index + 1:]
    plan = dataclasses.replace(plan, values=values)
    return dataclasses.replace(program, execution_plan=(plan,), constant_buffer=buffers), k, index


def test_int32_constant_as_int8_weights_is_refused():
    _, ep = _pt2e(Mlp, batches=4)
    good = aot.to_edge(ep).to_executorch().executorch_program
    assert program_problems(good) == []
    bad, k, index = _int32_weights(good)
    with pytest.raises(AotError) as info:
        verify_program(bad)
    text = str(info.value)
    assert (f"instruction {k} (cortex_m::quantized_linear.out) at {HERE}:"
            f"{_line(Mlp, 'self.a(x)')} ") in text
    assert (f"argument 'weights': tensor {index} is int32, where "
            "cortex_m::quantized_linear.out declares int8") in text
    # A malformed call, not a missing kernel: a .pte from elsewhere is refused for it too.
    (problem,) = program_problems(bad, known_only=True)
    assert not problem.unsupported and "argument 'weights'" in problem.what
    with pytest.raises(PteFormatError, match=r"argument 'weights': tensor \d+ is int32, where "
                                             r"cortex_m::quantized_linear\.out declares int8"):
        load_program(bytes(serialize_pte(bad)))


def test_every_int8_op_declares_the_dtype_of_each_tensor_argument():
    from aot.ops import all_ops
    # (and mcu_aot::convolution_in_place, the float32 convolution under --overlap)
    q8 = [op for op in all_ops() if op.et_name.startswith(("cortex_m::", "mcu_aot::"))]
    assert len(q8) == 26
    for op in q8:
        tensors = {a.name for a in op.schema.arguments if "Tensor" in str(a.type)}
        assert op.arg_dtypes is not None and set(op.arg_dtypes) == tensors, op.key
    assert dict(next(op for op in q8 if op.key == "cortex_m::quantized_linear.out")
                .arg_dtypes) == {"input": (P.ScalarType.CHAR,), "weights": (P.ScalarType.CHAR,),
                                 "bias": (P.ScalarType.INT,), "kernel_sum": (P.ScalarType.INT,),
                                 "out": (P.ScalarType.CHAR,)}


# -- int16: refused, at the user's line ----------------------------------------------------------

def test_int16_refusal_names_the_source_line():
    from torchao.quantization.pt2e.observer import MinMaxObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec

    class Int16Acts(aot.Int8Quantizer):
        def __init__(self):
            super().__init__()
            self.act = QuantizationSpec(torch.int16, MinMaxObserver, -32768, 32767,
                                        torch.per_tensor_affine)

    example = _inputs(ConvNet)
    ep = aot.quantize(_model(ConvNet), example, [_inputs(ConvNet, s) for s in (1, 2)],
                      Int16Acts())
    line = _line(ConvNet, "return torch.relu(self.conv(x))")
    with pytest.raises(QuantizationError,
                       match=rf" at {HERE}:{line} .*: torch\.int16 quantization is not "
                             "supported"):
        aot.to_edge(ep)
