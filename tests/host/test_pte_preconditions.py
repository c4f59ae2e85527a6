"""The kernels' preconditions: declared by their ops, checked in both languages, refused by both.

An op whose kernel needs more of its arguments than their kinds and shapes names each such
precondition in its op-table entry (aot.ops.OpDef.preconditions). Each has one implementation in
Python (aot/codegen/preconditions.py, run through ``ctx.require`` by the op's renderer, so by
check_call and the C generator) and one in C (rt_pte_pre_<name> in
runtime_c/include/rt_pte_checks.h, called by the op's interpreter adapter at load). Checked here:

- every declared precondition exists in both languages, is reached from the op's C adapter (one
  written by hand, or a ``Pre`` of its call spec) and is run by check_call; no adapter checks a
  precondition its op does not declare;
- a call that breaks a precondition is refused by the C interpreter (ASan + UBSan build, at load:
  RT_ERR_PTE_ARGS at that instruction) and by Python: check_call given the Program,
  aot.generate_c and aot.load_program (whose Program check passes the Program, so a
  precondition on a constant's values is read there too), with an error naming the argument;
- the zoo's networks (float32 and int8) keep every precondition.
"""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from pte_mutants import sanitizer_env
import torch

import aot
from aot.config import backend_config
from aot import program as P
from aot.calls import decode_call
from aot.codegen import preconditions as PRE
from aot.codegen.context import Invalid
from aot.codegen.renderers import check_call
from aot.errors import AotError
from aot.interpreter import adapter_name
from aot.ops import all_ops, by_et_name
from aot.pte import serialize_pte
from aot.zoo import ZOO

from int8_models import lowered
from op_models import IN_PLACE_F32, OP_MODELS

ROOT = Path(__file__).resolve().parents[2]
PTE_SRC = ROOT / "runtime_c" / "src" / "pte"
CHECKS_H = ROOT / "runtime_c" / "include" / "rt_pte_checks.h"
INT32_MAX = 2 ** 31 - 1

DECLARING = [op for op in all_ops() if op.preconditions]

# one worker runs the module (make test: --dist loadgroup), so the mutants, the programs and the
# sanitized interpreter's verdicts (module fixtures) are made once, not once a worker
pytestmark = pytest.mark.xdist_group("pte_preconditions")


# -- the declarations and both implementations -------------------------------------------------

# A definition as these files write them: the return type and name on one line, the body's
# braces alone on their lines.
_FUNCTION = re.compile(r"^[A-Za-z_][^;{}()\n]*?\b(\w+)\s*\([^;{}]*\)\s*\n\{\n(.*?)\n\}\n",
                       re.S | re.M)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _defined(path: Path) -> dict[str, set[str]]:
    """The functions a C file defines -> what each calls."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), path.read_text())
    return {m.group(1): set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", m.group(2)))
            for m in _FUNCTION.finditer(text)}


def _c_functions() -> dict[str, dict[str, set[str]]]:
    """Each adapter -> the call graph of its file (with the headers the adapters share)."""
    shared = _defined(CHECKS_H)
    for header in sorted(PTE_SRC.glob("op_*.h")):
        shared.update(_defined(header))
    graphs = {}
    for path in sorted(PTE_SRC.glob("op_*.c")):
        graph = {**shared, **_defined(path)}
        graphs.update({f: graph for f in graph if f.startswith("rt_op_")})
    return graphs


def _reached(calls: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo.extend(calls.get(f, ()))
    return seen


def test_declared_preconditions_exist_in_both_languages():
    assert DECLARING, "no op declares a precondition"
    header = CHECKS_H.read_text()
    c_checks = set(re.findall(r"\brt_pte_pre_(\w+)\s*\(", header))
    forms = {f"{name}_{form}" for name, forms in PRE.FORMS.items() for form in forms}
    assert c_checks == set(PRE.CHECKS) | forms, \
        "rt_pte_checks.h and preconditions.py name other checks"
    for op in DECLARING:
        for name in op.preconditions:
            assert name in PRE.CHECKS, f"{op.key}: no Python check {name!r}"
            assert name in c_checks, f"{op.key}: no rt_pte_pre_{name} in rt_pte_checks.h"


def test_adapters_check_exactly_what_their_ops_declare():
    graphs = _c_functions()
    for op in all_ops():
        adapter = adapter_name(op)
        if op.spec is not None:         # its adapter is generated: from the spec's Pre statements
            assert set(op.spec.preconditions()) == set(op.preconditions), \
                f"{op.key}: its call spec checks {op.spec.preconditions()}, the op declares " \
                f"{op.preconditions}"
            continue
        if adapter not in graphs:
            assert not op.preconditions, f"{op.key}: no adapter {adapter} in src/pte/op_*.c"
            continue
        reached = {f[len("rt_pte_pre_"):] for f in _reached(graphs[adapter], adapter)
                   if f.startswith("rt_pte_pre_")}
        assert reached == set(op.preconditions), \
            f"{op.key}: {adapter} checks {sorted(reached)}, the op declares {op.preconditions}"


def _float_program(name: str) -> P.Program:
    """A float op model, or "inplace_f32" planned with --overlap (its convolutions
    mcu_aot::convolution_in_place)."""
    model, example = IN_PLACE_F32 if name == "inplace_f32" else OP_MODELS[name]
    ep = torch.export.export(model.eval(), example)
    return aot.to_edge(ep).to_executorch(backend_config(name == "inplace_f32")) \
        .executorch_program


_FLOAT = {}


def program(name: str) -> P.Program:
    """An int8 network of tests/int8_models.py (int8 I/O), or a float op model."""
    if name in ("conv_blocks", "residual", "mlp", "activations", "movement", "decoder",
                "products", "stats", "lstm"):
        return lowered(name, True).executorch_program
    if name not in _FLOAT:
        _FLOAT[name] = _float_program(name)
    return _FLOAT[name]


SOURCES = ["conv_blocks", "residual", "mlp", "activations", "decoder", "products",
           "conv2d_stride_pad", "conv_transpose", "max_pool2d_pad", "avg_pool2d_pad",
           "upsample_bilinear", "stats", "lstm", "inplace_f32"]


def _calls(prog: P.Program):
    plan = prog.execution_plan[0]
    for k, ins in enumerate(plan.chains[0].instructions):
        if isinstance(ins, P.KernelCall):
            o = plan.operators[ins.op_index]
            op = by_et_name(o.name, o.overload)
            if op is not None:
                yield k, op, ins


def test_check_call_runs_every_declared_precondition(monkeypatch):
    ran: list[str] = []

    def recording(name, check):
        def run(ctx, **kw):
            ran.append(name)
            return check(ctx, **kw)
        return run

    for name, check in list(PRE.CHECKS.items()):
        monkeypatch.setitem(PRE.CHECKS, name, recording(name, check))
    seen = set()
    for source in SOURCES:
        prog = program(source)
        plan = prog.execution_plan[0]
        for k, op, ins in _calls(prog):
            ran.clear()
            check_call(op, decode_call(plan, ins, op.schema), prog)
            assert set(ran) == set(op.preconditions), (source, k, op.key)
            if op.preconditions:
                seen.add(op.key)
    assert seen == {op.key for op in DECLARING}, sorted({op.key for op in DECLARING} - seen)


def test_a_renderer_that_skips_a_declared_precondition_fails_check_call():
    prog = program("mlp")
    plan = prog.execution_plan[0]
    k, op, ins = next(c for c in _calls(prog) if c[1].key == "cortex_m::quantized_linear.out")
    values = decode_call(plan, ins, op.schema)
    bare = dataclasses.replace(op, preconditions=(*op.preconditions, "pool_geometry_fits"))
    with pytest.raises(RuntimeError, match="did not check"):
        check_call(bare, values, prog)
    loose = dataclasses.replace(op, preconditions=("requant_shift",))
    with pytest.raises(RuntimeError, match="does not declare"):
        check_call(loose, values, prog)


# -- nothing real is refused ----------------------------------------------------------------------

ZOO_PROGRAMS = [(n, q) for n in sorted(ZOO) for q in (False, True)]


def zoo_program(name: str, int8: bool) -> P.Program:
    if int8:
        return lowered(name, True).executorch_program
    key = ("zoo", name)
    if key not in _FLOAT:
        model, example = ZOO[name]()
        _FLOAT[key] = aot.to_edge(torch.export.export(model.eval(), example)) \
            .to_executorch().executorch_program
    return _FLOAT[key]


@pytest.mark.parametrize("name,int8", ZOO_PROGRAMS)
def test_zoo_keeps_every_precondition(name, int8):
    """Each zoo network's calls pass check_call with their constants' values at hand (the C
    interpreter loads them too: test_the_unedited_programs_load)."""
    prog = zoo_program(name, int8)
    plan = prog.execution_plan[0]
    for k, op, ins in _calls(prog):
        check_call(op, decode_call(plan, ins, op.schema), prog)


def test_python_windows_match_pytorch():
    """Window.out_size is PyTorch's output size, floor and ceil_mode."""
    for size in range(1, 12):
        for k in range(1, 5):
            for s in range(1, 4):
                for p in range(0, k // 2 + 1):
                    for ceil in (False, True):
                        try:
                            want = torch.nn.functional.max_pool2d(
                                torch.zeros(1, 1, 1, size), (1, k), (1, s), (0, p),
                                ceil_mode=ceil).shape[-1]
                        except RuntimeError:
                            continue
                        assert PRE.Window(size, k, s, p, 1, want).out_size(ceil) == want


# -- refusals -------------------------------------------------------------------------------------

def _replace_arg(prog: P.Program, op_key: str, arg: int,
                 make: Callable[[P.Program, P.EValue], tuple]) -> tuple[P.Program, int]:
    """prog with argument `arg` of its first call of op_key replaced: make(prog, old value) gives
    (new constant buffers to append, the new values to append); the argument becomes the first
    of those values. Returns the Program and that call's instruction index."""
    plan = prog.execution_plan[0]
    chain = plan.chains[0]
    k, _, call = next(c for c in _calls(prog) if c[1].key == op_key)
    buffers, added = make(prog, plan.values[call.args[arg]], len(plan.values),
                          len(prog.constant_buffer))
    args = list(call.args)
    args[arg] = len(plan.values)
    instructions = list(chain.instructions)
    instructions[k] = dataclasses.replace(call, args=tuple(args))
    plan = dataclasses.replace(
        plan, values=(*plan.values, *added),
        chains=(dataclasses.replace(chain, instructions=tuple(instructions)), *plan.chains[1:]))
    return dataclasses.replace(prog, execution_plan=(plan, *prog.execution_plan[1:]),
                               constant_buffer=(*prog.constant_buffer, *buffers)), k


def _constant_edit(edit: Callable[[np.ndarray], None]):
    """The tensor argument as a new constant: its values (int32) edited."""
    def make(prog, old, base, buffer):
        blob = bytes(prog.constant_buffer[old.data_buffer_idx].storage) \
            if old.data_buffer_idx else b""
        data = np.frombuffer(blob[:4 * old.numel].ljust(4 * old.numel, b"\0"), np.int32).copy()
        edit(data)
        return (P.Buffer(data.tobytes()),), (dataclasses.replace(
            old, data_buffer_idx=buffer, allocation_info=None),)
    return make


def _planned(prog, old, base, buffer):
    """The tensor argument planned at the start of the arena instead (values known only when
    the program runs)."""
    return (), (dataclasses.replace(old, data_buffer_idx=0,
                                    allocation_info=P.AllocationDetails(1, 0)),)


def _ints(*vs: int):
    def make(prog, old, base, buffer):
        return (), (P.IntList(tuple(range(base + 1, base + 1 + len(vs)))),
                    *(P.Int(v) for v in vs))
    return make


def _set(index: int, value: int):
    def edit(data):
        data[index] = value
    return edit


CONV = "cortex_m::quantized_conv2d_nhwc.out"
DW = "cortex_m::quantized_depthwise_conv2d_nhwc.out"
LINEAR = "cortex_m::quantized_linear.out"
AVG8 = "cortex_m::quantized_avg_pool2d_nhwc.out"
MAX8 = "cortex_m::quantized_max_pool2d_nhwc.out"

# (id, source program, op, argument, edit, the argument the refusal names, the precondition,
#  whether the refusal needs a constant's bytes)
CASES = [
    ("requant-shift-83886072", "conv_blocks", CONV, 9, _constant_edit(_set(0, 83886072)),
     "requantize_shifts", "requant_shift", True),
    ("requant-shift-minus-32", "conv_blocks", DW, 10, _constant_edit(_set(-1, -32)),
     "requantize_shifts", "requant_shift", True),
    ("requant-negative-multiplier", "conv_blocks", CONV, 8, _constant_edit(_set(1, -5)),
     "requantize_multipliers", "requant_shift", True),
    ("requant-planned-shifts", "conv_blocks", DW, 10, _planned, "requantize_shifts",
     "requant_shift", False),
    ("requant-add-input-overflow", "residual", "cortex_m::quantized_add.out", 7,
     lambda prog, old, base, buffer: ((), (P.Int(20),)), "other_multiplier", "requant_shift",
     False),
    ("accumulator-conv-bias", "conv_blocks", CONV, 2, _constant_edit(_set(0, INT32_MAX - 5)),
     "bias", "accumulator_fits", True),
    ("accumulator-depthwise-bias", "conv_blocks", DW, 2,
     _constant_edit(_set(0, -(2 ** 31))), "bias", "accumulator_fits", True),
    ("accumulator-linear-kernel-sum", "mlp", LINEAR, 3, _constant_edit(_set(2, 2 ** 31 - 1000)),
     "kernel_sum", "accumulator_fits", True),
    ("accumulator-planned-bias", "conv_blocks", CONV, 2, _planned, "bias", "accumulator_fits",
     False),
    ("conv-geometry-stride", "conv_blocks", CONV, 3, _ints(2 ** 30, 1), "out",
     "conv_geometry_fits", False),
    ("conv-geometry-dilation", "conv_blocks", DW, 5, _ints(1, INT32_MAX), "out",
     "conv_geometry_fits", False),
    ("conv-geometry-padding", "conv_blocks", CONV, 4, _ints(INT32_MAX, 0), "out",
     "conv_geometry_fits", False),
    ("conv-geometry-float-dilation", "conv2d_stride_pad", "aten::convolution.out", 5,
     _ints(2 ** 30, 1), "out", "conv_geometry_fits", False),
    ("conv-geometry-float-groups", "conv2d_stride_pad", "aten::convolution.out", 8,
     lambda prog, old, base, buffer: ((), (P.Int(6),)), "groups", "conv_geometry_fits", False),
    ("conv-geometry-transposed-stride", "conv_transpose", "aten::convolution.out", 3,
     _ints(INT32_MAX, 2), "out", "conv_geometry_fits", False),
    ("softmax-scaling-shift-31", "activations", "cortex_m::softmax.out", 5,
     lambda prog, old, base, buffer: ((), (P.Int(31),)), "input_shift", "softmax_scaling_fits",
     False),
    ("resample-scale-1e9", "upsample_bilinear", "aten::upsample_bilinear2d.vec_out", 3,
     lambda prog, old, base, buffer: ((), (P.DoubleList((1e-9, 2.0)),)), "scale_factors",
     "resample_scale_fits", False),
    ("pool-geometry-max-padding", "residual", MAX8, 3, _ints(2, 2), "padding",
     "pool_geometry_fits", False),
    ("pool-geometry-avg-stride", "residual", AVG8, 2, _ints(2 ** 30, 2 ** 30), "out",
     "pool_geometry_fits", False),
    ("pool-geometry-float-max-kernel", "max_pool2d_pad",
     "aten::max_pool2d_with_indices.out", 1, _ints(1, 1), "padding", "pool_geometry_fits",
     False),
    ("pool-geometry-float-avg-stride", "avg_pool2d_pad", "aten::avg_pool2d.out", 2,
     _ints(INT32_MAX, 1), "out", "pool_geometry_fits", False),
]


@pytest.fixture(scope="module")
def mutants() -> dict[str, tuple[P.Program, int]]:
    return {case[0]: _replace_arg(program(case[1]), case[2], case[3], case[4]) for case in CASES}


def test_cases_break_each_precondition():
    assert {case[6] for case in CASES} == set(PRE.CHECKS)


_CHILD = r"""
import json, sys
from aot.errors import AotError
from aot.interpreter import build_host
interp = build_host(sanitize=True)
out = {}
for path in sys.argv[1:]:
    try:
        interp.load(open(path, "rb").read())
        out[path] = "RT_OK"
    except AotError as e:
        out[path] = str(e)
print(json.dumps(out))
"""


def _c_load(paths: list[Path]) -> dict[str, str]:
    """Each .pte loaded by the interpreter built with ASan and UBSan (every operator's
    adapter): "RT_OK" or the refusal."""
    r = subprocess.run([sys.executable, "-c", _CHILD, *map(str, paths)], capture_output=True,
                       text=True, env=sanitizer_env(), cwd=ROOT, timeout=1800)
    assert r.returncode == 0, r.stderr[-4000:]
    return {Path(k).name: v for k, v in json.loads(r.stdout.splitlines()[-1]).items()}


@pytest.fixture(scope="module")
def c_status(mutants, tmp_path_factory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("preconditions")
    paths = []
    for name, (prog, _) in mutants.items():
        paths.append(work / f"{name}.pte")
        paths[-1].write_bytes(bytes(serialize_pte(prog)))
    for source in SOURCES:
        paths.append(work / f"base-{source}.pte")
        paths[-1].write_bytes(bytes(serialize_pte(program(source))))
    for name, int8 in ZOO_PROGRAMS:
        paths.append(work / f"zoo-{name}-{'int8' if int8 else 'float32'}.pte")
        paths[-1].write_bytes(bytes(serialize_pte(zoo_program(name, int8))))
    return _c_load(paths)


def test_the_unedited_programs_load(c_status):
    for source in SOURCES:
        assert c_status[f"base-{source}.pte"] == "RT_OK", source
    for name, int8 in ZOO_PROGRAMS:
        assert c_status[f"zoo-{name}-{'int8' if int8 else 'float32'}.pte"] == "RT_OK", name


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_c_interpreter_refuses(case, mutants, c_status):
    _, k = mutants[case[0]]
    assert c_status[f"{case[0]}.pte"] == f"loading the .pte: RT_ERR_PTE_ARGS at instruction {k}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_python_refuses(case, mutants):
    name, _, op_key, _, _, arg, pre, _ = case
    prog, k = mutants[name]
    plan = prog.execution_plan[0]
    call = plan.chains[0].instructions[k]
    op = by_et_name(*op_key.split("."))
    named = rf"argument[s]? [^:]*'{arg}'.*precondition {pre}"
    with pytest.raises(Invalid, match=named):
        check_call(op, decode_call(plan, call, op.schema), prog)
    with pytest.raises(AotError, match=rf"instruction {k} .*{named}"):
        aot.generate_c(prog, name="pre")
    with pytest.raises(AotError, match=rf"instruction {k} .*{named}"):
        aot.load_program(bytes(serialize_pte(prog)))     # (the Program check reads constants)
