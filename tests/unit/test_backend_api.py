"""Delegation through to_backend: the three flows of ExecuTorch's guide, as written there with
our names (DemoBackend for BackendWithCompilerDemo, AddMulPartitioner for
AddMulPartitionerDemo), their .pte read back, and every bad input as one clear BackendError."""
from __future__ import annotations

import copy
import operator

import pytest
import torch
from torch.export import export

import aot
from aot.backend import (BackendDetails, CompileSpec, DelegationSpec, LoweredBackendModule,
                         PartitionResult, Partitioner, PreprocessResult, executorch_call_delegate,
                         to_backend)
from aot.backends import AddMulPartitioner
from aot.config import backend_config
from aot.errors import BackendError
from aot.interpret import ArenaInterpreter
from aot.memory import verify_plan
from aot.program import DataLocation, DelegateCall
from program_runner import run_program

# ExecuTorch's to_edge accepts any core ATen op; ours checks that we have a kernel, and we have
# none for sin (the demo backend supplies it). The flag is ExecuTorch's own.


# ---- the guide's models ----------------------------------------------------------------------

class LowerableSubModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sin(x)


class NonLowerableSubModel(torch.nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.bias = bias

    def forward(self, a, b):
        return torch.add(torch.add(a, b), self.bias)


class CompositeModel(torch.nn.Module):
    def __init__(self, lowered_module):
        super().__init__()
        self.non_lowerable = NonLowerableSubModel(torch.ones(1) * 0.3)
        self.lowerable = lowered_module

    def forward(self, x):
        a = self.lowerable(x)
        b = self.lowerable(a)
        ret = self.non_lowerable(a, b)
        return a, b, ret


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        x = x + y
        x = x * y
        x = x - y
        x = x / y
        x = x * y
        x = x + y
        return x


@pytest.fixture(scope="module")
def lowered_module():
    """Flow 1, as the guide writes it."""
    to_be_lowered = LowerableSubModel()
    example_input = (torch.ones(1), )
    to_be_lowered_exir_submodule = aot.to_edge(export(to_be_lowered, example_input))
    return to_backend('DemoBackend', to_be_lowered_exir_submodule.exported_program(), [])


def _check_pte(pte: bytes, model, inputs, n_delegates):
    """The .pte read back: its delegates, their blobs and DelegateCalls, and a Python run of
    the file itself that matches eager torch."""
    program = aot.load_program(pte)
    plan = program.method("forward")
    calls = [i for i in plan.chains[0].instructions if isinstance(i, DelegateCall)]
    assert len(plan.delegates) == len(calls) == n_delegates
    for call in calls:
        d = plan.delegates[call.delegate_index]
        assert d.id == "DemoBackend" and d.processed.location == DataLocation.INLINE
        assert program.backend_delegate_data[d.processed.index].data.startswith(b"demo 1 ")
    got = run_program(program, inputs)
    want = model(*inputs)
    for g, w in zip(got, want if isinstance(want, tuple) else (want,)):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)
    return program


# ---- flow 1 ----------------------------------------------------------------------------------

def test_flow1_lowered_module(lowered_module, tmp_path):
    assert isinstance(lowered_module, LoweredBackendModule)
    assert lowered_module.backend_id == "DemoBackend"
    assert lowered_module.processed_bytes == b"demo 1 1 1 1\nsin 1 0\nret 1\n"
    assert lowered_module.compile_specs == []
    assert isinstance(lowered_module.original_module, torch.export.ExportedProgram)
    x = torch.linspace(-3, 3, 1)
    torch.testing.assert_close(lowered_module(x), torch.sin(x))   # eager: the operator runs

    save_path = tmp_path / "delegate.pte"
    with open(save_path, "wb") as f:
        f.write(lowered_module.buffer())
    program = _check_pte(save_path.read_bytes(), LowerableSubModel(), (torch.tensor([0.7]),), 1)
    plan = program.method("forward")
    assert plan.chains[0].instructions == (DelegateCall(0, (0, 1)),)   # inputs, then outputs
    assert program.backend_delegate_data[0].data == lowered_module.processed_bytes


def test_flow1_program_is_one_delegate_call(lowered_module):
    ep = lowered_module.program()
    nodes = [(n.op, n.target) for n in ep.graph.nodes]
    assert nodes == [("placeholder", "x"), ("get_attr", "lowered_module_0"),
                     ("call_function", executorch_call_delegate), ("output", "output")]
    assert list(ep.graph_signature.user_inputs) == ["x"]
    torch.testing.assert_close(ep.module()(torch.tensor([0.5])), torch.sin(torch.tensor([0.5])))


def test_flow1_buffer_options(lowered_module):
    inline = aot.load_program(lowered_module.buffer())
    segment = aot.load_program(lowered_module.buffer(extract_delegate_segments=True,
                                                     delegate_alignment=64))
    assert inline == segment     # in memory, a blob is inline wherever the file put it
    planned = aot.load_program(lowered_module.buffer(
        memory_planning=aot.MemoryPlanningPass(alloc_graph_input=False)))
    assert planned.method().values[0].allocation_info is None


def test_flow1_multiple_outputs_become_getitems():
    class Two(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x * y

    ex = (torch.randn(2, 3), torch.randn(2, 3))
    lowered = to_backend("DemoBackend", aot.to_edge(export(Two(), ex)).exported_program(), [])
    ep = lowered.program()
    assert [n.target for n in ep.graph.nodes if n.op == "call_function"] == \
        [executorch_call_delegate, operator.getitem, operator.getitem]
    program = aot.load_program(lowered.buffer())
    assert program.method().chains[0].instructions == (DelegateCall(0, (0, 1, 2, 3)),)
    for g, w in zip(run_program(program, ex), Two()(*ex)):
        torch.testing.assert_close(g, w)


# ---- flow 2 ----------------------------------------------------------------------------------

def test_flow2_composition(lowered_module, tmp_path):
    composite_model = CompositeModel(lowered_module)
    model_inputs = (torch.ones(1), )
    exec_prog = aot.to_edge(export(composite_model, model_inputs)).to_executorch()

    save_path = tmp_path / "delegate.pte"
    with open(save_path, "wb") as f:
        f.write(exec_prog.buffer)
    program = _check_pte(save_path.read_bytes(), composite_model, (torch.tensor([0.25]),), 2)
    # Both calls of the one lowered module share its blob.
    assert len(exec_prog.executorch_program.backend_delegate_data) == 1
    assert program.method().delegates[0].id == program.method().delegates[1].id
    method = exec_prog.lowered()
    verify_plan(method.buffers, method.plan)
    for g, w in zip(ArenaInterpreter(method.graph, method.plan)(*model_inputs),
                    composite_model(*model_inputs)):
        torch.testing.assert_close(g, w)


def test_flow2_planned_with_overlaps(lowered_module):
    """A program with delegate calls plans with overlaps (--overlap) as without: a delegate
    declares none, and its outputs are the eager model's."""
    model, ex = CompositeModel(lowered_module), (torch.ones(1),)
    method = aot.to_edge(export(model, ex)).to_executorch(backend_config(True)).lowered()
    verify_plan(method.buffers, method.plan)
    for g, w in zip(ArenaInterpreter(method.graph, method.plan)(*ex), model(*ex)):
        torch.testing.assert_close(g, w)


@pytest.mark.parametrize("strict", [False, True])
def test_flow2_with_several_outputs(strict):
    class Two(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x * y

    class User(torch.nn.Module):
        def __init__(self, lowered):
            super().__init__()
            self.lowered = lowered

        def forward(self, x, y):
            a, b = self.lowered(x, y)
            return a - b

    ex = (torch.randn(2, 3), torch.randn(2, 3))
    model = User(to_backend("DemoBackend", aot.to_edge(export(Two(), ex)).exported_program(),
                            []))
    et = aot.to_edge(export(model, ex, strict=strict)).to_executorch()
    method = et.lowered()
    torch.testing.assert_close(ArenaInterpreter(method.graph, method.plan)(*ex)[0], model(*ex))
    torch.testing.assert_close(run_program(aot.load_program(et.buffer), ex)[0], model(*ex))


def test_torch_keeps_its_own_operator_of_that_name():
    from torch._higher_order_ops.executorch_call_delegate import \
        executorch_call_delegate as torch_own
    assert torch.ops.higher_order.executorch_call_delegate is torch_own
    assert executorch_call_delegate is not torch_own
    assert executorch_call_delegate.__name__ == "executorch_call_delegate"


def test_flow2_graph_holds_the_lowered_module(lowered_module):
    ep = export(CompositeModel(lowered_module), (torch.ones(1),))
    calls = [n for n in ep.graph.nodes if n.target is executorch_call_delegate]
    assert len(calls) == 2
    assert getattr(ep.graph_module, calls[0].args[0].target) is lowered_module


# ---- flow 3 ----------------------------------------------------------------------------------

def test_flow3_partitioner(tmp_path):
    model = Model()
    model_inputs = (torch.randn(1, 3), torch.randn(1, 3))
    core_aten_ep = export(model, model_inputs)
    edge: aot.EdgeProgramManager = aot.to_edge(core_aten_ep)
    edge = edge.to_backend(AddMulPartitioner())
    exec_prog = edge.to_executorch()

    save_path = tmp_path / "delegate.pte"
    with open(save_path, "wb") as f:
        f.write(exec_prog.buffer)
    program = _check_pte(save_path.read_bytes(), model, model_inputs, 2)
    plan = program.method()
    # add+mul, then sub and div stay, then mul+add: two delegates around two kernels.
    assert [type(i).__name__ for i in plan.chains[0].instructions] == \
        ["DelegateCall", "KernelCall", "KernelCall", "DelegateCall"]
    assert plan.delegates[0].compile_specs == (CompileSpec("max_value", bytes([4])),)
    method = exec_prog.lowered()
    verify_plan(method.buffers, method.plan)
    torch.testing.assert_close(ArenaInterpreter(method.graph, method.plan)(*model_inputs)[0],
                               model(*model_inputs))
    assert exec_prog.delegate_map == {"forward": {
        0: {"name": "DemoBackend", "delegate_map": {0: (2,), 1: (3,)}},
        1: {"name": "DemoBackend", "delegate_map": {0: (6,), 1: (7,)}}}}


def test_flow3_leaves_the_input_program_alone():
    ep = aot.to_edge(export(Model(), (torch.randn(1, 3), torch.randn(1, 3)))).exported_program()
    before = [(n.name, n.target) for n in ep.graph.nodes]
    lowered = to_backend(ep, AddMulPartitioner())
    assert [(n.name, n.target) for n in ep.graph.nodes] == before
    assert not any("delegation_tag" in n.meta for n in lowered.graph.nodes)


def test_transform_and_lower_with_a_partitioner():
    model, ex = Model(), (torch.randn(2, 3), torch.randn(2, 3))
    edge = aot.to_edge_transform_and_lower(export(model, ex), partitioner=[AddMulPartitioner()])
    targets = [n.target for n in edge.exported_program().graph.nodes]
    assert targets.count(executorch_call_delegate) == 2
    torch.testing.assert_close(edge.exported_program().module()(*ex), model(*ex))
    copy.deepcopy(edge.exported_program())   # lowered modules survive a copy


def test_partitioner_per_method():
    model, ex = Model(), (torch.randn(2, 3), torch.randn(2, 3))
    edge = aot.to_edge({"a": export(model, ex), "b": export(model, ex)})
    edge = edge.to_backend({"a": AddMulPartitioner()})
    count = lambda m: sum(n.target is executorch_call_delegate
                          for n in edge.exported_program(m).graph.nodes)
    assert (count("a"), count("b")) == (2, 0)
    et = edge.to_executorch()
    assert len(et.delegate_map["a"]) == 2 and et.delegate_map["b"] == {}


# ---- bad input -------------------------------------------------------------------------------

def _edge(model=None, ex=None):
    model = model or Model()
    ex = ex or (torch.randn(1, 3), torch.randn(1, 3))
    return aot.to_edge(export(model, ex)).exported_program()


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(BackendError) as info:
        to_backend("NoSuchBackend", _edge(), [])
    text = str(info.value)
    assert "NoSuchBackend" in text and "DemoBackend" in text and \
        "FusedElementwiseBackend" in text


class _Tagger(Partitioner):
    """Tags the named nodes with one tag for DemoBackend."""

    def __init__(self, names, backend="DemoBackend", tag="t0"):
        self.names, self.backend, self.tag = names, backend, tag

    def partition(self, ep):
        for n in ep.graph.nodes:
            if n.name in self.names:
                n.meta["delegation_tag"] = self.tag
        return PartitionResult(ep, {self.tag: DelegationSpec(self.backend)})


def test_partition_that_would_make_a_cycle():
    # add -> mul -> sub: tagging add and sub but not mul puts mul both after and before.
    class Chain(torch.nn.Module):
        def forward(self, x, y):
            return ((x + y) * y) + y

    ep = _edge(Chain())
    names = [n.name for n in ep.graph.nodes if n.op == "call_function"]
    assert names == ["add", "mul", "add_1"]
    with pytest.raises(BackendError, match="cycle") as info:
        to_backend(ep, _Tagger({"add", "add_1"}, tag="mytag"))
    text = str(info.value)
    assert "'mytag'" in text and "mul" in text and "add_1" in text and "DemoBackend" in text


def test_partition_that_is_not_contiguous():
    class Apart(torch.nn.Module):
        def forward(self, x, y):
            return x + y, (x - y) * y

    ep = _edge(Apart())
    with pytest.raises(BackendError, match="not contiguous") as info:
        to_backend(ep, _Tagger({"add", "mul"}, tag="split"))
    assert "'split'" in str(info.value) and "add" in str(info.value) and \
        "mul" in str(info.value)


def test_partition_names_an_unknown_backend():
    with pytest.raises(BackendError, match="unknown backend 'Nope'"):
        to_backend(_edge(), _Tagger({"add"}, backend="Nope"))


def test_tag_without_a_delegation_spec():
    class Forgetful(Partitioner):
        def partition(self, ep):
            next(n for n in ep.graph.nodes if n.op == "call_function").meta[
                "delegation_tag"] = "lost"
            return PartitionResult(ep, {})

    with pytest.raises(BackendError, match="'lost'.*no DelegationSpec"):
        to_backend(_edge(), Forgetful())


def test_partitioner_returning_the_wrong_type():
    class Wrong(Partitioner):
        def partition(self, ep):
            return {"t": DelegationSpec("DemoBackend")}

    with pytest.raises(BackendError, match="Wrong.partition returned dict"):
        to_backend(_edge(), Wrong())


class RaisingBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program, compile_specs):
        raise ValueError("cannot compile this")


class BytesBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program, compile_specs):
        return b"raw"


def test_preprocess_that_raises():
    with pytest.raises(BackendError) as info:
        to_backend("RaisingBackend", _edge(), [])
    text = str(info.value)
    assert "RaisingBackend" in text and "ValueError" in text and "cannot compile this" in text
    assert "add" in text   # the nodes it was given
    with pytest.raises(BackendError, match="RaisingBackend.*ValueError"):
        to_backend(_edge(), _Tagger({"add", "mul"}, backend="RaisingBackend"))


def test_preprocess_must_return_a_preprocess_result():
    with pytest.raises(BackendError, match="BytesBackend.*returned bytes"):
        to_backend("BytesBackend", _edge(), [])


def test_demo_preprocess_refuses_what_it_cannot_run():
    with pytest.raises(BackendError, match=r"DemoBackend.*RuntimeError.*cannot run sub"):
        to_backend("DemoBackend", _edge(), [])


def test_bad_arguments():
    with pytest.raises(BackendError, match="compile specs are CompileSpec"):
        to_backend("DemoBackend", _edge(), ["max_value"])
    with pytest.raises(BackendError, match="to_backend takes"):
        to_backend(3, _edge())
    with pytest.raises(BackendError, match="lowers an ExportedProgram"):
        to_backend("DemoBackend", Model(), [])


def test_backend_names_must_be_unique():
    with pytest.raises(BackendError, match="two backends are named 'DemoBackend'"):
        type("DemoBackend", (BackendDetails,), {"preprocess": staticmethod(
            lambda ep, specs: PreprocessResult(b""))})


def test_preprocess_result_normalizes_its_map():
    r = PreprocessResult(bytearray(b"ab"), {1: [2, 3], 4: 5})
    assert r.processed_bytes == b"ab" and dict(r.debug_handle_map) == {1: (2, 3), 4: (5,)}
