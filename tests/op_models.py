"""Op-level models: one small module per op (or op variant) mcu-aot supports.

Shared by every tier: the lowering tests run them through the arena interpreter, the interop
tests through ExecuTorch's runtime, the host tests through the generated C. Each entry is
name -> (module, example inputs); inputs are seeded so failures reproduce.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def _r(*shape, seed=0, lo=-2.0, hi=2.0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.rand(shape, generator=g) * (hi - lo) + lo


class Fn(nn.Module):
    """Wraps a function of the inputs (and optional constant tensors) as a module."""

    def __init__(self, fn, **consts):
        super().__init__()
        self.fn = fn
        for k, v in consts.items():
            self.register_buffer(k, v)

    def forward(self, *xs):
        return self.fn(self, *xs)


def _conv(cin, cout, k, **kw):
    torch.manual_seed(cin * 100 + cout)
    return nn.Conv2d(cin, cout, k, **kw)


def _conv_transpose_pair():
    m = Fn(lambda m, a: (m.up(a), m.up1(a[:, :, 0])))
    m.up = _seeded(nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), 3)
    m.up1 = _seeded(nn.ConvTranspose1d(3, 4, 2, stride=2), 4)
    return m


def _seeded(module, seed=0):
    torch.manual_seed(seed)
    for p in module.parameters():
        with torch.no_grad():
            p.copy_(torch.randn(p.shape) * 0.5)
    return module


class Counter(nn.Module):
    """Adds its input to a registered buffer on every call and returns the running total times
    ``scale``: the state must survive from one call to the next."""

    def __init__(self, shape=(2, 3), start=0.5, scale=2.0):
        super().__init__()
        self.scale = scale
        self.register_buffer("total", torch.full(shape, start))

    def forward(self, x):
        self.total.add_(x)
        return self.total * self.scale


def _bn_unfolded():
    bn = nn.BatchNorm2d(4)
    with torch.no_grad():
        bn.running_mean.copy_(torch.linspace(-1, 1, 4))
        bn.running_var.copy_(torch.linspace(0.5, 2, 4))
        bn.weight.copy_(torch.linspace(0.5, 1.5, 4))
        bn.bias.copy_(torch.linspace(-0.2, 0.2, 4))
    return bn.eval()


OP_MODELS = {
    # convolution
    "conv2d": (_seeded(nn.Conv2d(3, 8, 3)), (_r(1, 3, 10, 12),)),
    "conv2d_stride_pad": (_seeded(nn.Conv2d(3, 8, 3, stride=2, padding=1)), (_r(1, 3, 11, 9),)),
    "conv2d_dilation": (_seeded(nn.Conv2d(4, 6, 3, padding=2, dilation=2)), (_r(1, 4, 9, 9),)),
    "conv2d_groups": (_seeded(nn.Conv2d(4, 8, 3, padding=1, groups=2)), (_r(1, 4, 7, 7),)),
    "conv2d_depthwise": (_seeded(nn.Conv2d(6, 6, 3, padding=1, groups=6, bias=False)),
                         (_r(1, 6, 8, 8),)),
    "conv2d_rect": (_seeded(nn.Conv2d(2, 5, (5, 3), stride=(2, 1), padding=(2, 0))),
                    (_r(1, 2, 12, 7),)),
    "conv1d": (_seeded(nn.Conv1d(3, 5, 3, stride=2, padding=1)), (_r(1, 3, 20),)),
    # matrix products
    "linear": (_seeded(nn.Linear(16, 8)), (_r(2, 16),)),
    "linear_nobias": (_seeded(nn.Linear(16, 8, bias=False)), (_r(3, 16),)),
    "mm": (Fn(lambda m, a, b: a @ b), (_r(4, 6), _r(6, 5, seed=1))),
    "bmm": (Fn(lambda m, a, b: torch.bmm(a, b)), (_r(2, 3, 4), _r(2, 4, 5, seed=1))),
    # binary elementwise
    "add": (Fn(lambda m, a, b: a + b), (_r(2, 3, 4), _r(2, 3, 4, seed=1))),
    "add_broadcast": (Fn(lambda m, a, b: a + b), (_r(2, 3, 4), _r(3, 1, seed=1))),
    "add_alpha": (Fn(lambda m, a, b: torch.add(a, b, alpha=0.5)), (_r(5, 4), _r(4, seed=1))),
    "sub": (Fn(lambda m, a, b: a - b), (_r(2, 1, 4), _r(3, 1, seed=1))),
    "mul": (Fn(lambda m, a, b: a * b), (_r(2, 3, 4), _r(1, 3, 1, seed=1))),
    "div": (Fn(lambda m, a, b: a / b), (_r(3, 4), _r(3, 4, seed=1, lo=0.5, hi=2.0))),
    "add_scalar": (Fn(lambda m, a: a + 1.5), (_r(3, 4),)),
    "mul_scalar": (Fn(lambda m, a: a * 3), (_r(3, 4),)),
    "sub_const": (Fn(lambda m, a: a - m.c, c=torch.linspace(0, 1, 4)), (_r(3, 4),)),
    "maximum": (Fn(lambda m, a, b: torch.maximum(a, b)), (_r(3, 4), _r(3, 4, seed=1))),
    # activations
    "relu": (nn.ReLU(), (_r(2, 8),)),
    "relu6": (nn.ReLU6(), (_r(2, 8, lo=-8, hi=8),)),
    "hardtanh": (nn.Hardtanh(-0.5, 0.75), (_r(2, 8),)),
    "clamp": (Fn(lambda m, a: torch.clamp(a, min=-0.3, max=0.9)), (_r(4, 5),)),
    "clamp_min": (Fn(lambda m, a: torch.clamp(a, min=0.1)), (_r(4, 5),)),
    "sigmoid": (nn.Sigmoid(), (_r(3, 7, lo=-6, hi=6),)),
    "tanh": (nn.Tanh(), (_r(3, 7, lo=-4, hi=4),)),
    "hardswish": (nn.Hardswish(), (_r(3, 7, lo=-4, hi=4),)),
    "hardsigmoid": (nn.Hardsigmoid(), (_r(3, 7, lo=-4, hi=4),)),
    "gelu": (nn.GELU(), (_r(3, 7, lo=-4, hi=4),)),
    "gelu_tanh": (nn.GELU(approximate="tanh"), (_r(3, 7, lo=-4, hi=4),)),
    "silu": (nn.SiLU(), (_r(3, 7, lo=-4, hi=4),)),
    "leaky_relu": (nn.LeakyReLU(0.1), (_r(3, 7),)),
    "logit": (Fn(lambda m, x: (torch.logit(x, eps=1e-3), torch.logit(x.clamp(0.01, 0.99)))),
              (_r(2, 9, lo=-0.1, hi=1.1),)),
    # pooling and reductions
    "max_pool2d": (nn.MaxPool2d(2), (_r(1, 3, 8, 8),)),
    "max_pool2d_pad": (nn.MaxPool2d(3, stride=2, padding=1), (_r(1, 2, 9, 9),)),
    "max_pool2d_ceil": (nn.MaxPool2d(2, ceil_mode=True), (_r(1, 2, 7, 7),)),
    "max_pool1d": (nn.MaxPool1d(3, stride=2), (_r(1, 4, 15),)),
    "avg_pool2d": (nn.AvgPool2d(2), (_r(1, 3, 8, 8),)),
    "avg_pool2d_pad": (nn.AvgPool2d(3, stride=2, padding=1), (_r(1, 2, 9, 9),)),
    "avg_pool2d_nopadcount": (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
                              (_r(1, 2, 9, 9),)),
    "adaptive_avg_pool": (nn.AdaptiveAvgPool2d(1), (_r(1, 5, 6, 6),)),
    "mean_dim": (Fn(lambda m, a: a.mean(dim=(1, 2), keepdim=True)), (_r(2, 3, 4, 5),)),
    "sum_dim": (Fn(lambda m, a: a.sum(dim=-1)), (_r(2, 3, 4),)),
    "amax": (Fn(lambda m, a: a.amax(dim=1)), (_r(2, 6, 3),)),
    # normalization
    "softmax": (nn.Softmax(dim=-1), (_r(3, 10, lo=-5, hi=5),)),
    "softmax_dim1": (nn.Softmax(dim=1), (_r(2, 5, 3, lo=-5, hi=5),)),
    "log_softmax": (nn.LogSoftmax(dim=-1), (_r(3, 10, lo=-5, hi=5),)),
    "layer_norm": (_seeded(nn.LayerNorm(8)), (_r(2, 3, 8),)),
    "layer_norm_2d": (_seeded(nn.LayerNorm((4, 6))), (_r(2, 4, 6),)),
    "batch_norm_unfolded": (_bn_unfolded(), (_r(1, 4, 5, 5),)),
    # data movement
    "cat": (Fn(lambda m, a, b: torch.cat([a, b], dim=1)), (_r(2, 3, 4), _r(2, 2, 4, seed=1))),
    "permute": (Fn(lambda m, a: a.permute(0, 2, 3, 1) * 1.0 + 0.0), (_r(1, 3, 4, 5),)),
    "transpose": (Fn(lambda m, a: a.transpose(0, 1) + 1), (_r(3, 5),)),
    "slice": (Fn(lambda m, a: a[:, 1:5:2] + 1), (_r(3, 8),)),
    "split": (Fn(lambda m, a: [t * 2 for t in torch.split(a, [2, 3, 1], dim=1)]), (_r(2, 6),)),
    "view_flatten": (Fn(lambda m, a: torch.relu(a).flatten(1) * 2), (_r(2, 3, 4),)),
    "squeeze_unsqueeze": (Fn(lambda m, a: torch.relu(a).squeeze(1).unsqueeze(0) + 1),
                          (_r(2, 1, 5),)),
    "expand": (Fn(lambda m, a: a.expand(3, 4, 5) + 0.5), (_r(4, 1),)),
    "pad": (Fn(lambda m, a: F.pad(a, (1, 2, 0, 1), value=0.25)), (_r(1, 2, 4, 4),)),
    "upsample_nearest": (nn.Upsample(scale_factor=2, mode="nearest"), (_r(1, 2, 3, 4),)),
    "embedding": (_seeded(nn.Embedding(10, 4)), (torch.tensor([[1, 3, 9], [0, 0, 5]]),)),
    # unary math and comparisons
    "abs": (Fn(lambda m, a: torch.abs(a)), (_r(3, 4),)),
    "neg": (Fn(lambda m, a: -a), (_r(3, 4),)),
    "exp": (Fn(lambda m, a: torch.exp(a)), (_r(3, 4),)),
    "log": (Fn(lambda m, a: torch.log(a)), (_r(3, 4, lo=0.1, hi=5),)),
    "sqrt": (Fn(lambda m, a: torch.sqrt(a)), (_r(3, 4, lo=0.1, hi=5),)),
    "rsqrt": (Fn(lambda m, a: torch.rsqrt(a)), (_r(3, 4, lo=0.1, hi=5),)),
    "sin_cos": (Fn(lambda m, a: torch.sin(a) * torch.cos(2 * a)), (_r(3, 5, lo=-40, hi=40),)),
    "where_gt": (Fn(lambda m, a, b: torch.where(a > b, a, b * 2)), (_r(3, 4), _r(3, 4, seed=1))),
    "where_scalar_cmp": (Fn(lambda m, a: torch.where(a < 0.5, a, -a)), (_r(3, 4),)),
    "scalar_operands": (Fn(lambda m, a: (1 - a) + 2.0 / a + a ** 2 + (3 > a) * 0.5),
                        (_r(3, 4, lo=0.5, hi=2.0),)),
    "to_dtype": (Fn(lambda m, a: ((a * 10).to(torch.int32), (a > 0).float() * 0.5)),
                 (_r(3, 4),)),
    # -- elementwise math --
    "rounding": (Fn(lambda m, a: (torch.ceil(a), torch.floor(a), torch.trunc(a), torch.round(a),
                                  torch.round(a, decimals=1), torch.sign(a))),
                 (_r(3, 5, lo=-4, hi=4),)),
    "powers": (Fn(lambda m, a, b: (a ** 2.5, torch.pow(a, b), 2.0 ** b, torch.reciprocal(b),
                                   torch.square(b))),
               (_r(3, 4, lo=0.1, hi=3), _r(3, 4, seed=1))),
    "div_modes": (Fn(lambda m, a, b: (torch.div(a, b, rounding_mode="floor"),
                                      torch.div(a, 3, rounding_mode="trunc"), a // 1.5,
                                      torch.remainder(a, b), a % -2, torch.fmod(a, b),
                                      torch.fmod(a, 0.7))),
                  (_r(3, 4, lo=-9, hi=9), _r(3, 4, seed=1, lo=0.5, hi=3))),
    "logs_exps": (Fn(lambda m, a: (torch.log2(a), torch.log10(a), torch.log1p(a),
                                   torch.expm1(a), torch.erf(a))),
                  (_r(3, 5, lo=0.01, hi=6),)),
    "elu_family": (Fn(lambda m, a: (F.elu(a), F.selu(a), F.celu(a, 0.5), F.softplus(a),
                                    F.logsigmoid(a), F.mish(a))), (_r(3, 6, lo=-5, hi=5),)),
    # -- end elementwise math --
    # -- reductions, indexing and scatter --
    "arg_reduce": (Fn(lambda m, a: (a.argmax(), a.argmin(1), a.argmax(-1, keepdim=True),
                                    a.amin(0))), (_r(3, 5, 4),)),
    "index_select_flip": (Fn(lambda m, a, i: (a.index_select(1, i), torch.flip(a, (0, 2)))),
                          (_r(2, 5, 3), torch.tensor([4, 0, 2]))),
    "roll": (Fn(lambda m, a: torch.roll(a, (1, -2), (0, 1))), (_r(3, 5),)),
    "slice_scatter": (Fn(lambda m, a, b: torch.slice_scatter(a, b, 1, 1, 6, 2)),
                      (_r(2, 7), _r(2, 3, seed=1))),
    "advanced_index": (Fn(lambda m, a, i: (a[i, 1:] * 2, a[:, torch.tensor([2, 0])],
                                           torch.index_put(a, (i,), torch.tensor(0.5)),
                                           torch.index_put(a, (i,), a[:2] * 0 + 1,
                                                           accumulate=True))),
                       (_r(4, 3), torch.tensor([3, -4]))),
    "embedding_bag": (Fn(lambda m, i: (F.embedding_bag(i, m.w, torch.tensor([0, 2, 2]),
                                                       mode="mean"),
                                       F.embedding_bag(i, m.w, torch.tensor([0, 3]),
                                                       mode="max")),
                         w=torch.linspace(-1, 1, 18).view(6, 3)),
                      (torch.tensor([5, 1, 0, 2, 2]),)),
    "pad_modes": (Fn(lambda m, a: (F.pad(a, (1, 2, 2, 1), mode="reflect"),
                                   F.pad(a[0], (2, 1), mode="replicate"))), (_r(1, 2, 4, 5),)),
    "median_cumsum_gather": (Fn(lambda m, a, i: (torch.median(a), *torch.median(a, 1),
                                                 torch.cumsum(a, 0), torch.gather(a, 1, i))),
                             (torch.randperm(12, generator=torch.Generator().manual_seed(1))
                              .float().view(3, 4), torch.tensor([[3, 0], [1, 1], [0, 2]]))),
    # -- end reductions, indexing and scatter --
    # -- spatial --
    "upsample_bilinear": (Fn(lambda m, a: (F.interpolate(a, scale_factor=2, mode="bilinear"),
                                           F.interpolate(a, size=(5, 7), mode="bilinear",
                                                         align_corners=True))),
                          (_r(1, 2, 3, 4),)),
    "adaptive_avg_pool": (Fn(lambda m, a: (F.adaptive_avg_pool2d(a, (3, 2)),
                                           F.adaptive_avg_pool1d(a[0], 4))), (_r(1, 2, 5, 7),)),
    "adaptive_max_pool": (Fn(lambda m, a: F.adaptive_max_pool2d(a, (2, 3), return_indices=True)),
                          (_r(1, 2, 5, 7),)),
    "conv_transpose": (_conv_transpose_pair(), (_r(1, 3, 4, 5),)),
    "reflection_pad2d": (nn.ReflectionPad2d((1, 2, 2, 0)), (_r(1, 2, 4, 5),)),
    "reflection_pad1d": (Fn(lambda m, a: F.pad(a, (3, 1), mode="reflect")), (_r(2, 3, 6),)),
    "replication_pad2d": (Fn(lambda m, a: F.pad(a, (2, 1, 0, 3), mode="replicate")),
                          (_r(1, 3, 3, 4),)),
    "replication_pad3d": (nn.ReplicationPad3d((1, 0, 0, 1, 2, 1)), (_r(1, 2, 2, 3, 3),)),
    # -- end spatial --
}


class InPlaceF32(nn.Module):
    """float32 layers that --overlap runs with their output over their input
    (runtime_c/src/conv/conv_in_place.c): a residual block's second 3x3 convolution (the
    peak), depthwise layers of stride 1 and 2, dilated and 1-D, pointwise layers that widen
    and narrow, a max pool (values and indices) and an average pool, with fused and separate
    activations between."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(11)
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.c1 = nn.Conv2d(16, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.dw1 = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.expand = nn.Conv2d(16, 24, 1)
        self.dw2 = nn.Conv2d(24, 24, 3, stride=2, padding=1, groups=24)
        self.project = nn.Conv2d(24, 12, 1, bias=False)
        self.dw3 = nn.Conv2d(12, 12, 5, padding=4, dilation=2, groups=12)
        self.dw1d = nn.Conv1d(12, 12, 3, padding=1, groups=12)
        self.pw1d = nn.Conv1d(12, 6, 1)
        for p in self.parameters():   # varied weights, so that every output channel varies
            p.data = torch.randn(p.shape, generator=g) * 0.3

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(x + self.c2(F.relu(self.c1(x))))
        x = F.relu(self.dw1(x))
        x = F.relu6(self.dw2(F.relu(self.expand(x))))
        x = F.max_pool2d(self.dw3(self.project(x)), 3, stride=1, padding=1)
        x = F.avg_pool2d(x, 3, stride=1, padding=1)
        x = self.dw1d(x.flatten(2))
        return self.pw1d(F.relu(x))


IN_PLACE_F32 = (InPlaceF32().eval(), (_r(1, 3, 20, 20, seed=4),))


class HeldF32(nn.Module):
    """A float32 stem of stride 2 at the network's peak, which --overlap runs with its output
    over its input, its rows held back until the input under them is dead
    (runtime_c/src/conv/conv_in_place.c's rt_conv2d_held_f32), then a window of unequal
    strides and padding after it."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(12)
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.down = nn.Conv2d(8, 5, (3, 5), stride=(2, 3), padding=(1, 2))
        for p in self.parameters():
            p.data = torch.randn(p.shape, generator=g) * 0.3

    def forward(self, x):
        return F.avg_pool2d(self.down(F.relu(self.stem(x))), 2)


HELD_F32 = (HeldF32().eval(), (_r(1, 3, 24, 30, seed=5),))

# The float32 models of the layers --overlap runs over their inputs, by name (the host, the
# interpreter and every board run them against their plain plans).
OVERLAP_F32 = {"inplace_f32": IN_PLACE_F32, "held_f32": HELD_F32}
