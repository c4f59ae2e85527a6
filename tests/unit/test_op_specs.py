"""The op table's call specs (aot/opspec.py) and the adapters compiled from them.

That an adapter and the static C agree on every call is tested by running both
(tests/host/test_interpreter_elementwise.py); here: the generated source is deterministic, names
only arguments its op's schema has, ends every path in a call or a refusal, and compiles
warning-free on the host compiler and the Arm one.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
import torch

from aot import opspec as S
from aot.codegen.adapters import adapter_source
from aot.codegen.runtime import runtime_dir
from aot.interpreter import adapter_name, table_source
from aot.ops import OPS, all_ops
from conftest import require_tool

SPECCED = [op for op in all_ops() if op.spec is not None]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Os"]


def _paths_end(block) -> bool:
    """Every path through ``block`` ends in a Call or a Fail."""
    for s in block:
        if isinstance(s, (S.Call, S.Fail)):
            return True
        if isinstance(s, S.If) and _paths_end(s.then) and _paths_end(s.otherwise):
            return True
    return False


def test_every_op_of_the_table_is_declared_by_its_spec():
    """No renderer or adapter is written by hand: the interpreter's table compiles every
    entry's adapter from its spec."""
    assert [op.key for op in all_ops() if op.spec is None] == []


def test_every_specced_op_is_a_table_entry_with_a_complete_spec():
    assert len(SPECCED) >= 60
    for op in SPECCED:
        assert _paths_end(op.spec.body), f"{op.key}: a path of its spec ends in no call"
        assert op.spec.kernels(), op.key
        adapter_source(op, adapter_name(op))      # reads only names its schema has


def test_a_spec_that_reads_an_argument_its_schema_lacks_is_refused():
    op = SPECCED[0]
    bad = type(op)(op.aten, op.schema, spec=S.CallSpec(S.Call("rt_relu_f32", S.Tensor("nope"))))
    with pytest.raises(KeyError, match="nope"):
        adapter_source(bad, "rt_op_bad")


def test_an_argument_no_path_reads_is_kind_checked_at_load_first():
    src = adapter_source(OPS[torch.ops.aten.cumsum.default], "rt_op_cumsum")
    body = src.split("{", 1)[1].split("\n")
    assert body[1:4] == ["    if (c->check) {", "        RT_TRY(rt_pte_kind_opt_int(c, 2));",
                         "    }"], body[:4]
    op = OPS[torch.ops.aten.add.Tensor]             # alpha, a number, has no kind check
    unread = type(op)(op.aten, op.schema, spec=S.CallSpec(
        S.Call("rt_add_f32", S.Tensor("self"), S.Tensor("other"), S.Out("out"))))
    with pytest.raises(TypeError, match="never reads 'alpha'"):
        adapter_source(unread, "rt_op_bad")


def test_a_precondition_is_checked_at_load_with_the_kernels_arguments():
    op = OPS[torch.ops.aten.upsample_bilinear2d.vec]
    assert op.spec.preconditions() == ("resample_scale_fits",) == op.preconditions
    src = adapter_source(op, "rt_op_bilinear")
    pre = src.index("    RT_TRY(rt_pte_pre_resample_scale_fits(")
    assert src.rindex("if (c->check) {", 0, pre) < pre < src.index("return rt_upsample")
    # the scales it checks are the float32 values the kernel gets: one variable for both
    call = src[src.index("return rt_upsample"):]
    for scale in src[pre:].split("(", 1)[1].split(", ")[2:4]:
        assert scale in call


def test_spec_arithmetic_reads_as_c_does():
    """The static C generator evaluates ``//`` and ``/`` as C computes them in the adapter."""
    from aot.codegen.spec_render import _c_div
    assert [_c_div(a, b) for a, b in ((7, 2), (-7, 2), (7, -2), (6, 3))] == [3, -3, -3, 2]
    assert _c_div(1.0, 3.0) == 1.0 / 3.0


def test_spec_expressions_have_no_truth_value():
    with pytest.raises(TypeError, match="If or Select"):
        bool(S.Tensor("self").rank > 2)


def test_the_generated_table_is_the_same_bytes_in_every_process():
    code = ("import hashlib, aot.interpreter as I; "
            "print(hashlib.sha256(I.table_source().source.encode()).hexdigest())")
    digests = set()
    for seed in ("0", "1", "random"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
        digests.add(out)
    here = hashlib.sha256(table_source().source.encode()).hexdigest()
    assert digests == {here}


@pytest.mark.parametrize("cc, flags", [
    ("gcc", []),
    ("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                           "-mfpu=fpv4-sp-d16",       # the boards' libc headers: no newlib
                           f"-isystem{runtime_dir().parent / 'boards' / 'common' / 'include'}"]),
])
def test_the_generated_adapters_compile_warning_free(tmp_path, cc, flags):
    compiler = require_tool(cc)
    source = tmp_path / "table.c"
    source.write_text(table_source().source)
    subprocess.run([compiler, *STRICT, *flags, f"-I{runtime_dir() / 'include'}", "-c",
                    str(source), "-o", str(tmp_path / "table.o")], check=True)


def test_an_adapter_that_links_one_of_its_kernels_compiles_warning_free(tmp_path):
    """A firmware's table links only the kernels its programs' calls pick; each other path
    refuses (RT_ERR_PTE_UNSUPPORTED) and must leave nothing unused behind it."""
    compiler = require_tool("gcc")
    lines = ['#include "rt_pte.h"', '#include "rt_pte_args.h"', '#include "rt_pte_checks.h"',
             '#include "rt_kernels_s8.h"']
    for op in SPECCED:
        kernels = op.spec.kernels()
        for k, kernel in enumerate(kernels if len(kernels) > 1 else ()):
            name = f"{adapter_name(op)}_{k}"
            lines += [f"rt_status {name}(const rt_pte_call *c);",
                      adapter_source(op, name, {kernel})]
    source = tmp_path / "pruned.c"
    source.write_text("\n".join(lines) + "\n")
    subprocess.run([compiler, *STRICT, f"-I{runtime_dir() / 'include'}", "-c", str(source),
                    "-o", str(tmp_path / "pruned.o")], check=True)
