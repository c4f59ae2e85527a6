"""The exir-style API: names, signatures and behaviour from the seeds, and clear errors."""
from __future__ import annotations

import pytest
import torch
from torch import nn

import aot
from aot.errors import (DynamicShapeError, ExportFailure, TrainingModeError, UnsupportedOpError)
from aot.interpret import ArenaInterpreter


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Other(nn.Module):
    def forward(self, x, y):
        return x * y - y


def _ep(model, *example):
    return torch.export.export(model.eval(), example)


def test_single_program_is_named_forward():
    edge = aot.to_edge(_ep(Small(), torch.randn(2, 4)))
    assert edge.methods == {"forward"}
    assert edge.config_methods == set()
    assert isinstance(edge.exported_program(), torch.export.ExportedProgram)
    assert edge.exported_program("forward") is edge.exported_program()


def test_several_methods_and_constant_methods():
    x, y = torch.randn(2, 4), torch.randn(2, 4)
    edge = aot.to_edge({"forward": _ep(Small(), x), "mix": _ep(Other(), x, y)},
                       constant_methods={"sample_rate": 16000, "labels": [3, 1, 4]})
    assert edge.methods == {"forward", "mix"}
    assert edge.config_methods == {"sample_rate", "labels"}
    et = edge.to_executorch()
    assert et.methods == {"forward", "mix"}
    assert et.config_methods == {"sample_rate", "labels"}
    mix = et.lowered("mix")
    got = ArenaInterpreter(mix.graph, mix.plan)(x, y)[0]
    torch.testing.assert_close(got, Other()(x, y))
    names = [p.name for p in et.executorch_program.execution_plan]
    assert sorted(names) == ["forward", "labels", "mix", "sample_rate"]


def test_transform_runs_user_passes_per_method():
    def relu_to_sigmoid(gm: torch.fx.GraphModule):
        for node in gm.graph.nodes:
            if node.target == torch.ops.aten.relu.default:
                node.target = torch.ops.aten.sigmoid.default
        gm.recompile()
        return gm

    x = torch.randn(2, 4)
    model = Small().eval()
    edge = aot.to_edge({"forward": _ep(model, x), "copy": _ep(model, x)})
    changed = edge.transform({"copy": [relu_to_sigmoid]})
    targets = lambda ep: {n.target for n in ep.graph.nodes if n.op == "call_function"}
    assert torch.ops.aten.sigmoid.default in targets(changed.exported_program("copy"))
    assert torch.ops.aten.relu.default in targets(changed.exported_program("forward"))
    # the original manager is untouched
    assert torch.ops.aten.relu.default in targets(edge.exported_program("copy"))
    torch.testing.assert_close(changed.exported_program("copy").module()(x),
                               torch.sigmoid(model.fc(x)))


def test_to_edge_transform_and_lower_without_partitioner():
    x = torch.randn(2, 4)
    edge = aot.to_edge_transform_and_lower(_ep(Small(), x))
    assert edge.methods == {"forward"}


def test_unknown_method_names_the_methods():
    edge = aot.to_edge(_ep(Small(), torch.randn(2, 4)))
    with pytest.raises(aot.AotError, match="forward"):
        edge.exported_program("missing")


# -- bad input: one clear error each ---------------------------------------------------------

class Untraceable(nn.Module):
    def forward(self, x):
        if x.sum() > 0:           # data-dependent control flow
            return x * 2
        return x - 1


def test_model_that_will_not_trace():
    with pytest.raises(ExportFailure, match="Untraceable"):
        aot.export(Untraceable(), (torch.randn(3),))


class Exotic(nn.Module):
    def forward(self, x):
        a = torch.cumprod(x, dim=0)         # line A
        b = torch.logcumsumexp(x, dim=0)    # line B
        return torch.relu(a) + torch.sort(b).values


def test_unsupported_ops_are_listed_together_with_source_lines():
    with pytest.raises(UnsupportedOpError) as info:
        aot.to_edge(_ep(Exotic(), torch.randn(5)))
    text = str(info.value)
    for op in ("cumprod", "logcumsumexp", "sort"):
        assert op in text
    assert "test_api.py" in text and "torch.cumprod(x, dim=0)" in text
    assert len(info.value.missing) == 3


def test_dynamic_dimension_is_refused():
    batch = torch.export.Dim("batch", min=2, max=8)
    ep = torch.export.export(Small().eval(), (torch.randn(3, 4),),
                             dynamic_shapes=({0: batch},))
    with pytest.raises(DynamicShapeError, match="static shapes"):
        aot.to_edge(ep)


def test_batch_norm_in_training_mode_is_refused():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).train()
    ep = torch.export.export(model, (torch.randn(2, 3, 8, 8),))
    with pytest.raises(TrainingModeError, match="model.eval"):
        aot.to_edge(ep)


def test_to_edge_rejects_what_is_not_an_exported_program():
    with pytest.raises(aot.AotError, match="ExportedProgram"):
        aot.to_edge(Small())


def test_to_edge_transform_and_lower_checks_ops_after_delegation():
    """An op mcu-aot lacks is fine when a partitioner hands it to a backend; left behind, it is
    reported."""
    from aot.backends.demo import AddMulPartitioner

    class M(nn.Module):
        def forward(self, x, y):
            return torch.cumprod(x + y, dim=0) * y

    ep = _ep(M(), torch.randn(4), torch.randn(4))
    with pytest.raises(UnsupportedOpError, match="cumprod"):
        aot.to_edge_transform_and_lower(ep, partitioner=[AddMulPartitioner()])
