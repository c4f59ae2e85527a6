"""Building blocks of the op suite: the Case record and seeded inputs with edge values."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable                      # fn(*inputs) -> tensor or tuple of tensors
    inputs: tuple                     # tensors
    rtol: float = 1e-5
    atol: float = 1e-6
    params: dict = field(default_factory=dict)   # modules fn closes over (for the record)
    # False: inputs and outputs stay in the caller's buffers, outside the arena, so views of
    # them are copies (view_copy and friends run as kernels) instead of zero-copy aliases.
    planned_io: bool = True

    def module(self) -> nn.Module:
        return _Fn(self.fn).eval()


class _Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class ModuleFn:
    """A case function that calls an nn.Module (its parameters become the model's)."""

    def __init__(self, module: nn.Module):
        self.module = module.eval()

    def __call__(self, *xs):
        return self.module(*xs)


def case(name: str, fn: Callable, *inputs, rtol: float = 1e-5, atol: float = 1e-6,
         planned_io: bool = True) -> Case:
    if isinstance(fn, nn.Module):
        fn = ModuleFn(fn)
    return Case(name, fn, tuple(inputs), rtol, atol, planned_io=planned_io)


def _generator(shape, seed) -> torch.Generator:
    return torch.Generator().manual_seed(1000 * seed + sum(shape) + len(shape))


def rand(*shape, seed=0, lo=-3.0, hi=3.0) -> torch.Tensor:
    """Uniform in [lo, hi), seeded by the shape and seed."""
    return torch.rand(shape, generator=_generator(shape, seed)) * (hi - lo) + lo


def ints(*shape, lo=0, hi=10, seed=0, dtype=torch.int64) -> torch.Tensor:
    return torch.randint(lo, hi, shape, generator=_generator(shape, seed), dtype=dtype)


SPECIALS = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, float("inf"), float("-inf"), float("nan"),
            1e-30, -1e30)


def edge(*shape, seed=0, lo=-3.0, hi=3.0, specials=SPECIALS) -> torch.Tensor:
    """rand(), with the special values written over its first elements (as many as fit)."""
    x = rand(*shape, seed=seed, lo=lo, hi=hi)
    flat = x.view(-1)
    for i, v in enumerate(specials[:flat.numel()]):
        flat[i] = v
    return x


POSITIVE_SPECIALS = (1.0, 0.5, 2.0, float("inf"), 1e-30, 1e30, 0.0)

# Shape pairs that broadcast: same, trailing, inner size-1 dims, rank-0 against a vector.
BROADCAST = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)),
             ((4, 1), (1, 5))]
