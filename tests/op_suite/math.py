"""Cases for elementwise math: reciprocal and powers, division with rounding modes, remainders,
rounding, logarithms and exponentials, sign, erf and the ELU family, each over several shapes,
with broadcasting, numbers on either side and edge values (zeros of both signs, infinities, NaN,
zero divisors, exact halves)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .common import BROADCAST, Case, case, edge, ints, rand

CASES: list[Case] = []
add = CASES.append


def _tag(shape) -> str:
    return "x".join(map(str, shape)) or "scalar"


# -- unary ----------------------------------------------------------------------------------------
_UNARY = {
    "reciprocal": torch.reciprocal, "ceil": torch.ceil, "floor": torch.floor,
    "trunc": torch.trunc, "round": torch.round, "frac": torch.frac, "sign": torch.sign,
    "erf": torch.erf, "expm1": torch.expm1, "square": torch.square,
    "elu": F.elu, "elu_alpha": lambda x: F.elu(x, alpha=0.3), "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=1.7), "softplus": F.softplus, "mish": F.mish,
    "logsigmoid": F.logsigmoid,
}
# Defined for positive inputs; negative ones give NaN (checked too).
_POSITIVE = {"log2": torch.log2, "log10": torch.log10, "log1p": torch.log1p}
for _shape in ((), (7,), (2, 3, 5)):
    for _name, _fn in _UNARY.items():
        add(case(f"{_name}_{_tag(_shape)}", _fn, edge(*_shape, lo=-6.0, hi=6.0)))
    for _name, _fn in _POSITIVE.items():
        add(case(f"{_name}_{_tag(_shape)}", _fn, edge(*_shape, lo=1e-3, hi=50.0)))
        add(case(f"{_name}_negative_{_tag(_shape)}", _fn, edge(*_shape)))
add(case("log1p_tiny", torch.log1p, rand(16, lo=-1e-6, hi=1e-6)))
add(case("expm1_tiny", torch.expm1, rand(16, lo=-1e-6, hi=1e-6)))

# Rounding at exact halves (round goes to even), and with decimals.
_HALVES = torch.arange(-8, 8, dtype=torch.float32) + 0.5
for _name in ("round", "ceil", "floor", "trunc"):
    add(case(f"{_name}_halves", getattr(torch, _name), _HALVES))
for _d in (3, 1, 0, -1, -2):
    add(case(f"round_decimals_{_d}".replace("-", "neg"),
             lambda x, d=_d: torch.round(x, decimals=d), rand(4, 6, lo=-500.0, hi=500.0)))

# -- powers ---------------------------------------------------------------------------------------
for _e in (2, 3, -1, -2, 0.5, -0.5, 2.5, 0, 1, 4, -1.5):
    _tagged = str(_e).replace("-", "neg").replace(".", "p")
    add(case(f"pow_exponent_{_tagged}", lambda x, e=_e: x ** e, edge(3, 5, lo=0.1, hi=3.0)))
    add(case(f"pow_exponent_{_tagged}_negative_base", lambda x, e=_e: torch.pow(x, e),
             edge(3, 5)))
for _a, _b in BROADCAST:
    add(case(f"pow_{_tag(_a)}_{_tag(_b)}", torch.pow, rand(*_a, lo=0.1, hi=3.0),
             rand(*_b, seed=1, lo=-3.0, hi=3.0), rtol=2e-5))
add(case("pow_tensor_edges", torch.pow, edge(4, 4), edge(4, 4, seed=1)))
for _base in (2.0, 0.5, -2, 10):
    _tagged = str(_base).replace("-", "neg").replace(".", "p")
    add(case(f"pow_base_{_tagged}", lambda x, b=_base: b ** x, edge(3, 5, lo=-4.0, hi=4.0)))

# -- division with a rounding mode, remainders ----------------------------------------------------
# Divisors with zeros of both signs, infinities and NaN; dividends that are exact multiples.
_DIVIDEND = edge(4, 6, lo=-20.0, hi=20.0)
_DIVISOR = edge(4, 6, seed=1, lo=-4.0, hi=4.0, specials=(0.0, -0.0, float("inf"),
                                                         float("-inf"), float("nan"), 1.0))
_MODES = {
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_none_mode": lambda a, b: torch.div(a, b, rounding_mode=None),
    "floor_divide": lambda a, b: a // b,
    "remainder": torch.remainder, "fmod": torch.fmod,
}
for _name, _fn in _MODES.items():
    add(case(f"{_name}_edges", _fn, _DIVIDEND, _DIVISOR))
    add(case(f"{_name}_edges_swapped", _fn, _DIVISOR, _DIVIDEND))
    for _a, _b in BROADCAST:
        add(case(f"{_name}_{_tag(_a)}_{_tag(_b)}", _fn, rand(*_a, lo=-9.0, hi=9.0),
                 rand(*_b, seed=1, lo=-3.0, hi=3.0)))
    for _s, _kind in ((3, "int"), (-1.5, "float"), (0.1, "inexact")):
        add(case(f"{_name}_scalar_right_{_kind}", lambda x, f=_fn, s=_s: f(x, s), _DIVIDEND))
    if _name != "fmod":                 # torch.fmod takes no number as its first operand
        add(case(f"{_name}_scalar_left", lambda x, f=_fn: f(7.5, x), _DIVISOR))
add(case("fmod_rank0_left", lambda x: torch.fmod(torch.tensor(7.5), x), _DIVISOR))
# Where a naive floor(a / b) rounds the wrong way: 0.3 // 0.1 is 2 in torch and Python.
add(case("div_floor_inexact", lambda a: torch.div(a, 0.1, rounding_mode="floor"),
         torch.tensor([0.3, 0.7, -0.3, 1.0, 0.2, 5.9])))

# -- int64 arithmetic (wrapping overflow, Python-style floor division and remainder) -------------
_A = ints(4, 5, lo=-50, hi=50)
_B = ints(4, 5, lo=1, hi=9, seed=1) * torch.where(ints(4, 5, lo=0, hi=2, seed=2) > 0, 1, -1)
_INT = {
    "add": lambda a, b: a + b, "sub_alpha": lambda a, b: torch.sub(a, b, alpha=3),
    "mul": torch.mul, "floor_divide": lambda a, b: a // b,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder, "fmod": torch.fmod, "maximum": torch.maximum,
    "minimum": torch.minimum,
}
for _name, _fn in _INT.items():
    add(case(f"int64_{_name}", _fn, _A, _B))
    add(case(f"int64_{_name}_bcast", _fn, _A, _B[:1, :]))
    _s = torch.tensor(-3) if _name in ("maximum", "minimum") else -3
    add(case(f"int64_{_name}_scalar", lambda a, f=_fn, s=_s: f(a, s), _A))
add(case("int64_unary", lambda a: (torch.abs(a), -a, torch.clamp(a, -7, 20),
                                   torch.clamp(a, min=0)), _A))
add(case("int64_wraps", lambda a: a * 4611686018427387904 + a,
         torch.tensor([1, 2, 3, -1, -2], dtype=torch.int64)))
for _cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
    add(case(f"int64_{_cmp}", getattr(torch, _cmp), _A, _B[:, :1]))
    add(case(f"int64_{_cmp}_scalar", lambda a, c=_cmp: getattr(torch, c)(a, 4), _A))
add(case("tril_triu", lambda x: (torch.tril(x), torch.triu(x, 1), torch.tril(x, -2)),
         rand(4, 6)))
