"""The .pte interpreter (runtime_c/src/pte) against the static C, for the elementwise,
data-movement, logic and creation ops (the elementwise adapters compiled from the op table's
call specs, aot/ops_elementwise.py, aot/ops_create.py and aot/ops_data.py).

Every op model and op-suite case whose program calls only these ops (and views) runs twice on
the host: the .pte through the interpreter, and the C the generator writes from the same
program. The outputs must be the same bytes (NaNs included): the adapters call the kernels the
renderer (aot/codegen/spec_render.py) calls, with the same parameters.
The creation ops and copy.out only reach a program that ExecuTorch's own exir writes, or a
mutated buffer: those come from exir here. Calls the renderers refuse are refused at load with the matching status.
"""
from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np
import pytest
import torch

import aot
import aot.host
import aot.interpreter
from aot import program as P
from aot.codegen.runtime import status_name
from aot.errors import AotError
from aot.ops import all_ops
from aot.pte import load_program, serialize_pte
from conftest import require_module
from op_models import OP_MODELS, Counter
from op_suite import BY_NAME

# The operators of this family: every op whose adapter is compiled from its call spec
# (aot/ops_elementwise.py, aot/ops_create.py, aot/ops_data.py, ...).
FAMILY = {op.key for op in all_ops() if op.spec is not None} | {
    "aten::clone.out", "aten::view_copy.out", "aten::squeeze_copy.dims_out",
    "aten::unsqueeze_copy.out", "aten::copy.out", "aten::_to_copy.out",
    "dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out",
    "aten::permute_copy.out", "aten::expand_copy.out", "aten::slice_copy.Tensor_out",
    "aten::select_copy.int_out", "aten::split_with_sizes_copy.out", "aten::cat.out",
    "aten::index_select.out", "aten::flip.out", "aten::slice_scatter.out",
    "aten::index.Tensor_out", "aten::index_put.out", "aten::gather.out",
}
VIEW = "executorch_prim::et_view.default"

# Op-suite cases of other families (by name), not lowered here.
_OTHER = re.compile(r"^(adaptive|addmm|amax|amin|argmax|argmin|avg_pool|batch_norm|bilinear|bmm|"
                    r"conv|cumsum|layer_norm|linear|log_softmax|matmul|max_pool|mean|median|mm$|"
                    r"reflection|replication|softmax|sum_|upsample|embedding|pad_(constant|crop|"
                    r"reflect|replicate|circular))")
SUITE = sorted(n for n in BY_NAME if not _OTHER.match(n))
MODELS = sorted(n for n in OP_MODELS if not _OTHER.match(n) and not re.match(
    r"^(amax|arg_reduce|max_pool|pad$|pad_modes|median|layer_norm|softmax)", n))


# -- programs ----------------------------------------------------------------------------------

def _lower(module, inputs, planned_io=True):
    ep = torch.export.export(module.eval(), tuple(inputs))
    planning = aot.MemoryPlanningPass(alloc_graph_input=planned_io,
                                      alloc_graph_output=planned_io)
    return aot.to_edge(ep).to_executorch(aot.ExecutorchBackendConfig(
        memory_planning_pass=planning))


def _exir_buffer(module, inputs) -> bytes:
    exir = require_module("executorch.exir")
    return exir.to_edge(torch.export.export(module.eval(), tuple(inputs))).to_executorch().buffer


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


_X = torch.linspace(-2.5, 3.0, 12).view(3, 4)
# Programs ExecuTorch's own exir writes: the creation ops it leaves in (ours folds them).
EXIR = {
    "full": (lambda x: x + torch.full((3, 4), 1.75), (_X,)),
    "full_int64": (lambda x: torch.full((3, 4), 7, dtype=torch.int64) * (x > 0).long(), (_X,)),
    "full_bool": (lambda x: torch.where(torch.full((3, 4), True), x, -x), (_X,)),
    "zeros_ones": (lambda x: (x + torch.zeros(3, 4), x * torch.ones(3, 4),
                              torch.ones(3, 4, dtype=torch.int64) + 2), (_X,)),
    "full_like": (lambda x: (torch.full_like(x, -0.5) * x, torch.zeros_like(x) + x,
                             torch.ones_like(x, dtype=torch.int32)), (_X,)),
    "scalar_tensor": (lambda x: x * torch.scalar_tensor(2.5), (_X,)),
    "fill": (lambda x: x.clone().fill_(3.25) + x, (_X,)),
    "fill_int": (lambda x: (x > 0).long().fill_(-4) * 3, (_X,)),
    "arange_end": (lambda x: x + torch.arange(4, dtype=torch.float32), (_X,)),
    "arange_int": (lambda x: torch.arange(12).view(3, 4) * (x > 0).long(), (_X,)),
    "arange_step": (lambda x: x + torch.arange(-1.0, 2.0, 0.25).view(3, 4), (_X,)),
    "arange_fraction": (lambda x: torch.arange(0.3, 5.0, 0.07) * 1.5 + x[0, 1], (_X,)),
    "arange_negative": (lambda x: torch.arange(5.0, -3.0, -0.11)[:72].view(6, 12) * 2 + x[1, 2],
                        (_X,)),
    "arange_long_fraction": (lambda x: torch.arange(-7.1, 400.0, 0.13) + x[2, 3], (_X,)),
    "clone_to": (lambda x: (x.clone() * 2, x.to(torch.int32), (x > 0).to(torch.float32)),
                 (_X,)),
    "contiguous": (lambda x: x.transpose(0, 1).contiguous() * 2, (_X,)),
    "logical_any": (lambda x: (torch.logical_not(x), torch.any(x > 2), torch.any(x > 0, 1)),
                    (_X,)),
}


# add.out takes the activation after it (its kernel's rt_act_f32), as the static C fuses it.
_A, _B = torch.linspace(-3.0, 3.0, 24).view(2, 3, 4), torch.linspace(1.0, -1.5, 4)
FUSED = {
    "add_relu": (lambda a, b: torch.relu(a + b) * 2, (_A, _B)),
    "add_relu6": (lambda a, b: torch.nn.functional.relu6(torch.add(a, b, alpha=3)) - 1,
                  (_A, _B)),
    "add_hardtanh": (lambda a, b: torch.nn.functional.hardtanh(a + b, -0.7, 1.3) * 2, (_A, _B)),
    "add_clamp_min": (lambda a, b: torch.clamp(a + b, min=0.25) * 2, (_A, _B)),
    "add_clamp_max": (lambda a, b: torch.clamp(a + b, max=-0.1) * 2, (_A, _B)),
}


# Operators neither writer emits (exir writes zeros/ones as full, fill_ as full_like, arange(n)
# as arange.start_out): an exir program with its call renamed and the arguments it drops.
RENAMED = {   # name: (exir case, old op, new op, kept argument positions)
    "zeros": ("full", "aten::full.out", "aten::zeros.out", (0, 2, 3)),
    "ones": ("full", "aten::full.out", "aten::ones.out", (0, 2, 3)),
    "fill_scalar": ("fill", "aten::full_like.out", "aten::fill.Scalar_out", (0, 1, 3, 4)),
    "arange_end_only": ("arange_int", "aten::arange.start_out", "aten::arange.out", (1, 3, 4)),
}


def _renamed(pte: bytes, old: str, new: str, keep: tuple[int, ...]) -> bytes:
    prog = load_program(pte)
    plan = prog.execution_plan[0]
    ops = list(plan.operators)
    k = next(i for i, o in enumerate(ops) if f"{o.name}.{o.overload}" == old)
    name, _, overload = new.partition(".")
    ops[k] = dataclasses.replace(ops[k], name=name, overload=overload)
    chain = plan.chains[0]
    instructions = tuple(
        dataclasses.replace(ins, args=tuple(ins.args[i] for i in keep))
        if isinstance(ins, P.KernelCall) and ins.op_index == k else ins
        for ins in chain.instructions)
    plan = dataclasses.replace(plan, operators=tuple(ops), chains=(
        dataclasses.replace(chain, instructions=instructions),))
    return bytes(serialize_pte(dataclasses.replace(prog, execution_plan=(plan,))))


@functools.lru_cache(maxsize=None)
def program(key: str):
    """(.pte bytes, the program (for the C generator), inputs as numpy) of a case:
    "suite:<name>", "model:<name>", "exir:<name>", "renamed:<name>", "fused:<name>" or "counter"."""
    kind, _, name = key.partition(":")
    if kind == "suite":
        case = BY_NAME[name]
        manager = _lower(case.module(), case.inputs, case.planned_io)
        return manager.buffer, manager, [x.numpy() for x in case.inputs]
    if kind == "model":
        module, inputs = OP_MODELS[name]
        manager = _lower(module, inputs)
        return manager.buffer, manager, [x.numpy() for x in inputs]
    if kind == "counter":
        manager = _lower(Counter(), (torch.ones(2, 3),))
        return manager.buffer, manager, [np.ones((2, 3), np.float32)]
    if kind == "fused":
        fn, inputs = FUSED[name]
        manager = _lower(_Fn(fn), inputs)
        return manager.buffer, manager, [x.numpy() for x in inputs]
    if kind == "renamed":
        base, old, new, keep = RENAMED[name]
        buffer = _renamed(program(f"exir:{base}")[0], old, new, keep)
        return buffer, load_program(buffer), program(f"exir:{base}")[2]
    fn, inputs = EXIR[name]
    buffer = _exir_buffer(_Fn(fn), inputs)
    return buffer, load_program(buffer), [x.numpy() for x in inputs]


def static_c(key: str, cache):
    """The static C of a case's program, built for the host."""
    return aot.host.build(aot.generate_c(program(key)[1], name="m"), cache_dir=cache)


def operators(pte: bytes) -> set[str]:
    return {f"{n}.{o}" for n, o in aot.interpreter.operators_of(pte)}


# (Every op model and op-suite case runs in the interpreter against the static C in
# test_interpreter.py and test_op_suite.py; here, the programs only ExecuTorch's exir writes,
# rewritten ones no writer emits, and fused adds.)
KEYS = ["counter"] + [f"exir:{n}" for n in sorted(EXIR)] + \
    [f"renamed:{n}" for n in sorted(RENAMED)] + [f"fused:{n}" for n in sorted(FUSED)]


@pytest.fixture(scope="module")
def interp():
    """The interpreter with every operator of the op table."""
    return aot.interpreter.build_host()



def _same(got: list, want: list) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.itemsize == w.itemsize, (g.dtype, g.shape, w.dtype,
                                                                 w.shape)
        assert g.tobytes() == w.tobytes(), (g, w)


# -- interpreter == static C ----------------------------------------------------------------------

@pytest.mark.parametrize("key", KEYS)
def test_interpreter_matches_static_c(key, interp, cache):
    pte, _, inputs = program(key)
    assert operators(pte) & FAMILY
    got = interp.run(pte, inputs)
    _same(got, static_c(key, cache)(*inputs))


def test_the_programs_here_reach_the_ops_the_op_suite_cannot():
    """The creation ops, copy.out and the dim_order copies reach no program our lowering
    writes (test_op_suite.py lists them): they come from the programs here."""
    reached = set()
    for key in KEYS:
        reached |= operators(program(key)[0])
    wanted = {"aten::copy.out", "aten::full.out", "aten::full_like.out", "aten::zeros.out",
              "aten::ones.out", "aten::scalar_tensor.out", "aten::fill.Scalar_out",
              "aten::arange.out", "aten::arange.start_out"} & FAMILY
    assert wanted - reached == set(), sorted(wanted - reached)


@pytest.mark.parametrize("name", sorted(FUSED))
def test_add_takes_the_activation_the_static_c_fuses(name):
    """The fused cases above do fuse: the generator renders the activation into the add."""
    rows = aot.generate_c(program(f"fused:{name}")[1], name="m").ops
    assert any(r.fused_into is not None for r in rows), [(r.op, r.kernel) for r in rows]


def test_counter_state_survives_runs(interp, cache):
    """copy.out writes the buffer back: the state must carry from one run to the next."""
    loaded = interp.load(program("counter")[0])
    c_model = static_c("counter", cache)
    for step in range(3):
        x = np.full((2, 3), float(step + 1), np.float32)
        _same(loaded(x), c_model(x))


# -- refusals: the interpreter refuses at load what the generator refuses -------------------------

def _mutated(pte: bytes, change) -> bytes:
    """The program with its method's values and operators passed through change(values, ops)."""
    prog = load_program(pte)
    plan = prog.execution_plan[0]
    values, ops = list(plan.values), list(plan.operators)
    change(values, ops)
    plan = dataclasses.replace(plan, values=tuple(values), operators=tuple(ops))
    return bytes(serialize_pte(dataclasses.replace(prog, execution_plan=(plan,))))


def _call_args(pte: bytes, op_key: str) -> tuple[int, ...]:
    plan = load_program(pte).execution_plan[0]
    for ins in plan.chains[0].instructions:
        if isinstance(ins, P.KernelCall):
            o = plan.operators[ins.op_index]
            if f"{o.name}.{o.overload}" == op_key:
                return ins.args
    raise AssertionError(f"no call of {op_key}")


def _refused(interp, pte: bytes, status: str) -> None:
    with pytest.raises(aot.interpreter.PteError) as e:
        interp.load(pte)
    assert status_name(e.value.status) == status, str(e.value)
    with pytest.raises(AotError):      # the static C generator refuses the same call
        aot.generate_c(load_program(pte), name="m")


def test_gelu_with_an_unknown_approximation_is_refused(interp):
    pte = program("suite:gelu_7")[0]
    args = _call_args(pte, "aten::gelu.out")

    def change(values, ops):
        values[args[1]] = P.String("cubic")
    _refused(interp, _mutated(pte, change), "RT_ERR_PTE_ARGS")


def test_permute_repeating_a_dim_is_refused(interp):
    pte = program("suite:permute_4d")[0]
    args = _call_args(pte, "aten::permute_copy.out")

    def change(values, ops):
        items = values[args[1]].items
        values[args[1]] = P.IntList((items[0], items[0], *items[2:]))
    _refused(interp, _mutated(pte, change), "RT_ERR_PTE_ARGS")


def test_int64_true_division_is_unsupported(interp):
    """div.out of int64 tensors: no int64 kernel (the renderer's _INT_OPS has no "div")."""
    pte = program("suite:int64_mul")[0]

    def change(values, ops):
        k = next(i for i, o in enumerate(ops) if o.name == "aten::mul")
        ops[k] = dataclasses.replace(ops[k], name="aten::div")
    _refused(interp, _mutated(pte, change), "RT_ERR_PTE_UNSUPPORTED")


def test_int64_compare_with_a_fraction_is_unsupported(interp):
    pte = program("suite:int64_lt_scalar")[0]
    args = _call_args(pte, "aten::lt.Scalar_out")

    def change(values, ops):
        values[args[1]] = P.Double(4.5)
    _refused(interp, _mutated(pte, change), "RT_ERR_PTE_UNSUPPORTED")


def test_a_bool_output_of_another_dtype_is_refused(interp):
    """eq writes bool; an out tensor of uint8 (same size) is the wrong dtype."""
    pte = program("suite:eq_3x4_3x4")[0]
    args = _call_args(pte, "aten::eq.Tensor_out")

    def change(values, ops):
        values[args[2]] = dataclasses.replace(values[args[2]], scalar_type=P.ScalarType.BYTE)
    _refused(interp, _mutated(pte, change), "RT_ERR_PTE_DTYPE")


def test_cat_of_more_tensors_than_the_limit_is_refused(interp, cache):
    """The interpreter bounds cat's inputs (RT_PTE_MAX_TENSOR_LIST, 32): more is
    RT_ERR_PTE_LIMIT, while 32 run as the static C does."""
    x = torch.linspace(-1.0, 1.0, 6).view(1, 6)
    for n, ok in ((32, True), (33, False)):
        manager = _lower(_Fn(lambda t, n=n: torch.cat([t * k for k in range(n)], 0)), [x])
        if ok:
            _same(interp.run(manager.buffer, [x.numpy()]),
                  aot.host.build(aot.generate_c(manager, name="m"), cache_dir=cache)(x.numpy()))
        else:
            with pytest.raises(aot.interpreter.PteError) as e:
                interp.load(manager.buffer)
            assert status_name(e.value.status) == "RT_ERR_PTE_LIMIT"


# -- fill's value in the output's dtype: numpy's astype of a float64 -------------------------------

_FILL_VALUES = (0.5, -0.5, 2.0, -1.0, 300.7, -300.7, 3e9, -3e9, 1e19, float("nan"),
                float("inf"), float("-inf"), 65535.0, -32769.0, 1e39, -0.0)


@functools.lru_cache(maxsize=None)
def _full_program(dtype: torch.dtype) -> bytes:
    return _exir_buffer(_Fn(lambda x: torch.full((2, 3), 1, dtype=dtype)), (_X,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int32, torch.int16,
                                   torch.int8, torch.uint8, torch.bool], ids=str)
def test_fill_value_converts_as_the_renderer_does(dtype, interp, cache):
    """full.out writes its number as numpy's astype on x86-64 would (rt_full: truncation,
    INT_MIN out of range, bool 2.0 stays 2): interpreter and static C alike."""
    base = _full_program(dtype)
    args = _call_args(base, "aten::full.out")
    np_dtype = {torch.bool: np.uint8}.get(dtype, torch.empty(0, dtype=dtype).numpy().dtype)
    for value in _FILL_VALUES:
        def change(values, ops):
            values[args[1]] = P.Double(value)
        pte = _mutated(base, change)
        # what the file holds (a Double -0.0 is written as the field's default, +0.0)
        held = load_program(pte).execution_plan[0].values[args[1]].double_val
        with np.errstate(invalid="ignore", over="ignore"):
            expect = np.full((2, 3), np.asarray([held]).astype(np_dtype)[0], np_dtype)
        got = interp.run(pte, [_X.numpy()])
        assert got[0].tobytes() == expect.tobytes(), (value, got[0], expect)
        want = aot.host.build(aot.generate_c(load_program(pte), name="m"),
                              cache_dir=cache)(_X.numpy())
        _same(got, want)
