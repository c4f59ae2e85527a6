"""Every runtime_c kernel against eager PyTorch (one parametrized test per
kernel family), plus hypothesis runs over conv2d and pool parameters.

Tolerance: rtol 1e-4, atol 1e-5, NaN == NaN. The largest errors seen are
written to build/kernel_errors.json when the module finishes.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import assume, given, settings, strategies as st

import kernel_harness
from kernel_harness import NULL, REPO, KernelError

aten = torch.ops.aten
RTOL, ATOL = 1e-4, 1e-5
MAX_ERR: dict[str, dict[str, float]] = {}


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


@pytest.fixture(scope="module", autouse=True)
def _error_report():
    yield
    out = REPO / "build" / "kernel_errors.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(MAX_ERR, indent=1, sort_keys=True))


def check(family: str, got: np.ndarray, ref) -> None:
    """assert_allclose against a torch/numpy reference; records max errors."""
    ref = ref.detach().numpy() if isinstance(ref, torch.Tensor) else np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if got.dtype.kind == "f" and got.size:
        g, r = got.astype(np.float64), ref.astype(np.float64)
        finite = np.isfinite(r) & np.isfinite(g)
        abs_err = np.abs(g[finite] - r[finite])
        rel_err = abs_err / np.maximum(np.abs(r[finite]), 1e-30)
        e = MAX_ERR.setdefault(family, {"abs": 0.0, "rel_where_abs_gt_1e-6": 0.0})
        if abs_err.size:
            e["abs"] = max(e["abs"], float(abs_err.max()))
            big = abs_err > 1e-6
            if big.any():
                e["rel_where_abs_gt_1e-6"] = max(e["rel_where_abs_gt_1e-6"],
                                                float(rel_err[big].max()))
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=ATOL, equal_nan=True)


def randn(*shape, seed=0, scale=1.0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale, np.float32)


def T(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(a)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, 0.5, 1e-30, -1e-30,
                    20.0, -20.0, 80.0, -80.0, np.inf, -np.inf, np.nan], np.float32)

# ---------------------------------------------------------------- conv -----

# (N, Cin, H, W, Cout, KH, KW, stride, pad, dilation, groups, bias); H None = conv1d
CONV_CASES = [
    (1, 3, 8, 8, 4, 3, 3, (1, 1), (0, 0), (1, 1), 1, True),
    (2, 4, 9, 7, 6, 3, 2, (2, 1), (1, 2), (1, 1), 2, True),
    (1, 8, 10, 10, 8, 3, 3, (1, 1), (2, 2), (2, 2), 8, False),   # depthwise, dilated
    (1, 4, 7, 7, 8, 3, 3, (2, 2), (1, 1), (1, 1), 4, True),      # depthwise x2
    (2, 3, 5, 5, 2, 5, 5, (1, 1), (2, 2), (1, 1), 1, True),
    (1, 2, 6, 6, 3, 1, 1, (3, 2), (0, 0), (1, 1), 1, True),      # strided 1x1
    (1, 1, 4, 4, 1, 4, 4, (1, 1), (0, 0), (1, 1), 1, False),     # kernel == input
    (1, 6, 5, 9, 6, 2, 3, (1, 3), (1, 0), (2, 1), 3, True),      # asym everything
    (0, 2, 4, 4, 2, 3, 3, (1, 1), (1, 1), (1, 1), 1, True),      # empty batch
    (2, 4, None, 16, 6, None, 3, 2, 1, 2, 2, True),              # conv1d
    (1, 5, None, 9, 5, None, 4, 1, 2, 1, 5, False),              # conv1d depthwise
    (1, 3, None, 7, 2, None, 1, 3, 0, 1, 1, True),               # conv1d 1x1 strided
]


def run_conv(rt, variant, x, w, b, stride, pad, dil, groups, ref):
    one_d = x.ndim == 3
    pair = (lambda v: (1, v) if one_d else v)
    s, p, d = pair(stride), pair(pad), pair(dil)
    prm = rt.params("rt_conv2d_params", stride_h=s[0], stride_w=s[1], pad_h=p[0],
                    pad_w=p[1], dilation_h=d[0], dilation_w=d[1], groups=groups)
    out = rt.empty(tuple(ref.shape))
    if variant == "direct":
        rt.call("rt_conv2d_f32", prm, x, w, b, out)
    else:
        size = rt.lib.rt_conv2d_im2col_f32_scratch_size(prm, rt.shape(x.shape), rt.shape(w.shape))
        buf = np.empty(size // 4, np.float32)
        scratch = rt.ffi.new("rt_scratch *", {"buf": rt.data(buf), "size": size})
        rt.call("rt_conv2d_im2col_f32", scratch, prm, x, w, b, out)
    return out


@pytest.mark.parametrize("variant", ["direct", "im2col"])
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv(rt, variant, case):
    n, cin, h, wd, cout, kh, kw, stride, pad, dil, groups, bias = case
    one_d = h is None
    x = randn(*((n, cin, wd) if one_d else (n, cin, h, wd)), seed=1)
    w = randn(*((cout, cin // groups, kw) if one_d else (cout, cin // groups, kh, kw)), seed=2)
    b = randn(cout, seed=3) if bias else None
    pt = lambda v: [v] if one_d else list(v)  # noqa: E731
    ref = aten.convolution(T(x), T(w), T(b) if bias else None, pt(stride), pt(pad),
                           pt(dil), False, [0] if one_d else [0, 0], groups)
    out = run_conv(rt, variant, x, w, b, stride, pad, dil, groups, ref)
    check("conv", out, ref)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 2), groups=st.integers(1, 3), cin_g=st.integers(1, 3),
       cout_g=st.integers(1, 3), h=st.integers(1, 9), w=st.integers(1, 9),
       kh=st.integers(1, 4), kw=st.integers(1, 4), sh=st.integers(1, 3),
       sw=st.integers(1, 3), ph=st.integers(0, 2), pw=st.integers(0, 2),
       dh=st.integers(1, 3), dw=st.integers(1, 3), bias=st.booleans(),
       variant=st.sampled_from(["direct", "im2col"]))
def test_conv2d_hypothesis(rt, n, groups, cin_g, cout_g, h, w, kh, kw, sh, sw, ph, pw,
                           dh, dw, bias, variant):
    if h + 2 * ph < dh * (kh - 1) + 1 or w + 2 * pw < dw * (kw - 1) + 1:
        return  # no output; torch rejects it too
    x = randn(n, groups * cin_g, h, w, seed=h * 10 + w)
    wt = randn(groups * cout_g, cin_g, kh, kw, seed=kh * 10 + kw)
    b = randn(groups * cout_g, seed=5) if bias else None
    ref = F.conv2d(T(x), T(wt), T(b) if bias else None, (sh, sw), (ph, pw), (dh, dw), groups)
    out = run_conv(rt, variant, x, wt, b, (sh, sw), (ph, pw), (dh, dw), groups, ref)
    check("conv", out, ref)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_conv_in_place_gives_the_separate_buffers_bytes(rt, data):
    """rt_conv2d_1x1_in_place_f32, rt_conv2d_depthwise_in_place_f32 and rt_conv2d_in_place_f32
    with the output exactly over the input, for every layer aot/overlap.py's conv_f32 lets run
    so (pointwise of any channels, one image or Cout <= Cin; depthwise of any filter, stride,
    padding and dilation whose output plane is no larger; kxk "same" layers, 1, 3 or 5 taps,
    dilated or not; any other window of one group on one image, its rows held back until the
    input under them is dead), the scratch it plans (a depthwise layer of large planes, which plans
    none, any group of planes): the bytes the plain kernel gives into a buffer of its own.
    Separate buffers pass through; an overlap other than exact, or too little scratch, is
    refused. The plain depthwise kernel also gives its bytes with its output at the lag
    depthwise_f32 declares."""
    from aot.overlap import _f32_conv, conv_f32_scratch, depthwise_f32
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
    kind = data.draw(st.sampled_from(["pointwise", "depthwise", "rows", "held"]))
    n, c, h, w_ = (data.draw(st.integers(1, k)) for k in (2, 20, 12, 9))
    one_d = kind not in ("rows", "held") and data.draw(st.booleans())
    h = 1 if one_d else h
    if kind == "rows":   # "same" padding, stride 1
        cout, groups, stride = data.draw(st.integers(1, 20)), 1, (1, 1)
        kh, kw = data.draw(st.sampled_from([1, 3, 5])), data.draw(st.sampled_from([1, 3, 5]))
        dil = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
        pad = ((kh - 1) * dil[0] // 2, (kw - 1) * dil[1] // 2)
    elif kind == "held":   # one image, one group, any other window (a strided stem)
        n, cout, groups = 1, data.draw(st.integers(1, 24)), 1
        kh, kw = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
        stride = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
        pad = (data.draw(st.integers(0, kh // 2)), data.draw(st.integers(0, kw // 2)))
        dil = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
        assume(h + 2 * pad[0] >= dil[0] * (kh - 1) + 1 and
               w_ + 2 * pad[1] >= dil[1] * (kw - 1) + 1)
    elif kind == "pointwise":
        cout = data.draw(st.integers(1, 20))
        kh = kw = 1
        stride, pad, dil, groups = (1, 1), (0, 0), (1, 1), 1
    else:
        cout, groups = c, c
        kh, kw = (1 if one_d else data.draw(st.integers(1, 5))), data.draw(st.integers(1, 5))
        stride = (1 if one_d else data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
        pad = (0 if one_d else data.draw(st.integers(0, kh // 2)),
               data.draw(st.integers(0, kw // 2)))
        dil = (1 if one_d else data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
        assume(h + 2 * pad[0] >= dil[0] * (kh - 1) + 1 and
               w_ + 2 * pad[1] >= dil[1] * (kw - 1) + 1)
    x = rng.standard_normal((n, c, h, w_)).astype(np.float32)
    wt = rng.standard_normal((cout, c // groups, kh, kw)).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32) if data.draw(st.booleans()) else None
    if one_d:
        x, wt = x[:, :, 0], wt[:, :, 0]
    ref = F.conv2d(T(x if not one_d else x[:, :, None]),
                   T(wt if not one_d else wt[:, :, None]), T(b) if b is not None else None,
                   stride, pad, dil, groups)
    ref = ref[:, :, 0] if one_d else ref
    args = {"input": x.shape, "weight": wt.shape, "stride": list(stride[-x.ndim + 2:]),
            "padding": list(pad[-x.ndim + 2:]), "dilation": list(dil[-x.ndim + 2:]),
            "groups": groups}
    assume(_f32_conv(x.shape, wt.shape, tuple(ref.shape), args) == kind)
    entry = {"pointwise": "rt_conv2d_1x1", "depthwise": "rt_conv2d_depthwise",
             "rows": "rt_conv2d", "held": "rt_conv2d"}[kind]
    prm = rt.params("rt_conv2d_params", stride_h=stride[0], stride_w=stride[1], pad_h=pad[0],
                    pad_w=pad[1], dilation_h=dil[0], dilation_w=dil[1], groups=groups)
    want = rt.empty(tuple(ref.shape))
    rt.call(f"{entry}_f32", prm, x, wt, b, want)
    if kind == "depthwise":   # the plain kernel, its output at the declared lag (or lower)
        lag = depthwise_f32({**args, "input": T(x), "weight": T(wt)}, [ref])[1] // 4
        lag += data.draw(st.integers(0, 3))
        arena = np.full(lag + x.size, np.nan, np.float32)
        arena[lag:] = x.reshape(-1)
        below = arena[:want.size].reshape(want.shape)
        rt.call(f"{entry}_f32", prm, arena[lag:].reshape(x.shape), wt, b, below)
        assert below.tobytes() == want.tobytes()
    size = conv_f32_scratch(args, [tuple(ref.shape)])
    if kind == "depthwise":   # exactly in place by groups: the planned ones, or from one plane
        planes = math.prod(ref.shape[2:])
        size = size or 4 * planes * data.draw(st.integers(1, c))

    def scratch(nbytes):
        buf = np.zeros(max(nbytes, 4) // 4, np.float32)
        return rt.ffi.new("rt_scratch *", {"buf": rt.data(buf), "size": nbytes}), buf
    scr, _keep = scratch(size)
    arena = np.full(max(x.size, want.size) + 1, np.nan, np.float32)
    arena[:x.size] = x.reshape(-1)
    over = arena[:want.size].reshape(want.shape)
    rt.call(f"{entry}_in_place_f32", scr, prm, arena[:x.size].reshape(x.shape), wt, b, over)
    assert over.tobytes() == want.tobytes()
    apart = rt.empty(want.shape)
    rt.call(f"{entry}_in_place_f32", scr, prm, x, wt, b, apart)
    assert apart.tobytes() == want.tobytes()
    arena[:x.size] = x.reshape(-1)
    if want.size > 1:   # an element below the input: an overlap, but not exact
        shifted = np.concatenate([np.zeros(1, np.float32), x.reshape(-1),
                                      np.zeros(want.size, np.float32)])
        with pytest.raises(KernelError, match="RT_ERR_PARAM"):
            rt.call(f"{entry}_in_place_f32", scr, prm, shifted[1:1 + x.size].reshape(x.shape),
                    wt, b, shifted[:want.size].reshape(want.shape))
    # (a depthwise layer's groups take any planes: less than one is too little)
    small, _keep2 = scratch(size - 4 if kind != "depthwise" else 4 * planes - 4)
    with pytest.raises(KernelError, match="RT_ERR_SCRATCH"):
        rt.call(f"{entry}_in_place_f32", small, prm, arena[:x.size].reshape(x.shape), wt, b,
                arena[:want.size].reshape(want.shape))


# -------------------------------------------------------------- matmul -----

MATMUL_CASES = [
    ("mm", (5, 7), (7, 3)), ("mm", (1, 64), (64, 33)), ("mm", (4, 0), (0, 3)),
    ("bmm", (3, 4, 6), (3, 6, 5)), ("bmm_bt", (2, 5, 8), (2, 7, 8)),
    ("addmm", (6,), (4, 9), (9, 6), 1.0, 1.0), ("addmm", (4, 6), (4, 9), (9, 6), 0.5, -2.0),
    ("addmm", (4, 1), (4, 3), (3, 6), 2.0, 1.0), ("addmm", (), (2, 3), (3, 2), 1.0, 0.5),
    ("addmm_nan_beta0", (4, 6), (4, 9), (9, 6), 0.0, 1.5),
    ("linear", (3, 10), (4, 10), (4,)), ("linear", (2, 3, 16), (8, 16), None),
    ("linear", (10,), (5, 10), (5,)), ("linear", (1, 128), (32, 128), (32,)),
]


@pytest.mark.parametrize("case", MATMUL_CASES, ids=str)
def test_matmul(rt, case):
    kind = case[0]
    if kind in ("mm", "bmm", "bmm_bt"):
        a, b = randn(*case[1], seed=1), randn(*case[2], seed=2)
        ref = {"mm": torch.mm, "bmm": torch.bmm,
               "bmm_bt": lambda x, y: torch.bmm(x, y.transpose(1, 2))}[kind](T(a), T(b))
        out = rt.empty(tuple(ref.shape))
        rt.call(f"rt_{kind}_f32", a, b, out)
    elif kind.startswith("addmm"):
        self_, a, b = randn(*case[1], seed=3), randn(*case[2], seed=1), randn(*case[3], seed=2)
        beta, alpha = case[4], case[5]
        if kind == "addmm_nan_beta0":
            self_[0, 0] = np.nan  # ignored when beta == 0
        ref = torch.addmm(T(self_), T(a), T(b), beta=beta, alpha=alpha)
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_addmm_f32", NULL, beta, alpha, self_, a, b, out)
    else:
        x, w = randn(*case[1], seed=1), randn(*case[2], seed=2)
        b = randn(*case[3], seed=3) if case[3] else None
        ref = F.linear(T(x), T(w), T(b) if b is not None else None)
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_linear_f32", x, w, b, out)
    check("matmul", out, ref)


# ------------------------------------------------- elementwise binary -----

BCAST_SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)),
                ((1,), (2, 3)), ((), (2, 3)), ((2, 3), ()), ((5, 1, 3), (1, 4, 1)),
                ((2, 3, 1, 4, 1, 2), (3, 4, 1, 2)), ((0, 3), (3,)), ((1, 6, 1, 1), (2, 6, 3, 3))]
BINARY = {"add": (lambda a, b, al: torch.add(a, b, alpha=al), 2.5),
          "sub": (lambda a, b, al: torch.sub(a, b, alpha=al), -0.5),
          "mul": (lambda a, b, al: torch.mul(a, b), None),
          "div": (lambda a, b, al: torch.div(a, b), None),
          "maximum": (lambda a, b, al: torch.maximum(a, b), None),
          "minimum": (lambda a, b, al: torch.minimum(a, b), None)}
SCALAR_OPS = {"add_scalar": (lambda a, s, al: aten.add.Scalar(a, s, alpha=al), 1.5),
              "sub_scalar": (lambda a, s, al: aten.sub.Scalar(a, s, alpha=al), 2.0),
              "rsub_scalar": (lambda a, s, al: aten.rsub.Scalar(a, s, alpha=al), 0.5),
              "mul_scalar": (lambda a, s, al: aten.mul.Scalar(a, s), None),
              "div_scalar": (lambda a, s, al: aten.div.Scalar(a, s), None)}


@pytest.mark.parametrize("shapes", BCAST_SHAPES, ids=str)
@pytest.mark.parametrize("op", list(BINARY) + list(SCALAR_OPS))
def test_binary(rt, op, shapes):
    a, b = randn(*shapes[0], seed=1), randn(*shapes[1], seed=2)
    if a.size > 2 and b.size > 2:  # NaN propagates (also through maximum/minimum)
        a.reshape(-1)[1], b.reshape(-1)[2] = np.nan, np.nan
    if op in BINARY:
        fn, alpha = BINARY[op]
        ref = fn(T(a), T(b), alpha if alpha is not None else 1)
        out = rt.empty(tuple(ref.shape))
        act = [NULL] if op == "add" else []   # no fused activation
        rt.call(f"rt_{op}_f32", *act, *([alpha] if alpha is not None else []), a, b, out)
    else:
        fn, alpha = SCALAR_OPS[op]
        scalar = -1.75
        ref = fn(T(a), scalar, alpha if alpha is not None else 1)
        out = rt.empty(a.shape)
        rt.call(f"rt_{op}_f32", scalar, *([alpha] if alpha is not None else []), a, out)
    check("binary", out, ref)


COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
           "gt": torch.gt, "ge": torch.ge}


@pytest.mark.parametrize("shapes", BCAST_SHAPES[:8], ids=str)
@pytest.mark.parametrize("op", list(COMPARE) + [c + "_scalar" for c in COMPARE] + ["where"])
def test_compare_where(rt, op, shapes):
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, shapes[0]).astype(np.float32)  # ties happen
    b = rng.integers(-2, 3, shapes[1]).astype(np.float32)
    if a.size:
        a.reshape(-1)[0] = np.nan
    if op == "where":
        cond = rng.integers(0, 2, shapes[1]).astype(np.bool_)
        ref = torch.where(T(cond), T(a), T(b))
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_where_f32", cond, a, b, out)
        check("where", out, ref)
        return
    if op.endswith("_scalar"):
        ref = COMPARE[op[:-7]](T(a), 1.0)
        out = rt.empty(a.shape, np.uint8)
        rt.call(f"rt_{op}_f32", 1.0, a, out)
    else:
        ref = COMPARE[op](T(a), T(b))
        out = rt.empty(tuple(ref.shape), np.uint8)
        rt.call(f"rt_{op}_f32", a, b, out)
    np.testing.assert_array_equal(out, ref.numpy().astype(np.uint8))


# ------------------------------------------------- unary / activations -----

UNARY = {
    "abs": (torch.abs, ()), "neg": (torch.neg, ()), "exp": (torch.exp, ()),
    "log": (torch.log, ()), "sqrt": (torch.sqrt, ()), "rsqrt": (torch.rsqrt, ()),
    "sin": (torch.sin, ()), "cos": (torch.cos, ()),
    "relu": (torch.relu, ()), "sigmoid": (torch.sigmoid, ()), "tanh": (torch.tanh, ()),
    "hardswish": (F.hardswish, ()), "hardsigmoid": (F.hardsigmoid, ()),
    "gelu": (F.gelu, ()), "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ()),
    "silu": (F.silu, ()),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.01), (0.01,)),
    "leaky_relu_neg": (lambda x: F.leaky_relu(x, -0.3), (-0.3,)),
    "clamp": (lambda x: torch.clamp(x, -0.5, 2.0), (-0.5, 2.0)),
    "clamp_min_only": (lambda x: torch.clamp(x, min=0.25), (0.25, math.inf)),
    "clamp_max_only": (lambda x: torch.clamp(x, max=-0.25), (-math.inf, -0.25)),
    "clamp_inverted": (lambda x: torch.clamp(x, 1.0, -1.0), (1.0, -1.0)),
    "hardtanh": (F.hardtanh, (-1.0, 1.0)), "relu6": (F.relu6, (0.0, 6.0)),
}
KERNEL_OF = {"leaky_relu_neg": "leaky_relu", "clamp_min_only": "clamp",
             "clamp_max_only": "clamp", "clamp_inverted": "clamp",
             "hardtanh": "clamp", "relu6": "clamp"}


@pytest.mark.parametrize("shape", [(0,), (17,), (2, 3, 5, 7)], ids=str)
@pytest.mark.parametrize("op", list(UNARY))
def test_unary(rt, op, shape):
    x = randn(*shape, seed=4, scale=4.0)
    if x.size >= SPECIAL.size:
        x.reshape(-1)[:SPECIAL.size] = SPECIAL
    if op == "gelu":  # torch's vectorized erf gives gelu(+inf) = NaN, its scalar path inf
        x[x == np.inf] = 1e3
    fn, params = UNARY[op]
    ref = fn(T(x))
    out = rt.empty(x.shape)
    rt.call(f"rt_{KERNEL_OF.get(op, op)}_f32", *params, x, out)
    check("unary", out, ref)
    rt.call(f"rt_{KERNEL_OF.get(op, op)}_f32", *params, x, x)  # in place
    check("unary", x, ref)


@pytest.mark.parametrize("eps", [None, 0.0, 0.05, 0.25])
def test_logit(rt, eps):
    """Across [0, 1] and past it (NaN), the ends (infinities) and the clamp of eps."""
    x = np.linspace(-0.25, 1.25, 61, dtype=np.float32)
    x[:4] = [np.nan, 0.0, 1.0, 0.5]
    ref = torch.logit(T(x), eps)
    out = rt.empty(x.shape)
    rt.call("rt_logit_f32", math.nan if eps is None else eps, x, out)
    check("unary", out, ref)


# ---------------------------------------------------------------- pool -----

# (shape, kernel, stride, pad, dilation, ceil_mode, count_include_pad, divisor_override)
POOL_CASES = [
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1), (1, 1), False, True, None),
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1), (1, 1), True, True, None),
    ((2, 3, 8, 6), (2, 3), (2, 1), (1, 1), (1, 1), False, False, None),
    ((1, 1, 5, 5), (2, 2), (2, 2), (1, 1), (1, 1), True, True, None),
    ((1, 1, 6, 6), (4, 4), (3, 3), (2, 2), (1, 1), True, False, None),
    ((3, 6, 6), (3, 3), (3, 3), (0, 0), (1, 1), True, True, None),       # CHW input
    ((1, 2, 9, 9), (3, 3), (2, 2), (1, 1), (2, 2), True, True, None),    # max: dilation
    ((1, 3, 6, 5), (3, 2), (1, 2), (1, 1), (1, 1), False, True, 3),      # divisor_override
    ((2, 4, 1, 11), (1, 3), (1, 2), (0, 1), (1, 1), False, True, None),  # 1-D as H = 1
    ((2, 4, 1, 12), (1, 4), (1, 3), (0, 2), (1, 1), True, False, None),  # 1-D ceil
    ((1, 1, 1, 1), (1, 1), (1, 1), (0, 0), (1, 1), False, True, None),
]


def pool_params(rt, k, s, p, d, ceil, cip, div):
    return rt.params("rt_pool2d_params", kernel_h=k[0], kernel_w=k[1], stride_h=s[0],
                     stride_w=s[1], pad_h=p[0], pad_w=p[1], dilation_h=d[0],
                     dilation_w=d[1], ceil_mode=int(ceil), count_include_pad=int(cip),
                     divisor_override=div or 0)


def run_pool(rt, kind, x, k, s, p, d, ceil, cip, div):
    prm = pool_params(rt, k, s, p, d, ceil, cip, div)
    if kind == "max":
        ref, ref_idx = aten.max_pool2d_with_indices(T(x), k, s, p, d, ceil)
        out, idx = rt.empty(tuple(ref.shape)), rt.empty(tuple(ref.shape), np.int64)
        rt.call("rt_max_pool2d_f32", prm, x, out, idx)
        np.testing.assert_array_equal(idx, ref_idx.numpy())
    else:
        ref = aten.avg_pool2d(T(x), k, s, p, ceil, cip, div)
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_avg_pool2d_f32", prm, x, out)
    check("pool", out, ref)


@pytest.mark.parametrize("kind,case", [(k, c) for c in POOL_CASES for k in ("max", "avg")
                                       if k == "max" or c[4] == (1, 1)], ids=str)
def test_pool(rt, kind, case):  # avg_pool2d has no dilation
    shape, k, s, p, d, ceil, cip, div = case
    x = randn(*shape, seed=6)
    if kind == "max" and x.size > 8:
        x.reshape(-1)[3] = np.nan
        x.reshape(-1)[5] = -np.inf
    run_pool(rt, kind, x, k, s, p, d, ceil, cip, div)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["max", "avg"]), planes=st.integers(1, 3),
       h=st.integers(1, 10), w=st.integers(1, 10), kh=st.integers(1, 4),
       kw=st.integers(1, 4), sh=st.integers(1, 3), sw=st.integers(1, 3),
       ph=st.integers(0, 2), pw=st.integers(0, 2), dh=st.integers(1, 3),
       dw=st.integers(1, 3), ceil=st.booleans(), cip=st.booleans(),
       div=st.sampled_from([None, None, 1, 5]))
def test_pool_hypothesis(rt, kind, planes, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ceil,
                         cip, div):
    if kind == "avg":
        dh = dw = 1
    if ph > kh // 2 or pw > kw // 2:
        return  # torch rejects padding larger than half the kernel
    if h + 2 * ph < dh * (kh - 1) + 1 or w + 2 * pw < dw * (kw - 1) + 1:
        return
    x = randn(1, planes, h, w, seed=h * 13 + w)
    run_pool(rt, kind, x, (kh, kw), (sh, sw), (ph, pw), (dh, dw), ceil, cip, div)



@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2), planes=st.integers(1, 6), h=st.integers(1, 9),
       w=st.integers(1, 9), k=st.integers(1, 3), s=st.integers(1, 3), pad=st.integers(0, 1),
       ceil=st.booleans(), size=st.tuples(st.integers(1, 4), st.integers(1, 4)))
def test_pools_below_their_input_give_the_separate_buffers_bytes(rt, n, planes, h, w, k, s,
                                                                 pad, ceil, size):
    """rt_avg_pool2d_f32, rt_adaptive_avg_pool2d_f32 and rt_max_pool2d_f32 with their output
    (the max pool's values; its int64 indices apart) at aot/overlap.py's pool_f32 lag below
    their input (one output plane, where no larger than an input one): the bytes they give
    into a buffer of their own."""
    from aot.overlap import pool_f32
    assume(2 * pad <= k <= min(h, w) + 2 * pad)
    x = randn(n, planes, h, w, seed=h * 7 + w)
    prm = pool_params(rt, (k, k), (s, s), (pad, pad), (1, 1), ceil, True, 0)
    max_shape = tuple(aten.max_pool2d_with_indices(T(x), k, s, pad, 1, ceil)[0].shape)
    runs = [("rt_avg_pool2d_f32", (prm,),
             tuple(aten.avg_pool2d(T(x), k, s, pad, ceil).shape)),
            ("rt_adaptive_avg_pool2d_f32", (), (n, planes) + size),
            ("rt_max_pool2d_f32", (prm,), max_shape)]
    for kernel, params, shape in runs:
        indices = () if kernel != "rt_max_pool2d_f32" else (rt.empty(shape, np.int64),)
        want = rt.empty(shape)
        rt.call(kernel, *params, x, want, *indices)
        declared = pool_f32({"self": T(x)}, [torch.empty(shape)])
        if declared is None:
            assert math.prod(shape[2:]) > h * w
            continue
        lag = declared[1] // 4
        arena = np.full(lag + x.size, np.nan, np.float32)
        arena[lag:] = x.reshape(-1)
        below = arena[:want.size].reshape(shape)
        got = () if not indices else (rt.empty(shape, np.int64),)
        rt.call(kernel, *params, arena[lag:].reshape(x.shape), below, *got)
        assert below.tobytes() == want.tobytes()
        assert [g.tobytes() for g in got] == [i.tobytes() for i in indices]

# -------------------------------------------------------------- reduce -----

REDUCE_CASES = [((2, 3, 4, 5), (2, 3), False), ((2, 3, 4, 5), (1,), True),
                ((2, 3, 4, 5), (0, 2), False), ((2, 3, 4, 5), (0, 1, 2, 3), False),
                ((7,), (0,), True), ((4, 1, 6), (1,), False), ((4, 1, 6), (0, 2), True),
                ((2, 3, 4, 5, 2, 3), (-1, -3), False), ((3, 0, 2), (1,), False),
                ((3, 0, 2), (0,), True), ((8, 4096), (1,), False), ((1000, 3), (0,), False),
                ((2, 3), (), False)]


@pytest.mark.parametrize("op", ["sum", "mean", "amax"])
@pytest.mark.parametrize("case", REDUCE_CASES, ids=str)
def test_reduce(rt, op, case):
    shape, dims, keepdim = case
    x = randn(*shape, seed=8)
    if x.size > 5 and shape[0] == 4:
        x.reshape(-1)[5] = np.nan if op == "amax" else np.inf  # propagate, not NaN
    empty = any(shape[d] == 0 for d in dims)
    if op == "amax" and empty:
        with pytest.raises(KernelError):
            rt.call("rt_amax_f32", 1 << dims[0], x, rt.empty((3, 2)))
        return
    ref = getattr(torch, op)(T(x), dim=list(dims), keepdim=keepdim)
    mask = sum(1 << (d % len(shape)) for d in dims) if dims else (1 << len(shape)) - 1
    out = rt.empty(tuple(ref.shape))
    rt.call(f"rt_{op}_f32", mask, x, out)
    check("reduce", out, ref)


# -------------------------------------------------------- normalization -----

@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("case", [((2, 5), -1), ((2, 3, 4), 1), ((3, 4, 5), 0),
                                  ((10,), 0), ((4, 7), 1), ((), 0), ((2, 64, 3), -2)], ids=str)
def test_softmax(rt, log, case):
    shape, dim = case
    x = randn(*shape, seed=9, scale=3.0)
    if x.ndim == 2 and x.shape[0] == 4:
        x[0, :] = [1000.0, 999.0, -np.inf, 0.0, 5.0, 1e4, -1e4]  # stability, -inf
    fn = aten._log_softmax if log else aten._softmax
    ref = fn(T(x), dim, False)
    out = rt.empty(x.shape)
    rt.call("rt_log_softmax_f32" if log else "rt_softmax_f32", dim, x, out)
    check("softmax", out, ref)


@pytest.mark.parametrize("case", [((2, 5, 8), 1, True, True, 1e-5),
                                  ((3, 4, 6), 2, False, False, 1e-5),
                                  ((4, 16), 1, True, False, 1e-3),
                                  ((2, 3), 2, False, True, 1e-5),
                                  ((1, 7, 384), 1, True, True, 1e-6)], ids=str)
def test_layer_norm(rt, case):
    shape, k, has_w, has_b, eps = case
    x = randn(*shape, seed=10, scale=2.0) + 3.0
    norm = shape[-k:]
    w = randn(*norm, seed=11) if has_w else None
    b = randn(*norm, seed=12) if has_b else None
    ref, ref_mean, ref_rstd = aten.native_layer_norm(
        T(x), list(norm), T(w) if has_w else None, T(b) if has_b else None, eps)
    out = rt.empty(x.shape)
    mean, rstd = rt.empty(tuple(ref_mean.shape)), rt.empty(tuple(ref_rstd.shape))
    rt.call("rt_layer_norm_f32", k, eps, x, w, b, out, mean, rstd)
    check("layer_norm", out, ref)
    check("layer_norm", mean, ref_mean)
    check("layer_norm", rstd, ref_rstd)
    out2 = rt.empty(x.shape)
    rt.call("rt_layer_norm_f32", k, eps, x, w, b, out2, None, None)  # stats optional
    check("layer_norm", out2, ref)


@pytest.mark.parametrize("case", [((2, 3, 4, 4), True), ((4, 5), True),
                                  ((2, 3, 7), False), ((1, 8, 2, 2, 2), True)], ids=str)
def test_batch_norm(rt, case):
    shape, affine = case
    c = shape[1]
    x = randn(*shape, seed=13)
    mean, var = randn(c, seed=14), np.abs(randn(c, seed=15)) + 0.1
    w, b = (randn(c, seed=16), randn(c, seed=17)) if affine else (None, None)
    ref = aten._native_batch_norm_legit_no_training(
        T(x), T(w) if affine else None, T(b) if affine else None, T(mean), T(var), 0.1, 1e-5)[0]
    out = rt.empty(x.shape)
    rt.call("rt_batch_norm_f32", 1e-5, x, w, b, mean, var, out)
    check("batch_norm", out, ref)


# ------------------------------------------------------- data movement -----

SHAPE_CASES = [
    ("cat", [(2, 3), (2, 5), (2, 1)], 1), ("cat", [(1, 4, 2), (3, 4, 2)], 0),
    ("cat", [(2, 3, 4), (2, 3, 4)], -1), ("cat", [(2, 0, 3), (2, 2, 3)], 1),
    ("permute", (2, 3, 4), (2, 0, 1)), ("permute", (2, 3, 4, 5), (0, 2, 3, 1)),
    ("permute", (1, 2, 3, 2, 2, 3), (5, 3, 1, 0, 4, 2)), ("permute", (4, 5), (-1, -2)),
    ("permute", (), ()),
    ("slice", (5, 6), (1, 1, 5, 2)), ("slice", (5, 6), (0, -3, 2**31 - 1, 1)),
    ("slice", (2, 7, 3), (1, -100, 100, 3)), ("slice", (4, 4), (-1, 3, 1, 1)),
    ("slice", (8,), (0, 2, 8, 5)), ("select", (3, 4, 5), (1, -2)), ("select", (6,), (0, 5)),
    ("copy", (2, 3, 4), (6, 4)), ("copy", (3, 1, 2), (3, 2)),
    ("expand", (3, 1), (2, 3, 4)), ("expand", (), (2, 2)), ("expand", (1, 4, 1), (3, 4, 5)),
    ("pad", (2, 3), (1, 2, 0, 1), 0.5), ("pad", (1, 2, 4, 4), (1, 1, 2, 0), -1.0),
    ("pad", (2, 3, 5), (-1, 2, 1, -1, 0, 0), 0.0), ("pad", (3, 4), (-2, -2), 7.0),
    ("pad", (2, 2, 2, 2, 2, 2), (1, 0, 0, 1, 1, 1), 3.0),
]


def torch_pad_to_before(pads, rank):
    before = [0] * 6
    for i in range(len(pads) // 2):
        before[rank - 1 - i] = pads[2 * i]
    return before


@pytest.mark.parametrize("case", SHAPE_CASES, ids=str)
def test_data_movement(rt, case):
    kind = case[0]
    if kind == "cat":
        xs = [randn(*s, seed=i) for i, s in enumerate(case[1])]
        ref = torch.cat([T(x) for x in xs], case[2])
        out = rt.empty(tuple(ref.shape))
        rt.cat(case[2], xs, out)
    elif kind == "permute":
        x = randn(*case[1], seed=1)
        ref = T(x).permute(case[2]).contiguous()
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_permute_f32", rt.int32s(case[2] or [0]), x, out)
    elif kind == "slice":
        x = randn(*case[1], seed=1)
        dim, start, end, step = case[2]
        ref = aten.slice.Tensor(T(x), dim, start, end, step).contiguous()
        out = rt.empty(tuple(ref.shape))
        rt.call("rt_slice_f32", dim, start, end, step, x, out)
    elif kind == "select":  # a length-1 slice whose output drops the dim
        x = randn(*case[1], seed=1)
        dim, index = case[2]
        ref = aten.select.int(T(x), dim, index).contiguous()
        out = rt.empty(tuple(ref.shape))
        i = index % x.shape[dim]
        rt.call("rt_slice_f32", dim, i, i + 1, 1, x, out)
    elif kind == "copy":
        x = randn(*case[1], seed=1)
        ref = T(x).reshape(case[2])
        out = rt.empty(case[2])
        rt.call("rt_copy_f32", x, out)
        for dtype, fn in ((np.uint8, "rt_copy_u8"), (np.bool_, "rt_copy_u8"),
                          (np.int32, "rt_copy_i32"), (np.int64, "rt_copy_i64")):
            xi = (x * 50).astype(dtype)
            oi = rt.empty(case[2], dtype)
            rt.call(fn, xi, oi)
            np.testing.assert_array_equal(oi, xi.reshape(case[2]))
        buf = np.concatenate([x.reshape(-1), np.zeros(3, np.float32)])
        rt.call("rt_copy_f32", buf[:x.size], buf[3:])  # overlapping: memmove
        check("data_movement", buf[3:].reshape(case[2]), ref)
    elif kind == "expand":
        x = randn(*case[1], seed=1)
        ref = T(x).expand(case[2]).contiguous()
        out = rt.empty(case[2])
        rt.call("rt_expand", 4, x, out)
        xi = np.arange(x.size, dtype=np.int8).reshape(x.shape)    # any element width
        oi = np.zeros(case[2], np.int8)
        rt.call("rt_expand", 1, xi, oi)
        np.testing.assert_array_equal(oi, np.broadcast_to(xi, case[2]))
    else:
        x = randn(*case[1], seed=1)
        ref = aten.constant_pad_nd(T(x), list(case[2]), case[3])
        out = rt.empty(tuple(ref.shape))
        before = rt.int32s(torch_pad_to_before(case[2], x.ndim))
        rt.call("rt_constant_pad_f32", before, case[3], x, out)
    check("data_movement", out, ref)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_constant_pad_of_any_rank_and_sign(rt, data):
    """rt_constant_pad_f32 against aten.constant_pad_nd: ranks 1 to 5, each dim padded, cropped
    or left whole (the trailing whole dims it copies as one row), sizes down to 0."""
    rank = data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.integers(0 if rank > 1 else 1, 4)) for _ in range(rank))
    pads = []
    for d in reversed(shape):   # torch's order: last dim first, (before, after) each
        a = data.draw(st.integers(-min(d, 2), 2))
        b = data.draw(st.integers(-min(d - max(-a, 0), 2), 2))   # crops within the input
        pads += [a, b]
    x = np.arange(1, math.prod(shape) + 1, dtype=np.float32).reshape(shape)
    value = data.draw(st.sampled_from([0.0, -1.5, 7.0]))
    ref = aten.constant_pad_nd(T(x), pads, value)
    out = rt.empty(tuple(ref.shape))
    rt.call("rt_constant_pad_f32", rt.int32s(torch_pad_to_before(pads, rank)), value, x, out)
    np.testing.assert_array_equal(out, ref.numpy())


# ---------------------------------------------------------------- misc -----

UPSAMPLE_CASES = [((1, 2, 3, 4), (6, 8), None), ((1, 1, 4, 4), (4, 4), None),
                  ((2, 3, 5, 3), (7, 4), None), ((1, 1, 3, 3), None, (1.5, 1.5)),
                  ((1, 2, 4, 6), None, (0.5, 0.5)), ((1, 1, 3, 5), None, (3.0, 0.7)),
                  ((1, 1, 7, 3), (3, 10), None)]


@pytest.mark.parametrize("case", UPSAMPLE_CASES, ids=str)
def test_upsample_nearest2d(rt, case):
    shape, size, scales = case
    x = randn(*shape, seed=18)
    ref = aten.upsample_nearest2d.vec(T(x), list(size) if size else None,
                                      list(scales) if scales else None)
    out = rt.empty(tuple(ref.shape))
    sh, sw = (float(np.float32(1.0 / s)) for s in scales) if scales else (0.0, 0.0)
    rt.call("rt_upsample_nearest2d_f32", sh, sw, x, out)
    check("upsample", out, ref)


@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("idx_shape", [(5,), (2, 3), (), (0,)], ids=str)
def test_embedding(rt, idx_dtype, idx_shape):
    w = randn(10, 4, seed=19)
    idx = np.random.default_rng(3).integers(0, 10, idx_shape).astype(idx_dtype)
    ref = F.embedding(T(idx.astype(np.int64)), T(w))
    out = rt.empty(tuple(ref.shape))
    code = 4 if idx_dtype == np.int64 else 3        # RT_DTYPE_I64, RT_DTYPE_I32
    rt.call("rt_embedding_f32", code, w, idx, out)
    check("embedding", out, ref)
    if idx.size:
        bad = idx.copy()
        bad.reshape(-1)[-1] = 10
        with pytest.raises(KernelError, match="RT_ERR_INDEX"):
            rt.call("rt_embedding_f32", code, w, bad, out)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e6, 1e6) | st.sampled_from([math.inf, -math.inf, math.nan, 0.0]),
       st.floats(-1e6, 1e6) | st.sampled_from([math.inf, math.nan, 1e300]),
       st.floats(-100, 100) | st.sampled_from([0.0, -0.0, math.nan, 1e-9, 0.07]))
def test_arange_numel_has_one_meaning_in_c_and_python(rt, start, end, step):
    """rt_arange_numel and its Python twin (aot.ops_create.arange_numel, which the static C
    generator evaluates where the adapter calls the C one) agree, and match torch.arange's
    count up to the 2^20 cap. Arguments torch refuses (a zero or NaN step, an infinite bound, a
    step of the wrong sign) and counts far past the cap are not asked of torch: its exceptions
    abort a sanitized run."""
    from aot.ops_create import ARANGE_MAX, arange_numel
    got = rt.lib.rt_arange_numel(start, end, step)
    assert got == arange_numel(start, end, step)
    refused = not (math.isfinite(start) and math.isfinite(end)) or \
        not ((step > 0 and end >= start) or (step < 0 and end <= start))
    if refused or not (end - start) / step <= 2 * ARANGE_MAX:    # refused, or past the cap
        assert got == -1
    else:
        n = torch.arange(start, end, step, dtype=torch.float64, device="meta").numel()
        assert got == (n if n <= ARANGE_MAX else -1), (start, end, step, n)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32, np.int16, np.uint8])
@pytest.mark.parametrize("start,step,n", [(0.0, 1.0, 12), (-1.0, 0.25, 12), (0.3, 0.07, 67),
                                          (5.0, -0.11, 73), (-7.1, 0.13, 3132)])
def test_arange(rt, dtype, start, step, n):
    """rt_arange's values are torch.arange's on this host (float64, then numpy's astype)."""
    ref = torch.arange(start, start + step * (n - 0.5), step, dtype=torch.float64)
    assert ref.numel() == n
    out = np.zeros(n, dtype)
    code = {np.float32: "F32", np.int64: "I64", np.int32: "I32", np.int16: "I16", np.uint8: "U8"}
    rt.call("rt_arange", getattr(rt.lib, f"RT_DTYPE_{code[dtype]}"), start, step, out)
    assert out.tobytes() == ref.numpy().astype(dtype).tobytes()


# ---------------------------------------------------------- validation -----

def test_validation_errors(rt):
    """Shape/param mistakes come back as statuses; nothing is written."""
    x, w = randn(1, 2, 5, 5), randn(4, 2, 3, 3)
    prm = rt.params("rt_conv2d_params", stride_h=1, stride_w=1, dilation_h=1,
                    dilation_w=1, groups=1)
    cases = [
        ("RT_ERR_SHAPE", lambda: rt.call("rt_conv2d_f32", prm, x, w, None, rt.empty((1, 4, 4, 4)))),
        ("RT_ERR_SHAPE", lambda: rt.call("rt_add_f32", NULL, 1.0, randn(2, 3), randn(4),
                                         rt.empty((2, 3)))),
        ("RT_ERR_SHAPE", lambda: rt.call("rt_relu_f32", randn(2, 3), rt.empty((7,)))),
        ("RT_ERR_PARAM", lambda: rt.call("rt_softmax_f32", 2, randn(2, 3), rt.empty((2, 3)))),
        ("RT_ERR_PARAM", lambda: rt.call("rt_sum_f32", 1 << 3, randn(2, 3), rt.empty((2, 3)))),
        ("RT_ERR_PARAM", lambda: rt.call("rt_permute_f32", rt.int32s([0, 0]), randn(2, 2),
                                         rt.empty((2, 2)))),
        ("RT_ERR_RANK", lambda: rt.call("rt_mm_f32", randn(2, 3, 1), randn(3, 2), rt.empty((2, 2)))),
        ("RT_ERR_NULL", lambda: rt.call("rt_linear_f32", randn(2, 3), randn(4, 3),
                                        rt.shape((4,)), NULL, rt.empty((2, 4)))),
    ]
    for status, fn in cases:
        with pytest.raises(KernelError, match=status):
            fn()
    prm.groups = 3  # 2 input channels are not divisible into 3 groups
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call("rt_conv2d_f32", prm, x, w, None, rt.empty((1, 4, 3, 3)))
    small = rt.ffi.new("rt_scratch *", {"buf": rt.data(np.empty(1, np.float32)), "size": 4})
    prm.groups = 1
    with pytest.raises(KernelError, match="RT_ERR_SCRATCH"):
        rt.call("rt_conv2d_im2col_f32", small, prm, x, w, None, rt.empty((1, 4, 3, 3)))
