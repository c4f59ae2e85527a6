"""Small models that exercise each int8 lowering rule, for tests/int8.

Each builder returns (model, example inputs, calibration set). Weights are seeded.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import aot
import aot.host
from aot.config import EdgeCompileConfig, ExecutorchBackendConfig, MemoryPlanningPass
from aot.zoo import ZOO, calibration_set


def _seeded(model: nn.Module, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    for p in model.parameters():
        with torch.no_grad():
            p.copy_(torch.randn(p.shape) * (1.0 / max(1, p[0].numel()) ** 0.5))
    return model.eval()


def _data(shape, seed: int, count: int = 6):
    gen = torch.Generator().manual_seed(seed)
    cal = [(torch.randn(shape, generator=gen),) for _ in range(count)]
    return (torch.randn(shape, generator=gen),), cal


class ConvBlocks(nn.Module):
    """Strided, dilated, grouped and depthwise (multiplier 2) convs; relu6 and hardtanh fold."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2)
        self.c = nn.Conv2d(8, 16, 3, padding=1, groups=8)
        self.d = nn.Conv2d(16, 6, 1)

    def forward(self, x):
        x = F.relu6(self.a(x))
        x = F.hardtanh(self.b(x), -0.5, 1.5)
        x = torch.relu(self.c(x))
        return self.d(x)


class Residual(nn.Module):
    """add, sub and mul of maps, max pooling, a padded average pool, a global mean."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.c = nn.Conv2d(8, 8, 1)

    def forward(self, x):
        y = torch.relu(self.a(x))
        z = torch.relu(self.b(y) + y)
        w = self.c(z) - y
        p = F.max_pool2d(w * z, 2)
        q = F.avg_pool2d(p, 3, 1, 1)
        return q.mean((2, 3))


class Activations(nn.Module):
    """Lookup tables (sigmoid, tanh, hardswish, silu, gelu) and a softmax over channels."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        x = self.a(x)
        x = torch.sigmoid(x) + torch.tanh(x) + F.hardswish(x) + F.silu(x) + F.gelu(x)
        x = F.adaptive_avg_pool2d(x, 4)
        return torch.softmax(self.fc(x.flatten(1)), dim=1)


class Movement(nn.Module):
    """cat (with requantization), padding, nearest upsampling (an expand of the int8 map),
    slicing, max/min (broadcast) and a flatten of a 3x3 map."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(2, 4, 3, padding=1)
        self.b = nn.Conv2d(2, 4, 1)
        self.fc = nn.Linear(8 * 3 * 3, 5)

    def forward(self, x):
        y = torch.cat([self.a(x), 2.0 * self.b(x)], dim=1)
        y = F.pad(y, (1, 0, 0, 1))
        y = F.max_pool2d(y, 2)
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")[:, :, :6:2, 1:4]
        y = torch.minimum(torch.maximum(y, -y), y.mean((2, 3), keepdim=True))
        return self.fc(y.flatten(1))


class MLP(nn.Module):
    """Linear layers on a rank-3 input, with clamp folded."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(12, 16)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.clamp(self.a(x), -1.0, 2.0))


class Conv1D(nn.Module):
    """A 1-D signal network (keyword spotting on raw audio, sensor data): conv1d with a folded
    relu, max and average pooling of one dim, a depthwise conv1d, a residual add and a mean
    over time, as one-row 2-D layers."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(3, 8, 5, stride=2, padding=2)
        self.b = nn.Conv1d(8, 8, 3, padding=1, groups=8)
        self.c = nn.Conv1d(8, 8, 1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = F.max_pool1d(torch.relu(self.a(x)), 2)
        z = F.relu6(self.c(self.b(y)) + y)
        z = F.avg_pool1d(z, 3, 1, 1)
        return self.fc(z.mean(-1))


class Shuffle(nn.Module):
    """ShuffleNetV2's unit: a channel split (chunk), one half through a conv, a concat and a
    channel shuffle (view, transpose, contiguous, view), all on NHWC maps."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 1)
        self.c = nn.Conv2d(8, 6, 3, padding=1)

    def forward(self, x):
        p, q = torch.relu(self.a(x)).chunk(2, dim=1)
        y = torch.cat([p, torch.relu(self.b(q))], dim=1)
        b, c, h, w = y.shape
        y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, -1, h, w)
        return self.c(y)


class Recurrent(nn.Module):
    """A GRU or an LSTM over a fixed sequence, its last state classified: the cells unrolled,
    gates as lookup tables, the hidden state's products and sums in int8 (an LSTM's cell state
    in int16)."""

    def __init__(self, kind):
        super().__init__()
        self.rnn = kind(6, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Decoder(nn.Module):
    """A segmentation decoder: transposed convolutions (VALID k2 s2; and k4 s2 padding 1, which
    TFLite calls SAME), one with a folded relu, between convs."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.up1 = nn.ConvTranspose2d(8, 6, 2, stride=2)
        self.up2 = nn.ConvTranspose2d(6, 4, 4, stride=2, padding=1)
        self.b = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        y = torch.relu(self.up1(torch.relu(self.a(x))))
        return self.b(self.up2(y))


class Decoder1D(nn.Module):
    """A 1-D decoder (a signal upsampled): conv_transpose1d as a one-row transposed conv."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(2, 6, 3, padding=1)
        self.up = nn.ConvTranspose1d(6, 4, 4, stride=2, padding=1)
        self.b = nn.Conv1d(4, 2, 1)

    def forward(self, x):
        return self.b(torch.relu(self.up(torch.relu(self.a(x)))))


class Products(nn.Module):
    """Matmuls of two activations: a @ b^T (attention's scores; the transpose costs nothing,
    the kernel takes its right operand transposed) and a plain a @ c, over 3-D linear layers."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(6, 8), nn.Linear(6, 8), nn.Linear(6, 5)

    def forward(self, x):
        scores = torch.bmm(self.a(x), self.b(x).transpose(1, 2))       # [N, L, L]
        return torch.matmul(scores, self.c(x))                           # [N, L, 5]


class Attention(nn.Module):
    """nn.MultiheadAttention (self-attention, two heads): its scaled_dot_product_attention
    decomposed into int8 bmm calls around an int8 softmax."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.attn(x, x, x, need_weights=False)
        return self.fc(y + x)


class Norm(nn.Module):
    """A transformer block's layer norm on 3-D tokens, between two linear layers, and one ending
    the network (its output is the layer norm's)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(6, 12), nn.Linear(12, 12)
        self.n1, self.n2 = nn.LayerNorm(12), nn.LayerNorm(12)

    def forward(self, x):
        return self.n2(self.b(self.n1(self.a(x))))


class Resize(nn.Module):
    """A segmentation head: maps resized bilinearly (x2 with half-pixel centers; to a size with
    corners aligned), between convs."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 4, 3, padding=1)

    def forward(self, x):
        y = F.interpolate(torch.relu(self.a(x)), scale_factor=2, mode="bilinear")
        return F.interpolate(self.b(y), size=(7, 9), mode="bilinear", align_corners=True)


class Reduce(nn.Module):
    """CBAM's spatial attention: a map's channel-wise max and mean, concatenated, a conv, and a
    softmax over its rows (not the last dim)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(2, 3, 3, padding=1)

    def forward(self, x):
        y = self.a(x)
        s = torch.cat([y.amax(1, keepdim=True), y.mean(1, keepdim=True)], 1)
        return self.b(s).softmax(2)


class Stats(nn.Module):
    """A 1-D signal's channel statistics classified: a conv1d, each channel's sum and minimum
    over time, a linear of each, and a log_softmax (a classifier trained with an NLL loss)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 6, 3, padding=1)
        self.a, self.b = nn.Linear(6, 5), nn.Linear(6, 5)

    def forward(self, x):
        y = self.conv(x)
        return F.log_softmax(self.a(y.sum(-1)) + self.b(y.amin(-1)), -1)


class InPlace(nn.Module):
    """Depthwise layers of stride 1 (3x3, and 5x3 over a 12-channel map: a 48-byte step) and
    2, and pools, whose inputs die at them: planned with overlaps (aot/overlap.py), the
    depthwise layers run in place and the pools over their inputs' dead rows."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 12, 1)
        self.dw1 = nn.Conv2d(12, 12, 3, padding=1, groups=12)
        self.dw2 = nn.Conv2d(12, 12, (5, 3), padding=(2, 1), groups=12)
        self.down = nn.Conv2d(12, 12, 3, stride=2, padding=1, groups=12)
        self.dw3 = nn.Conv2d(12, 12, 3, padding=1, groups=12)
        self.head = nn.Conv2d(12, 5, 1)

    def forward(self, x):
        y = F.relu(self.dw2(F.relu(self.dw1(self.a(x)))))
        y = F.avg_pool2d(F.relu6(self.dw3(F.relu(self.down(y)))), 3, stride=1, padding=1)
        return self.head(F.max_pool2d(y, 2))


INT8_MODELS = {
    "inplace": lambda: (_seeded(InPlace(), 18), *_data((1, 3, 12, 10), 28)),
    "conv_blocks": lambda: (_seeded(ConvBlocks(), 1), *_data((1, 3, 12, 10), 11)),
    "residual": lambda: (_seeded(Residual(), 2), *_data((1, 4, 8, 8), 12)),
    "activations": lambda: (_seeded(Activations(), 3), *_data((1, 3, 8, 8), 13)),
    "movement": lambda: (_seeded(Movement(), 4), *_data((1, 2, 6, 6), 14)),
    "mlp": lambda: (_seeded(MLP(), 5), *_data((2, 3, 12), 15)),
    "conv1d": lambda: (_seeded(Conv1D(), 6), *_data((1, 3, 40), 16)),
    "shuffle": lambda: (_seeded(Shuffle(), 7), *_data((1, 3, 6, 6), 17)),
    "gru": lambda: (_seeded(Recurrent(nn.GRU), 8), *_data((1, 5, 6), 18)),
    "lstm": lambda: (_seeded(Recurrent(nn.LSTM), 9), *_data((1, 5, 6), 19)),
    "decoder": lambda: (_seeded(Decoder(), 10), *_data((1, 3, 4, 5), 20)),
    "decoder1d": lambda: (_seeded(Decoder1D(), 13), *_data((1, 2, 9), 23)),
    "products": lambda: (_seeded(Products(), 11), *_data((2, 4, 6), 21)),
    "attention": lambda: (_seeded(Attention(), 12), *_data((1, 5, 8), 22)),
    "norm": lambda: (_seeded(Norm(), 14), *_data((1, 4, 6), 24)),
    "resize": lambda: (_seeded(Resize(), 15), *_data((1, 3, 5, 4), 25)),
    "reduce": lambda: (_seeded(Reduce(), 16), *_data((1, 3, 6, 5), 26)),
    "stats": lambda: (_seeded(Stats(), 17), *_data((1, 3, 20), 27)),
}


# -- shared by tests/int8 and tests/qemu: each network quantized and lowered once -----

_CACHE: dict = {}


def quantized(name: str):
    """(float model, example inputs, quantized ExportedProgram), once per session."""
    if name not in _CACHE:
        if name in ZOO:
            model, example = ZOO[name]()
            cal = calibration_set(name, 8)
        elif name in INT8_MODELS:
            model, example, cal = INT8_MODELS[name]()
        else:                                   # the models people bring (mobilenet_v2, ...)
            from user_models import USER_MODELS
            model, example, cal = USER_MODELS[name]()
        _CACHE[name] = (model, example, aot.quantize(model, example, cal))
    return _CACHE[name]


def lowered(name: str, int8_io: bool, overlap: bool = False, patches=False):
    """The network lowered, planned with or without outputs over their inputs' dead bytes, its
    first stage patch by patch or not (EdgeCompileConfig.patches)."""
    key = (name, int8_io, overlap) + ((patches,) if patches is not False else ())
    if key not in _CACHE:
        ep = quantized(name)[2]
        config = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(overlap=overlap))
        _CACHE[key] = aot.to_edge(ep, compile_config=EdgeCompileConfig(
            int8_io=int8_io, patches=patches)).to_executorch(config)
    return _CACHE[key]


def host_model(name: str, int8_io: bool):
    key = ("host", name, int8_io)
    if key not in _CACHE:
        _CACHE[key] = aot.host.build(aot.generate_c(lowered(name, int8_io), name=f"q_{name}"))
    return _CACHE[key]


def quantized_randn(manager, example, seed: int = 0) -> list[np.ndarray]:
    """Seeded standard-normal inputs shaped as ``example``, quantized with the int8 I/O
    program's own input qparams."""
    from aot.quantization import arith
    g = manager.lowered().graph
    gen = torch.Generator().manual_seed(seed)
    return [arith.quantize_f32(torch.randn(x.shape, generator=gen).numpy(),
                               *g.tensors[tid].qparams).astype(np.int8)
            for tid, x in zip(g.inputs, example)]


def int8_inputs(name: str, seed: int = 0) -> list[np.ndarray]:
    """Real-valued inputs quantized with the model's own input qparams."""
    return quantized_randn(lowered(name, True), quantized(name)[1], seed)


