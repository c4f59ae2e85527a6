"""Cases for reductions to indices, and data movement by index: amin, argmax, argmin,
index_select, flip, slice_scatter, advanced indexing (index.Tensor) and index_put, and the
models that lower to them (embedding_bag, roll, reflect and replicate padding)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .common import Case, case, edge, ints, rand

CASES: list[Case] = []
add = CASES.append

# -- reductions -----------------------------------------------------------------------------------
for _dim, _keep in ((None, False), (0, False), (-1, True), (1, False)):
    _tag = f"dim{_dim}".replace("-", "neg") + ("_keep" if _keep else "")
    for _name in ("argmax", "argmin"):
        add(case(f"{_name}_{_tag}", lambda x, n=_name, d=_dim, k=_keep:
                 getattr(torch, n)(x, dim=d, keepdim=k), rand(3, 5, 4)))
    if _dim is not None:
        add(case(f"amin_{_tag}", lambda x, d=_dim, k=_keep: x.amin(d, keepdim=k),
                 edge(3, 5, 4)))
add(case("amin_all", lambda x: x.amin(), edge(4, 6)))
add(case("amin_dims", lambda x: x.amin((0, 2)), rand(3, 5, 4)))
# Ties (the first wins) and NaN (the first NaN wins), along dims and flattened.
_TIES = torch.tensor([[1.0, 3.0, 3.0, -2.0], [-2.0, -2.0, 0.0, 5.0], [float("nan"), 1.0,
                                                                       float("nan"), 9.0]])
for _name in ("argmax", "argmin"):
    add(case(f"{_name}_ties_nan", lambda x, n=_name: (getattr(torch, n)(x, 1),
                                                      getattr(torch, n)(x, 0)), _TIES))
    add(case(f"{_name}_flat_nan", lambda x, n=_name: getattr(torch, n)(x), _TIES))
    add(case(f"{_name}_ties", lambda x, n=_name: getattr(torch, n)(x[:2], 1), _TIES))

# -- index_select, flip, slice_scatter --------------------------------------------------------------
for _dim in (0, 1, -1):
    add(case(f"index_select_dim{_dim}".replace("-", "neg"),
             lambda x, i, d=_dim: torch.index_select(x, d, i), rand(4, 5, 3),
             torch.tensor([2, 0, 2])))
add(case("index_select_int32", lambda x, i: torch.index_select(x, 1, i), rand(2, 6),
         torch.tensor([5, 1], dtype=torch.int32)))
add(case("index_select_int64_data", lambda x, i: torch.index_select(x, 0, i),
         ints(5, 3, lo=-100, hi=100), torch.tensor([4, 4, 0])))
add(case("index_select_const_index", lambda x: x.index_select(0, torch.tensor([1, 0])),
         rand(2, 3)))
for _dims in ((0,), (-1,), (0, 2), (1, 2, 3)):
    add(case(f"flip_{'_'.join(map(str, _dims))}".replace("-", "neg"),
             lambda x, d=_dims: torch.flip(x, d) * 1, rand(2, 3, 4, 2)))
add(case("flip_bool", lambda x: torch.flip(x > 0, (1,)), rand(3, 4)))
add(case("roll", lambda x: torch.roll(x, 2, -1) + 0, rand(2, 7)))
for _dim, _s, _e, _st in ((0, 1, 3, 1), (1, None, None, 2), (2, -3, None, 1), (1, 0, -1, 3),
                          (2, 2, 100, 2)):
    add(case(f"slice_scatter_{_dim}_{_s}_{_e}_{_st}".replace("-", "neg"),
             lambda x, d=_dim, s=_s, e=_e, st=_st: torch.slice_scatter(
                 x, _src_for(x, d, s, e, st), d, s, e, st), rand(4, 6, 5)))


def _src_for(x, d, s, e, st):
    return x[(slice(None),) * d + (slice(s, e, st),)] * -2 + 1


def _put_apart(x, v, accumulate):
    """x[i, :, j] = v (or +=): index tensors with a whole dim between them."""
    y = x.clone()
    i, j = torch.tensor([1, 0]), torch.tensor([2, 2])
    if accumulate:
        y[i, :, j] += v
    else:
        y[i, :, j] = v
    return y


# -- advanced indexing ------------------------------------------------------------------------------
_I = torch.tensor([[0, 2], [3, -1]])
add(case("index_one_leading", lambda x: x[torch.tensor([2, 0, -1])] * 1, rand(4, 3, 2)))
add(case("index_two_adjacent", lambda x: x[:, _I, torch.tensor([1, 0])] * 1, rand(2, 4, 3)))
add(case("index_apart", lambda x: x[torch.tensor([1, 0]), :, torch.tensor([2])] * 1,
         rand(2, 4, 3)))
add(case("index_inner", lambda x: x[:, :, torch.tensor([3, 3, 0])] * 1, rand(2, 3, 4)))
add(case("index_runtime_indices", lambda x, i: x[i, 1:] * 1, rand(5, 3),
         torch.tensor([[4, -5], [0, 2]])))
add(case("index_int32", lambda x, i: x[:, i] * 1, rand(3, 5),
         torch.tensor([4, 0, 1], dtype=torch.int32)))
add(case("index_int64_data", lambda x: x[torch.tensor([1, 0, 1])], ints(3, 4)))
for _acc in (False, True):
    _tag = "acc" if _acc else "set"
    add(case(f"index_put_{_tag}", lambda x, v, a=_acc: torch.index_put(
        x, (torch.tensor([0, 2, 0]),), v, accumulate=a), rand(3, 4), rand(3, 4, seed=1)))
    add(case(f"index_put_bcast_{_tag}", lambda x, a=_acc: torch.index_put(
        x, (torch.tensor([1, -1]), torch.tensor([0])), torch.tensor(7.5), accumulate=a),
        rand(3, 4, 2)))
    add(case(f"index_put_apart_{_tag}", lambda x, v, a=_acc: _put_apart(x, v, a),
             rand(2, 3, 4), rand(3, seed=2)))
add(case("index_put_int64", lambda x: torch.index_put(x, (torch.tensor([1]),),
                                                      torch.tensor(-9)), ints(3, 2)))

# -- models that lower to these ops ----------------------------------------------------------------
for _mode in ("sum", "mean", "max"):
    _bag = torch.nn.EmbeddingBag(10, 3, mode=_mode)
    with torch.no_grad():
        _bag.weight.copy_(torch.linspace(-2, 2, 30).view(10, 3))
    add(case(f"embedding_bag_{_mode}", lambda i, b=_bag: b(i, torch.tensor([0, 2, 2, 5])),
             torch.tensor([1, 9, 4, 5, 4, 3, 0])))
    add(case(f"embedding_bag_2d_{_mode}", lambda i, b=_bag: b(i), torch.tensor([[1, 2],
                                                                                 [7, 7]])))
for _mode in ("reflect", "replicate"):
    add(case(f"pad_{_mode}_1d", lambda x, m=_mode: F.pad(x, (2, 1), mode=m), rand(2, 3, 5)))
    add(case(f"pad_{_mode}_2d", lambda x, m=_mode: F.pad(x, (1, 2, 2, 0), mode=m),
             rand(1, 2, 4, 5)))
_bag = torch.nn.EmbeddingBag(10, 3, mode="mean", padding_idx=4)
add(case("embedding_bag_padding_idx", lambda i, b=_bag: b(i, torch.tensor([0, 3])),
         torch.tensor([4, 1, 4, 4, 2])))
add(case("embedding_bag_weights", lambda i, w: F.embedding_bag(
    i, torch.linspace(-1, 1, 12).view(4, 3), torch.tensor([0, 1]), mode="sum",
    per_sample_weights=w), torch.tensor([3, 0, 2]), rand(3)))
for _mode in ("sum", "mean", "max"):
    for _offsets in ([0, 2, 2, 3], [0, 4], [0, 3, 3, 6]):
        add(case(f"embedding_bag_last_offset_{_mode}_{'_'.join(map(str, _offsets))}",
                 lambda i, m=_mode, o=_offsets:
                 F.embedding_bag(i, torch.linspace(-1, 1, 30).view(10, 3), torch.tensor(o),
                                 mode=m, include_last_offset=True),
                 torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])))
add(case("pad_circular_2d", lambda x: F.pad(x, (1, 1, 2, 0), mode="circular"), rand(1, 2, 4, 5)))

# -- median, cumsum, gather -------------------------------------------------------------------------
# Distinct values: torch names an unspecified one of several equal medians, so ties are checked
# on values alone (median_ties).
_DISTINCT = torch.randperm(60, generator=torch.Generator().manual_seed(5)).float().view(3, 4, 5)
add(case("median_all", torch.median, _DISTINCT))
add(case("median_all_even", torch.median, _DISTINCT[:, :2]))
for _dim, _keep in ((0, False), (-1, True), (1, False)):
    add(case(f"median_dim{_dim}{'_keep' if _keep else ''}".replace("-", "neg"),
             lambda x, d=_dim, k=_keep: tuple(torch.median(x, d, keepdim=k)), _DISTINCT))
add(case("median_named_tuple", lambda x: torch.median(x, 0), _DISTINCT))
add(case("median_ties", lambda x: torch.median(x, 1).values,
         torch.tensor([[3.0, 1, 3, 2, 3, 1, 1], [5, 5, 5, 5, 5, 5, 5]])))
add(case("median_nan", lambda x: (*torch.median(x, 1), torch.median(x)),
         torch.tensor([[1.0, float("nan"), 2.0, 0.0], [4.0, 3.0, 2.0, 1.0]])))
for _dim in (0, -1, 1):
    add(case(f"cumsum_dim{_dim}".replace("-", "neg"), lambda x, d=_dim: torch.cumsum(x, d),
             rand(3, 40, 4), rtol=1e-5, atol=1e-5))
add(case("cumsum_edges", lambda x: torch.cumsum(x, 0), edge(11)))
add(case("cumsum_scalar", lambda x: torch.cumsum(x, 0), rand()))
for _dim in (0, 1, -1):
    add(case(f"gather_dim{_dim}".replace("-", "neg"), lambda x, i, d=_dim: torch.gather(x, d, i),
             rand(3, 4, 5), ints(2, 3, 4, lo=0, hi=3)))
add(case("gather_int32_data", lambda x, i: torch.gather(x, 1, i), ints(3, 4, lo=-9, hi=9),
         ints(3, 2, lo=0, hi=4)))
add(case("mean_dtype_of_int64", lambda x: (torch.mean(x, 1, dtype=torch.float32),
                                           torch.mean(x, dtype=torch.float32)),
         ints(5, 10)))
