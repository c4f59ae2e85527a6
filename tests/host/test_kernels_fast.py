"""The specialized and architecture kernels against torch and against the reference.

* conv variants (rt_conv2d_1x1_f32, rt_conv2d_depthwise_f32, and rt_conv2d_f32 itself) and the
  GEMM behind mm/bmm/addmm/linear, for the portable runtime and for every runtime_c/src/arch/
  folder this machine can run, over odd shapes (widths not multiples of 4/8, padding, strides,
  dilation, 1..70 channels), against eager torch at rtol 1e-4 / atol 1e-5;
* every conv variant, and the GEMM with b[K,N], bit-identical to the portable reference (they
  keep its summation order);
* the renderer picking the variant from the conv parameters, and arch file selection;
* the arch files compiling warning-free under the strict flags, and everything here passing
  under ASan + UBSan.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import HOST_CACHE, require_tool
import torch
import torch.nn.functional as F
from hypothesis import given, settings, strategies as st

import kernel_harness
from kernel_harness import (CACHE, INCLUDE, NULL, RUNTIME, SANITIZE_FLAGS, STRICT_FLAGS,
                            KernelError, Runtime)

RTOL, ATOL = 1e-4, 1e-5
HERE = Path(__file__).resolve().parent
ARCH_DIR = RUNTIME / "src" / "arch"
EXTRA_WARNINGS = ["-Wdouble-promotion", "-Wconversion", "-Wshadow", "-Wstrict-prototypes",
                  "-Wmissing-prototypes"]


def host_arches() -> list[str]:
    """Arch folders whose code runs on this machine, and "<arch>+wide" for their build with
    the flags aot.host adds here (x86-64: AVX2, when the CPU has it)."""
    from aot.codegen.runtime import host_cflags
    arches = [a for a in (platform.machine(),) if (ARCH_DIR / a).is_dir()]
    return arches + [f"{a}+wide" for a in arches if host_cflags(a)]


def _folder(arch: str) -> str:
    return arch.split("+")[0]


ARCHES = ["portable"] + host_arches()
BUILD_ARCHES = sorted({_folder(a) for a in ARCHES})   # what aot.host.build(arch=...) takes


def arch_sources(arch: str) -> list[Path]:
    """Every portable runtime file, with the arch's files in place of the same-named ones."""
    files = kernel_harness.runtime_sources()
    if arch == "portable":
        return files
    override = {p.name: p for p in (ARCH_DIR / _folder(arch)).glob("*.c")}
    return [override.get(p.name, p) for p in files]


def _build_arch(arch: str, sanitize: bool) -> Path:
    """kernel_harness's build, for the arch's files (its private headers in the cache key)."""
    import cffi

    from aot.codegen.runtime import host_cflags
    sources = arch_sources(arch)
    base = STRICT_FLAGS + (SANITIZE_FLAGS if sanitize else [])
    wide = list(host_cflags(_folder(arch))) if arch.endswith("+wide") else []
    cflags = base + wide
    h = hashlib.sha256()
    for part in [sys.version, arch, " ".join(cflags), kernel_harness.cdef_text()]:
        h.update(part.encode())
    for f in sorted(sources) + sorted(INCLUDE.glob("*.h")) + sorted(RUNTIME.glob("src/**/*.h")):
        h.update(str(f.relative_to(RUNTIME)).encode() + f.read_bytes())
    key = f"{arch}-{h.hexdigest()[:16]}"
    modname = f"_rt_{arch.replace('+', '_')}_{h.hexdigest()[:16]}"
    final = CACHE / key
    found = list(final.glob(f"{modname}*.so")) if final.is_dir() else []
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=CACHE))
    try:
        # the widening flags go to the arch's own files, the only ones that test for them
        # (src/arch/x86_64/conv2d.c): the portable files' objects are the narrow build's
        own = [f for f in sources if ARCH_DIR in f.parents]
        objects = kernel_harness.runtime_objects([f for f in sources if f not in own], base) + \
            kernel_harness.runtime_objects(own, cflags)
        ffi = cffi.FFI()
        ffi.cdef(kernel_harness.cdef_text())
        ffi.set_source(modname, '#include "rt.h"', include_dirs=[str(INCLUDE)],
                       extra_objects=[str(o) for o in objects],
                       extra_link_args=SANITIZE_FLAGS[:1] if sanitize else [])
        ffi.compile(tmpdir=str(tmp), verbose=False)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        os.replace(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return next(final.glob(f"{modname}*.so"))


_RUNTIMES: dict[str, Runtime] = {}


def runtime(arch: str) -> Runtime:
    if arch not in _RUNTIMES:
        if arch == "portable":
            _RUNTIMES[arch] = kernel_harness.load()
        else:
            so = _build_arch(arch, kernel_harness.sanitize_requested())
            spec = importlib.util.spec_from_file_location(so.name.split(".")[0], so)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _RUNTIMES[arch] = Runtime(module)
    return _RUNTIMES[arch]


def randn(*shape, seed=0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape), np.float32)


# ------------------------------------------------------------------ conv ---

VARIANTS = {"general": "rt_conv2d_f32", "1x1": "rt_conv2d_1x1_f32",
            "depthwise": "rt_conv2d_depthwise_f32"}


def conv(rt, fn, x, w, b, stride, pad, dil, groups, act=None):
    """Run one conv kernel; 1-D when x is rank 3 (the *_h params are ignored); act = (lo, hi)
    of a fused activation."""
    h_one = x.ndim == 3
    kh, kw = (1, w.shape[-1]) if h_one else w.shape[2:]
    h, wd = (1, x.shape[-1]) if h_one else x.shape[2:]
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    shape = (x.shape[0], w.shape[0], ow) if h_one else (x.shape[0], w.shape[0], oh, ow)
    prm = rt.params("rt_conv2d_params", stride_h=stride[0], stride_w=stride[1], pad_h=pad[0],
                    pad_w=pad[1], dilation_h=dil[0], dilation_w=dil[1], groups=groups)
    if act is not None:
        prm.act.on, prm.act.lo, prm.act.hi = 1, *act
    out = rt.empty(shape)
    rt.call(fn, prm, x, w, b, out)
    return out


def torch_conv(x, w, b, stride, pad, dil, groups):
    t = lambda a: None if a is None else torch.from_numpy(a)  # noqa: E731
    if x.ndim == 3:
        return F.conv1d(t(x), t(w), t(b), stride[1], pad[1], dil[1], groups).numpy()
    return F.conv2d(t(x), t(w), t(b), tuple(stride), tuple(pad), tuple(dil), groups).numpy()


def check_conv(arch, variant, n, cin, h, wd, cout, k, stride, pad, dil, groups, bias, seed=0):
    """variant vs torch, and vs the portable reference rt_conv2d_f32."""
    kh, kw = k
    x = randn(*((n, cin, wd) if h is None else (n, cin, h, wd)), seed=seed)
    w = randn(*((cout, cin // groups, kw) if h is None else (cout, cin // groups, kh, kw)),
              seed=seed + 1)
    b = randn(cout, seed=seed + 2) if bias else None
    got = conv(runtime(arch), VARIANTS[variant], x, w, b, stride, pad, dil, groups)
    np.testing.assert_allclose(got, torch_conv(x, w, b, stride, pad, dil, groups),
                               rtol=RTOL, atol=ATOL)
    # Every variant sums each output in the reference's (c, ky, kx) order, bias last (padding
    # adds exact zeros): the same bits as the portable rt_conv2d_f32.
    ref = conv(runtime("portable"), "rt_conv2d_f32", x, w, b, stride, pad, dil, groups)
    np.testing.assert_array_equal(got, ref)


# (N, Cin, H, W, Cout, (KH, KW), stride, pad, dilation, groups, bias); H None = conv1d
GENERAL_CASES = [
    (1, 3, 32, 32, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),     # resnet stem
    (1, 16, 9, 9, 32, (3, 3), (2, 2), (1, 1), (1, 1), 1, False),     # strided, odd plane
    (1, 1, 49, 10, 64, (10, 4), (2, 2), (5, 1), (1, 1), 1, True),    # kws stem
    (1, 3, 11, 13, 8, (3, 3), (2, 2), (1, 1), (1, 1), 1, True),
    (2, 5, 7, 17, 7, (3, 5), (1, 1), (2, 2), (2, 1), 1, True),       # dilation, cout 7
    (1, 4, 6, 3, 6, (2, 2), (1, 3), (1, 1), (1, 1), 2, True),        # groups, stride 3
    (1, 6, 5, 5, 3, (3, 3), (1, 1), (1, 1), (1, 1), 3, False),       # 1 channel per group
    (1, 2, 3, 2, 5, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),        # plane narrower than 4
    (1, 5, 12, 35, 8, (3, 3), (2, 2), (1, 1), (1, 1), 1, True),      # stride 2, 18 columns
    (1, 3, 6, 20, 4, (1, 5), (2, 2), (0, 2), (1, 2), 1, True),       # stride 2, dilated, 8
    (1, 4, 5, 9, 4, (3, 3), (1, 1), (3, 3), (1, 1), 1, False),       # padding wider than taps
    (1, 70, 5, 9, 70, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    (1, 8, 12, 12, 4, (1, 1), (2, 2), (0, 0), (1, 1), 1, True),      # strided 1x1 shortcut
    (1, 3, 4, 21, 9, (1, 7), (1, 1), (0, 3), (1, 2), 1, True),
    (1, 4, None, 23, 6, (1, 3), (1, 2), (0, 1), (1, 1), 1, True),    # conv1d
    (0, 3, 5, 5, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, True),        # empty batch
]

POINTWISE_CASES = [  # (N, Cin, H, W, Cout, bias)
    (1, 64, 25, 5, 64, True), (1, 8, 48, 48, 16, True), (1, 256, 3, 3, 256, False),
    (1, 128, 6, 6, 128, True), (2, 3, 5, 7, 70, True), (1, 70, 1, 3, 5, True),
    (1, 1, 2, 2, 1, False), (1, 9, 7, 11, 3, True), (1, 5, 1, 1, 6, True),
    (1, 600, 4, 5, 9, True),   # input tile smaller than 8 pixels of all channels
    (3, 12, 1, 37, 13, False),
]

DEPTHWISE_CASES = [  # (N, C, H, W, mult, (KH, KW), stride, pad, dilation, bias)
    (1, 64, 25, 5, 1, (3, 3), (1, 1), (1, 1), (1, 1), True),   # kws
    (2, 3, 7, 5, 2, (3, 3), (2, 1), (2, 1), (2, 1), False),    # rows of 5: multiplier, row steps
    (1, 4, 2, 5, 1, (3, 3), (1, 1), (1, 1), (1, 1), True),     # rows of 5, two rows
    (1, 8, 6, 6, 1, (3, 3), (1, 1), (1, 1), (1, 1), True),     # narrow rows: 6, 4, 7
    (1, 5, 4, 4, 2, (3, 3), (1, 1), (1, 1), (2, 1), False),
    (2, 3, 9, 7, 1, (3, 3), (2, 1), (2, 1), (1, 1), True),
    (1, 8, 48, 48, 1, (3, 3), (1, 1), (1, 1), (1, 1), True),   # vww
    (1, 16, 48, 48, 1, (3, 3), (2, 2), (1, 1), (1, 1), True),
    (1, 128, 6, 6, 1, (3, 3), (2, 2), (1, 1), (1, 1), False),
    (1, 3, 3, 3, 1, (3, 3), (1, 1), (1, 1), (1, 1), True),     # 3x3 plane
    (2, 5, 9, 13, 2, (3, 3), (1, 1), (2, 2), (2, 2), True),    # multiplier, dilation
    (1, 7, 10, 11, 1, (5, 5), (1, 1), (2, 2), (1, 1), True),
    (1, 4, 11, 10, 3, (3, 2), (2, 1), (1, 0), (1, 2), False),
    (1, 6, 2, 1, 1, (1, 1), (1, 1), (0, 0), (1, 1), True),     # 1x1 depthwise, tiny
    (1, 3, 8, 17, 1, (3, 3), (3, 3), (1, 1), (1, 1), True),    # stride 3
    (1, 70, 7, 7, 1, (3, 3), (1, 1), (0, 0), (1, 1), True),    # no padding
    (1, 5, None, 19, 1, (1, 4), (1, 1), (0, 2), (1, 1), True), # conv1d
]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", GENERAL_CASES, ids=str)
def test_general(arch, case):
    check_conv(arch, "general", *case)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", POINTWISE_CASES, ids=str)
def test_pointwise(arch, case):
    n, cin, h, w, cout, bias = case
    check_conv(arch, "1x1", n, cin, h, w, cout, (1, 1), (1, 1), (0, 0), (1, 1), 1, bias)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=str)
def test_depthwise(arch, case):
    n, c, h, w, mult, k, stride, pad, dil, bias = case
    check_conv(arch, "depthwise", n, c, h, w, c * mult, k, stride, pad, dil, c, bias)


_sizes = dict(n=st.integers(1, 2), h=st.integers(1, 13), w=st.integers(1, 19),
              kh=st.integers(1, 4), kw=st.integers(1, 4), sh=st.integers(1, 3),
              sw=st.integers(1, 3), ph=st.integers(0, 2), pw=st.integers(0, 2),
              dh=st.integers(1, 2), dw=st.integers(1, 2), bias=st.booleans())


def _fits(h, w, kh, kw, ph, pw, dh, dw):
    return h + 2 * ph >= dh * (kh - 1) + 1 and w + 2 * pw >= dw * (kw - 1) + 1


@pytest.mark.parametrize("arch", ARCHES)
@settings(max_examples=40, deadline=None)
@given(groups=st.integers(1, 3), cin_g=st.integers(1, 9), cout_g=st.integers(1, 9), **_sizes)
def test_general_hypothesis(arch, groups, cin_g, cout_g, n, h, w, kh, kw, sh, sw, ph, pw, dh,
                            dw, bias):
    if _fits(h, w, kh, kw, ph, pw, dh, dw):
        check_conv(arch, "general", n, groups * cin_g, h, w, groups * cout_g, (kh, kw),
                   (sh, sw), (ph, pw), (dh, dw), groups, bias, seed=h * 31 + w)


@pytest.mark.parametrize("arch", ARCHES)
@settings(max_examples=40, deadline=None)
@given(c=st.integers(1, 20), mult=st.integers(1, 3), **_sizes)
def test_depthwise_hypothesis(arch, c, mult, n, h, w, kh, kw, sh, sw, ph, pw, dh, dw, bias):
    if _fits(h, w, kh, kw, ph, pw, dh, dw):
        check_conv(arch, "depthwise", n, c, h, w, c * mult, (kh, kw), (sh, sw), (ph, pw),
                   (dh, dw), c, bias, seed=h * 31 + w)


@pytest.mark.parametrize("arch", ARCHES)
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2), cin=st.integers(1, 70), cout=st.integers(1, 70),
       h=st.integers(1, 9), w=st.integers(1, 19), bias=st.booleans())
def test_pointwise_hypothesis(arch, n, cin, cout, h, w, bias):
    check_conv(arch, "1x1", n, cin, h, w, cout, (1, 1), (1, 1), (0, 0), (1, 1), 1, bias,
               seed=cin * 71 + cout)


@pytest.mark.parametrize("arch", ARCHES)
def test_variants_reject_other_convs(arch):
    rt = runtime(arch)
    x, w3, w1 = randn(1, 4, 5, 5), randn(4, 4, 3, 3), randn(4, 4, 1, 1)
    for fn, w, stride, pad, groups in [("rt_conv2d_1x1_f32", w3, 1, 1, 1),
                                       ("rt_conv2d_1x1_f32", w1, 2, 0, 1),
                                       ("rt_conv2d_1x1_f32", w1, 1, 1, 1),
                                       ("rt_conv2d_depthwise_f32", w3, 1, 1, 1)]:
        with pytest.raises(KernelError) as e:
            conv(rt, fn, x, w, None, (stride,) * 2, (pad,) * 2, (1, 1), groups)
        assert e.value.status == 4  # RT_ERR_PARAM


# ------------------------------------------------------ fused activation ---

# (lo, hi) of relu, relu6, a clamp, and an empty range (torch.clamp then gives hi everywhere)
ACTS = [(0.0, math.inf), (0.0, 6.0), (-0.5, 0.25), (1.0, -1.0)]
FUSED_CONVS = [("general", GENERAL_CASES[0]), ("general", GENERAL_CASES[1]),
               ("general", GENERAL_CASES[4]), ("general", GENERAL_CASES[7]),
               ("1x1", (1, 24, 7, 9, 13, (1, 1), (1, 1), (0, 0), (1, 1), 1, True)),
               ("1x1", (1, 5, 1, 3, 2, (1, 1), (1, 1), (0, 0), (1, 1), 1, False)),
               ("depthwise", (1, 9, 11, 10, 18, (3, 3), (1, 1), (1, 1), (1, 1), 9, True)),
               ("depthwise", (1, 4, 9, 3, 4, (3, 3), (2, 2), (1, 1), (1, 1), 4, False))]


def _with_specials(a: np.ndarray) -> np.ndarray:
    flat = a.reshape(-1)
    flat[0], flat[len(flat) // 2], flat[-1] = np.nan, np.inf, -np.inf
    return a


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("act", ACTS, ids=str)
def test_fused_activation(arch, act):
    """A fused activation gives the bits of the unfused kernel followed by rt_clamp_f32 (NaN
    and infinities included), in every conv variant, in addmm and in add."""
    rt, ref_rt = runtime(arch), runtime("portable")

    def clamped(plain):
        want = ref_rt.empty(plain.shape)
        ref_rt.call("rt_clamp_f32", *act, plain, want)
        return want

    for variant, (n, cin, h, wd, cout, k, stride, pad, dil, groups, bias) in FUSED_CONVS:
        x = _with_specials(randn(n, cin, h, wd, seed=5))
        w = randn(cout, cin // groups, *k, seed=6)
        b = randn(cout, seed=7) if bias else None
        args = (x, w, b, stride, pad, dil, groups)
        got = conv(rt, VARIANTS[variant], *args, act=act)
        np.testing.assert_array_equal(got, clamped(conv(rt, VARIANTS[variant], *args)),
                                      err_msg=variant)
    a, bm, bias = _with_specials(randn(6, 9, seed=1)), randn(9, 5, seed=2), randn(5, seed=3)
    on = rt.params("rt_act_f32", on=1, lo=act[0], hi=act[1])
    got, plain = rt.empty((6, 5)), rt.empty((6, 5))
    rt.call("rt_addmm_f32", on, 0.5, 1.5, bias, a, bm, got)
    rt.call("rt_addmm_f32", NULL, 0.5, 1.5, bias, a, bm, plain)
    np.testing.assert_array_equal(got, clamped(plain), err_msg="addmm")
    y = randn(3, 1, 5, seed=4)
    x = _with_specials(randn(3, 4, 5, seed=8))
    got, plain = rt.empty((3, 4, 5)), rt.empty((3, 4, 5))
    rt.call("rt_add_f32", on, -1.0, x, y, got)
    rt.call("rt_add_f32", NULL, -1.0, x, y, plain)
    np.testing.assert_array_equal(got, clamped(plain), err_msg="add")
    rt.call("rt_add_f32", on, -1.0, x, y, x)    # in place, as a residual add writes
    np.testing.assert_array_equal(x, clamped(plain), err_msg="add in place")


# ---------------------------------------------------------------- matmul ---

MATMUL_SHAPES = [(1, 640, 128), (1, 128, 8), (1, 8, 128), (1, 64, 12), (1, 256, 2),
                 (4, 9, 6), (5, 7, 3), (9, 70, 33), (13, 3, 1), (7, 0, 5), (1, 1, 1),
                 (6, 600, 17), (2, 5, 4)]  # (M, K, N)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("mkn", MATMUL_SHAPES, ids=str)
def test_matmul_kernels(arch, mkn):
    rt, ref_rt = runtime(arch), runtime("portable")
    m, k, n = mkn
    a, b, bias = randn(m, k, seed=1), randn(k, n, seed=2), randn(n, seed=3)
    ta, tb, tbias = map(torch.from_numpy, (a, b, bias))
    cases = [
        ("rt_mm_f32", (a, b), torch.mm(ta, tb)),
        ("rt_addmm_f32", (NULL, 1.0, 1.0, bias, a, b), torch.addmm(tbias, ta, tb)),
        ("rt_addmm_f32", (NULL, 0.5, -2.0, bias, a, b), torch.addmm(tbias, ta, tb, beta=0.5,
                                                                alpha=-2.0)),
        ("rt_bmm_f32", (np.stack([a, a[::-1].copy()]), np.stack([b, b * 2])),
         torch.bmm(torch.stack([ta, ta.flip(0)]), torch.stack([tb, tb * 2]))),
        ("rt_bmm_bt_f32", (a[None], np.ascontiguousarray(b.T)[None]), torch.mm(ta, tb)[None]),
        ("rt_linear_f32", (a, np.ascontiguousarray(b.T), bias), F.linear(ta, tb.T, tbias)),
    ]
    for fn, args, want in cases:
        got, ref = rt.empty(tuple(want.shape)), ref_rt.empty(tuple(want.shape))
        rt.call(fn, *args, got)
        ref_rt.call(fn, *args, ref)
        np.testing.assert_allclose(got, want.numpy(), rtol=RTOL, atol=ATOL, err_msg=fn)
        if fn not in ("rt_bmm_bt_f32", "rt_linear_f32"):  # b[N,K] may sum in another order
            np.testing.assert_array_equal(got, ref, err_msg=fn)  # k order: same bits


# ------------------------------------------------------ generation, build ---

def test_renderer_picks_the_conv_variant():
    import aot

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pw = torch.nn.Conv2d(4, 8, 1)                      # 1x1
            self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)  # depthwise
            self.dw2 = torch.nn.Conv2d(8, 16, 3, groups=8)          # depthwise, multiplier 2
            self.full = torch.nn.Conv2d(16, 4, 3, stride=2)         # general
            self.pw2 = torch.nn.Conv2d(4, 4, 1, stride=2)           # strided 1x1: general
            self.grp = torch.nn.Conv2d(4, 4, 1, groups=2)           # grouped 1x1: general

        def forward(self, x):
            return self.grp(self.pw2(self.full(self.dw2(self.dw(self.pw(x))))))

    example = (torch.randn(1, 4, 12, 12),)
    model = Net().eval()
    from aot.config import EdgeCompileConfig
    manager = aot.to_edge(torch.export.export(model, example),   # the layers whole, not patched
                          compile_config=EdgeCompileConfig(patches=False)).to_executorch()
    sources = aot.generate_c(manager, name="variants")
    assert [r.kernel for r in sources.ops if "conv" in r.kernel] == [
        "rt_conv2d_1x1_f32", "rt_conv2d_depthwise_f32", "rt_conv2d_depthwise_f32",
        "rt_conv2d_f32", "rt_conv2d_f32", "rt_conv2d_f32"]
    import aot.host
    for arch in BUILD_ARCHES:
        (got,) = aot.host.build(sources, arch=arch)(example[0].numpy())
        np.testing.assert_allclose(got, model(*example).detach().numpy(), rtol=RTOL, atol=ATOL)


def test_runtime_sources_take_arch_files():
    from aot.codegen.runtime import available_arches, for_arch, runtime_sources_for

    kernels = ["rt_conv2d_f32", "rt_conv2d_1x1_f32", "rt_conv2d_depthwise_f32", "rt_addmm_f32",
               "rt_relu_f32"]
    portable = runtime_sources_for(kernels)
    assert not any(f.startswith("src/arch/") for f in portable)
    assert {"src/conv/conv2d.c", "src/matmul/gemm.c"} <= set(portable)
    for arch in available_arches():  # every arch file checks against its portable twin here
        files = runtime_sources_for(kernels, arch)
        names = [Path(f).name for f in files]
        assert len(names) == len(set(names)), files  # never both twins
        arch_files = {Path(f).name for f in files if f.startswith(f"src/arch/{arch}/")}
        assert arch_files == {p.name for p in (ARCH_DIR / arch).glob("*.c")} & set(names)
        # a model's portable list (which may hold more than its kernels' files) maps to the same
        assert for_arch(portable, arch) == files
        assert for_arch(portable + ("src/misc/upsample_nearest2d.c",), arch) == tuple(
            sorted(files + ("src/misc/upsample_geom.c", "src/misc/upsample_nearest2d.c")))
    assert for_arch(portable, "portable") == portable
    # an arch's own helper (no portable namesake) is linked where its kernels call it
    helper = "src/arch/cortex_m_mve/conv_mve.c"
    assert helper in runtime_sources_for(["rt_conv2d_1x1_s8"], "cortex_m_mve")
    assert helper not in runtime_sources_for(["rt_add_s8"], "cortex_m_mve")
    assert helper in for_arch(runtime_sources_for(["rt_conv2d_1x1_s8"]), "cortex_m_mve")
    assert not any("conv_mve" in f for f in runtime_sources_for(["rt_conv2d_1x1_s8"],
                                                                "cortex_m_dsp"))


def test_host_build_links_arch_files():
    """The generated C is the same for every arch; aot.host links this machine's kernels."""
    import aot
    import aot.host
    from aot.zoo import ZOO

    model, example = ZOO["kws"]()
    sources = aot.generate_c(aot.to_edge(torch.export.export(model, example)).to_executorch(),
                             name="kws")
    assert not any(f.startswith("src/arch/") for f in sources.runtime_sources)
    want = model(*example).detach().numpy()
    libraries = set()
    for arch in BUILD_ARCHES:
        built = aot.host.build(sources, arch=arch, cache_dir=HOST_CACHE)
        (got,) = built(example[0].numpy())
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        libraries.add(built.library_path)
    assert len(libraries) == len(BUILD_ARCHES)  # one build per arch: different runtime files


@pytest.mark.parametrize("checks", ["checks", "no_checks"])
@pytest.mark.parametrize("arch", host_arches())
def test_arch_files_compile_strict(arch, checks, tmp_path):
    from aot.codegen.runtime import host_cflags
    flags = STRICT_FLAGS + EXTRA_WARNINGS + (["-DRT_CONFIG_NO_CHECKS"] if checks == "no_checks"
                                             else [])
    flags += list(host_cflags(_folder(arch))) if arch.endswith("+wide") else []
    files = sorted((ARCH_DIR / _folder(arch)).glob("*.c"))
    res = subprocess.run(["gcc", *flags, f"-I{INCLUDE}", "-c", *map(str, files)], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == "", res.stderr


# beside the other sanitized pass (make test: --dist loadgroup), one after the other on one
# worker, so the portable runtime's sanitized objects compile once (aot.host's object cache)
@pytest.mark.xdist_group("sanitized_kernels")
def test_under_sanitizers():
    if kernel_harness.sanitize_requested():
        pytest.skip("already the sanitized run")
    require_tool("gcc")   # a missing gcc fails under CI=true
    env = kernel_harness.sanitizer_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          str(Path(__file__)), "-k", "not renderer and not compile_strict"],
                         env=env, cwd=HERE, capture_output=True, text=True, timeout=1800)
    log = res.stdout[-4000:] + res.stderr[-4000:]
    assert res.returncode == 0, log
    for marker in ("AddressSanitizer", "runtime error:"):
        assert marker not in res.stdout + res.stderr, log
