"""The op table's logic and creation ops: their calls into runtime_c, declared once
(aot/opspec.py). ExecuTorch's to_edge leaves them in the programs it writes (attention masks,
logsigmoid, embedding_bag, where with numbers); mcu-aot folds them into constants first.
"""
from __future__ import annotations

import math

import torch

from .opspec import (INVALID, AllDims, Call, CallSpec, DimMask, Fn, Lit, Number, Out,
                     Require, Tensor)

aten = torch.ops.aten

_x = Tensor("self", dtype=None)
_mask_out = Out("out", "bool")
_out = Out("out", dtype=None)

ARANGE_MAX = 1 << 20        # rt_kernels.h's RT_ARANGE_MAX


def _any(mask) -> CallSpec:
    """any: whether an element over the dims in ``mask`` is nonzero, for input of any dtype."""
    return CallSpec(Call("rt_any", _x.dtype_code, mask, _x, _mask_out))


def _full(value) -> CallSpec:
    """One value everywhere, converted to out's dtype (rt_full)."""
    return CallSpec(Call("rt_full", _out.dtype_code, value, _out))


def arange_numel(start: float, end: float, step: float) -> int:
    """rt_arange_numel: how many values torch.arange(start, end, step) has, or -1 where torch
    refuses the arguments or there are more than ARANGE_MAX."""
    if not (step > 0 or step < 0) or not math.isfinite(start) or not math.isfinite(end) or \
            not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        return -1
    n = (end - start) / step
    return math.ceil(n) if n <= ARANGE_MAX else -1


def _arange(start, end, step) -> CallSpec:
    """arange: the kernel computes the values as torch's CPU kernel does (rt_kernels.h)."""
    numel = Fn("rt_arange_numel", arange_numel, start, end, step)
    return CallSpec(Require(numel.eq(_out.numel), INVALID,
                            "arange's count of values is not out's size"),
                    Call("rt_arange", _out.dtype_code, start, step, _out))


CREATE = {
    aten.logical_not.default: CallSpec(Call("rt_logical_not", _x.dtype_code, _x, _mask_out)),
    aten.any.default: _any(AllDims(_x)),
    aten.any.dim: _any(DimMask("dim", of=_x, one=True)),
    aten.any.dims: _any(DimMask("dim", of=_x, empty_is_all=False)),   # []: no dim
    # (The functional forms take dtype, layout and device; the out variants drop them.)
    aten.full_like.default: _full(Number("fill_value")),
    aten.full.default: _full(Number("fill_value")),
    aten.zeros.default: _full(Lit(0)),
    aten.ones.default: _full(Lit(1)),
    aten.scalar_tensor.default: _full(Number("s")),
    aten.fill.Scalar: _full(Number("value")),
    aten.arange.default: _arange(Lit(0), Number("end"), Lit(1)),
    aten.arange.start_step: _arange(Number("start"), Number("end"), Number("step")),
}
