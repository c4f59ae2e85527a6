"""The .pte interpreter of runtime_c (rt_pte.h) on the host: its loader and dispatch.

References: the static C the same program generates (bit for bit) and ExecuTorch's own runtime
for .pte files ExecuTorch's exir wrote. (The fuzzed loader under AddressSanitizer and UBSan:
test_pte_fuzz_corpus.py; the per-op adapters are checked op family by op family in test_interpreter_*.py.)
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

import aot
import aot.host
import aot.interpreter as I
from aot import program as P
from aot.codegen.runtime import STATUS_NAMES, runtime_dir
from aot.pte import load_program, serialize_pte
from aot.zoo import ZOO
from op_models import OP_MODELS
from conftest import require_module

STATUS = {name: code for code, name in STATUS_NAMES.items()}
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def interp():
    """The interpreter with every operator of the op table."""
    return I.build_host()


@pytest.fixture(scope="module")
def programs():
    """name -> .pte bytes of small float32 and int8 programs (lowered once)."""
    out = {}
    for name in ("autoencoder", "kws"):
        module, example = ZOO[name]()
        ep = torch.export.export(module.eval(), example)
        out[name] = aot.to_edge(ep).to_executorch().buffer
    module, example = ZOO["autoencoder"]()
    q = aot.quantize(module, example, aot.zoo.calibration_set("autoencoder", 4))
    out["autoencoder_int8"] = aot.to_edge(q).to_executorch().buffer
    return out


def _inputs(pte: bytes, seed: int = 0):
    plan = load_program(pte).method("forward")
    rng = np.random.default_rng(seed)
    arrays = []
    for i in plan.inputs:
        v = plan.values[i]
        dtype = aot.ir.TORCH_DTYPES[v.scalar_type]
        a = rng.standard_normal(v.sizes).astype(np.float32)
        arrays.append(torch.from_numpy(a).to(dtype).numpy())
    return arrays


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("name", ["autoencoder", "kws", "autoencoder_int8"])
def test_matches_static_c_bit_for_bit(interp, programs, name):
    pte = programs[name]
    sources = aot.generate_c(load_program(pte), name="m")
    xs = _inputs(pte)
    want = aot.host.build(sources)(*xs)
    got = interp.run(pte, xs)
    assert len(got) == len(want)
    assert all(_same_bits(g, w) for g, w in zip(got, want))


def _planned(module, example, planned_io: bool = True):
    ep = torch.export.export(module.eval(), tuple(example))
    planning = aot.MemoryPlanningPass(alloc_graph_input=planned_io,
                                      alloc_graph_output=planned_io)
    return aot.to_edge(ep).to_executorch(aot.ExecutorchBackendConfig(
        memory_planning_pass=planning))


def _as_static_c(interp, manager, example):
    """The program's outputs from the interpreter equal the static C's, byte for byte."""
    xs = [x.detach().numpy() if hasattr(x, "detach") else np.asarray(x) for x in example]
    want = aot.host.build(aot.generate_c(manager, name="m"))(*xs)
    got = interp.run(bytes(manager.buffer), xs)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert _same_bits(g, w), f"output {k}: interpreter {g} static C {w}"


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_network_as_static_c(interp, name):
    """Float32; the int8 networks are in test_interpreter_int8.py."""
    module, example = ZOO[name]()
    _as_static_c(interp, _planned(module, example), example)


@pytest.mark.parametrize("name", sorted(OP_MODELS))
def test_op_model_as_static_c(interp, name):
    module, example = OP_MODELS[name]
    _as_static_c(interp, _planned(module, example), example)


def test_unplanned_inputs_are_bound(interp):
    """Inputs and outputs left out of the plan (the caller's buffers): bound at run time."""
    module, example = OP_MODELS["add_broadcast"]
    _as_static_c(interp, _planned(module, example, planned_io=False), example)


def test_a_table_of_one_programs_operators_runs_it(programs):
    pte = programs["autoencoder"]
    small = I.build_host([pte])
    table = I.table_source([pte])
    assert set(table.adapters) == {"rt_op_aten_addmm_out", "rt_op_aten_relu_out"}
    assert "rt_op_executorch_prim_et_view_default" in I.table_source().adapters
    xs = _inputs(pte)
    assert all(_same_bits(g, w) for g, w in zip(small.run(pte, xs), I.build_host().run(pte, xs)))


@pytest.mark.parametrize("out", ["unplanned", "aliased", "elsewhere"])
def test_et_view_binds_or_copies(interp, out):
    """executorch_prim::et_view (ExecuTorch's zero-copy view) between a relu and the mul that
    reads its flattened output: its out unplanned (bound to self's data at run), planned on
    self's bytes (nothing to do), or planned elsewhere (copied there; the mul then runs in
    place). Each gives the bytes of the program without it."""
    module, example = OP_MODELS["view_flatten"]
    pte = aot.to_edge(torch.export.export(module, example)).to_executorch().buffer
    xs = [x.numpy() for x in example]
    want = interp.run(pte, xs)
    program = load_program(pte)
    plan = program.execution_plan[0]
    relu, mul = plan.chains[0].instructions
    src, dst, mul_out = relu.args[-1], mul.args[0], mul.args[-1]
    values = list(plan.values)
    sizes = values[dst].sizes
    first = len(values)
    values += [P.Int(int(d)) for d in sizes] + [P.IntList(tuple(range(first, first + len(sizes))))]
    if out == "unplanned":
        values[dst] = dataclasses.replace(values[dst], allocation_info=None)
    elif out == "elsewhere":
        values[dst] = dataclasses.replace(values[dst],
                                          allocation_info=values[mul_out].allocation_info)
    operators = tuple(plan.operators) + (P.Operator("executorch_prim::et_view", "default"),)
    view = P.KernelCall(len(operators) - 1, (src, len(values) - 1, dst))
    chain = dataclasses.replace(plan.chains[0], instructions=(relu, view, mul), stacktrace=None)
    new_plan = dataclasses.replace(plan, values=tuple(values), operators=operators,
                                   chains=[chain])
    edited = bytes(serialize_pte(dataclasses.replace(program, execution_plan=[new_plan])))
    assert ("executorch_prim::et_view", "default") in I.operators_of(edited)
    assert "rt_op_executorch_prim_et_view_default" in I.table_source([edited]).adapters
    got = I.build_host([edited]).run(edited, xs)
    assert all(_same_bits(g, w) for g, w in zip(got, want))


def test_repeated_runs_give_the_same_outputs(interp, programs):
    pte = programs["kws"]
    prog = interp.load(pte)
    xs = _inputs(pte)
    first = prog(*xs)
    assert all(_same_bits(a, b) for a, b in zip(first, prog(*xs)))


def test_state_size_covers_the_cached_lists(interp, programs):
    """The int8 autoencoder's per-channel requantization lists are decoded once, into the
    state's tail; Python's count of them matches the C's."""
    pte = programs["autoencoder_int8"]
    lists, items = I.cached_lists(load_program(pte))
    assert lists > 0 and items >= 16 * lists
    assert I.cached_lists(load_program(programs["kws"])) == (0, 0)

    def state_size(data):
        status = interp._ffi.new("int32_t *")
        raw, ptr = interp._aligned(len(data))
        interp._ffi.memmove(ptr, data, len(data))
        size = interp._lib.rt_pte_state_size(ptr, len(data), status)
        assert status[0] == 0
        return size
    base = state_size(programs["kws"])          # the fixed part alone
    assert state_size(pte) == base + 12 * lists + 4 * items


# -- bad input: each a distinct rt_status -----------------------------------------------------

def _status_of(interp, pte: bytes, arena=None) -> str:
    with pytest.raises(I.PteError) as e:
        interp.load(pte, arena)
    return STATUS_NAMES[e.value.status]


def _edit(pte: bytes, change) -> bytes:
    program = load_program(pte)
    plan = program.execution_plan[0]
    new_plan = change(plan)
    return bytes(serialize_pte(dataclasses.replace(program, execution_plan=[new_plan])))


@pytest.mark.parametrize("cut", [4, 7, 64, 1000, 0.5, 0.9, -1])
def test_truncated_file(interp, programs, cut):
    pte = programs["autoencoder"]
    n = int(len(pte) * cut) if isinstance(cut, float) else (len(pte) + cut if cut < 0 else cut)
    assert _status_of(interp, pte[:n]) == "RT_ERR_PTE_TRUNCATED"


def test_not_a_pte(interp, programs):
    pte = bytearray(programs["autoencoder"])
    pte[4:8] = b"XX99"
    assert _status_of(interp, bytes(pte)) == "RT_ERR_PTE_CORRUPT"


def test_corrupted_offset(interp, programs):
    """The root table's offset pointing at garbage inside the file."""
    pte = bytearray(programs["autoencoder"])
    pte[0:4] = (len(pte) // 2 + 1).to_bytes(4, "little")
    assert _status_of(interp, bytes(pte)) in ("RT_ERR_PTE_CORRUPT", "RT_ERR_PTE_TRUNCATED")


def test_unknown_operator_names_it(interp, programs):
    pte = _edit(programs["autoencoder"], lambda plan: dataclasses.replace(
        plan, operators=[dataclasses.replace(o, name="aten::frobnicate")
                         if o.name == "aten::relu" else o for o in plan.operators]))
    with pytest.raises(I.PteError) as e:
        interp.load(pte)
    assert STATUS_NAMES[e.value.status] == "RT_ERR_PTE_OPERATOR"
    names = [o.name for o in load_program(pte).execution_plan[0].operators]
    assert f"(operator {names.index('aten::frobnicate')})" in str(e.value)


def test_arena_larger_than_the_buffer(interp, programs):
    pte = programs["kws"]
    need = sum(load_program(pte).execution_plan[0].non_const_buffer_sizes)
    assert _status_of(interp, pte, arena=need - 16) == "RT_ERR_PTE_ARENA"
    interp.load(pte, arena_size=need)      # exactly enough is enough


def test_wrong_dtype(interp, programs):
    """A float32 activation turned int32 (same size, so every offset still holds)."""
    pte = programs["autoencoder"]
    plan = load_program(pte).execution_plan[0]
    victim = plan.inputs[0]

    def change(plan):
        values = list(plan.values)
        values[victim] = dataclasses.replace(values[victim], scalar_type=P.ScalarType.INT)
        return dataclasses.replace(plan, values=values)
    assert _status_of(interp, _edit(pte, change)) == "RT_ERR_PTE_DTYPE"


def test_wrong_argument_count(interp, programs):
    def change(plan):
        chain = plan.chains[0]
        ins = [dataclasses.replace(i, args=list(i.args)[:-1]) if k == 0 else i
               for k, i in enumerate(chain.instructions)]
        return dataclasses.replace(plan, chains=[dataclasses.replace(chain, instructions=ins)])
    assert _status_of(interp, _edit(programs["autoencoder"], change)) == "RT_ERR_PTE_ARGS"


def test_tensor_outside_its_buffer(interp, programs):
    pte = programs["autoencoder"]
    plan = load_program(pte).execution_plan[0]
    victim = plan.inputs[0]

    def change(plan):
        values = list(plan.values)
        t = values[victim]
        values[victim] = dataclasses.replace(t, allocation_info=dataclasses.replace(
            t.allocation_info, memory_offset_low=plan.non_const_buffer_sizes[1]))
        return dataclasses.replace(plan, values=values)
    assert _status_of(interp, _edit(pte, change)) == "RT_ERR_PTE_CORRUPT"


def test_a_call_that_writes_a_constant_is_refused(interp, programs):
    """A constant is the file's bytes (flash on a board): an out argument naming one is refused
    at load, before anything could write there."""
    pte = programs["autoencoder"]
    plan = load_program(pte).execution_plan[0]
    constant = next(k for k, v in enumerate(plan.values)
                    if isinstance(v, P.Tensor) and v.data_buffer_idx > 0 and
                    v.allocation_info is None)

    def change(plan):
        chain = plan.chains[0]
        ins = list(chain.instructions)
        ins[0] = dataclasses.replace(ins[0], args=list(ins[0].args)[:-1] + [constant])
        return dataclasses.replace(plan, chains=[dataclasses.replace(chain, instructions=ins)])
    assert _status_of(interp, _edit(pte, change)) == "RT_ERR_PTE_ARGS"


def test_statuses_are_distinct():
    wanted = ["RT_ERR_PTE_TRUNCATED", "RT_ERR_PTE_CORRUPT", "RT_ERR_PTE_OPERATOR",
              "RT_ERR_PTE_ARENA", "RT_ERR_PTE_DTYPE"]
    assert len({STATUS[w] for w in wanted}) == len(wanted)
    header = (runtime_dir() / "include" / "rt_types.h").read_text()
    for name, code in STATUS.items():
        assert f"{name} = {code}" in header


# -- ExecuTorch's own files ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["kws", "vww", "resnet8", "autoencoder"])
def test_executorch_written_pte_matches_executorch_runtime(interp, name):
    require_module("executorch")
    from executorch.exir import to_edge
    from executorch.runtime import Runtime
    from aot.quiet import native_stderr_captured
    module, example = ZOO[name]()
    pte = to_edge(torch.export.export(module.eval(), example)).to_executorch().buffer
    ours = interp.run(pte, [x.numpy() for x in example])
    with native_stderr_captured():
        method = Runtime.get().load_program(pte).load_method("forward")
        theirs = [o.numpy() for o in method.execute(list(example))]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=TOLERANCE)
