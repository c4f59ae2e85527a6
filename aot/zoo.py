"""The four MLPerf Tiny reference networks, written in PyTorch.

Weights are random but seeded, and batch-norm statistics are made non-trivial (running mean and
variance far from 0 and 1), so that folding batch norm is actually exercised. Each builder returns
``(model.eval(), example_inputs)``.
"""
from __future__ import annotations

import torch
from torch import nn


def _randomize_bn(model: nn.Module, seed: int) -> nn.Module:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                n = m.num_features
                m.weight.copy_(0.5 + torch.rand(n, generator=gen))
                m.bias.copy_(0.2 * torch.randn(n, generator=gen))
                m.running_mean.copy_(0.3 * torch.randn(n, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(n, generator=gen))
    return model


def _conv_bn_relu(cin: int, cout: int, k, stride=1, padding=0, groups=1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, k, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class DSCNN(nn.Module):
    """Keyword spotting DS-CNN (small): 1x1x49x10 MFCC features -> 12 classes."""

    def __init__(self, channels: int = 64, blocks: int = 4, classes: int = 12):
        super().__init__()
        layers = _conv_bn_relu(1, channels, (10, 4), (2, 2), (5, 1))
        for _ in range(blocks):
            layers += _conv_bn_relu(channels, channels, 3, 1, 1, groups=channels)
            layers += _conv_bn_relu(channels, channels, 1)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return torch.softmax(self.fc(x), dim=1)


class MobileNetV1(nn.Module):
    """Visual wake words MobileNetV1, width multiplier alpha: 1x3x96x96 -> 2 classes."""

    PLAN = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
            (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def __init__(self, alpha: float = 0.25, classes: int = 2):
        super().__init__()
        c = int(32 * alpha)
        layers = _conv_bn_relu(3, c, 3, 2, 1)
        for width, stride in self.PLAN:
            out = int(width * alpha)
            layers += _conv_bn_relu(c, c, 3, stride, 1, groups=c)
            layers += _conv_bn_relu(c, out, 1)
            c = out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return torch.softmax(self.fc(x), dim=1)


class ResidualBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        skip = x if self.shortcut is None else self.shortcut(x)
        return torch.relu(y + skip)


class ResNet8(nn.Module):
    """Image classification ResNet-8 (CIFAR-10): 1x3x32x32 -> 10 classes."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(*_conv_bn_relu(3, 16, 3, 1, 1))
        self.stacks = nn.Sequential(ResidualBlock(16, 16, 1), ResidualBlock(16, 32, 2),
                                    ResidualBlock(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = self.pool(self.stacks(self.stem(x))).flatten(1)
        return torch.softmax(self.fc(x), dim=1)


class FCAutoEncoder(nn.Module):
    """Anomaly detection deep autoencoder (ToyADMOS): 1x640 -> 1x640."""

    def __init__(self, features: int = 640, hidden: int = 128, bottleneck: int = 8):
        super().__init__()
        widths = [features] + [hidden] * 4 + [bottleneck] + [hidden] * 4
        layers: list[nn.Module] = []
        for cin, cout in zip(widths, widths[1:]):
            layers += [nn.Linear(cin, cout), nn.BatchNorm1d(cout), nn.ReLU()]
        layers.append(nn.Linear(hidden, features))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def _build(model: nn.Module, shape: tuple[int, ...], seed: int):
    torch.manual_seed(seed)
    for p in model.parameters():  # re-draw with a fixed seed, independent of construction order
        with torch.no_grad():
            p.copy_(torch.randn(p.shape) * (1.0 / max(1, p[0].numel()) ** 0.5))
    _randomize_bn(model, seed + 1)
    example = (torch.randn(shape, generator=torch.Generator().manual_seed(seed + 2)),)
    return model.eval(), example


def kws(): return _build(DSCNN(), (1, 1, 49, 10), 1)
def vww(): return _build(MobileNetV1(0.25), (1, 3, 96, 96), 2)
def resnet8(): return _build(ResNet8(), (1, 3, 32, 32), 3)
def autoencoder(): return _build(FCAutoEncoder(), (1, 640), 4)


ZOO = {"kws": kws, "vww": vww, "resnet8": resnet8, "autoencoder": autoencoder}


def calibration_set(name: str, count: int = 16) -> list[tuple[torch.Tensor]]:
    """Seeded inputs to calibrate a zoo network's quantization with (its weights are random,
    so random inputs are as representative as any)."""
    _, example = ZOO[name]()
    gen = torch.Generator().manual_seed(1000 + sorted(ZOO).index(name))
    return [(torch.randn(example[0].shape, generator=gen),) for _ in range(count)]
