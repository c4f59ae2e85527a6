"""The table-driven op suite (tests/op_suite) in generated C on the host, against eager torch,
and in the .pte interpreter against the generated C.

Each case is lowered through to_edge -> to_executorch -> generate_c, built by aot.host and run
on its inputs; float outputs must match torch within the case's tolerance with NaN where torch
has NaN, integer and bool outputs exactly. Together the cases must reach every entry of the
op table that an edge graph can hold.
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import torch

import aot
import aot.host
import op_list
from aot.ops import OPS, all_ops
from op_suite import BY_NAME, CASES

# one worker runs the module (make test: --dist loadgroup), so its lowerings are made once
pytestmark = pytest.mark.xdist_group("op_suite")


@functools.lru_cache(maxsize=None)
def lower(name: str):
    case = BY_NAME[name]
    ep = torch.export.export(case.module(), case.inputs)
    planning = aot.MemoryPlanningPass(alloc_graph_input=case.planned_io,
                                      alloc_graph_output=case.planned_io)
    return aot.to_edge(ep).to_executorch(aot.ExecutorchBackendConfig(
        memory_planning_pass=planning))


def reference(case) -> list[np.ndarray]:
    out = case.module()(*case.inputs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.detach().numpy() for o in outs]


def assert_close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)



@pytest.fixture(scope="module")
def interp():
    """The .pte interpreter with every operator (aot.interpreter)."""
    from aot.interpreter import build_host
    return build_host()


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_case_in_c_matches_torch(name, cache, interp):
    """The generated C against torch; and the same .pte in the interpreter of runtime_c
    against the generated C, byte for byte (NaNs included)."""
    case = BY_NAME[name]
    program = lower(name)
    xs = [x.numpy() for x in case.inputs]
    got = aot.host.build(aot.generate_c(program, name="m"), cache_dir=cache)(*xs)
    want = reference(case)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_close(g, w, case.rtol, case.atol)
    interpreted = interp.run(bytes(program.buffer), xs)
    assert len(interpreted) == len(got)
    for k, (i, g) in enumerate(zip(interpreted, got)):
        assert i.dtype == g.dtype and i.shape == g.shape and i.tobytes() == g.tobytes(), \
            f"output {k}: interpreter {i}, generated C {g}"


def int8_programs() -> list:
    """The int8 op models (tests/int8_models.py), float and int8 I/O: the int8 entries."""
    from int8_models import INT8_MODELS, lowered
    return [lowered(name, io) for name in sorted(INT8_MODELS) for io in (False, True)]


def overlapped_programs() -> list:
    """tests/op_models.py's in-place float32 layers planned with --overlap: the entries only
    such a plan calls (mcu_aot::convolution_in_place)."""
    from aot.config import backend_config
    from op_models import IN_PLACE_F32
    model, example = IN_PLACE_F32
    return [aot.to_edge(torch.export.export(model, example)).to_executorch(backend_config(True))]


def test_every_op_table_entry_has_a_case_and_an_ops_doc_row():
    programs = [lower(case.name) for case in CASES] + int8_programs() + overlapped_programs()
    reached = set()
    for program in programs:
        reached |= {call.op.key for call in program.lowered().graph.calls}
    table = {op.key for op in OPS.values()}
    # hardswish and hardsigmoid: torch's core-ATen decomposition expands them (the kernels run
    # from .pte files that keep them; tests/host/test_kernels.py checks them against torch).
    # aten::copy.out only writes a mutated buffer back (tests/op_models.py's Counter); the
    # creation ops are folded into constants by to_edge and reach C only from .pte files that
    # ExecuTorch writes (tests/interop/test_runtime_parity.py).
    unreachable = {"aten::hardswish.out", "aten::hardsigmoid.out", "aten::copy.out", "aten::full.out", "aten::full_like.out", "aten::zeros.out",
                   "aten::ones.out", "aten::scalar_tensor.out", "aten::fill.Scalar_out",
                   "aten::arange.out", "aten::arange.start_out"}
    assert table - reached <= unreachable, sorted(table - reached - unreachable)

    # docs/ops.md names every entry, and at least the dtypes and kernels seen here.
    rows = op_list.doc_rows()
    entries = {op_list.entry_name(op) for op in all_ops()}
    assert set(rows) == entries, (sorted(entries - set(rows)), sorted(set(rows) - entries))
    for name, seen in op_list.observe(programs).items():
        assert seen["dtypes"] <= rows[name]["dtypes"], (name, seen["dtypes"])
        assert seen["kernels"] <= rows[name]["kernels"], (name, seen["kernels"])
    declared = "".join((op_list.REPO / "runtime_c" / "include" / h).read_text()
                       for h in ("rt_kernels.h", "rt_kernels_s8.h"))
    for name, row in rows.items():
        for kernel in row["kernels"]:
            assert re.search(rf"\b{kernel}\(", declared), f"{name}: {kernel} is not declared"
