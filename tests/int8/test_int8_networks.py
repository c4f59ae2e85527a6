"""Whole int8 networks: the four zoo networks and int8 op models, quantized with Int8Quantizer.

- The generated C (int8 inputs and outputs) equals TensorFlow Lite Micro running the same
  quantized network exactly (tests/tflm.py rebuilds it from our program as a .tflite).
- With float I/O, the C output stays close to the PT2E-converted torch model: the same top
  class, and a few output steps (LSBs) at most.
- The planned arena is no larger than TFLM's for the same network, and than the int8 liveness
  bounds of the issue.
- The arena interpreter (the .pte's calls in torch, over one simulated arena) equals the C.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from aot.interpret import ArenaInterpreter
from aot.zoo import ZOO
from conftest import require_module

from int8_models import INT8_MODELS, host_model, int8_inputs, lowered, quantized

ZOO_NAMES = sorted(ZOO)
# The bounds for int8 I/O (bytes).
BOUNDS = {"kws": 16_000, "vww": 55_296, "resnet8": 49_152, "autoencoder": 768}


@pytest.fixture(scope="module")
def tflm():
    require_module("tflite_micro")
    import tflm as oracle
    return oracle


NETWORKS = ZOO_NAMES + sorted(INT8_MODELS)
# Lookup-table activations have no bit-exact TFLite builtin (TFLM's LOGISTIC and TANH use their
# own fixed-point series; the recurrent cells' gates are such tables), the oracle's .tflite
# builder (tests/tflm.py) has no SPLIT or CONCATENATION, and TFLite Micro has no int8 layer
# norm: those models are checked against PT2E's own per-code values instead.
TFLM_NETWORKS = [n for n in NETWORKS
                 if n not in ("activations", "movement", "shuffle", "gru", "lstm", "attention",
                              "norm", "reduce")]


@pytest.mark.parametrize("name", TFLM_NETWORKS)
def test_c_equals_tflite_micro(tflm, name):
    manager = lowered(name, True)
    model, _, _ = tflm.to_tflite(manager.lowered())
    xs = int8_inputs(name)
    (want,), _ = tflm.run_tflm(model, xs)
    (got,) = host_model(name, True)(*xs)
    np.testing.assert_array_equal(got, want.reshape(got.shape))


@pytest.mark.parametrize("name", NETWORKS)
def test_float_io_close_to_pt2e(name):
    """Float I/O: the C output against the PT2E reference, in output steps."""
    from aot.firmware import output_scales
    _, example, ep = quantized(name)
    manager = lowered(name, False)
    (scale,) = output_scales(manager.executorch_program)
    for seed in range(3):
        gen = torch.Generator().manual_seed(seed)
        x = [torch.randn(t.shape, generator=gen) for t in example]
        want = ep.module()(*x).detach().numpy()
        (got,) = host_model(name, False)(*[t.numpy() for t in x])
        steps = np.abs(got - want).max() / scale
        assert steps <= 3, f"{name}: {steps:.2f} output steps from PT2E"
        if want.ndim == 2 and want.shape[-1] > 1 and name in ZOO:
            assert (got.argmax(-1) == want.argmax(-1)).all()


@pytest.mark.parametrize("name", NETWORKS)
def test_interpreter_equals_c(name):
    """The .pte's calls run in torch over the planned arena give the C's bytes."""
    manager = lowered(name, True)
    m = manager.lowered()
    xs = int8_inputs(name, seed=5)
    (want,) = host_model(name, True)(*xs)
    (got,) = ArenaInterpreter(m.graph, m.plan)(*[torch.from_numpy(x) for x in xs])
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("name", ZOO_NAMES)
def test_arena_within_bound_and_tflm(tflm, name):
    plan = lowered(name, True).lowered().plan
    assert plan.arena_size <= BOUNDS[name]
    model, _, _ = tflm.to_tflite(lowered(name, True).lowered())
    _, tflm_arena = tflm.run_tflm(model, int8_inputs(name))
    assert plan.arena_size <= tflm_arena, (plan.arena_size, tflm_arena)
