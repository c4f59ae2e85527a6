"""Our .pte against ExecuTorch 1.5.1, both ways.

(a) ExecuTorch's runtime runs every .pte we write (zoo networks and op models) and matches
eager torch within 1e-5. (b) .pte files that ExecuTorch's own exir writes load into our
Program, survive load -> serialize -> load, and our C generator runs them.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import aot
import aot.host
from aot.ops import all_ops
from aot.passes.verify_program import executorch_lacks
from aot.pte import load_program, serialize_pte
from aot.zoo import ZOO
from conftest import HOST_CACHE, require_module
from op_models import OP_MODELS, Counter


@pytest.fixture(scope="module")
def runtime():
    return require_module("executorch.runtime").Runtime.get()


def _exir():
    return require_module("executorch.exir")


def _lower(model, example, config=None, constant_methods=None):
    ep = torch.export.export(model.eval(), example)
    return aot.to_edge(ep, constant_methods=constant_methods).to_executorch(config)


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _run_et(runtime, buffer, inputs, method="forward"):
    return _flat(runtime.load_program(buffer).load_method(method).execute(list(inputs)))


MODELS = {**{f"zoo_{k}": v for k, v in ZOO.items()},
          **{k: (lambda v=v: v) for k, v in OP_MODELS.items()}}


def test_op_table_knows_which_ops_executorch_has():
    """OpDef.in_executorch agrees with ExecuTorch's portable kernel registry."""
    registered = set(require_module("executorch.extension.pybindings.portable_lib")
                     ._get_operator_names())
    wrong = [op.key for op in all_ops() if (op.key in registered) != op.in_executorch]
    assert not wrong, wrong


@pytest.mark.parametrize("name", sorted(MODELS))
def test_executorch_runs_our_pte(name, runtime):
    model, example = MODELS[name]()
    manager = _lower(model, example)
    lacks = executorch_lacks(manager.executorch_program)
    if lacks:   # ExecuTorch has no kernel for one of its ops: it refuses the file, cleanly
        with pytest.raises(RuntimeError):
            _run_et(runtime, manager.buffer, example)
        return
    got = _run_et(runtime, manager.buffer, example)
    want = _flat(model(*example))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w.detach(), rtol=1e-5, atol=1e-5)


def test_mutable_state_survives_executes_in_executorch(runtime):
    example = (torch.ones(2, 3),)
    method = runtime.load_program(_lower(Counter(), example).buffer).load_method("forward")
    eager = Counter()
    for step in range(3):
        x = torch.full((2, 3), float(step + 1))
        torch.testing.assert_close(method.execute([x])[0], eager(x))


def test_several_methods_and_constant_methods_in_executorch(runtime):
    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 3 + 1

    x = torch.randn(4, 5)
    lin = torch.nn.Linear(5, 2).eval()
    edge = aot.to_edge({"forward": torch.export.export(lin, (x,)),
                        "scale": torch.export.export(Scale(), (x,))},
                       constant_methods={"sample_rate": 16000, "gain": 0.5,
                                         "labels": [3, 1, 4]})
    program = runtime.load_program(edge.to_executorch().buffer)
    assert set(program.method_names) == {"forward", "scale", "sample_rate", "gain", "labels"}
    torch.testing.assert_close(program.load_method("forward").execute([x])[0], lin(x))
    torch.testing.assert_close(program.load_method("scale").execute([x])[0], x * 3 + 1)
    assert program.load_method("sample_rate").execute([]) == [16000]
    assert program.load_method("gain").execute([]) == [0.5]
    assert list(program.load_method("labels").execute([])) == [3, 1, 4]


def test_emit_stacktrace_keeps_source_lines(runtime):
    model, example = OP_MODELS["conv2d_stride_pad"]
    config = aot.ExecutorchBackendConfig(emit_stacktrace=True)
    buffer = _lower(model, example, config).buffer
    chain = load_program(buffer).method().chains[0]
    assert chain.stacktrace and chain.stacktrace[0].items[-1].lineno > 0
    plain = load_program(_lower(model, example).buffer).method().chains[0]
    assert plain.stacktrace is None
    torch.testing.assert_close(_run_et(runtime, buffer, example)[0], model(*example))


@pytest.mark.parametrize("alignment", [(64, 32), (256, 64)])
def test_segment_and_tensor_alignment_are_configurable(alignment, runtime):
    segment, tensor = alignment
    model, example = ZOO["kws"]()
    config = aot.ExecutorchBackendConfig(segment_alignment=segment,
                                         constant_tensor_alignment=tensor)
    buffer = _lower(model, example, config).buffer
    base = int.from_bytes(buffer[24:32], "little")          # eh00 segment_base_offset
    assert buffer[8:12] == b"eh00" and base % segment == 0
    torch.testing.assert_close(_run_et(runtime, buffer, example)[0], model(*example),
                               rtol=1e-5, atol=1e-5)


def test_same_model_same_bytes():
    model, example = ZOO["resnet8"]()
    assert _lower(model, example).buffer == _lower(model, example).buffer


def test_write_to_file_equals_buffer(tmp_path):
    model, example = ZOO["autoencoder"]()
    manager = _lower(model, example)
    with open(tmp_path / "ae.pte", "wb") as f:
        manager.write_to_file(f)
    assert (tmp_path / "ae.pte").read_bytes() == manager.buffer


def test_debug_handle_map_covers_every_instruction():
    model, example = ZOO["kws"]()
    manager = _lower(model, example)
    handles = manager.debug_handle_map
    assert sorted(handles) == list(range(len(manager.lowered().graph.calls)))
    assert all(h for h in handles.values())


@pytest.fixture(scope="module")
def et_zoo():
    exir = _exir()
    out = {}
    for name, build in ZOO.items():
        model, example = build()
        out[name] = (model, example,
                     exir.to_edge(torch.export.export(model, example)).to_executorch().buffer)
    return out


@pytest.mark.parametrize("name", sorted(ZOO))
def test_executorch_written_pte_round_trips(name, et_zoo):
    _, _, buffer = et_zoo[name]
    first = load_program(buffer)
    again = load_program(bytes(serialize_pte(first, emit_stacktrace=True)))
    assert again == first
    plan_a, plan_b = first.method(), again.method()
    assert plan_a.values == plan_b.values
    assert plan_a.chains[0].instructions == plan_b.chains[0].instructions
    assert first.constant_buffer == again.constant_buffer


@pytest.mark.parametrize("name", sorted(ZOO))
def test_c_from_executorch_written_pte_matches_torch(name, et_zoo):
    model, example, buffer = et_zoo[name]
    sources = aot.generate_c(load_program(buffer), name=name)
    got = aot.host.build(sources, cache_dir=HOST_CACHE)(example[0].numpy())[0]
    np.testing.assert_allclose(got, model(*example).detach().numpy(), rtol=1e-4, atol=1e-5)


class _Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.attn = torch.nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class _Hardswish(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return torch.nn.functional.hardswish(y) * torch.nn.functional.hardsigmoid(y)


class _Contiguous(torch.nn.Module):
    def forward(self, x):
        return x.transpose(1, 2).contiguous().view(2, -1) * 2 + x.clone().view(2, -1).to(
            torch.float32)


# The zoo, models whose ExecuTorch-written .pte uses its dim_order copies (clone, contiguous,
# .to()), and every op model.
ET_WRITTEN = {
    **{f"zoo_{k}": (lambda b=b: b()[0], b()[1]) for k, b in ZOO.items()},
    "attention": (_Attention, (torch.randn(1, 5, 8),)),
    "hardswish": (_Hardswish, (torch.randn(1, 3, 6, 6),)),
    "contiguous": (_Contiguous, (torch.randn(2, 3, 4),)),
    **{f"op_{k}": (lambda v=v: v[0], v[1]) for k, v in OP_MODELS.items()},
}


# Models ExecuTorch's own to_edge refuses (its verifier rejects an op that is not core ATen);
# ours decomposes them. Anything else it refuses fails the test.
ET_REFUSES = {"op_rounding": "round.decimals", "op_embedding_bag": "_embedding_bag_forward_only",
              "op_adaptive_max_pool": "adaptive_max_pool2d", "op_median_cumsum_gather": "median"}


@pytest.mark.parametrize("name", sorted(ET_WRITTEN))
def test_c_from_executorch_written_pte_matches_its_runtime(name, runtime):
    """ExecuTorch's own to_edge().to_executorch() writes the .pte; our C runs it and must
    agree with ExecuTorch's runtime on the same file."""
    exir = _exir()
    build, example = ET_WRITTEN[name]
    model = build().eval()
    if name in ET_REFUSES:
        with pytest.raises(Exception, match=ET_REFUSES[name].replace(".", r"\.")):
            exir.to_edge(torch.export.export(model, example))
        return
    buffer = exir.to_edge(torch.export.export(model, example)).to_executorch().buffer
    want = _run_et(runtime, buffer, example)
    sources = aot.generate_c(load_program(buffer), name="m")
    got = aot.host.build(sources, cache_dir=HOST_CACHE)(*[x.numpy() for x in example])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5, equal_nan=True)
