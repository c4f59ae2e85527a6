"""Our int8 lowering against ExecuTorch 1.5.1's cortex_m backend.

1. The same model, quantized with ExecuTorch's CortexMQuantizer, lowered by ExecuTorch's own
   cortex_m passes (CortexMPassManager, legacy layout, Cortex-M4 target) and by ours: both call
   the same ops, in the same order, with the same multipliers, shifts, offsets, activation
   ranges, repacked weights and biases. (Our ops are the `_nhwc` variants over NHWC tensors;
   ExecuTorch's legacy variants take the same bytes as channels-last NCHW tensors.)
2. Our .pte's instruction list, executed with ExecuTorch's Python reference kernels for the
   cortex_m ops where those are exact (conv, depthwise, per-tensor linear, add, mul, max-pool,
   pad, transpose, lookup table, max/min) and ours elsewhere, gives exactly our C's output.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import aot
from aot import program as P
from aot.config import EdgeCompileConfig
from aot.ir import Ref
from aot.zoo import ZOO, calibration_set
from conftest import require_module

from int8_models import INT8_MODELS, host_model, int8_inputs, lowered
from program_runner import run_program


@pytest.fixture(scope="module")
def et():
    require_module("executorch")
    require_module("tosa_serializer")          # ExecuTorch's cortex_m op library imports it
    import executorch.backends.cortex_m.passes  # noqa: F401  (before the ops: import order)
    import executorch.backends.cortex_m.ops.operators  # noqa: F401
    return torch.ops.cortex_m


def _model(name):
    if name in ZOO:
        model, example = ZOO[name]()
        return model, example, calibration_set(name, 4)
    return INT8_MODELS[name]()


def _channels_last(t):
    return t.to(memory_format=torch.channels_last) if t.dim() == 4 else t


def _cortex_m_quantized(name):
    """The model quantized by ExecuTorch's CortexMQuantizer (channels-last, as it requires)."""
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    model, example, cal = _model(name)
    model = model.to(memory_format=torch.channels_last)
    example = tuple(_channels_last(t) for t in example)
    gm = torch.export.export(model, example).module(check_guards=False)
    prepared = prepare_pt2e(gm, CortexMQuantizer())
    for batch in cal:
        prepared(*[_channels_last(t) for t in batch])
    return torch.export.export(convert_pt2e(prepared), example)


def _et_calls(ep):
    """ExecuTorch's own lowering for its default target, the M55: (op name, {arg name: value})
    per cortex_m call. (For Helium its linear takes a kernel_sum in place of the bias, as ours
    does on every target.)"""
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig
    from executorch.exir import to_edge
    edge = to_edge(ep, compile_config=cortex_m_edge_compile_config())
    out = CortexMPassManager(edge.exported_program(),
                             target_config=CortexMTargetConfig(cpu=CortexM.M55)).transform()
    consts = {}
    for spec in out.graph_signature.input_specs:
        value = out.state_dict.get(spec.target, out.constants.get(spec.target)) \
            if spec.target is not None else None
        if value is not None:
            consts[spec.arg.name] = value
    calls = []
    for node in out.graph.nodes:
        if node.op != "call_function" or getattr(node.target, "namespace", "") != "cortex_m":
            continue
        schema = node.target._schema
        args = {}
        for a, v in zip(schema.arguments, node.args):
            if isinstance(v, torch.fx.Node):
                v = consts.get(v.name, v)
            args[a.name] = v
        calls.append((schema.name.split("::")[1], args))
    return calls


def _our_calls(manager):
    g = manager.lowered().graph
    calls = []
    for c in g.calls:
        name, _, _ = c.op.key.partition(".")
        if not name.startswith("cortex_m::"):
            continue
        args = {}
        for k, v in c.args:
            if isinstance(v, Ref):
                v = torch.from_numpy(np.array(g.constants[v.id])) if v.id in g.constants else v
            args[k] = v
        calls.append((name.split("::")[1].removesuffix("_nhwc"), args))
    return calls


_COMPARED = {
    "quantized_conv2d": ("weight", "bias", "stride", "padding", "dilation", "input_offset",
                         "output_offset", "requantize_multipliers", "requantize_shifts",
                         "activation_min", "activation_max"),
    "quantized_linear": ("weights", "bias", "kernel_sum", "input_offset", "filter_offset",
                         "output_offset", "requantize_multipliers", "requantize_shifts",
                         "activation_min", "activation_max"),
    "quantized_add": ("self_zero_point", "self_multiplier", "self_shift", "other_zero_point",
                      "other_multiplier", "other_shift", "output_zero_point",
                      "output_multiplier", "output_shift", "activation_min", "activation_max"),
    "quantized_mul": ("self_zero_point", "other_zero_point", "output_zero_point",
                      "output_multiplier", "output_shift"),
    "softmax": ("input_zero_point", "output_zero_point", "input_multiplier", "input_shift",
                "diff_min"),
    "quantized_max_pool2d": ("kernel_size", "stride", "padding", "activation_min",
                             "activation_max"),
}
_COMPARED["quantized_depthwise_conv2d"] = _COMPARED["quantized_conv2d"] + ("depth_multiplier",)


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        a, b = torch.as_tensor(a), torch.as_tensor(b)
        return a.shape == b.shape and torch.equal(a.to(torch.int64), b.to(torch.int64))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return [int(x) for x in a] == [int(x) for x in b]
    return a == b


@pytest.mark.parametrize("name", ["kws", "resnet8", "residual", "conv_blocks", "mlp"])
def test_same_calls_as_executorchs_cortex_m_passes(et, name):
    ep = _cortex_m_quantized(name)
    theirs = [c for c in _et_calls(ep) if c[0] in _COMPARED]
    ours = [c for c in _our_calls(aot.to_edge(ep).to_executorch()) if c[0] in _COMPARED]
    assert [n for n, _ in ours] == [n for n, _ in theirs]
    for (op, a), (_, b) in zip(ours, theirs):
        for key in _COMPARED[op]:
            assert _same(a[key], b[key]), (op, key, a[key], b[key])


# ExecuTorch's Python references that compute what the C kernels compute (its softmax and
# average pool run in float; its linear reads only the first multiplier).
_EXACT = {"quantized_conv2d_nhwc", "quantized_depthwise_conv2d_nhwc", "quantized_add",
          "quantized_mul", "quantized_max_pool2d_nhwc", "pad", "transpose",
          "quantized_activation", "maximum", "minimum", "quantized_linear"}


def _et_kernel(et, name):
    fn = getattr(et, name).default

    def run(out, **kwargs):
        if name == "quantized_linear" and len(kwargs["requantize_multipliers"]) > 1:
            return None                              # per-channel: not what the ref computes
        if "conv" in name and list(kwargs["dilation"]) != [1, 1]:
            return None                              # torch has no dilated int32 convolution
        return out.copy_(fn(**kwargs).reshape(out.shape))
    return run


@pytest.mark.parametrize("name", ["kws", "resnet8", "residual", "conv_blocks", "activations",
                                  "movement"])
def test_pte_on_executorchs_reference_kernels_equals_c(et, name):
    manager = lowered(name, True)
    program = aot.load_program(manager.buffer)
    overrides = {f"cortex_m::{n}.out": _et_kernel(et, n) for n in _EXACT}
    xs = int8_inputs(name, seed=3)
    used = set()
    (got,) = run_program(program, [torch.from_numpy(x) for x in xs], overrides=overrides,
                         used=used)
    (want,) = host_model(name, True)(*xs)
    np.testing.assert_array_equal(got.numpy(), want)
    assert used, "no call ran on ExecuTorch's kernels"


def _follows_the_quantized_module(manager, ep, example) -> None:
    """The planned program, run in torch over its arena, within 3 output steps of the PT2E
    module (or, for an output a float fallback computes, a few percent of it)."""
    from aot.firmware import output_scales
    from aot.interpret import ArenaInterpreter
    m = manager.lowered()
    got = ArenaInterpreter(m.graph, m.plan)(*example)[0]
    want = ep.module()(*example)
    (scale,) = output_scales(manager.executorch_program)
    if scale is None:
        scale = 0.02 * float(want.abs().max())
    assert ((got - want) / scale).round().abs().max() <= 3      # in whole steps


# The op models of issue 37's lowerings (1-D, transposed conv, matmuls of activations,
# attention, layer norm, recurrent cells, resizes, reductions).
@pytest.mark.parametrize("name", ["conv1d", "decoder", "products", "attention", "norm", "gru",
                                  "resize", "reduce", "stats"])
def test_cortex_m_quantized_graphs_of_new_layers_lower(et, name):
    """What ExecuTorch's CortexMQuantizer annotates lowers to int8, what it leaves float runs
    as a float fallback, and the program follows the quantized module."""
    ep = _cortex_m_quantized(name)
    manager = aot.to_edge(ep).to_executorch()
    _, example, _ = _model(name)
    _follows_the_quantized_module(manager, ep, tuple(_channels_last(t) for t in example))


@pytest.mark.parametrize("name", ["residual", "mlp", "conv_blocks"])
def test_xnnpack_quantized_graphs_lower(et, name):
    """ExecuTorch's XNNPACKQuantizer leaves the bias in float: the lowering quantizes it at
    scale s_in * s_w. What it left unquantized (the pools here) runs as a float fallback."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    model, example, cal = INT8_MODELS[name]()
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(torch.export.export(model, example).module(check_guards=False),
                            quantizer)
    for batch in cal:
        prepared(*batch)
    ep = torch.export.export(convert_pt2e(prepared), example)
    manager = aot.to_edge(ep).to_executorch()
    ops = {c.op.key for c in manager.lowered().graph.calls}
    assert "cortex_m::quantized_conv2d_nhwc.out" in ops or \
        "cortex_m::quantized_linear.out" in ops
    _follows_the_quantized_module(manager, ep, example)
