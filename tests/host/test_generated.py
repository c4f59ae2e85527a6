"""Generated C, run on the host through aot.host, against eager torch.

Every op model and zoo network is lowered, rendered to C, compiled with the strict flags and
run on the same inputs as torch. A hypothesis sweep covers conv and pool parameters; one run
compiles the generated C with ASan/UBSan in a standalone driver.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aot
import aot.host
from aot.codegen.runtime import runtime_dir
from aot.errors import UnsupportedOpError
from aot.zoo import ZOO
from conftest import require_tool
from op_models import OP_MODELS, Counter

RTOL, ATOL = 1e-4, 1e-5


def _lower(model, example):
    return aot.to_edge(torch.export.export(model.eval(), example)).to_executorch()


def _reference(model, example):
    out = model(*example)
    return [o.detach().numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _check(model, example, name, cache):
    sources = aot.generate_c(_lower(model, example), name=name)
    got = aot.host.build(sources, cache_dir=cache)(*[x.numpy() for x in example])
    want = _reference(model, example)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
    return sources



@pytest.mark.parametrize("name", sorted(OP_MODELS))
def test_op_model_in_c_matches_torch(name, cache):
    model, example = OP_MODELS[name]
    _check(model, example, name, cache)


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_network_in_c_matches_torch(name, cache):
    model, example = ZOO[name]()
    sources = _check(model, example, name, cache)
    plan = _lower(model, example).lowered().plan
    assert sources.arena_size == plan.arena_size


def test_state_persists_between_calls(cache):
    counter = lambda: Counter(shape=(4,), start=0.25, scale=3.0)
    example = (torch.ones(4),)
    model = aot.host.build(aot.generate_c(_lower(counter(), example), name="counter"),
                           cache_dir=cache)
    eager = counter()
    for step in range(3):
        x = torch.arange(4, dtype=torch.float32) + step
        np.testing.assert_allclose(model(x.numpy())[0], eager(x).numpy(), rtol=0, atol=0)


_conv = st.fixed_dictionaries(dict(
    cin=st.integers(1, 6), mult=st.integers(1, 3), k=st.integers(1, 4),
    stride=st.integers(1, 3), pad=st.integers(0, 2), dil=st.integers(1, 2),
    depthwise=st.booleans(), h=st.integers(4, 12), w=st.integers(4, 12),
    pool=st.sampled_from(["max", "avg", "none"]), pk=st.integers(1, 3), ceil=st.booleans()))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(p=_conv)
def test_conv_and_pool_parameters(p, cache):
    cin = p["cin"]
    groups = cin if p["depthwise"] else 1
    cout = cin * p["mult"] if p["depthwise"] else p["mult"] * 2
    k, pad, dil = p["k"], p["pad"], p["dil"]
    pad = min(pad, (dil * (k - 1)) // 2 + 1)
    conv = torch.nn.Conv2d(cin, cout, k, p["stride"], pad, dil, groups=groups)
    h_out = (p["h"] + 2 * pad - dil * (k - 1) - 1) // p["stride"] + 1
    w_out = (p["w"] + 2 * pad - dil * (k - 1) - 1) // p["stride"] + 1
    if h_out < 1 or w_out < 1:
        return
    layers = [conv]
    pk = min(p["pk"], h_out, w_out)
    if p["pool"] == "max":
        layers.append(torch.nn.MaxPool2d(pk, stride=pk, padding=pk // 2, ceil_mode=p["ceil"]))
    elif p["pool"] == "avg":
        layers.append(torch.nn.AvgPool2d(pk, stride=pk, padding=pk // 2, ceil_mode=p["ceil"]))
    model = torch.nn.Sequential(*layers).eval()
    example = (torch.randn(1, cin, p["h"], p["w"]),)
    _check(model, example, "sweep", cache)


class _Epilogues(torch.nn.Module):
    """Activations after a conv, a linear and a residual add, and three that must stay calls:
    one whose input is read twice, one after a transposed conv, one on a graph output's
    producer."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pw = torch.nn.Conv2d(8, 8, 1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.up = torch.nn.ConvTranspose2d(8, 8, 1)
        self.fc = torch.nn.Linear(8 * 36, 10)

    def forward(self, x):
        a = torch.relu(self.c1(x))                       # conv + relu
        b = torch.nn.functional.relu6(self.pw(a))        # 1x1 conv + relu6 (hardtanh)
        d = torch.relu(self.dw(b) + a)                   # add + relu
        e = torch.clamp(self.pw(d), min=-0.1)            # 1x1 conv + clamp
        f = self.pw(e)
        g = torch.relu(f) + f                            # f read twice: relu stays a call
        h = torch.relu(self.up(g))                       # transposed conv: relu stays a call
        y = self.fc(h.flatten(1))
        return torch.nn.functional.hardtanh(y), y        # y is an output: hardtanh stays


def test_activations_fuse_into_their_producers(cache):
    """The C runs relu / relu6 / clamp inside the conv, addmm and add before them when nothing
    else reads the producer's output; the .pte keeps both ops; results match torch."""
    model, example = _Epilogues().eval(), (torch.randn(1, 3, 6, 6),)
    manager = _lower(model, example)
    sources = aot.generate_c(manager, name="epi")
    fused = [(r.op.split("::")[1].split(".")[0], sources.ops[r.fused_into].kernel)
             for r in sources.ops if r.fused_into is not None]
    assert fused == [("relu", "rt_conv2d_f32"), ("hardtanh", "rt_conv2d_1x1_f32"),
                     ("relu", "rt_add_f32"), ("clamp", "rt_conv2d_1x1_f32")]
    calls = [r.kernel for r in sources.ops if r.fused_into is None]
    assert calls.count("rt_relu_f32") == 2 and "rt_clamp_f32" in calls   # the three left
    ops = {o.name for o in manager.executorch_program.method("forward").operators}
    assert {"aten::relu", "aten::hardtanh", "aten::clamp"} <= ops
    got = aot.host.build(sources, cache_dir=cache)(example[0].numpy())
    for g, want in zip(got, _reference(model, example)):
        np.testing.assert_allclose(g, want, rtol=RTOL, atol=ATOL)


def test_generation_is_deterministic():
    model, example = ZOO["resnet8"]()
    a = aot.generate_c(_lower(model, example), name="net")
    b = aot.generate_c(_lower(model, example), name="net")
    assert a.files == b.files


def test_generated_c_compiles_for_cortex_m(tmp_path):
    gcc = require_tool("arm-none-eabi-gcc")
    from aot.resources import data_dir
    model, example = ZOO["kws"]()
    sources = aot.generate_c(_lower(model, example), name="kws")
    sources.write(tmp_path)
    root = runtime_dir()
    for src in [tmp_path / "kws.c"] + [root / r for r in sources.runtime_sources]:
        cmd = [gcc, "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2",
               "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16",
               "-ffreestanding", f"-I{data_dir('boards') / 'common' / 'include'}",
               f"-I{root / 'include'}", f"-I{tmp_path}", "-c", str(src), "-o",
               str(tmp_path / (src.stem + ".o"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_op_without_runtime_kernel_fails_before_writing(tmp_path, monkeypatch):
    """generate_c names every op the runtime lacks, with its source line, and writes nothing."""
    import dataclasses
    import aot.ops as ops
    manager = _lower(*OP_MODELS["where_gt"])
    for op in (torch.ops.aten.gt.Tensor, torch.ops.aten.where.self):
        monkeypatch.setitem(ops._BY_ET, (ops.OPS[op].et_name, ops.OPS[op].et_overload),
                            dataclasses.replace(ops.OPS[op], spec=None))
    out = tmp_path / "never"
    with pytest.raises(UnsupportedOpError) as info:
        aot.generate_c(manager, name="m").write(out)
    text = str(info.value)
    assert "aten::gt.Tensor_out" in text and "aten::where.self_out" in text
    assert "op_models.py" in text
    assert not out.exists()


_DRIVER = """
#include <stdio.h>
#include <stdlib.h>
#include "{name}.h"
static uint8_t arena[{NAME}_ARENA_SIZE + 1] __attribute__((aligned(16)));
int main(int argc, char **argv) {{
    static {ctype_in} in0[{NAME}_INPUT0_NUMEL];
    static float out0[{NAME}_OUTPUT0_NUMEL];
    const void *ins[1] = {{in0}};
    void *outs[1] = {{out0}};
    FILE *f = fopen(argv[1], "rb");
    if (argc < 3 || !f || fread(in0, sizeof in0, 1, f) != 1) return 3;
    fclose(f);
    if ({name}_init(arena) != 0 || {name}_run(arena, ins, outs) != 0) return 4;
    f = fopen(argv[2], "wb");
    fwrite(out0, sizeof out0, 1, f);
    fclose(f);
    return 0;
}}
"""


@pytest.mark.parametrize("name", ["kws", "resnet8", "autoencoder"])
def test_generated_c_is_clean_under_asan_and_ubsan(name, tmp_path):
    """The generated TU and its runtime files, in a standalone driver built with
    -fsanitize=address,undefined: no report, and the same outputs as torch."""
    gcc = require_tool("gcc")
    model, example = ZOO[name]()
    sources = aot.generate_c(_lower(model, example), name=name)
    sources.write(tmp_path)
    (tmp_path / "driver.c").write_text(_DRIVER.format(name=name, NAME=name.upper(),
                                                      ctype_in="float"))
    root = runtime_dir()
    exe = tmp_path / "driver"
    cmd = [gcc, "-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
           "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           f"-I{root / 'include'}", f"-I{tmp_path}", str(tmp_path / "driver.c"),
           str(tmp_path / f"{name}.c"), *[str(root / r) for r in sources.runtime_sources],
           "-o", str(exe), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    example[0].numpy().astype(np.float32).tofile(tmp_path / "in.bin")
    r = subprocess.run([str(exe), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                       capture_output=True, text=True, timeout=120,
                       env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
                            "UBSAN_OPTIONS": "print_stacktrace=1"})
    assert r.returncode == 0 and "runtime error" not in r.stderr and "ERROR" not in r.stderr, \
        r.stderr
    got = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    np.testing.assert_allclose(got, _reference(model, example)[0].ravel(), rtol=RTOL, atol=ATOL)
