"""The interpreter's float32 compute adapters (convolution and padding): refusals.

(That every program gives the static C's bytes in the interpreter is checked for every zoo
network and op model in test_interpreter.py and for every op-suite case in test_op_suite.py.)
Calls the static C generator refuses are refused by the adapters at load with the matching
status (the renderer's ctx.invalid: RT_ERR_PTE_ARGS, ctx.unsupported: RT_ERR_PTE_UNSUPPORTED,
a tensor of the wrong dtype: RT_ERR_PTE_DTYPE).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import aot
import aot.host
from aot import program as P
from aot.calls import ArgError, decode_call
from aot.codegen.context import Invalid, Unsupported
from aot.codegen.renderers import check_call
from aot.ops import by_et_name
from aot.pte import serialize_pte

FAMILY = {
    "aten::convolution.out", "aten::addmm.out", "aten::mm.out", "aten::bmm.out",
    "aten::max_pool2d_with_indices.out", "aten::avg_pool2d.out",
    "aten::mean.out", "aten::mean.dtype_out", "aten::sum.IntList_out", "aten::amax.out",
    "aten::amin.out", "aten::_softmax.out", "aten::_log_softmax.out",
    "aten::native_layer_norm.out", "aten::_native_batch_norm_legit_no_training.out",
    "aten::argmax.out", "aten::argmin.out", "aten::cumsum.out", "aten::median.out",
    "aten::median.dim_values", "aten::upsample_nearest2d.vec_out",
    "aten::upsample_bilinear2d.vec_out", "aten::_adaptive_avg_pool2d.out",
    "aten::adaptive_max_pool2d.out", "aten::constant_pad_nd.out", "aten::embedding.out",
    *(f"aten::{mode}_pad{k}d.out" for mode in ("reflection", "replication") for k in (1, 2, 3)),
}

RT_ERR_PTE_DTYPE, RT_ERR_PTE_ARGS, RT_ERR_PTE_UNSUPPORTED = 11, 12, 14


@pytest.fixture(scope="module")
def interp():
    """The interpreter with every operator of the op table."""
    from aot.interpreter import build_host
    return build_host()



def _keys(manager) -> set[str]:
    return {call.op.key for call in manager.lowered().graph.calls}


def _same_bytes(got: list, want: list) -> None:
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, w.dtype, g.shape,
                                                           w.shape)
        if g.tobytes() != w.tobytes():
            bad = np.flatnonzero(g.view(np.uint8).reshape(-1) != w.view(np.uint8).reshape(-1))
            raise AssertionError(f"output {k} differs from the static C at byte {bad[0]} "
                                 f"({bad.size} bytes differ)\ninterpreter: {g}\nstatic C: {w}")


def _compare(manager, inputs, name: str, interp, cache) -> None:
    keys = _keys(manager)
    assert keys & FAMILY, f"{name} calls no float32 compute operator"
    xs = [x.detach().numpy() if hasattr(x, "detach") else np.asarray(x) for x in inputs]
    static = aot.host.build(aot.generate_c(manager, name="m"), cache_dir=cache)(*xs)
    got = interp.run(manager.buffer, xs)
    _same_bytes(got, static)


def _lower(model, example, planned_io: bool = True):
    ep = torch.export.export(model.eval(), tuple(example))
    planning = aot.MemoryPlanningPass(alloc_graph_input=planned_io,
                                      alloc_graph_output=planned_io)
    return aot.to_edge(ep).to_executorch(aot.ExecutorchBackendConfig(
        memory_planning_pass=planning))


# -- refusals ------------------------------------------------------------------------------------

class _Mix(nn.Module):
    """One call of each operator the refusal cases change."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.emb = nn.Embedding(6, 4)

    def forward(self, x, i):
        y = F.max_pool2d(self.conv(x), 2)
        y = F.pad(y, (1, 0, 0, 1), value=0.5)
        y = F.layer_norm(y, y.shape[-2:])
        y = torch.softmax(y.mean(dim=(2, 3)), dim=-1)
        return y + self.emb(i).sum(0)


def _mix():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 8)
    i = torch.tensor([1, 4])
    return _lower(_Mix(), (x, i)), (x, i)


def _changed(program: P.Program, key: str, arg: int, make) -> tuple[P.Program, P.KernelCall]:
    """The program with argument `arg` of the first call of `key` replaced by a new value:
    make(add) builds it, add(evalue) appends a value and returns its index."""
    plan = program.execution_plan[0]
    values = list(plan.values)

    def add(ev) -> int:
        values.append(ev)
        return len(values) - 1

    chain = plan.chains[0]
    for j, ins in enumerate(chain.instructions):
        if isinstance(ins, P.KernelCall):
            opr = plan.operators[ins.op_index]
            if f"{opr.name}.{opr.overload}" == key:
                break
    else:
        raise AssertionError(f"no call of {key}")
    new = make(add, values, ins)
    if isinstance(new, P.KernelCall):      # make changed a tensor value in place
        call = new
    else:
        args = list(ins.args)
        args[arg] = add(new)
        call = dataclasses.replace(ins, args=tuple(args))
    instructions = list(chain.instructions)
    instructions[j] = call
    chain = dataclasses.replace(chain, instructions=tuple(instructions))
    plan = dataclasses.replace(plan, values=tuple(values), chains=(chain,))
    return dataclasses.replace(program, execution_plan=(plan,)), call


def _ints(*items):
    return lambda add, values, ins: P.IntList(tuple(add(P.Int(v)) for v in items))


def _value(ev):
    return lambda add, values, ins: ev


def _retype(arg: int, scalar_type):
    """Argument `arg` (a tensor) relabelled as another dtype of the same element size."""
    def make(add, values, ins):
        index = ins.args[arg]
        values[index] = dataclasses.replace(values[index], scalar_type=scalar_type)
        return ins
    return make


REFUSALS = {
    # renderer check -> (operator, argument, new value, status)
    "conv_stride_0": ("aten::convolution.out", 3, _ints(0), RT_ERR_PTE_ARGS),
    "conv_stride_3_entries": ("aten::convolution.out", 3, _ints(1, 1, 1), RT_ERR_PTE_ARGS),
    "conv_output_padding": ("aten::convolution.out", 7, _ints(1, 0), RT_ERR_PTE_ARGS),
    "conv_groups_0": ("aten::convolution.out", 8, _value(P.Int(0)), RT_ERR_PTE_ARGS),
    "conv_transposed_output_padding": ("aten::convolution.out", 6, _value(P.Bool(True)),
                                       None),   # set below: transposed with a bad out pad
    "max_pool_kernel_3_entries": ("aten::max_pool2d_with_indices.out", 1, _ints(2, 2, 2),
                                  RT_ERR_PTE_ARGS),
    "max_pool_no_kernel": ("aten::max_pool2d_with_indices.out", 1, _ints(), RT_ERR_PTE_ARGS),
    "max_pool_negative_pad": ("aten::max_pool2d_with_indices.out", 3, _ints(-1),
                              RT_ERR_PTE_ARGS),
    "mean_repeated_dim": ("aten::mean.out", 1, _ints(2, -2), RT_ERR_PTE_ARGS),
    "mean_dim_out_of_range": ("aten::mean.out", 1, _ints(4), RT_ERR_PTE_ARGS),
    "mean_dtype": ("aten::mean.out", 3, _value(P.Int(6)), RT_ERR_PTE_UNSUPPORTED),
    "mean_out_int32": ("aten::mean.out", 4, _retype(4, P.ScalarType.INT), RT_ERR_PTE_DTYPE),
    "softmax_half_to_float": ("aten::_softmax.out", 2, _value(P.Bool(True)),
                              RT_ERR_PTE_UNSUPPORTED),
    "softmax_dim_out_of_range": ("aten::_softmax.out", 1, _value(P.Int(2)), RT_ERR_PTE_ARGS),
    "softmax_dim_a_double": ("aten::_softmax.out", 1, _value(P.Double(1.0)), RT_ERR_PTE_ARGS),
    "layer_norm_not_the_tail": ("aten::native_layer_norm.out", 1, _ints(5, 4),
                                RT_ERR_PTE_ARGS),
    "layer_norm_no_dims": ("aten::native_layer_norm.out", 1, _ints(), RT_ERR_PTE_ARGS),
    "layer_norm_past_the_rank": ("aten::native_layer_norm.out", 1, _ints(1, 1, 4, 5, 5),
                                 RT_ERR_PTE_ARGS),
    "pad_odd_list": ("aten::constant_pad_nd.out", 1, _ints(1, 1, 1), RT_ERR_PTE_ARGS),
    "pad_too_many_dims": ("aten::constant_pad_nd.out", 1, _ints(*[1] * 10), RT_ERR_PTE_ARGS),
    "embedding_float_indices": ("aten::embedding.out", 1, _retype(1, P.ScalarType.FLOAT),
                                RT_ERR_PTE_UNSUPPORTED),
}
REFUSALS["conv_transposed_output_padding"] = (
    "aten::convolution.out", 6,
    lambda add, values, ins: dataclasses.replace(
        ins, args=tuple(add(P.Bool(True)) if k == 6 else add(P.IntList((add(P.Int(1)),)))
                        if k == 7 else a for k, a in enumerate(ins.args))),
    RT_ERR_PTE_ARGS)   # output_padding 1 is not smaller than stride 1 or dilation 1


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refused_call_has_the_renderers_status(name, interp):
    from aot.interpreter import PteError
    key, arg, make, status = REFUSALS[name]
    manager, _ = _mix()
    program, call = _changed(manager.executorch_program, key, arg, make)
    # The static C generator refuses the call, for the matching reason.
    op = by_et_name(*key.split("."))
    want = {RT_ERR_PTE_ARGS: (Invalid, ArgError), RT_ERR_PTE_UNSUPPORTED: (Unsupported,),
            RT_ERR_PTE_DTYPE: (Unsupported,)}[status]
    with pytest.raises(want):
        check_call(op, decode_call(program.execution_plan[0], call, op.schema))
    # The interpreter refuses it at load, with the status.
    pte = bytes(serialize_pte(program))
    with pytest.raises(PteError) as info:
        interp.load(pte)
    assert info.value.status == status, str(info.value)


def test_unchanged_mix_runs_as_static_c(interp, cache):
    """The program the refusal cases change, unchanged: loads, runs, matches."""
    manager, example = _mix()
    _compare(manager, example, "mix", interp, cache)
    pte = bytes(serialize_pte(manager.executorch_program))
    xs = [x.numpy() for x in example]
    _same_bytes(interp.run(pte, xs), interp.run(manager.buffer, xs))
