"""The models of issue 37's table: networks as users bring them, not as this project writes them.

- torchvision's own definitions of six image classifiers, at 96x96 with 10 classes;
- a conv1d activity-recognition net, a GRU keyword net, an LSTM, a keyword transformer and a
  U-Net, written the way such models are usually written.

Each builder returns (model, example inputs, calibration set). Every model's weights are seeded
and its batch norms are calibrated on data (``spread``), so that its outputs vary with the input:
a randomly initialised torchvision network gives near-constant outputs, on which an accuracy
test proves nothing.

torchvision's PyPI wheel is built against CUDA torch, so its compiled ops (nms, roi_align) do not
load beside the CPU torch of this project. Its model definitions are plain Python and need none
of them: ``torchvision_models`` imports the package without its op registrations.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import sys
import types

import torch
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm

IMAGE = (1, 3, 96, 96)


def torchvision_models():
    """torchvision.models, imported without the package's compiled-op registration (see the
    module docstring). Raises ImportError where torchvision is not installed."""
    if "torchvision.models" in sys.modules:
        return sys.modules["torchvision.models"]
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        raise ImportError("torchvision is not installed (pip install -e '.[dev]')")
    if "torchvision" not in sys.modules:
        try:
            import torchvision  # noqa: F401  (a CPU build loads whole)
        except (OSError, RuntimeError):
            for name in [m for m in sys.modules if m.startswith("torchvision")]:
                del sys.modules[name]
            pkg = types.ModuleType("torchvision")
            pkg.__path__ = [os.path.dirname(spec.origin)]
            pkg.__file__ = spec.origin
            sys.modules["torchvision"] = pkg
    import torchvision.models as tvm
    return tvm


def _inputs(shape, seed: int, count: int = 16):
    gen = torch.Generator().manual_seed(seed)
    cal = [(torch.randn(shape, generator=gen),) for _ in range(count)]
    return (torch.randn(shape, generator=gen),), cal


def spread(model: nn.Module, example_shape, seed: int) -> nn.Module:
    """Seeded weights at unit gain, batch-norm affine terms drawn around (1, 0), and running
    statistics measured on seeded data, so every layer sees unit-scale activations and the
    outputs vary from input to input."""
    torch.manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d, nn.Linear)):
                fan_in = m.weight[0].numel() if not isinstance(m, nn.ConvTranspose2d) \
                    else m.weight.shape[0] * m.weight[0, 0].numel() // max(1, m.groups)
                m.weight.normal_(0.0, (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.uniform_(-0.1, 0.1)
            elif isinstance(m, _BatchNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.reset_running_stats()
                m.momentum = None              # a cumulative average over the batches
    if any(isinstance(m, _BatchNorm) for m in model.modules()):
        gen = torch.Generator().manual_seed(seed + 1)
        model.train()
        with torch.no_grad():
            for _ in range(4):
                model(torch.randn((8,) + tuple(example_shape[1:]), generator=gen))
    return model.eval()


def _torchvision(name: str, seed: int, **kw):
    def build():
        model = getattr(torchvision_models(), name)(num_classes=10, **kw)
        return (spread(model, IMAGE, seed), *_inputs(IMAGE, seed + 100))
    return build


class ActivityNet(nn.Module):
    """Human-activity recognition from a 3-axis accelerometer (128 samples): conv1d blocks with
    batch norm, a depthwise-separable block, pooling over time and a classifier."""

    def __init__(self, classes: int = 6):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(3, 16, 5, padding=2), nn.BatchNorm1d(16),
                                  nn.ReLU(inplace=True), nn.MaxPool1d(2))
        self.dw = nn.Sequential(nn.Conv1d(16, 16, 5, padding=2, groups=16), nn.BatchNorm1d(16),
                                nn.ReLU(inplace=True), nn.Conv1d(16, 32, 1),
                                nn.BatchNorm1d(32), nn.ReLU(inplace=True))
        self.pool = nn.AvgPool1d(2)
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.pool(self.dw(self.stem(x)))
        return self.head(x.mean(dim=-1))


class GRUKeywords(nn.Module):
    """Keyword spotting on 49 frames of 10 MFCCs: a GRU over the frames, the last state
    classified."""

    def __init__(self, classes: int = 12):
        super().__init__()
        self.gru = nn.GRU(10, 32, batch_first=True)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


class LSTMRegressor(nn.Module):
    """A sensor-sequence LSTM (25 steps of 8 features) with a linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 24, batch_first=True)
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


class KeywordTransformer(nn.Module):
    """A keyword transformer (KWT): each MFCC frame a token, a class token, learned positions,
    two encoder layers, the class token classified."""

    def __init__(self, frames: int = 49, mfcc: int = 10, dim: int = 32, classes: int = 12):
        super().__init__()
        self.embed = nn.Linear(mfcc, dim)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.5)
        self.pos = nn.Parameter(torch.randn(1, frames + 1, dim) * 0.5)
        layer = nn.TransformerEncoderLayer(dim, 2, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        t = self.embed(x)
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], dim=1) + self.pos
        t = self.encoder(t)
        return self.head(self.norm(t[:, 0]))


class UNet(nn.Module):
    """A two-level U-Net for segmentation: transposed-convolution and nearest upsampling
    decoders, skip connections concatenated."""

    def __init__(self, classes: int = 3):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
                                 nn.ReLU(inplace=True))
        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = block(32, 16)
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec1 = block(16 + 8, 8)
        self.out = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
        m = self.mid(nn.functional.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.out(d1)


def _user(cls, shape, seed: int):
    def build():
        torch.manual_seed(seed)   # what spread() does not redraw: recurrent and attention
        return (spread(cls(), shape, seed), *_inputs(shape, seed + 100))   # weights, tokens
    return build


USER_MODELS = {
    "mobilenet_v2": _torchvision("mobilenet_v2", 1, width_mult=0.35),
    "mobilenet_v3_small": _torchvision("mobilenet_v3_small", 2),
    "mnasnet0_5": _torchvision("mnasnet0_5", 3),
    "shufflenet_v2_x0_5": _torchvision("shufflenet_v2_x0_5", 4),
    "squeezenet1_1": _torchvision("squeezenet1_1", 5),
    "resnet18": _torchvision("resnet18", 6),
    "activity_conv1d": _user(ActivityNet, (1, 3, 128), 7),
    "gru_keywords": _user(GRUKeywords, (1, 49, 10), 8),
    "lstm": _user(LSTMRegressor, (1, 25, 8), 9),
    "keyword_transformer": _user(KeywordTransformer, (1, 49, 10), 10),
    "unet": _user(UNet, (1, 3, 32, 32), 11),
}


@functools.lru_cache(maxsize=None)
def quantized(name: str):
    """(model, example inputs, aot.quantize's program) of a model, made once a process: its PT2E
    calibration is the slow part (a GRU's, a minute)."""
    import aot
    model, example, cal = USER_MODELS[name]()
    return model, example, aot.quantize(model, example, cal)


@functools.lru_cache(maxsize=None)
def lowered_int8(name: str):
    """quantized(name)'s program lowered as a board runs it, int8 I/O (to_executorch()'s
    manager), made once a process."""
    import aot
    from aot.config import EdgeCompileConfig
    return aot.to_edge(quantized(name)[2],
                       compile_config=EdgeCompileConfig(int8_io=True)).to_executorch()
