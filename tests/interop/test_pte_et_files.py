"""Files written by ExecuTorch 1.5.1 load, re-serialize and still run in ExecuTorch's runtime.

References, all independent of aot.pte: eager torch (outputs), ExecuTorch's own .pte bytes,
ExecuTorch's Python deserializer (values, instructions, constants) and ExecuTorch's runtime.
"""
import dataclasses
import enum
import functools
import os
import warnings

import numpy as np
import pytest
import torch

from aot.pte import format_program, load_program, serialize_pte
from aot.program import (AllocationDetails, Chain, ContainerMetadata, ExecutionPlan, Int,
                         KernelCall, Operator, Program, ScalarType, Tensor)

try:
    from executorch.exir import ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower
    from executorch.exir._serialize._program import deserialize_pte_binary
    from executorch.runtime import Runtime
except ImportError as e:  # pragma: no cover - depends on the environment
    if os.environ.get("CI") == "true":
        pytest.fail(f"executorch is required in CI: {e}", pytrace=False)
    pytest.skip(f"executorch not installed: {e}", allow_module_level=True)

TOLERANCE = 1e-5


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 5)

    def forward(self, x):
        return torch.relu(self.linear(x))


class ConvBatchNormRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class Accumulate(torch.nn.Module):
    """A mutable buffer: each call adds its input to a running sum."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x):
        self.total.add_(x)
        return self.total * 2


def _conv_bn_relu():
    model = ConvBatchNormRelu()
    with torch.no_grad():  # non-trivial running statistics
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return model.eval()


MODELS = {
    "linear_relu": (LinearRelu, lambda: (torch.randn(2, 8),)),
    "conv_bn_relu": (_conv_bn_relu, lambda: (torch.randn(1, 3, 8, 8),)),
    "add": (Add, lambda: (torch.randn(3, 4), torch.randn(3, 4))),
    "mutable_buffer": (Accumulate, lambda: (torch.randn(4),)),
}


@functools.lru_cache(maxsize=None)
def executorch_file(name: str, stacktrace: bool = False, xnnpack: bool = False):
    """(.pte bytes written by ExecuTorch, eager model, example inputs)."""
    torch.manual_seed(0)
    make_model, make_inputs = MODELS[name]
    model, inputs = make_model(), make_inputs()
    exported = torch.export.export(model, inputs)
    config = ExecutorchBackendConfig(emit_stacktrace=stacktrace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if xnnpack:
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
                XnnpackPartitioner)
            edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        else:
            edge = to_edge(exported)
        data = edge.to_executorch(config).buffer
    return bytes(data), make_model, inputs


def run_in_executorch(data: bytes, inputs, calls: int = 1) -> list:
    method = Runtime.get().load_program(data).load_method("forward")
    return [method.execute(list(inputs))[0] for _ in range(calls)]


def run_eager(make_model, inputs, calls: int = 1) -> list:
    torch.manual_seed(0)
    model = make_model()
    with torch.no_grad():
        return [model(*inputs) for _ in range(calls)]


VARIANTS = [(name, False, False) for name in MODELS] + [
    ("linear_relu", True, False),      # with stack traces
    ("conv_bn_relu", True, False),
    ("linear_relu", False, True),      # XNNPACK delegate, weights as named data
]
IDS = [f"{n}{'-stacktrace' if s else ''}{'-xnnpack' if x else ''}" for n, s, x in VARIANTS]


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_load_serialize_load_is_stable(variant):
    data, _, _ = executorch_file(*variant)
    program = load_program(data)
    again = load_program(bytes(serialize_pte(program)))
    assert again == program
    for ours, theirs in zip(again.execution_plan, program.execution_plan):
        assert ours.values == theirs.values
        assert [c.instructions for c in ours.chains] == [c.instructions for c in theirs.chains]
    assert again.constant_buffer == program.constant_buffer
    assert format_program(again) == format_program(program)


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_reserialized_bytes_equal_executorch_bytes(variant):
    # Stronger than the format requires (any equivalent layout would load), but it pins down
    # that our segment layout, alignment and field encoding follow ExecuTorch's exactly.
    data, _, _ = executorch_file(*variant)
    assert bytes(serialize_pte(load_program(data))) == data


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_executorch_deserializer_agrees_with_our_reader(variant):
    data, _, _ = executorch_file(*variant)
    ours = load_program(data)
    theirs = deserialize_pte_binary(data).program
    _assert_same_program(ours, theirs)
    # ... and reads our re-serialized bytes the same way.
    _assert_same_program(ours, deserialize_pte_binary(bytes(serialize_pte(ours))).program)


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
@pytest.mark.parametrize("delegates_in_segments", [True, False])
def test_our_bytes_run_in_executorch(variant, delegates_in_segments):
    data, make_model, inputs = executorch_file(*variant)
    ours = bytes(serialize_pte(load_program(data),
                               extract_delegate_segments=delegates_in_segments))
    calls = 3 if variant[0] == "mutable_buffer" else 1  # state must carry across calls
    expected = run_eager(make_model, inputs, calls)
    got = run_in_executorch(ours, inputs, calls)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        torch.testing.assert_close(g, e, atol=TOLERANCE, rtol=TOLERANCE)
    # The reference: ExecuTorch's own file gives the same outputs.
    for g, e in zip(run_in_executorch(data, inputs, calls), expected):
        torch.testing.assert_close(g, e, atol=TOLERANCE, rtol=TOLERANCE)


def test_stacktrace_is_read_and_can_be_dropped():
    data, make_model, inputs = executorch_file("linear_relu", True)
    program = load_program(data)
    chain = program.execution_plan[0].chains[0]
    assert chain.stacktrace is not None and len(chain.stacktrace) == len(chain.instructions)
    assert any(f.filename.endswith("test_pte_et_files.py") for frames in chain.stacktrace
               for f in frames.items)
    stripped = bytes(serialize_pte(program, emit_stacktrace=False))
    assert len(stripped) < len(data)
    assert load_program(stripped).execution_plan[0].chains[0].stacktrace is None
    torch.testing.assert_close(run_in_executorch(stripped, inputs)[0],
                               run_eager(make_model, inputs)[0], atol=TOLERANCE, rtol=TOLERANCE)


def test_inline_constant_buffer_form():
    """ExecuTorch 1.5.1 no longer writes constants inline (no config option for it), and its
    runtime wheel is built without the deprecated inline path; so the inline form is made by
    our serializer and checked with ExecuTorch's Python deserializer instead."""
    options = [f.name for f in dataclasses.fields(ExecutorchBackendConfig)]
    assert not any("constant_segment" in name for name in options)
    data, _, _ = executorch_file("conv_bn_relu")
    program = load_program(data)
    inline = bytes(serialize_pte(program, extract_constant_segment=False))
    assert load_program(inline) == program
    assert load_program(bytes(serialize_pte(load_program(inline)))) == program

    theirs = deserialize_pte_binary(inline).program
    assert theirs.constant_segment is None or not theirs.constant_segment.offsets
    assert [bytes(b.storage) for b in theirs.constant_buffer] == \
        [b.storage for b in program.constant_buffer]
    _assert_same_program(program, theirs)
    with pytest.raises(RuntimeError):  # "constant_buffer path ... disabled in this build"
        Runtime.get().load_program(inline)


def test_hand_built_add_runs_in_executorch():
    """out = a + b, written by us from scratch, run by ExecuTorch, checked against numpy."""
    def f32(offset):
        return Tensor(ScalarType.FLOAT, 0, (2, 3), (0, 1),
                      allocation_info=AllocationDetails.at(1, offset))
    a, b, alpha, out = 0, 1, 2, 3
    plan = ExecutionPlan(
        name="forward", container_meta_type=ContainerMetadata("", ""),
        values=(f32(0), f32(32), Int(1), f32(64)), inputs=(a, b), outputs=(out,),
        # aten::add.out(self, other, alpha, out) -> out
        chains=(Chain((a, b), (out,), (KernelCall(0, (a, b, alpha, out, out)),)),),
        operators=(Operator("aten::add", "out"),), non_const_buffer_sizes=(0, 96))
    data = bytes(serialize_pte(Program(0, (plan,))))

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3), np.float32), rng.standard_normal((2, 3), np.float32)
    got = run_in_executorch(data, (torch.from_numpy(x), torch.from_numpy(y)))[0].numpy()
    np.testing.assert_allclose(got, x + y, atol=TOLERANCE, rtol=0)
    assert "0: aten::add.out(%0, %1, %2=1, %3) -> %3" in format_program(load_program(data))


# -- comparing with ExecuTorch's deserializer --------------------------------------------------

def _plain(x):
    """A structure of dicts, lists and scalars from either side's dataclasses."""
    if dataclasses.is_dataclass(x):
        if type(x).__name__ == "EValue" and hasattr(x, "val"):         # ExecuTorch's wrapper
            return _plain(x.val)
        if type(x).__name__ == "Instruction" and hasattr(x, "instr_args"):
            return _plain(x.instr_args)
        fields = {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
        return {"kind": type(x).__name__, **fields}
    if isinstance(x, enum.Enum):
        return int(x.value)
    if isinstance(x, (list, tuple)):
        return [_plain(i) for i in x]
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    return x


def _assert_same_program(ours: Program, theirs) -> None:
    assert len(ours.execution_plan) == len(theirs.execution_plan)
    for mine, other in zip(ours.execution_plan, theirs.execution_plan):
        assert mine.name == other.name
        assert list(mine.inputs) == list(other.inputs)
        assert list(mine.outputs) == list(other.outputs)
        assert list(mine.non_const_buffer_sizes) == list(other.non_const_buffer_sizes)
        assert _plain(mine.operators) == _plain(other.operators)
        assert _plain(mine.values) == _plain(other.values)
        for c, d in zip(mine.chains, other.chains):
            assert _plain(c.instructions) == _plain(d.instructions)
            assert _plain(c.stacktrace) == _plain(d.stacktrace)
        assert [d.id for d in mine.delegates] == [d.id for d in other.delegates]
    # ExecuTorch keeps the zero padding between constants; we drop it.
    constants = [bytes(b.storage) for b in theirs.constant_buffer]
    if not constants and theirs.constant_segment and not any(s.size for s in theirs.segments):
        # Without segment data (no extended header) ExecuTorch's reader leaves the
        # constant table as offsets into an empty segment: every constant is empty.
        constants = [b""] * len(theirs.constant_segment.offsets)
    assert len(ours.constant_buffer) == len(constants)
    for mine, other in zip(ours.constant_buffer, constants):
        assert other.startswith(mine.storage) and not other[len(mine.storage):].strip(b"\0")
    # Delegate blobs, by delegate.
    blobs = [b.data for b in ours.backend_delegate_data]
    for plan, other in zip(ours.execution_plan, theirs.execution_plan):
        for mine_d, other_d in zip(plan.delegates, other.delegates):
            assert bytes(theirs.backend_delegate_data[other_d.processed.index].data) == \
                blobs[mine_d.processed.index]
