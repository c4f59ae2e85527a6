"""FusedElementwiseBackend: which ops the partitioner groups, the loop nest the C hook walks,
and lowered models (in the arena interpreter and read back from the .pte) against eager."""
from __future__ import annotations

import pytest
import torch
from torch.export import export

import aot
from aot.backend import executorch_call_delegate
from aot.backends import FusedElementwisePartitioner
from aot.backends.fused import loop_nest, load
from aot.interpret import ArenaInterpreter
from aot.ir import DelegateCallSpec
from aot.memory import verify_plan
from aot.zoo import resnet8
from fused_models import FUSED_MODELS
from program_runner import run_program

MODELS = dict(FUSED_MODELS, resnet8=resnet8)


def _lower(model, ex, partitioner=None):
    edge = aot.to_edge(export(model, ex))
    if partitioner is not None:
        edge = edge.to_backend(partitioner)
    return edge.to_executorch()


@pytest.fixture(scope="module", params=sorted(MODELS))
def lowered(request):
    model, ex = MODELS[request.param]()
    return request.param, model, ex, _lower(model, ex, FusedElementwisePartitioner()), \
        _lower(model, ex)


def _outs(model, ex):
    out = model(*ex)
    return out if isinstance(out, tuple) else (out,)


def test_fused_matches_eager_in_the_arena(lowered):
    name, model, ex, fused, _ = lowered
    method = fused.lowered()
    verify_plan(method.buffers, method.plan)
    assert any(isinstance(c, DelegateCallSpec) for c in method.graph.calls)
    for g, w in zip(ArenaInterpreter(method.graph, method.plan)(*ex), _outs(model, ex)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_fused_pte_read_back_matches_eager(lowered):
    name, model, ex, fused, _ = lowered
    program = aot.load_program(fused.buffer)
    plan = program.method()
    assert {d.id for d in plan.delegates} == {"FusedElementwiseBackend"}
    for d in plan.delegates:
        load(program.backend_delegate_data[d.processed.index].data)   # a valid program
    for g, w in zip(run_program(program, ex), _outs(model, ex)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_fusion_never_costs_arena_and_removes_calls(lowered):
    name, _, _, fused, plain = lowered
    assert fused.lowered().plan.arena_size <= plain.lowered().plan.arena_size
    assert len(fused.lowered().graph.calls) < len(plain.lowered().graph.calls)


def test_hand_written_hardswish_needs_less_arena():
    model, ex = FUSED_MODELS["hardswish_cnn"]()
    fused, plain = _lower(model, ex, FusedElementwisePartitioner()), _lower(model, ex)
    # x + 3 cannot overwrite x (x is read again): one tensor more, unless fused.
    assert fused.lowered().plan.arena_size < plain.lowered().plan.arena_size


def test_output_is_planned_over_its_dying_input():
    class M(torch.nn.Module):
        def forward(self, x):
            y = x.permute(1, 0)          # a real copy that dies at the fused call
            return torch.relu(y * 2.0 + 1.0) * 3.0

    fused = _lower(M(), (torch.randn(4, 4),), FusedElementwisePartitioner())
    g, plan = fused.lowered().graph, fused.lowered().plan
    permute, call = g.calls
    assert isinstance(call, DelegateCallSpec) and call.inputs == permute.outs
    assert g.tensors[call.outs[0]].alias_of == permute.outs[0]
    assert plan.offsets[g.root(call.outs[0])] == plan.offsets[g.root(permute.outs[0])]


# ---- the partitioner -------------------------------------------------------------------------

def _groups(model, ex, **kw):
    ep = aot.to_edge(export(model, ex)).exported_program()
    result = FusedElementwisePartitioner(**kw).partition(ep)
    groups = {}
    for n in ep.graph.nodes:
        tag = n.meta.get("delegation_tag")
        if tag is not None:
            groups.setdefault(tag, []).append(n.name)
    return groups, result


def test_partitioner_groups_by_shape_and_skips_lone_ops():
    class M(torch.nn.Module):
        def forward(self, x):
            a = torch.relu(x * 2.0 + 1.0)                     # one chain of [4, 8]
            m = a.mean(dim=1, keepdim=True)                   # not pointwise
            return torch.sigmoid(m), a - m                    # lone sigmoid; sub alone

    groups, result = _groups(M(), (torch.randn(4, 8),))
    assert list(groups.values()) == [["mul", "add", "relu"]]
    assert set(result.partition_tags) == {"fused0"}
    groups, _ = _groups(M(), (torch.randn(4, 8),), min_ops=1)
    assert len(groups) == 3


def test_partitioner_hands_private_constants_to_the_delegate():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(8))
            self.shared = torch.nn.Parameter(torch.randn(8))

        def forward(self, x):
            y = torch.relu(x * self.w + self.shared)
            return y, x - self.shared

    model = M()
    groups, _ = _groups(model, (torch.randn(2, 8),))
    (names,) = groups.values()
    assert "p_w" in names and "p_shared" not in names   # shared: passed in as an input
    edge = aot.to_edge(export(model, (torch.randn(2, 8),))).to_backend(
        FusedElementwisePartitioner())
    ep = edge.exported_program()
    assert "p_w" not in [n.name for n in ep.graph.nodes]
    call = next(n for n in ep.graph.nodes if n.target is executorch_call_delegate)
    assert [a.name for a in call.args[1:]] == ["p_shared", "x"]
    x = torch.randn(2, 8)
    torch.testing.assert_close(ep.module()(x), model(x))   # eager: the delegated program runs


def test_partitioner_avoids_cycles():
    class M(torch.nn.Module):
        def forward(self, x):
            a = x * 2.0
            s = a.sum(dim=1, keepdim=True).expand(4, 8)     # outside, between a and c
            return torch.relu(a + s)

    groups, _ = _groups(M(), (torch.randn(4, 8),), min_ops=1)
    assert all(not ({"mul"} < set(g) and "add" in g) for g in groups.values())
    aot.to_edge(export(M(), (torch.randn(4, 8),))).to_backend(
        FusedElementwisePartitioner(min_ops=1))    # lowers without a cycle


# ---- the loop nest ---------------------------------------------------------------------------

@pytest.mark.parametrize("out, operands, want", [
    ((2, 3, 4), [(2, 3, 4), (2, 3, 4)], [(24, [1, 1])]),
    ((1, 8, 4, 4), [(1, 8, 4, 4), (8, 1, 1)], [(8, [16, 1]), (16, [1, 0])]),
    ((4, 8), [(4, 8), (8,)], [(4, [8, 0]), (8, [1, 1])]),
    ((4, 8), [(4, 8), ()], [(32, [1, 0])]),
    ((2, 3, 5), [(2, 1, 5)], [(2, [5]), (3, [0]), (5, [1])]),
    ((), [()], [(1, [0])]),
])
def test_loop_nest(out, operands, want):
    assert loop_nest(out, operands) == want
