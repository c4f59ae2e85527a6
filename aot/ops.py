"""The op table: one entry per core-ATen op that mcu-aot lowers.

The verifier (which ops are allowed), the lowering to out-variants (which overload the .pte calls
and how its arguments are laid out), the planner (which outputs may alias their input), the
report (MACs) and the C generator (which kernel renders the call) all read this one table.

Adding an op means: one ``_op(...)`` line here, one kernel in ``runtime_c/`` and one test.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch

from .codegen import kernels as C

aten = torch.ops.aten

# A MAC counter gets the op's named arguments (tensors as their shapes) and the output shapes.
MacFn = Callable[[dict, list], int]


def _no_macs(args: dict, outs: list) -> int:
    return 0


def _conv_macs(args: dict, outs: list) -> int:
    w = args["weight"]  # [Cout, Cin/groups, *k]
    return math.prod(outs[0]) * math.prod(w[1:])


def _addmm_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["mat1"][-1]


def _mm_macs(args: dict, outs: list) -> int:
    return math.prod(outs[0]) * args["self"][-1]


@dataclass(frozen=True)
class OpDef:
    """One supported op.

    ``aten`` is the functional overload found in the edge graph; ``out`` is the out-variant the
    .pte calls (ExecuTorch's portable kernel name). ``alias`` ops may become zero-copy views:
    their output is the input's bytes under another shape. ``inplace`` ops compute out[i]
    from in[i] alone, so their output may take over the storage of their first input (``self``)
    when that input dies at this op and has the output's shape and dtype.
    """
    aten: torch._ops.OpOverload
    out: torch._ops.OpOverload
    macs: MacFn = _no_macs
    alias: bool = False
    inplace: bool = False
    # Renders the call into runtime_c for the static C generator (aot.codegen.kernels).
    render: Optional[Callable] = None

    @property
    def et_name(self) -> str:
        return self.out._schema.name            # e.g. "aten::convolution"

    @property
    def et_overload(self) -> str:
        return self.out._schema.overload_name   # e.g. "out"

    @property
    def key(self) -> str:
        return f"{self.et_name}.{self.et_overload}"


def _find_out_overload(op: torch._ops.OpOverload) -> torch._ops.OpOverload:
    """The out-variant whose non-out arguments are exactly the functional op's arguments."""
    want = [(a.name, str(a.type)) for a in op._schema.arguments]
    packet = op.overloadpacket
    for name in packet.overloads():
        cand = getattr(packet, name)
        args = cand._schema.arguments
        if any(a.is_out for a in args) and [(a.name, str(a.type)) for a in args
                                            if not a.is_out] == want:
            return cand
    raise LookupError(f"no out-variant for {op}")


OPS: dict[torch._ops.OpOverload, OpDef] = {}


def _op(op: torch._ops.OpOverload, render: Optional[Callable], macs: MacFn = _no_macs,
        alias: bool = False, inplace: bool = False,
        out: Optional[torch._ops.OpOverload] = None) -> None:
    OPS[op] = OpDef(op, out or _find_out_overload(op), macs, alias, inplace, render)


# Convolution and matrix products.
_op(aten.convolution.default, C.convolution, _conv_macs)
_op(aten.addmm.default, C.addmm, _addmm_macs)
_op(aten.mm.default, C.mm, _mm_macs)
_op(aten.bmm.default, C.bmm, _mm_macs)
# Binary elementwise, with broadcasting; comparisons give bool.
for _name in ("add", "sub", "mul", "div"):
    _op(getattr(aten, _name).Tensor, C.binary, inplace=True)
    _op(getattr(aten, _name).Scalar, C.binary_scalar, inplace=True)
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _op(getattr(aten, _name).Tensor, C.compare)
    _op(getattr(aten, _name).Scalar, C.compare_scalar)
_op(aten.where.self, C.where)
_op(aten.maximum.default, C.maximum_minimum, inplace=True)
_op(aten.minimum.default, C.maximum_minimum, inplace=True)
# Unary elementwise and activations.
for _name in ("relu", "sigmoid", "tanh", "hardswish", "hardsigmoid", "abs", "neg", "exp", "log",
              "sqrt", "rsqrt", "sin", "cos"):
    _op(getattr(aten, _name).default, C.unary, inplace=True)
_op(aten.gelu.default, C.gelu, inplace=True)
_op(aten.leaky_relu.default, C.leaky_relu, inplace=True)
_op(aten.hardtanh.default, C.hardtanh, inplace=True)
_op(aten.clamp.default, C.clamp, inplace=True)
_op(aten.clone.default, C.copy, inplace=True)
_op(aten._to_copy.default, C.to_copy, out=aten._to_copy.out)  # dtype comes from `out`
# Pooling and reductions.
_op(aten.max_pool2d_with_indices.default, C.max_pool2d)
_op(aten.avg_pool2d.default, C.avg_pool2d)
_op(aten.mean.dim, C.reduce)
_op(aten.sum.dim_IntList, C.reduce)
_op(aten.amax.default, C.reduce)
# Normalization.
_op(aten._softmax.default, C.softmax)
_op(aten._log_softmax.default, C.softmax)
_op(aten.native_layer_norm.default, C.layer_norm)
_op(aten._native_batch_norm_legit_no_training.default, C.batch_norm)
# Data movement. view_copy/squeeze/unsqueeze keep the bytes: zero-copy where the plan allows.
_op(aten.view_copy.default, C.copy, alias=True)
_op(aten.squeeze_copy.dims, C.copy, alias=True)
_op(aten.unsqueeze_copy.default, C.copy, alias=True)
_op(aten.permute_copy.default, C.permute)
_op(aten.expand_copy.default, C.expand)
_op(aten.slice_copy.Tensor, C.slice_copy)
_op(aten.select_copy.int, C.select_copy)
_op(aten.split_with_sizes_copy.default, C.split_with_sizes)
_op(aten.cat.default, C.cat)
_op(aten.constant_pad_nd.default, C.constant_pad)
_op(aten.upsample_nearest2d.vec, C.upsample_nearest2d)
_op(aten.embedding.default, C.embedding)
# Buffer write-back (state kept across calls).
_op(aten.copy.default, C.copy)


def lookup(op) -> Optional[OpDef]:
    return OPS.get(op)


def by_et_name(name: str, overload: str) -> Optional[OpDef]:
    """The entry for an operator as a .pte names it, e.g. ("aten::convolution", "out")."""
    return _BY_ET.get((name, overload))


_BY_ET = {(d.et_name, d.et_overload): d for d in OPS.values()}
