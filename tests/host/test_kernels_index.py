"""The index kernels against eager PyTorch: amin, argmax, argmin, index_select, flip,
slice_scatter, index (advanced indexing) and index_put; out-of-range indices are refused with
RT_ERR_INDEX, never read or written."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import kernel_harness
from kernel_harness import KernelError

I64, I32 = 4, 3   # rt_dtype codes of the index dtypes


@pytest.fixture(scope="module")
def rt():
    return kernel_harness.load()


def rand(*shape, seed=0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape), np.float32)


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def mask(dims, rank):
    m = 0
    for d in dims:
        m |= 1 << (d % rank)
    return m


@pytest.mark.parametrize("dims", [(0,), (1,), (2,), (0, 2), (0, 1, 2)], ids=str)
def test_amin(rt, dims):
    x = rand(3, 4, 5)
    x[1, 2, 3] = np.nan
    ref = T(x).amin(dims)
    out = rt.empty(tuple(ref.shape))
    rt.call("rt_amin_f32", mask(dims, 3), x, out)
    np.testing.assert_array_equal(out, ref.numpy())


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_arg_reduce(rt, op, dim):
    x = np.round(rand(4, 6, 3) * 2).astype(np.float32)     # ties
    x[2, 3, 1] = x[0, 5, 2] = np.nan
    ref = getattr(torch, op)(T(x), dim=dim)
    out = rt.empty(tuple(ref.shape), np.int64)
    rt.call(f"rt_{op}_f32", mask([dim] if dim is not None else (0, 1, 2), 3), x, out)
    np.testing.assert_array_equal(out, ref.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(rt, dtype, dim):
    x = (rand(4, 5, 3) * 10).astype(dtype)
    idx = np.array([2, 0, 0, 1], np.int64)
    ref = torch.index_select(T(x), dim, T(idx))
    out = rt.empty(tuple(ref.shape), dtype)
    rt.call("rt_index_select", x.itemsize, dim, I64, x, idx, out)
    np.testing.assert_array_equal(out, ref.numpy())


def test_index_select_refuses_out_of_range(rt):
    x = rand(3, 2)
    for bad in ([3], [-1]):
        with pytest.raises(KernelError, match="RT_ERR_INDEX"):
            rt.call("rt_index_select", 4, 0, I32, x, np.array(bad, np.int32), rt.empty((1, 2)))


@pytest.mark.parametrize("dims", [(0,), (2,), (0, 1), (0, 1, 2, 3), ()], ids=str)
def test_flip(rt, dims):
    x = rand(2, 3, 4, 2)
    out = rt.empty(x.shape)
    rt.call("rt_flip", 4, mask(dims, 4), x, out)
    np.testing.assert_array_equal(out, torch.flip(T(x), dims).numpy())


@pytest.mark.parametrize("dim,start,end,step", [(0, 1, 3, 1), (1, 0, 6, 2), (2, 4, 5, 1),
                                                (1, 5, 6, 3), (2, 0, 0, 1)])
@pytest.mark.parametrize("in_place", [False, True])
def test_slice_scatter(rt, dim, start, end, step, in_place):
    x = rand(3, 6, 5)
    view = T(x)[(slice(None),) * dim + (slice(start, end, step),)]
    src = rand(*view.shape, seed=1)
    ref = torch.slice_scatter(T(x), T(src), dim, start, end, step)
    out = x if in_place else rt.empty(x.shape)
    rt.call("rt_slice_scatter", 4, dim, start, step, x, src, out)
    np.testing.assert_array_equal(out, ref.numpy())


def test_slice_scatter_refuses_a_slice_past_the_end(rt):
    x, src = rand(3, 4), rand(3, 2)
    with pytest.raises(KernelError, match="RT_ERR_PARAM"):
        rt.call("rt_slice_scatter", 4, 1, 3, 1, x, src, rt.empty(x.shape))


def _index_args(rt, x, indices):
    """rt_index_params, shapes and pointers for a list of index arrays (None: whole dim)."""
    given = [i for i, t in enumerate(indices) if t is not None]
    adjacent = given == list(range(given[0], given[-1] + 1))
    codes = [(I64 if t.dtype == np.int64 else I32) if t is not None else -1 for t in indices]
    p = rt.params("rt_index_params", elem_size=x.itemsize, n_idx=len(indices),
                  index_dtype=rt.int32s(codes), bcast_pos=given[0] if adjacent else 0)
    shapes = rt.ffi.new("rt_shape[]", len(indices))
    for i, t in enumerate(indices):
        if t is not None:
            shapes[i] = rt.shape(t.shape)[0]
    ptrs = rt.ffi.new("void *[]", [rt.ffi.from_buffer(t) if t is not None else rt.ffi.NULL
                                   for t in indices])
    return p, shapes, ptrs


def _torch_key(indices):
    return tuple(T(t) if t is not None else slice(None) for t in indices)


INDEXINGS = {
    "leading": [np.array([1, 0, -1])],
    "adjacent": [None, np.array([[0, 2], [3, -1]]), np.array([1, 0])],
    "apart": [np.array([1, 0]), None, np.array([2])],
    "inner_int32": [None, None, np.array([2, 2, 0], np.int32)],
    "all_dims": [np.array([1]), np.array([[3], [0]]), np.array([0, 1, 2])],
}


@pytest.mark.parametrize("name", INDEXINGS)
def test_index(rt, name):
    x = rand(2, 4, 3)
    indices = INDEXINGS[name]
    ref = T(x)[_torch_key(indices)]
    out = rt.empty(tuple(ref.shape))
    p, shapes, ptrs = _index_args(rt, x, indices)
    rt.call("rt_index", p, x, shapes, ptrs, out)
    np.testing.assert_array_equal(out, ref.numpy())


@pytest.mark.parametrize("name", INDEXINGS)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(rt, name, accumulate):
    x = rand(2, 4, 3)
    indices = INDEXINGS[name]
    shape = T(x)[_torch_key(indices)].shape
    values = rand(*shape[1:], seed=3)                 # broadcast over the first result dim
    key = tuple(t if t is not None else slice(None) for t in indices)
    ref = x.copy()
    if accumulate:
        np.add.at(ref, key, values)        # repeated indices add up
    else:
        ref[key] = values                  # numpy indexes as torch does
    out = rt.empty(x.shape)
    p, shapes, ptrs = _index_args(rt, x, indices)
    rt.call("rt_index_put", p, int(accumulate), x, shapes, ptrs, values, out)
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_index_put_accumulates_repeats(rt):
    x = np.zeros(4, np.float32)
    idx = [np.array([1, 1, 3, 1])]
    values = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    p, shapes, ptrs = _index_args(rt, x, idx)
    rt.call("rt_index_put", p, 1, x, shapes, ptrs, values, x)
    np.testing.assert_array_equal(x, [0.0, 11.0, 0.0, 4.0])


@pytest.mark.parametrize("kernel", ["rt_index", "rt_index_put"])
def test_index_refuses_out_of_range(rt, kernel):
    x = rand(3, 2)
    for bad in (np.array([0, 3]), np.array([-4, 0])):
        p, shapes, ptrs = _index_args(rt, x, [bad])
        before = x.copy()
        with pytest.raises(KernelError, match="RT_ERR_INDEX"):
            if kernel == "rt_index":
                rt.call(kernel, p, x, shapes, ptrs, rt.empty((2, 2)))
            else:
                rt.call(kernel, p, 0, x, shapes, ptrs, np.zeros(2, np.float32),
                        rt.empty((3, 2)))
        np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dim", [None, 0, 1, 2])
def test_median(rt, dim):
    x = np.random.default_rng(4).permutation(60).astype(np.float32).reshape(3, 4, 5)
    x[2, 1, 3] = np.nan
    dims = (0, 1, 2) if dim is None else (dim,)
    if dim is None:
        ref, out = torch.median(T(x)), rt.empty(())
        rt.call("rt_median_f32", mask(dims, 3), x, out, None)
        np.testing.assert_array_equal(out, ref.numpy())
        return
    values, indices = torch.median(T(x), dim)
    out, idx = rt.empty(tuple(values.shape)), rt.empty(tuple(values.shape), np.int64)
    rt.call("rt_median_f32", mask(dims, 3), x, out, idx)
    np.testing.assert_array_equal(out, values.numpy())
    np.testing.assert_array_equal(idx, indices.numpy())   # distinct values: one answer


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(rt, dim):
    x = rand(5, 300, 3) * 100
    out = rt.empty(x.shape)
    rt.call("rt_cumsum_f32", dim, x, out)
    ref = torch.cumsum(T(x).double(), dim)                   # torch sums in double
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather(rt, dim):
    x = rand(3, 4, 5)
    idx = np.random.default_rng(2).integers(0, x.shape[dim], (2, 3, 4)).astype(np.int64)
    ref = torch.gather(T(x), dim, T(idx))
    out = rt.empty(tuple(ref.shape))
    rt.call("rt_gather", 4, dim, I64, x, idx, out)
    np.testing.assert_array_equal(out, ref.numpy())


def test_gather_refuses_out_of_range(rt):
    for bad in (3, -1):
        with pytest.raises(KernelError, match="RT_ERR_INDEX"):
            rt.call("rt_gather", 4, 0, I64, rand(3, 2), np.array([[bad, 0]], np.int64),
                    rt.empty((1, 2)))
