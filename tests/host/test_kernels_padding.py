"""The padding-mode kernels (reflect, replicate) against eager PyTorch, for every element size,
plus the error statuses for shapes and parameters that contradict each other."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import kernel_harness
from kernel_harness import KernelError

aten = torch.ops.aten
RTOL, ATOL = 1e-5, 1e-6
RT_ERR_NULL, RT_ERR_RANK, RT_ERR_SHAPE, RT_ERR_PARAM = 1, 2, 3, 4


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


def randn(*shape, seed=0, scale=1.0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale, np.float32)


def with_specials(x: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1)
    sp = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e30]
    flat[:len(sp)] = sp[:flat.size]
    return x


def T(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(a)


def close(got: np.ndarray, want) -> None:
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def status_of(fn) -> int:
    with pytest.raises(KernelError) as e:
        fn()
    return e.value.status


# ------------------------------------------------------------- padding modes -----

def _before(rank: int, pad) -> list[int]:
    before = [0] * rank
    for i in range(len(pad) // 2):
        before[rank - 1 - i] = pad[2 * i]
    return before


PAD_CASES = [
    ((2, 3, 7), (2, 3)), ((3, 6), (1, 0)), ((2, 8), (-2, 3)), ((1, 2, 5, 6), (1, 2, 3, 0)),
    ((3, 4, 4), (3, 3, 3, 3)), ((1, 2, 6, 5), (2, -1, -2, 1)), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2)),
    ((2, 4, 3, 3), (2, 1, 1, 2, 3, 0)), ((2, 1), (0, 0)), ((0, 3, 4), (1, 1)), ((4, 5), (4, 4)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", PAD_CASES, ids=str)
def test_pad_modes(rt, shape, pad, mode, dtype):
    x = randn(*shape, seed=1, scale=20)
    x = with_specials(x) if dtype == np.float32 else (x.astype(dtype))
    want = F.pad(T(x.astype(np.float32) if dtype == np.uint8 else x), pad, mode=mode)
    want = want.numpy().astype(dtype)
    out = rt.empty(want.shape, dtype)
    fn = "rt_reflection_pad" if mode == "reflect" else "rt_replication_pad"
    rt.call(fn, np.dtype(dtype).itemsize, rt.int32s(_before(x.ndim, pad)), x, out)
    close(out, want)


def test_replicate_from_width_one(rt):
    x = randn(2, 3, 1, seed=2)
    out = rt.empty((2, 3, 6))
    rt.call("rt_replication_pad", 4, rt.int32s([0, 0, 3]), x, out)
    close(out, F.pad(T(x), (3, 2), mode="replicate"))


def test_pad_modes_errors(rt):
    x = randn(2, 5)
    out = rt.empty((2, 10))
    b = rt.int32s([0, 5])
    # padding as large as the dim cannot reflect (torch refuses it too); replicate can
    assert status_of(lambda: rt.call("rt_reflection_pad", 4, b, x, out)) == RT_ERR_SHAPE
    rt.call("rt_replication_pad", 4, b, x, out)
    assert status_of(lambda: rt.call("rt_reflection_pad", 3, rt.int32s([0, 1]), x,
                                     rt.empty((2, 7)))) == RT_ERR_PARAM
    assert status_of(lambda: rt.call("rt_replication_pad", 4, rt.int32s([0, 1]), x,
                                     rt.empty((2, 7, 1)))) == RT_ERR_RANK
    assert status_of(lambda: rt.call("rt_reflection_pad", 4, rt.int32s([0, 0]), x,
                                     rt.empty((2, 20)))) == RT_ERR_SHAPE
    assert status_of(lambda: rt.call("rt_replication_pad", 4, rt.int32s([0, 1]),
                                     np.zeros((2, 0), np.float32),
                                     rt.empty((2, 2)))) == RT_ERR_SHAPE
    assert status_of(lambda: rt.call("rt_replication_pad", 4, rt.ffi.NULL, x,
                                     rt.empty((2, 7)))) == RT_ERR_NULL
