"""The quantizer annotates what the graph computes, not how the model spells it.

Each pattern is written in every spelling users write (module or functional, in place or not,
an operator or a method, nested in modules or not). Every spelling must lower to int8 with no
float fallback, and to the same program: the same .pte, byte for byte.
"""
from __future__ import annotations

import operator

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import aot
from aot.report import op_rows


def _inplace_iadd(y, z):
    y += z
    return y


def _inplace_isub(y, z):
    y -= z
    return y


def _inplace_imul(y, z):
    y *= z
    return y


# pattern -> spelling -> f(y, z) (unary spellings ignore z); y and z are two conv outputs
SPELLINGS = {
    "relu": {
        "nn.ReLU": lambda y, z: nn.ReLU()(z),
        "nn.ReLU(inplace)": lambda y, z: nn.ReLU(inplace=True)(z),
        "F.relu": lambda y, z: F.relu(z),
        "F.relu(inplace)": lambda y, z: F.relu(z, inplace=True),
        "torch.relu": lambda y, z: torch.relu(z),
        "torch.relu_": lambda y, z: torch.relu_(z),
        "Tensor.relu": lambda y, z: z.relu(),
        "Tensor.relu_": lambda y, z: z.relu_(),
    },
    "relu6": {
        "nn.ReLU6": lambda y, z: nn.ReLU6()(z),
        "nn.ReLU6(inplace)": lambda y, z: nn.ReLU6(inplace=True)(z),
        "F.relu6": lambda y, z: F.relu6(z),
        "F.relu6(inplace)": lambda y, z: F.relu6(z, inplace=True),
        "F.hardtanh": lambda y, z: F.hardtanh(z, 0.0, 6.0),
        "F.hardtanh(inplace)": lambda y, z: F.hardtanh(z, 0.0, 6.0, inplace=True),
        "nn.Hardtanh(inplace)": lambda y, z: nn.Hardtanh(0.0, 6.0, inplace=True)(z),
        "F.hardtanh_": lambda y, z: F.hardtanh_(z, 0.0, 6.0),
    },
    "clamp": {
        "torch.clamp": lambda y, z: torch.clamp(z, -1.0, 2.0),
        "torch.clamp_": lambda y, z: torch.clamp_(z, -1.0, 2.0),
        "Tensor.clamp": lambda y, z: z.clamp(-1.0, 2.0),
        "Tensor.clamp_": lambda y, z: z.clamp_(-1.0, 2.0),
        "Tensor.clip_": lambda y, z: z.clip_(-1.0, 2.0),
        "torch.clip": lambda y, z: torch.clip(z, -1.0, 2.0),
    },
    "hardswish": {
        "nn.Hardswish": lambda y, z: nn.Hardswish()(z),
        "nn.Hardswish(inplace)": lambda y, z: nn.Hardswish(inplace=True)(z),
        "F.hardswish": lambda y, z: F.hardswish(z),
        "F.hardswish(inplace)": lambda y, z: F.hardswish(z, inplace=True),
    },
    "add": {
        "y + z": lambda y, z: y + z,
        "torch.add": lambda y, z: torch.add(y, z),
        "Tensor.add": lambda y, z: y.add(z),
        "operator.add": operator.add,
        "y += z": _inplace_iadd,
        "operator.iadd": operator.iadd,
        "Tensor.add_": lambda y, z: y.add_(z),
    },
    "add_relu": {
        "relu(y + z)": lambda y, z: torch.relu(y + z),
        "relu_(y += z)": lambda y, z: torch.relu_(_inplace_iadd(y, z)),
        "nn.ReLU(inplace)(y.add_(z))": lambda y, z: nn.ReLU(inplace=True)(y.add_(z)),
        "F.relu(torch.add)": lambda y, z: F.relu(torch.add(y, z)),
    },
    "sub": {
        "y - z": lambda y, z: y - z,
        "torch.sub": lambda y, z: torch.sub(y, z),
        "y -= z": _inplace_isub,
        "Tensor.sub_": lambda y, z: y.sub_(z),
        "torch.subtract": lambda y, z: torch.subtract(y, z),
    },
    "mul": {
        "y * z": lambda y, z: y * z,
        "torch.mul": lambda y, z: torch.mul(y, z),
        "y *= z": _inplace_imul,
        "operator.imul": operator.imul,
        "Tensor.mul_": lambda y, z: y.mul_(z),
        "torch.multiply": lambda y, z: torch.multiply(y, z),
    },
}


class _Net(nn.Module):
    """conv -> conv, the spelled pattern on the two conv outputs, then a conv: every value of
    the pattern is an int8 activation between int8 layers."""

    def __init__(self, spell):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 6, 3, padding=1)
        self.c = nn.Conv2d(6, 4, 1)
        self.spell = spell

    def forward(self, x):
        y = self.a(x)
        z = self.b(y)
        return self.c(self.spell(y, z))


class _Spelled(nn.Module):
    def __init__(self, spell):
        super().__init__()
        self.spell = spell

    def forward(self, x):
        return self.spell(None, x)


def _lowered(model: nn.Module) -> aot.ExecutorchProgramManager:
    gen = torch.Generator().manual_seed(7)
    cal = [(torch.randn(1, 3, 8, 8, generator=gen) * 2,) for _ in range(6)]
    ep = aot.quantize(model.eval(), cal[0], cal)
    return aot.to_edge(ep).to_executorch()


def _net(spell) -> nn.Module:
    torch.manual_seed(36)                  # every spelling gets the same weights
    model = _Net(spell)
    for conv in (model.a, model.b, model.c):    # weights spread, so outputs vary
        nn.init.uniform_(conv.weight, -0.5, 0.5)
        nn.init.uniform_(conv.bias, -0.3, 0.3)
    return model


def _no_fallback(manager, what: str) -> None:
    rows = op_rows(manager.lowered())
    assert [r.op for r in rows if r.fallback] == [], f"{what}: float fallbacks"


@pytest.mark.parametrize("pattern", sorted(SPELLINGS))
def test_every_spelling_lowers_to_the_same_int8_program(pattern):
    spellings = SPELLINGS[pattern]
    programs = {}
    for name, spell in spellings.items():
        manager = _lowered(_net(spell))
        _no_fallback(manager, f"{pattern}, spelled {name}")
        programs[name] = manager.buffer
    first = next(iter(programs))
    differ = [name for name, pte in programs.items() if pte != programs[first]]
    assert not differ, f"{pattern}: {differ} lower to another program than {first}"


def test_module_nesting_does_not_change_the_program():
    """The same layers at the top level (an nn.Sequential), nested two deep, or inline."""
    def layers():
        torch.manual_seed(36)
        convs = [nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 4, 1)]
        for conv in convs:
            nn.init.uniform_(conv.weight, -0.5, 0.5)
            nn.init.uniform_(conv.bias, -0.3, 0.3)
        return convs

    a, b = layers()
    top = nn.Sequential(a, nn.ReLU(inplace=True), b)
    a, b = layers()
    nested = nn.Sequential(nn.Sequential(nn.Sequential(a, nn.ReLU())), nn.Sequential(b))

    class Inline(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = layers()

        def forward(self, x):
            return self.b(F.relu(self.a(x)))

    programs = {}
    for name, model in (("top-level Sequential", top), ("nested", nested),
                        ("inline", Inline())):
        manager = _lowered(model)
        _no_fallback(manager, name)
        programs[name] = manager.buffer
    assert programs["nested"] == programs["top-level Sequential"] == programs["inline"]


def test_an_overwrite_a_later_node_reads_is_not_rewritten():
    """y.relu_() where a view of y, taken before, is read afterwards: that read sees the relu,
    so relu(y) would change the result; the call stays in place."""
    from aot.passes.functional_spellings import functional_spellings

    class Reread(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            y = self.a(x)
            v = y.view(-1)              # a view of y, taken before the overwrite
            y.relu_()
            return v * 2.0

    model = Reread().eval()
    x = torch.randn(1, 3, 4, 4)
    ep = aot.export(model, (x,))
    out = functional_spellings(ep)
    targets = [n.target for n in out.graph.nodes if n.op == "call_function"]
    assert torch.ops.aten.relu_.default in targets
    torch.testing.assert_close(out.module()(x), model(x))
