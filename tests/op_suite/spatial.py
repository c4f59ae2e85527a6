"""Cases for resampling, adaptive pooling and transposed convolution: bilinear resizing
(align_corners both ways, scale factors and sizes, down and up), adaptive average and max
pooling to any output size (1-D and 2-D, sizes that do not divide the input, larger outputs),
conv_transpose1d/2d (stride, padding, output_padding, dilation, groups, bias)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .common import Case, case, edge, rand

CASES: list[Case] = []
add = CASES.append

# -- bilinear ---------------------------------------------------------------------------------------
for _ac in (False, True):
    _t = "ac" if _ac else "half_pixel"
    add(case(f"bilinear_x2_{_t}", lambda x, a=_ac: F.interpolate(
        x, scale_factor=2, mode="bilinear", align_corners=a), rand(1, 2, 3, 4)))
    add(case(f"bilinear_x1p5_{_t}", lambda x, a=_ac: F.interpolate(
        x, scale_factor=(1.5, 0.75), mode="bilinear", align_corners=a), rand(2, 1, 6, 8)))
    add(case(f"bilinear_size_{_t}", lambda x, a=_ac: F.interpolate(
        x, size=(7, 3), mode="bilinear", align_corners=a), rand(1, 3, 5, 5)))
    add(case(f"bilinear_down_{_t}", lambda x, a=_ac: F.interpolate(
        x, size=(2, 3), mode="bilinear", align_corners=a), rand(1, 2, 9, 7)))
    add(case(f"bilinear_to_1_{_t}", lambda x, a=_ac: F.interpolate(
        x, size=(1, 4), mode="bilinear", align_corners=a), rand(1, 1, 3, 2)))
add(case("bilinear_upsample_module", nn.UpsamplingBilinear2d(scale_factor=3), rand(1, 2, 2, 3)))
add(case("bilinear_edges", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
         edge(1, 1, 3, 4)))

# -- adaptive pooling -------------------------------------------------------------------------------
for _in, _out in (((6, 8), (3, 4)), ((5, 7), (3, 2)), ((4, 4), (1, 1)), ((3, 5), (6, 7)),
                  ((7, 7), (7, 7))):
    _t = f"{_in[0]}x{_in[1]}_to_{_out[0]}x{_out[1]}"
    add(case(f"adaptive_avg_{_t}", lambda x, o=_out: F.adaptive_avg_pool2d(x, o),
             rand(2, 3, *_in)))
    add(case(f"adaptive_max_{_t}", lambda x, o=_out: F.adaptive_max_pool2d(x, o),
             rand(2, 3, *_in)))
    add(case(f"adaptive_max_indices_{_t}", lambda x, o=_out: F.adaptive_max_pool2d(
        x, o, return_indices=True), rand(1, 2, *_in)))
add(case("adaptive_avg_3d_input", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), rand(4, 5, 7)))
add(case("adaptive_avg_none", lambda x: F.adaptive_avg_pool2d(x, (None, 2)), rand(1, 2, 5, 6)))
add(case("adaptive_avg_1d", lambda x: F.adaptive_avg_pool1d(x, 4), rand(2, 3, 10)))
add(case("adaptive_max_1d", lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True),
         rand(2, 3, 7)))
add(case("adaptive_max_ties", lambda x: F.adaptive_max_pool2d(x, 2, return_indices=True),
         torch.tensor([[[[1.0, 1.0, 0.0, 2.0], [1.0, 0.0, 2.0, 2.0], [3.0, 3.0, 5.0, 5.0],
                         [3.0, 3.0, 5.0, 5.0]]]])))
add(case("adaptive_avg_edges", lambda x: F.adaptive_avg_pool2d(x, 2), edge(1, 1, 4, 6)))


# -- transposed convolution -------------------------------------------------------------------------
def _seeded(module: nn.Module, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape) * 0.5)
    return module.eval()


_CONVT = {
    "conv_transpose2d": (nn.ConvTranspose2d(3, 4, 3), (1, 3, 5, 4)),
    "conv_transpose2d_stride": (nn.ConvTranspose2d(2, 3, (3, 2), stride=2, padding=1,
                                                   output_padding=1), (2, 2, 4, 5)),
    "conv_transpose2d_groups": (nn.ConvTranspose2d(4, 6, 3, stride=(1, 2), groups=2,
                                                   bias=False), (1, 4, 3, 3)),
    "conv_transpose2d_dilation": (nn.ConvTranspose2d(2, 2, 3, dilation=2, padding=2),
                                  (1, 2, 4, 4)),
    "conv_transpose2d_depthwise": (nn.ConvTranspose2d(3, 3, 4, stride=2, padding=1,
                                                      groups=3), (1, 3, 4, 4)),
    "conv_transpose1d": (nn.ConvTranspose1d(3, 2, 5, stride=3, padding=2, output_padding=2),
                         (2, 3, 6)),
    "conv_transpose1d_k1": (nn.ConvTranspose1d(4, 5, 1), (1, 4, 7)),
}
for _i, (_name, (_m, _shape)) in enumerate(_CONVT.items()):
    add(case(_name, _seeded(_m, _i), rand(*_shape), rtol=1e-5, atol=1e-5))
