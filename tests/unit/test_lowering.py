"""The lowering chain on the zoo networks and every op model, proven by running it.

The reference is eager torch. The lowered method runs through ArenaInterpreter, which executes
the very calls and arena offsets the .pte and C code use.
"""
from __future__ import annotations

import pytest
import torch

import aot
from aot.interpret import ArenaInterpreter
from aot.ir import TensorKind
from aot.memory import verify_plan
from aot.zoo import ZOO
from op_models import OP_MODELS, Counter

aten = torch.ops.aten


def _lower(model, example, config=None):
    ep = torch.export.export(model.eval(), example)
    return aot.to_edge(ep).to_executorch(config)


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _check_method(manager, model, example, name="forward"):
    method = manager.lowered(name)
    verify_plan(method.buffers, method.plan)
    assert method.plan.arena_size >= method.plan.lower_bound
    got = ArenaInterpreter(method.graph, method.plan)(*example)
    want = _as_list(model(*example))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    return method


@pytest.fixture(scope="module", params=sorted(ZOO))
def zoo(request):
    model, example = ZOO[request.param]()
    return request.param, model, example, _lower(model, example)


def test_zoo_edge_program_matches_eager(zoo):
    _, model, example, manager = zoo
    edge = aot.to_edge(torch.export.export(model, example)).exported_program()
    torch.testing.assert_close(edge.module()(*example), model(*example), rtol=1e-5, atol=1e-5)


def test_zoo_lowered_matches_eager(zoo):
    name, model, example, manager = zoo
    _check_method(manager, model, example)


def test_zoo_batch_norm_folded_and_no_runtime_transpose(zoo):
    _, _, _, manager = zoo
    ops = {c.op.aten for c in manager.lowered().graph.calls}
    assert aten._native_batch_norm_legit_no_training.default not in ops
    assert aten.permute_copy.default not in ops   # linear weights were transposed at compile time


@pytest.mark.parametrize("name", sorted(OP_MODELS))
def test_op_model_lowered_matches_eager(name):
    model, example = OP_MODELS[name]
    _check_method(_lower(model, example), model, example)


def test_constants_folded_away_from_inference():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, 3))

        def forward(self, x):
            return x @ (self.w.t() * 2.0 + 1.0).t().t().t()

    model, example = M(), (torch.randn(2, 4),)
    manager = _lower(model, example)
    assert [c.op.key for c in manager.lowered().graph.calls] == ["aten::mm.out"]
    _check_method(manager, model, example)


def test_an_uninitialized_tensor_folds_to_zeros():
    """Circular padding decomposes into an ``empty`` tensor that slices overwrite. Folded, its
    bytes go to flash: zeros, not whatever the heap held (which made the generated C differ
    from run to run)."""
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.pad(x, (1, 1, 2, 0), mode="circular")

    model, example = M(), (torch.rand(1, 2, 4, 5),)
    edge = aot.to_edge(torch.export.export(model, example)).exported_program()
    folded = {k: v for k, v in edge.constants.items() if "empty" in k}
    assert folded, sorted(edge.constants)
    for name, value in folded.items():
        assert not value.any(), name
    _check_method(_lower(model, example), model, example)


def test_type_promotion_makes_dtypes_uniform():
    example = (torch.randn(3, 4), torch.arange(12).reshape(3, 4))

    class M(torch.nn.Module):
        def forward(self, x, i):
            return x * i + i
    manager = _lower(M(), example)
    graph = manager.lowered().graph
    for call in graph.calls:
        if call.op.key == "aten::mul.out":
            dtypes = {graph.tensors[r].dtype for r in call.reads}
            assert dtypes == {torch.float32}
    _check_method(manager, M(), example)


def test_mutable_buffer_keeps_state_across_calls():
    example = (torch.ones(2, 3),)
    manager = _lower(Counter(), example)
    method = manager.lowered()
    state = [t for t in method.graph.tensors if t.kind == TensorKind.STATE]
    assert len(state) == 1
    run = ArenaInterpreter(method.graph, method.plan)
    eager = Counter()
    for step in range(3):
        x = torch.full((2, 3), float(step + 1))
        torch.testing.assert_close(run(x)[0], eager(x))


def test_alloc_graph_input_output_are_per_config():
    model, example = OP_MODELS["conv2d"]
    planned = _lower(model, example).lowered()
    config = aot.ExecutorchBackendConfig(
        memory_planning_pass=aot.MemoryPlanningPass(alloc_graph_input=False,
                                                    alloc_graph_output=False))
    unplanned = _lower(model, example, config).lowered()
    g = unplanned.graph
    assert g.root(g.inputs[0]) not in unplanned.plan.offsets
    assert g.root(g.outputs[0]) not in unplanned.plan.offsets
    assert planned.graph.inputs[0] in planned.plan.offsets
    assert unplanned.plan.arena_size < planned.plan.arena_size
    got = ArenaInterpreter(g, unplanned.plan)(*example)
    torch.testing.assert_close(got[0], model(*example), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("alignment", [4, 16, 64])
def test_alignment_is_configurable(alignment):
    model, example = ZOO["autoencoder"]()
    manager = _lower(model, example, aot.ExecutorchBackendConfig(alignment=alignment))
    plan = manager.lowered().plan
    assert plan.alignment == alignment
    assert all(off % alignment == 0 for off in plan.offsets.values())
    _check_method(manager, model, example)


def test_in_place_relu_reaches_conv_relu_lower_bound():
    """conv -> relu: relu takes over conv's output, so only input + output are ever live."""
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    example = (torch.randn(1, 3, 8, 8),)
    plan = _lower(model, example).lowered().plan
    assert plan.arena_size == plan.lower_bound == (3 + 8) * 64 * 4
