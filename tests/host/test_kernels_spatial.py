"""The spatial kernels against eager PyTorch: bilinear resizing, adaptive average and max
pooling, transposed convolution; bad geometry is refused with a status."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import kernel_harness
from kernel_harness import KernelError

RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


def rand(*shape, seed=0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape), np.float32)


def T(a):
    return torch.from_numpy(a)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,scale", [((8, 10), None), ((7, 3), None), ((1, 1), None),
                                        ((6, 7), (1.5, 1.75)), ((2, 2), (0.5, 0.4))])
def test_upsample_bilinear2d(rt, align, size, scale):
    x = rand(2, 3, 4, 5)
    if scale is not None:
        ref = F.interpolate(T(x), scale_factor=scale, mode="bilinear", align_corners=align)
        sh, sw = 1.0 / scale[0], 1.0 / scale[1]
    else:
        ref = F.interpolate(T(x), size=size, mode="bilinear", align_corners=align)
        sh = sw = 0.0
    out = rt.empty(tuple(ref.shape))
    rt.call("rt_upsample_bilinear2d_f32", int(align), sh, sw, x, out)
    np.testing.assert_allclose(out, ref.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ins,outs", [((6, 8), (3, 4)), ((5, 7), (3, 2)), ((3, 5), (6, 7)),
                                      ((4, 4), (1, 1)), ((1, 9), (1, 4))])
def test_adaptive_pools(rt, ins, outs):
    x = rand(2, 3, *ins)
    x[0, 0, 0, 0] = np.nan
    out = rt.empty((2, 3, *outs))
    rt.call("rt_adaptive_avg_pool2d_f32", x, out)
    np.testing.assert_allclose(out, F.adaptive_avg_pool2d(T(x), outs).numpy(), rtol=RTOL,
                               atol=ATOL)
    values, idx = F.adaptive_max_pool2d(T(x), outs, return_indices=True)
    out, ind = rt.empty((2, 3, *outs)), rt.empty((2, 3, *outs), np.int64)
    rt.call("rt_adaptive_max_pool2d_f32", x, out, ind)
    np.testing.assert_array_equal(out, values.numpy())
    np.testing.assert_array_equal(ind, idx.numpy())


def test_adaptive_pool_refuses_mismatched_planes(rt):
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call("rt_adaptive_avg_pool2d_f32", rand(2, 3, 4, 4), rt.empty((2, 2, 2, 2)))


CONVT = [  # (cin, cout, k, stride, pad, out_pad, dilation, groups, bias, in spatial)
    (3, 4, (3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1, True, (5, 4)),
    (2, 3, (3, 2), (2, 2), (1, 1), (1, 1), (1, 1), 1, True, (4, 5)),
    (4, 6, (3, 3), (1, 2), (0, 1), (0, 1), (1, 1), 2, False, (3, 3)),
    (2, 2, (3, 3), (1, 1), (2, 2), (0, 0), (2, 2), 1, True, (4, 4)),
    (3, 3, (4, 4), (2, 2), (1, 1), (0, 0), (1, 1), 3, True, (4, 4)),
]


@pytest.mark.parametrize("cfg", CONVT, ids=str)
def test_conv_transpose2d(rt, cfg):
    cin, cout, k, s, p, op, d, g, bias, hw = cfg
    x, w = rand(2, cin, *hw), rand(cin, cout // g, *k, seed=1)
    b = rand(cout, seed=2) if bias else None
    ref = F.conv_transpose2d(T(x), T(w), T(b) if bias else None, s, p, op, g, d)
    out = rt.empty(tuple(ref.shape))
    params = rt.params("rt_conv_transpose2d_params", stride_h=s[0], stride_w=s[1], pad_h=p[0],
                       pad_w=p[1], out_pad_h=op[0], out_pad_w=op[1], dilation_h=d[0],
                       dilation_w=d[1], groups=g)
    rt.call("rt_conv_transpose2d_f32", params, x, w, b, out)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_transpose1d(rt):
    x, w, b = rand(2, 3, 6), rand(3, 2, 5, seed=1), rand(2, seed=2)
    ref = F.conv_transpose1d(T(x), T(w), T(b), stride=3, padding=2, output_padding=2)
    out = rt.empty(tuple(ref.shape))
    params = rt.params("rt_conv_transpose2d_params", stride_h=1, stride_w=3, pad_h=0, pad_w=2,
                       out_pad_h=0, out_pad_w=2, dilation_h=1, dilation_w=1, groups=1)
    rt.call("rt_conv_transpose2d_f32", params, x, w, b, out)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_transpose_refuses_a_wrong_output_size(rt):
    x, w = rand(1, 2, 3, 3), rand(2, 2, 3, 3)
    params = rt.params("rt_conv_transpose2d_params", stride_h=1, stride_w=1, pad_h=0, pad_w=0,
                       out_pad_h=0, out_pad_w=0, dilation_h=1, dilation_w=1, groups=1)
    with pytest.raises(KernelError, match="RT_ERR_SHAPE"):
        rt.call("rt_conv_transpose2d_f32", params, x, w, None, rt.empty((1, 2, 6, 5)))
