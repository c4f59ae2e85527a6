"""Cases for the ops of the first float32 runtime: arithmetic, comparisons, activations,
convolution and matrix products, pooling, reductions, normalization and data movement."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .common import BROADCAST, Case, case, edge, ints, rand

CASES: list[Case] = []
add = CASES.append


def _tag(shape) -> str:
    return "x".join(map(str, shape)) or "scalar"


def _seeded(module: nn.Module, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape) * 0.5)
    return module.eval()


# -- binary arithmetic, tensor with tensor (broadcasting) and with numbers on either side --------
_BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=-0.5),
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=2),
    "maximum": torch.maximum, "minimum": torch.minimum,
}
for _name, _fn in _BINARY.items():
    for _a, _b in BROADCAST:
        add(case(f"{_name}_{_tag(_a)}_{_tag(_b)}", _fn, edge(*_a), rand(*_b, seed=1)))

_SCALAR_SIDES = {
    "add": (lambda x, s: x + s, lambda x, s: s + x),
    "sub": (lambda x, s: x - s, lambda x, s: s - x),
    "mul": (lambda x, s: x * s, lambda x, s: s * x),
    "div": (lambda x, s: x / s, lambda x, s: s / x),
    "maximum": (lambda x, s: torch.maximum(x, torch.tensor(s)),
                lambda x, s: torch.maximum(torch.tensor(s), x)),
    "minimum": (lambda x, s: torch.minimum(x, torch.tensor(s)),
                lambda x, s: torch.minimum(torch.tensor(s), x)),
    "where": (lambda x, s: torch.where(x > 0, x, s), lambda x, s: torch.where(x > 0, s, x)),
}
for _name, (_right, _left) in _SCALAR_SIDES.items():
    for _s, _kind in ((2, "int"), (-1.5, "float")):
        add(case(f"{_name}_scalar_right_{_kind}", lambda x, f=_right, s=_s: f(x, s),
                 edge(3, 4)))
        add(case(f"{_name}_scalar_left_{_kind}", lambda x, f=_left, s=_s: f(x, s),
                 edge(3, 4)))
add(case("rsub_alpha", lambda x: torch.rsub(x, 3.0, alpha=2), rand(2, 5)))
add(case("add_scalar_alpha", lambda x: torch.add(x, 3, alpha=-2), rand(2, 5)))
add(case("sub_left_alpha", lambda x: torch.sub(1.5, x, alpha=3), rand(2, 5)))
add(case("add_left_alpha", lambda x: torch.add(1.5, x, alpha=3), rand(2, 5)))

# -- comparisons and where ----------------------------------------------------------------------
_COMPARE = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
            "ge": torch.ge}
# A number on the left: Python's reflected operators (torch.lt(1.0, x) does not exist).
_LEFT = {"eq": lambda x: 1.0 == x, "ne": lambda x: 1 != x, "lt": lambda x: 1.0 < x,
         "le": lambda x: 1 <= x, "gt": lambda x: 1.0 > x, "ge": lambda x: 1 >= x}
for _name, _fn in _COMPARE.items():
    for _a, _b in BROADCAST[:3]:
        add(case(f"{_name}_{_tag(_a)}_{_tag(_b)}", _fn, ints(*_a, hi=3).float(),
                 ints(*_b, hi=3, seed=1).float()))
    add(case(f"{_name}_scalar_right", lambda x, f=_fn: f(x, 1), ints(3, 4, hi=3).float()))
    add(case(f"{_name}_scalar_left", _LEFT[_name], ints(3, 4, hi=3).float()))
    add(case(f"{_name}_nan", _fn, edge(11), edge(11, seed=2)))
for _c, _a, _b in (((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), ()), ((2, 1, 4), (3, 1), (1,))):
    add(case(f"where_{_tag(_c)}_{_tag(_a)}_{_tag(_b)}",
             lambda c, a, b: torch.where(c > 0, a, b), rand(*_c), edge(*_a, seed=1),
             rand(*_b, seed=2)))

# -- unary math and activations -----------------------------------------------------------------
_UNARY = {
    "relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
    "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "abs": torch.abs,
    "neg": torch.neg, "exp": torch.exp, "sin": torch.sin, "cos": torch.cos,
    "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2), "relu6": F.relu6,
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 1.25),
    "clamp": lambda x: torch.clamp(x, -1.0, 2.0), "clamp_min": lambda x: torch.clamp(x, min=0.5),
    "clamp_max": lambda x: torch.clamp(x, max=-0.25),
}
_POSITIVE = {"log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt}
# logit over [0, 1] and past it (NaN), with and without eps's clamp
_UNIT = {"logit": torch.logit, "logit_eps": lambda x: torch.logit(x, 0.05)}
# torch's gelu(+-inf) depends on its CPU path (the vectorized erf gives NaN, the scalar one
# +-inf), so the gelu cases keep NaN but trade the infinities for large finite values.
_FINITE_EDGES = {"gelu"}
for _shape in ((), (7,), (2, 3, 5)):
    for _name, _fn in _UNARY.items():
        x = edge(*_shape)
        if _name in _FINITE_EDGES:
            x = torch.nan_to_num(x, nan=float("nan"), posinf=30.0, neginf=-30.0)
        add(case(f"{_name}_{_tag(_shape)}", _fn, x))
    for _name, _fn in _POSITIVE.items():
        add(case(f"{_name}_{_tag(_shape)}", _fn, edge(*_shape, lo=0.01, hi=9.0)))
    for _name, _fn in _UNIT.items():
        add(case(f"{_name}_{_tag(_shape)}", _fn, edge(*_shape, lo=-0.1, hi=1.1)))
        add(case(f"{_name}_negative_{_tag(_shape)}", _fn, edge(*_shape)))

# -- convolution and matrix products ------------------------------------------------------------
_CONV = {
    "conv2d": (nn.Conv2d(3, 4, 3), (1, 3, 7, 6)),
    "conv2d_pad_stride": (nn.Conv2d(2, 5, (3, 2), stride=(2, 1), padding=(1, 0)), (2, 2, 8, 7)),
    "conv2d_dilation_groups": (nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2),
                               (1, 4, 9, 8)),
    "conv2d_depthwise_mult": (nn.Conv2d(3, 6, 3, padding=1, groups=3), (1, 3, 6, 6)),
    "conv2d_1x1": (nn.Conv2d(5, 7, 1, bias=False), (1, 5, 4, 3)),
    "conv1d": (nn.Conv1d(3, 4, 5, stride=2, padding=2), (2, 3, 17)),
}
for _name, (_m, _shape) in _CONV.items():
    add(case(_name, _seeded(_m), rand(*_shape), rtol=1e-4, atol=1e-5))
add(case("linear_3d", _seeded(nn.Linear(6, 4)), rand(2, 3, 6), rtol=1e-4, atol=1e-5))
add(case("mm", torch.mm, rand(3, 5), rand(5, 4, seed=1), rtol=1e-4, atol=1e-5))
add(case("bmm", torch.bmm, rand(2, 3, 5), rand(2, 5, 4, seed=1), rtol=1e-4, atol=1e-5))
add(case("addmm_beta_alpha", lambda b, x, w: torch.addmm(b, x, w, beta=0.5, alpha=2.0),
         rand(4), rand(3, 5, seed=1), rand(5, 4, seed=2), rtol=1e-4, atol=1e-5))
add(case("matmul_broadcast", torch.matmul, rand(2, 3, 5), rand(5, 4, seed=1),
         rtol=1e-4, atol=1e-5))

# -- pooling --------------------------------------------------------------------------------------
add(case("max_pool2d_edge", lambda x: F.max_pool2d(x, 2), edge(1, 2, 4, 6)))
add(case("max_pool2d_pad_dilation", lambda x: F.max_pool2d(x, 3, 2, 1, dilation=2),
         rand(1, 3, 9, 10)))
add(case("max_pool2d_ceil", lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True), rand(2, 1, 8, 8)))
add(case("max_pool2d_indices", lambda x: F.max_pool2d(x, 2, return_indices=True),
         rand(1, 2, 6, 6)))
add(case("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1), rand(1, 3, 11)))
add(case("avg_pool2d_pad", lambda x: F.avg_pool2d(x, 3, 2, 1), rand(1, 2, 7, 9)))
add(case("avg_pool2d_no_pad_count", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
         rand(1, 2, 7, 9)))
add(case("avg_pool2d_divisor", lambda x: F.avg_pool2d(x, 2, divisor_override=3),
         rand(1, 2, 6, 6)))
add(case("avg_pool2d_ceil", lambda x: F.avg_pool2d(x, 3, 2, ceil_mode=True), rand(1, 2, 8, 8)))
add(case("avg_pool1d", lambda x: F.avg_pool1d(x, 4, 3), rand(1, 3, 13)))

# -- reductions -----------------------------------------------------------------------------------
for _name, _fn in (("sum", torch.sum), ("mean", torch.mean), ("amax", torch.amax)):
    add(case(f"{_name}_dim1", lambda x, f=_fn: f(x, dim=1), rand(2, 3, 4)))
    add(case(f"{_name}_dims_keepdim", lambda x, f=_fn: f(x, dim=(0, -1), keepdim=True),
             rand(2, 3, 4)))
    add(case(f"{_name}_edge", lambda x, f=_fn: f(x, dim=-1), edge(3, 5)))
add(case("sum_all", lambda x: x.sum(), rand(3, 4, 5), rtol=1e-5, atol=1e-5))
add(case("mean_all", lambda x: x.mean(), rand(3, 4, 5)))

# -- normalization --------------------------------------------------------------------------------
for _dim, _shape in ((-1, (3, 7)), (1, (2, 4, 3)), (0, (5, 2))):
    add(case(f"softmax_dim{_dim}", lambda x, d=_dim: torch.softmax(x, d), rand(*_shape)))
    add(case(f"log_softmax_dim{_dim}", lambda x, d=_dim: torch.log_softmax(x, d),
             rand(*_shape)))
add(case("softmax_inf", lambda x: torch.softmax(x, -1),
         torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf"), 2.0, float("-inf")]])))
add(case("layer_norm", _seeded(nn.LayerNorm(6)), rand(2, 3, 6), rtol=1e-4, atol=1e-5))
# Batch norm alone (nothing to fold it into) runs as a kernel: NCHW and [N, C].
for _shape in ((2, 4, 3, 5), (3, 4)):
    _bn = nn.BatchNorm2d(4) if len(_shape) == 4 else nn.BatchNorm1d(4)
    _seeded(_bn, seed=len(_shape))
    with torch.no_grad():
        _bn.running_var.copy_(torch.linspace(0.25, 2.0, 4))
    add(case(f"batch_norm_{_tag(_shape)}", _bn, rand(*_shape), rtol=1e-5, atol=1e-5))
add(case("layer_norm_no_affine", nn.LayerNorm((3, 4), elementwise_affine=False),
         rand(2, 3, 4), rtol=1e-4, atol=1e-5))

# -- data movement --------------------------------------------------------------------------------
add(case("cat_dim0", lambda a, b: torch.cat([a, b]), rand(2, 3), rand(4, 3, seed=1)))
add(case("cat_neg_dim", lambda a, b, c: torch.cat([a, b, c], -1), rand(2, 1), rand(2, 3, seed=1),
         rand(2, 2, seed=2)))
add(case("stack", lambda a, b: torch.stack([a, b], 1), rand(3, 4), rand(3, 4, seed=1)))
add(case("permute_4d", lambda x: x.permute(3, 1, 0, 2) + 0, rand(2, 3, 4, 5)))
add(case("transpose", lambda x: x.transpose(-1, 0) * 1, rand(3, 4, 2)))
add(case("slice_negative", lambda x: x[:, -3:-1] + 0, rand(2, 6)))
add(case("slice_step", lambda x: x[1::2, ::3] + 0, rand(7, 9)))
add(case("select", lambda x: x[:, -1] + 0, rand(3, 4, 2)))
add(case("split_chunks", lambda x: [t + 0 for t in torch.chunk(x, 3, dim=-1)], rand(2, 7)))
add(case("narrow", lambda x: x.narrow(0, 1, 2) + 0, rand(4, 3)))
add(case("view_reshape", lambda x: x.reshape(4, -1) + 0, rand(2, 3, 4)))
add(case("squeeze_unsqueeze", lambda x: x.squeeze().unsqueeze(-1) + 0, rand(1, 3, 1, 4)))
# Views of the caller's own buffers cannot alias them: they run as copies.
add(case("view_of_caller_buffer", lambda x: x.reshape(4, -1), rand(2, 3, 4), planned_io=False))
add(case("squeeze_of_caller_buffer", lambda x: x.squeeze(), rand(1, 3, 1, 4), planned_io=False))
add(case("unsqueeze_of_caller_buffer", lambda x: x.unsqueeze(1), rand(3, 4), planned_io=False))
add(case("expand", lambda x: x.expand(2, 3, 4) + 0, rand(3, 1)))
add(case("pad_constant", lambda x: F.pad(x, (2, 1, 1, 0), value=-2.5), rand(1, 2, 3, 4)))
add(case("pad_crop", lambda x: F.pad(x, (-1, 2)), rand(2, 5)))
add(case("upsample_nearest_size", lambda x: F.interpolate(x, size=(5, 7)), rand(1, 2, 3, 4)))
add(case("upsample_nearest_scale", lambda x: F.interpolate(x, scale_factor=(2, 3)),
         rand(1, 2, 3, 2)))
add(case("embedding", lambda i: F.embedding(i, torch.linspace(-1, 1, 24).view(6, 4)),
         ints(2, 3, hi=6)))
add(case("clone", lambda x: x.clone() * 1, rand(3, 2)))

# -- dtype conversions ----------------------------------------------------------------------------
add(case("to_int32", lambda x: (x * 10).to(torch.int32), edge(4, 5, lo=-50, hi=50,
                                                              specials=(0.0, -0.0, 2.5, -2.5))))
add(case("to_float_from_int64", lambda i: i.float() * 0.5, ints(3, 4, lo=-100, hi=100)))
add(case("to_bool", lambda x: x.to(torch.bool), edge(3, 4, specials=(0.0, -0.0, 1e-30))))
add(case("bool_to_float", lambda x: (x > 0).float() + 1, rand(3, 4)))
add(case("int_tensor_plus_float", lambda x, i: x * i + i, rand(3, 4), ints(3, 4)))

# -- logic ----------------------------------------------------------------------------------------
add(case("logical_not_bool", lambda x: torch.logical_not(x > 0), edge(3, 4)))
add(case("logical_not_float", torch.logical_not, edge(3, 4)))
add(case("any_all", lambda x: (x > 2).any(), rand(3, 4)))
add(case("any_dim", lambda x: (x > 1).any(dim=1), rand(3, 4, 2)))
add(case("any_dims_keepdim", lambda x: torch.any(x > 1, dim=(0, 2), keepdim=True),
         rand(3, 4, 2)))
add(case("any_float", lambda x: torch.any(x, dim=-1), edge(3, 4).round()))
