"""Delegates in the generated C, run on the host through aot.host (strict flags, -Werror):
the demo backend through runtime_c's rt_backend interface, the fused backend as generated
loops; from the manager and from the .pte read back; plus the runtime's refusals."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch.export import export

import aot
import aot.host
from aot.backend import BackendDetails, to_backend
from aot.backends import AddMulPartitioner, DemoBackend, FusedElementwisePartitioner
from aot.errors import AotError, BackendError, UnsupportedOpError
from aot.program import BackendDelegate
from aot.zoo import resnet8
from fused_models import FUSED_MODELS

RTOL, ATOL = 1e-4, 1e-5
TRACED = aot.ExecutorchBackendConfig(emit_stacktrace=True)   # the .pte keeps source lines



def _numpy(out):
    return [o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))]


def _check(program, model, ex, name, cache):
    sources = aot.generate_c(program, name=name)
    got = aot.host.build(sources, cache_dir=cache)(*[x.numpy() for x in ex])
    want = _numpy(model(*ex))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
    return sources


class AddMul(torch.nn.Module):
    def forward(self, x, y):
        x = x + y
        x = x * y
        x = x - y
        x = x / y
        x = x * y
        x = x + y
        return x


class SinModel(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x)


class Composite(torch.nn.Module):
    def __init__(self, lowered):
        super().__init__()
        self.lowerable = lowered
        self.bias = torch.ones(1) * 0.3

    def forward(self, x):
        a = self.lowerable(x)
        b = self.lowerable(a * 2.0)
        return a, b, a + b + self.bias


def test_demo_partitioned_runs_in_c(cache):
    model, ex = AddMul(), (torch.randn(2, 5), torch.rand(2, 5) + 0.5)
    et = aot.to_edge(export(model, ex)).to_backend(AddMulPartitioner()).to_executorch(TRACED)
    sources = _check(et, model, ex, "addmul", cache)
    text = sources.files["addmul.c"]
    assert "#include \"rt_backend.h\"" in text and "&rt_backend_demo," in text
    assert text.count("rt_delegate_execute(") == 2 and text.count("rt_delegate_init(") == 2
    assert "src/backend/demo.c" in sources.runtime_sources
    assert [r.op for r in sources.ops] == ["delegate 0 DemoBackend", "aten::sub.out",
                                          "aten::div.out", "delegate 1 DemoBackend"]
    # The .pte read back renders the same C (delegates and all).
    assert aot.generate_c(aot.load_program(et.buffer), name="addmul").files == sources.files


def test_demo_whole_program_and_composition_run_in_c(cache):
    edge = aot.to_edge(export(SinModel(), (torch.ones(7),)))
    lowered = to_backend("DemoBackend", edge.exported_program(), [])
    x = (torch.linspace(-20, 20, 7),)
    _check(aot.load_program(lowered.buffer()), SinModel(), x, "sin", cache)   # flow 1
    composite = Composite(lowered)
    et = aot.to_edge(export(composite, (torch.ones(7),))).to_executorch()     # flow 2
    _check(et, composite, x, "composite", cache)


def test_runtime_refuses_a_backend_it_does_not_have(cache):
    """A delegate whose id no linked rt_backend claims fails at init, as ExecuTorch's runtime
    does when a backend is not registered."""
    model, ex = AddMul(), (torch.randn(2, 5), torch.rand(2, 5) + 0.5)
    et = aot.to_edge(export(model, ex)).to_backend(AddMulPartitioner()).to_executorch()
    sources = aot.generate_c(et, name="unknown")
    text = sources.files["unknown.c"]
    files = dict(sources.files, **{"unknown.c": text.replace('"DemoBackend", unknown_blob',
                                                             '"OtherBackend", unknown_blob')})
    with pytest.raises(AotError, match=r"unknown_init returned 4 \(RT_ERR_PARAM\)"):
        aot.host.build(dataclasses.replace(sources, files=files), cache_dir=cache)
    bad_blob = text.replace("0x64, 0x65, 0x6d, 0x6f", "0x64, 0x65, 0x6d, 0x00", 1)  # "dem\0"
    with pytest.raises(AotError, match=r"unknown_init returned 4"):
        aot.host.build(dataclasses.replace(sources, files=dict(files, **{"unknown.c": bad_blob})),
                       cache_dir=cache)


def test_generate_c_names_a_backend_without_c():
    model, ex = AddMul(), (torch.randn(2, 5), torch.rand(2, 5) + 0.5)
    program = aot.to_edge(export(model, ex)).to_backend(AddMulPartitioner()) \
        .to_executorch().executorch_program
    plan = program.execution_plan[0]
    renamed = BackendDelegate("NotRegistered", plan.delegates[0].processed)
    program = dataclasses.replace(program, execution_plan=(dataclasses.replace(
        plan, delegates=(renamed,) + plan.delegates[1:]),))
    with pytest.raises(UnsupportedOpError, match="delegate 0 NotRegistered.*unknown backend"):
        aot.generate_c(program, name="m")


@pytest.mark.parametrize("name", sorted(FUSED_MODELS) + ["resnet8"])
def test_fused_runs_in_c(name, cache):
    model, ex = (FUSED_MODELS.get(name) or resnet8)()
    et = aot.to_edge(export(model, ex)).to_backend(FusedElementwisePartitioner()) \
        .to_executorch(TRACED)
    sources = _check(et, model, ex, name, cache)
    text = sources.files[f"{name}.c"]
    assert "FusedElementwiseBackend" in text and "static rt_status" in text
    assert not any(s.startswith("src/backend/") for s in sources.runtime_sources)
    # From the .pte read back: same C.
    assert aot.generate_c(aot.load_program(et.buffer), name=name).files == sources.files


def test_identical_fused_calls_share_one_function(cache):
    class Twice(torch.nn.Module):
        def forward(self, x):
            y = torch.relu(x * 2.0 + 1.0)
            y = y.permute(1, 0)
            return torch.relu(y * 2.0 + 1.0)

    model, ex = Twice(), (torch.randn(4, 4),)
    et = aot.to_edge(export(model, ex)).to_backend(FusedElementwisePartitioner()).to_executorch()
    text = _check(et, model, ex, "twice", cache).files["twice.c"]
    assert text.count("static rt_status twice_d0(") == 1 and text.count("twice_d0(") == 3
    assert "twice_d1" not in text


class BrokenC(BackendDetails):
    """Lowers like DemoBackend, but its C hook fails."""

    @staticmethod
    def preprocess(edge_program, compile_specs):
        return DemoBackend.preprocess(edge_program, compile_specs)

    @classmethod
    def codegen_c(cls, processed_bytes, compile_specs, inputs, outputs, name):
        raise KeyError("no rule for this shape")


def test_a_failing_c_hook_is_named():
    ex = (torch.randn(3), torch.randn(3))

    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    lowered = to_backend("BrokenC", aot.to_edge(export(Add(), ex)).exported_program(), [])
    with pytest.raises(BackendError, match="delegate 0 BrokenC: backend BrokenC's codegen_c "
                                           "failed: KeyError"):
        aot.generate_c(aot.load_program(lowered.buffer()), name="broken")
