"""An LSTM's cell state runs in int16, as TFLite Micro's int8 LSTM keeps it (issue 37): the
quantizer gives every step's state, its two products and its constant first value one symmetric
int16 observer; the lowering runs the products as quantized_mul_s16, the sum as add_s16 and
tanh of the state as a step table (step_s16). The gates' products with the input and hidden
state stay int8, and sigmoid and tanh of the gates stay 256-entry tables.

Each cell is checked in the spellings users write (nn.LSTM, and a hand-written cell in either
operand order), against the PT2E reference (which quantizes the state to int16 as well), and
a state that leaves the layer (returned, or read by another op) keeps the int8 path.
"""
from __future__ import annotations

import collections

import numpy as np
import pytest
import torch
import torch.nn as nn

import aot
import aot.host
from aot.firmware import output_scales
from aot.report import op_rows

QD = torch.ops.quantized_decomposed


class HandCell(nn.Module):
    """An LSTM written as users write one by hand: one projection, chunked gates, a zero
    state, ``order`` choosing how the state's sum and products are spelled."""

    def __init__(self, order: int, steps: int = 6):
        super().__init__()
        self.order, self.steps = order, steps
        self.x = nn.Linear(4, 32)
        self.h = nn.Linear(8, 32, bias=False)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        h = torch.zeros(1, 8)
        c = torch.zeros(1, 8)
        for t in range(self.steps):
            i, f, g, o = (self.x(x[:, t]) + self.h(h)).chunk(4, dim=-1)
            i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
            if self.order == 0:
                c = f * c + i * g
            else:
                c = g * i + c * f
            h = o * torch.tanh(c)
        return self.fc(h)


class Stateful(nn.Module):
    """An LSTM whose final state leaves the model: its cell state stays int8."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y[:, -1] + c[0]


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


MODELS = {"nn.LSTM": Layer, "hand f*c + i*g": lambda: HandCell(0),
          "hand g*i + c*f": lambda: HandCell(1)}
STEPS = 6


def _quantized(make, seed: int = 3):
    torch.manual_seed(seed)
    model = make().eval()
    gen = torch.Generator().manual_seed(seed + 1)
    cal = [(torch.randn(1, STEPS, 4, generator=gen),) for _ in range(8)]
    example = (torch.randn(1, STEPS, 4, generator=gen),)
    return model, example, aot.quantize(model, example, cal)


def _calls(manager) -> collections.Counter:
    return collections.Counter(c.op.aten.name().split("::")[-1]
                               for c in manager.lowered().graph.calls)


@pytest.mark.parametrize("name", list(MODELS))
def test_the_cell_state_is_int16_in_every_spelling(name):
    """Each step's state is one add_s16 of two quantized_mul_s16 products and is read by one
    step_s16 (its tanh); every int16 value has the one cell scale; and the C follows the PT2E
    reference (whose state is int16 too) within one output step."""
    model, example, ep = _quantized(MODELS[name])
    cells = [n for n in ep.graph.nodes if n.target == QD.quantize_per_tensor.default and
             n.args[5] == torch.int16]
    assert cells, "the PT2E reference quantizes the state to int16"
    assert len({float(n.args[1]) for n in cells}) == 1 and {n.args[2] for n in cells} == {0}
    manager = aot.to_edge(ep).to_executorch()
    calls = _calls(manager)
    assert (calls["add_s16"], calls["step_s16"], calls["quantized_mul_s16"]) == \
        (STEPS, STEPS, 2 * STEPS), calls
    assert not any(r.fallback for r in op_rows(manager.lowered()))
    g = manager.lowered().graph
    wide = {t.qparams for t in g.tensors if t.dtype == torch.int16 and t.qparams is not None}
    assert len(wide) == 1 and next(iter(wide))[1] == 0
    (scale,) = output_scales(manager.executorch_program)
    host = aot.host.build(aot.generate_c(manager, name="lstm_cell"))
    for seed in range(6):
        x = torch.randn(1, STEPS, 4, generator=torch.Generator().manual_seed(50 + seed))
        with torch.no_grad():
            want = ep.module()(x).numpy()
        (got,) = host(x.numpy())
        assert np.abs(got.reshape(want.shape) - want).max() <= 1.01 * scale


def test_the_spellings_lower_to_the_same_program():
    """f * c + i * g and g * i + c * f are one cell: the same calls (in the order the source
    runs them) with the same qparams, and the C gives the same bytes."""
    def build(order):
        _, _, ep = _quantized(lambda: HandCell(order))
        manager = aot.to_edge(ep, compile_config=aot.EdgeCompileConfig(int8_io=True)) \
            .to_executorch()
        g = manager.lowered().graph
        qparams = sorted(repr(t.qparams) for t in g.tensors if t.qparams is not None)
        return _calls(manager), qparams, aot.host.build(aot.generate_c(manager,
                                                                       name=f"hand{order}"))
    (calls0, q0, host0), (calls1, q1, host1) = build(0), build(1)
    assert calls0 == calls1 and q0 == q1
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.integers(-128, 128, size=(1, STEPS, 4)).astype(np.int8)
        np.testing.assert_array_equal(host0(x)[0], host1(x)[0])


def test_a_state_that_leaves_the_layer_stays_int8():
    """A final state the model returns is read as float: the state stays int8 (no int16 value
    would reach a float op), and the program still lowers with no fallback."""
    _, _, ep = _quantized(Stateful)
    assert not any(n.target == QD.quantize_per_tensor.default and n.args[5] == torch.int16
                   for n in ep.graph.nodes)
    manager = aot.to_edge(ep).to_executorch()
    assert _calls(manager)["add_s16"] == 0
    assert not any(r.fallback for r in op_rows(manager.lowered()))
