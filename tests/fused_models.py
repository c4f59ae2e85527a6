"""Small models with chains of pointwise ops, for the FusedElementwiseBackend tests of every
tier. Each entry is name -> () -> (module in eval mode, example inputs), seeded."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MlpChain(nn.Module):
    """Activation chains between linear layers; the middle value is also an output."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(24, 48), nn.Linear(48, 16)
        self.b = nn.Parameter(torch.randn(48))

    def forward(self, x):
        h = self.l1(x)
        h = h * torch.sigmoid(h) + self.b                   # SiLU by hand, plus a bias
        h = torch.clamp(h * 0.5 - 1.0, -2.0, 3.0)
        y = self.l2(h)
        return F.hardtanh(y.abs() - 0.5), torch.tanh(y) * 2.0


class HardswishCnn(nn.Module):
    """Hardswish written out (add, relu6, mul, div) after each convolution; the first one
    widens the channels, so the unfused ``x + 3`` (beside x) is the peak of the arena."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 4, 1)
        self.scale = nn.Parameter(torch.rand(16, 1, 1) + 0.5)

    @staticmethod
    def hswish(x):
        return x * F.relu6(x + 3.0) / 6.0

    def forward(self, x):
        y = self.hswish(self.c1(x)) * self.scale
        return self.hswish(self.c2(y)).neg().exp()


class SqueezeExcite(nn.Module):
    """A gate computed from the mean (a broadcast tensor input to the fused chain)."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 6, 1)

    def forward(self, x):
        y = F.relu(self.c(x))
        s = torch.sigmoid(y.mean(dim=(2, 3), keepdim=True))
        return F.leaky_relu(y * s + y, 0.1) - torch.maximum(y, s).sqrt()


def _make(cls, *shape, seed=0):
    def build():
        torch.manual_seed(seed)
        return cls().eval(), (torch.randn(*shape),)
    return build


FUSED_MODELS = {
    "mlp_chain": _make(MlpChain, 3, 24),
    "hardswish_cnn": _make(HardswishCnn, 1, 3, 10, 10),
    "squeeze_excite": _make(SqueezeExcite, 1, 4, 6, 6),
}
