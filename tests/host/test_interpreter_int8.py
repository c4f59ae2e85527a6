"""The interpreter's int8 adapters (generated from aot/ops_int8.py) against the static C.

Every int8 network (the four zoo networks and the int8 op models of tests/int8_models.py, with
int8 I/O, and the op models with float I/O for quantize/dequantize) runs from its .pte in the C
interpreter and as generated C: the outputs must be the same bytes. Together they reach every
int8 operator. A linear layer wider than the adapter's window of requantization pairs runs as
several kernel calls: a model with 150 outputs per row over six rows checks that path too (the
autoencoder's 640-wide layer checks it for one row); linear layers cut to one (multiplier, shift)
pair check the per-tensor form. Calls the static C refuses are refused at load, at that call,
with the matching status.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

import aot
import aot.host
from aot import program as P
from aot.config import EdgeCompileConfig
from aot.errors import AotError
from aot.zoo import ZOO

from int8_models import INT8_MODELS, host_model, int8_inputs, lowered

# one worker runs the module (make test: --dist loadgroup), so its lowerings are made once
pytestmark = pytest.mark.xdist_group("interpreter_int8")

FAMILY = {f"cortex_m::{name}.out" for name in (
    "quantize_per_tensor", "dequantize_per_tensor", "quantized_conv2d_nhwc",
    "quantized_depthwise_conv2d_nhwc", "quantized_linear", "quantized_add", "quantized_mul",
    "quantized_activation", "maximum", "minimum", "softmax", "transpose", "pad",
    "quantized_avg_pool2d_nhwc", "quantized_max_pool2d_nhwc")}

# (network, int8 I/O)
PROGRAMS = [(n, True) for n in sorted(ZOO) + sorted(INT8_MODELS)] + \
           [(n, False) for n in sorted(INT8_MODELS)]


# planned with outputs over their inputs (aot/overlap.py): the .pte carries those offsets
OVERLAPPED = ["inplace", "kws"]
# the first stage patch by patch (aot/passes/patch_stage.py): crops, border pads, unpadded
# layers on the patches and the concatenations, all in the .pte
PATCHED = [("conv_blocks", (3, 2, 3)), ("inplace", (5, 2, 2))]
# both: the patches' buffers on the input's rows already cropped (plan_memory's dead prefixes)
BOTH = [("inplace", (3, 3, 1))]


def _programs() -> list[bytes]:
    return [lowered(n, io).buffer for n, io in PROGRAMS] + \
        [lowered(n, True, overlap=True).buffer for n in OVERLAPPED] + \
        [lowered(n, True, patches=at).buffer for n, at in PATCHED] + \
        [lowered(n, True, True, at).buffer for n, at in BOTH]


@pytest.fixture(scope="module")
def interp(wide):
    """The interpreter with the kernel table of these programs (the int8 adapters)."""
    from aot.interpreter import build_host
    return build_host(_programs() + [wide.buffer])


def _inputs(name: str, int8_io: bool) -> list[np.ndarray]:
    if int8_io:
        return int8_inputs(name, seed=3)
    g = lowered(name, False).lowered().graph
    gen = torch.Generator().manual_seed(3)
    return [torch.randn(tuple(g.tensors[t].shape), generator=gen).numpy() for t in g.inputs]


def _assert_same_bytes(got: list, want: list) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        assert g.tobytes() == w.tobytes(), f"{np.count_nonzero(g != w)} elements differ"


@pytest.mark.parametrize("name,int8_io", PROGRAMS)
def test_interpreter_equals_static_c(interp, name, int8_io):
    xs = _inputs(name, int8_io)
    want = host_model(name, int8_io)(*xs)
    got = interp.run(lowered(name, int8_io).buffer, xs)
    _assert_same_bytes(got, want)


@pytest.mark.parametrize("name", OVERLAPPED)
def test_interpreter_runs_overlapped_plans(interp, name):
    """The interpreter runs a .pte whose outputs overlap their inputs, to the plain plan's
    static C's bytes."""
    xs = _inputs(name, True)
    _assert_same_bytes(interp.run(lowered(name, True, overlap=True).buffer, xs),
                       host_model(name, True)(*xs))


@pytest.mark.parametrize("name,at", PATCHED)
def test_interpreter_runs_patched_stages(interp, name, at):
    """The interpreter runs a .pte whose first stage is computed patch by patch, to the
    layer-by-layer static C's bytes."""
    xs = _inputs(name, True)
    _assert_same_bytes(interp.run(lowered(name, True, patches=at).buffer, xs),
                       host_model(name, True)(*xs))


def test_programs_reach_every_int8_op():
    reached = set()
    for name, int8_io in PROGRAMS:
        reached |= {str(c.op.key) for c in lowered(name, int8_io).lowered().graph.calls}
    assert FAMILY <= reached, sorted(FAMILY - reached)


# -- a linear layer wider than one window of (multiplier, shift) pairs, over several rows ----

class _Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 150)

    def forward(self, x):
        return self.fc(x)


@pytest.fixture(scope="module")
def wide():
    torch.manual_seed(7)
    model = _Wide().eval()
    example = (torch.randn(2, 3, 16),)
    cal = [(torch.randn(2, 3, 16),) for _ in range(4)]
    ep = aot.quantize(model, example, cal)
    return aot.to_edge(ep, compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()


def test_wide_linear_in_windows(interp, wide):
    plan = wide.executorch_program.execution_plan[0]
    (call,) = [ins for ins in plan.chains[0].instructions if isinstance(ins, P.KernelCall)
               and plan.operators[ins.op_index].name == "cortex_m::quantized_linear"]
    assert len(plan.values[call.args[7]].items) == 150      # per channel: three windows
    x = np.random.default_rng(0).integers(-128, 128, (2, 3, 16), dtype=np.int8)
    want = aot.host.build(aot.generate_c(wide, name="q_wide"))(x)
    _assert_same_bytes(interp.run(wide.buffer, [x]), want)


def _per_tensor_linears(name: str) -> P.Program:
    """The network's Program with every quantized_linear requantized per tensor: its
    (multiplier, shift) lists cut to their first pair."""
    prog = lowered(name, True).executorch_program
    plan = prog.execution_plan[0]
    values = list(plan.values)
    linear = [k for k, o in enumerate(plan.operators)
              if (o.name, o.overload) == ("cortex_m::quantized_linear", "out")]
    for ins in plan.chains[0].instructions:
        if isinstance(ins, P.KernelCall) and ins.op_index in linear:
            for a in (7, 8):
                values[ins.args[a]] = P.IntList(values[ins.args[a]].items[:1])
    plan = dataclasses.replace(plan, values=tuple(values))
    return dataclasses.replace(prog, execution_plan=(plan, *prog.execution_plan[1:]))


@pytest.mark.parametrize("name", ["mlp", "autoencoder"])
def test_per_tensor_linear(interp, name):
    from aot.pte import serialize_pte
    prog = _per_tensor_linears(name)
    xs = int8_inputs(name, seed=4)
    want = aot.host.build(aot.generate_c(prog, name=f"pt_{name}"))(*xs)
    _assert_same_bytes(interp.run(bytes(serialize_pte(prog)), xs), want)


@pytest.mark.parametrize("name", ["mlp", "autoencoder"])
def test_linear_bias_form_equals_kernel_sum_form(interp, name, monkeypatch):
    """The lowering gives a linear's bias as a kernel_sum (input_offset x sum(w) + bias); with
    the bias left as it is (as ExecuTorch lowers for the DSP cores) the static C and the
    interpreter give the same bytes as the kernel_sum form."""
    import importlib
    from int8_models import quantized
    lq = importlib.import_module("aot.passes._int8_rules")
    summed = lowered(name, True)
    monkeypatch.setattr(lq, "_kernel_sum", lambda *a: None)
    plain = aot.to_edge(quantized(name)[2],
                        compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()
    forms = [{k for c in m.lowered().graph.calls if c.op.key == "cortex_m::quantized_linear.out"
              for k, v in c.args if k in ("bias", "kernel_sum") and v is not None}
             for m in (summed, plain)]
    assert forms == [{"kernel_sum"}, {"bias"}]
    xs = int8_inputs(name, seed=5)
    want = host_model(name, True)(*xs)
    got = aot.host.build(aot.generate_c(plain, name=f"b_{name}"))(*xs)
    _assert_same_bytes(got, want)
    _assert_same_bytes(interp.run(plain.buffer, xs), want)
    _assert_same_bytes(interp.run(summed.buffer, xs), want)


# -- refusals ----------------------------------------------------------------------------

def _edited(name: str, op: str, arg: int, make) -> tuple[bytes, P.ExecutionPlan, int]:
    """The network's .pte with argument `arg` of its first call of `op` replaced, its plan and
    that call's instruction index. make(old_value, base) gives the values to append at index base
    (the argument becomes value base)."""
    from aot.pte import serialize_pte
    prog = lowered(name, True).executorch_program
    plan = prog.execution_plan[0]
    names = [f"{o.name}.{o.overload}" for o in plan.operators]
    chain = plan.chains[0]
    k = next(i for i, ins in enumerate(chain.instructions)
             if isinstance(ins, P.KernelCall) and names[ins.op_index] == op)
    call, base = chain.instructions[k], len(plan.values)
    added = make(plan.values[call.args[arg]], base)
    args = list(call.args)
    args[arg] = base
    instructions = list(chain.instructions)
    instructions[k] = dataclasses.replace(call, args=tuple(args))
    plan = dataclasses.replace(
        plan, values=(*plan.values, *added),
        chains=(dataclasses.replace(chain, instructions=tuple(instructions)), *plan.chains[1:]))
    prog = dataclasses.replace(prog, execution_plan=(plan, *prog.execution_plan[1:]))
    return bytes(serialize_pte(prog)), plan, k


def _static_c_status(plan: P.ExecutionPlan, k: int) -> str:
    """What the static C's check (aot.calls + the renderer) makes of instruction k."""
    from aot.calls import ArgError, decode_call
    from aot.codegen.context import Invalid, Unsupported
    from aot.codegen.renderers import check_call
    from aot.ops import by_et_name
    call = plan.chains[0].instructions[k]
    o = plan.operators[call.op_index]
    op = by_et_name(o.name, o.overload)
    try:
        check_call(op, decode_call(plan, call, op.schema))
    except (ArgError, Invalid):
        return "RT_ERR_PTE_ARGS"
    except Unsupported as e:
        return "RT_ERR_PTE_DTYPE" if " of dtype " in str(e) else "RT_ERR_PTE_UNSUPPORTED"
    return "accepted"


def _int(v: int):
    return lambda old, base: (P.Int(v),)


def _ints(*vs: int):
    return lambda old, base: (P.IntList(tuple(range(base + 1, base + 1 + len(vs)))),
                              *(P.Int(v) for v in vs))


def _retyped(scalar_type: P.ScalarType):
    return lambda old, base: (dataclasses.replace(old, scalar_type=scalar_type),)


REFUSALS = [
    # an activation bound outside int8, an input offset outside [-127, 128]
    ("mlp", "quantized_linear", 9, _int(300), "RT_ERR_PTE_ARGS"),
    ("conv_blocks", "quantized_conv2d_nhwc", 6, _int(129), "RT_ERR_PTE_ARGS"),
    # a stride list of three
    ("conv_blocks", "quantized_depthwise_conv2d_nhwc", 3, _ints(1, 1, 1), "RT_ERR_PTE_ARGS"),
    # per-channel requantization of the wrong length
    ("mlp", "quantized_linear", 8, _ints(3, 3), "RT_ERR_PTE_ARGS"),
    # a shift outside [-31, 31] in the second window of a 128-channel list
    ("autoencoder", "quantized_linear", 8, _ints(*[3] * 127, 40), "RT_ERR_PTE_ARGS"),
    # a softmax over the first dim (valid, no kernel), and one at another output zero point
    ("activations", "softmax", 1, _int(0), "RT_ERR_PTE_UNSUPPORTED"),
    ("activations", "softmax", 3, _int(0), "RT_ERR_PTE_ARGS"),
    # an int where a tensor belongs
    ("residual", "quantized_add", 4, _int(1), "RT_ERR_PTE_ARGS"),
    # a uint8 lookup table (same size, another dtype)
    ("activations", "quantized_activation", 1, _retyped(P.ScalarType.BYTE),
     "RT_ERR_PTE_DTYPE"),
]


@pytest.mark.parametrize("name,op,arg,make,status", REFUSALS,
                         ids=[f"{r[1]}-{r[2]}-{r[4][7:]}" for r in REFUSALS])
def test_refused_call_status(interp, name, op, arg, make, status):
    """Refused at load, at that call, as the static C's check refuses it."""
    pte, plan, k = _edited(name, f"cortex_m::{op}.out", arg, make)
    assert _static_c_status(plan, k) == status
    with pytest.raises(AotError, match=f"loading the .pte: {status} at instruction {k}\\b"):
        interp.run(pte, int8_inputs(name, seed=3))


@pytest.mark.parametrize("name,at", BOTH)
def test_interpreter_runs_patches_over_their_inputs_dead_rows(interp, name, at):
    """The interpreter runs a patched .pte planned with overlaps, whose patches' buffers lie
    on the input's rows already cropped, to the plain plan's static C's bytes."""
    method = lowered(name, True, True, at).lowered()
    by_id = {b.id: b for b in method.buffers}
    assert any(by_id[o.input].last > b.first for b in method.buffers for o in b.overlaps)
    assert method.plan.arena_size < lowered(name, True, patches=at).lowered().plan.arena_size
    xs = _inputs(name, True)
    _assert_same_bytes(interp.run(lowered(name, True, True, at).buffer, xs),
                       host_model(name, True)(*xs))
