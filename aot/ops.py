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


def _op(op: torch._ops.OpOverload, macs: MacFn = _no_macs, alias: bool = False,
        inplace: bool = False, out: Optional[torch._ops.OpOverload] = None) -> None:
    OPS[op] = OpDef(op, out or _find_out_overload(op), macs, alias, inplace)


# Convolution and matrix products.
_op(aten.convolution.default, _conv_macs)
_op(aten.addmm.default, _addmm_macs)
_op(aten.mm.default, _mm_macs)
_op(aten.bmm.default, _mm_macs)
# Binary elementwise, with broadcasting.
for _name in ("add", "sub", "mul", "div"):
    _op(getattr(aten, _name).Tensor, inplace=True)
    _op(getattr(aten, _name).Scalar, inplace=True)
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _op(getattr(aten, _name).Tensor)
    _op(getattr(aten, _name).Scalar)
_op(aten.where.self)
_op(aten.maximum.default, inplace=True)
_op(aten.minimum.default, inplace=True)
# Unary elementwise and activations.
for _name in ("relu", "sigmoid", "tanh", "hardswish", "hardsigmoid", "abs", "neg", "exp", "log",
              "sqrt", "rsqrt", "gelu", "leaky_relu", "hardtanh", "clone"):
    _op(getattr(aten, _name).default, inplace=True)
_op(aten.clamp.default, inplace=True)
_op(aten._to_copy.default, out=aten._to_copy.out)  # dtype comes from `out`
# Pooling and reductions.
_op(aten.max_pool2d_with_indices.default)
_op(aten.avg_pool2d.default)
_op(aten.mean.dim)
_op(aten.sum.dim_IntList)
_op(aten.amax.default)
# Normalization.
_op(aten._softmax.default)
_op(aten._log_softmax.default)
_op(aten.native_layer_norm.default)
_op(aten._native_batch_norm_legit_no_training.default)
# Data movement. view_copy/squeeze/unsqueeze keep the bytes: zero-copy where the plan allows.
_op(aten.view_copy.default, alias=True)
_op(aten.squeeze_copy.dims, alias=True)
_op(aten.unsqueeze_copy.default, alias=True)
_op(aten.permute_copy.default)
_op(aten.expand_copy.default)
_op(aten.slice_copy.Tensor)
_op(aten.select_copy.int)
_op(aten.split_with_sizes_copy.default)
_op(aten.cat.default)
_op(aten.constant_pad_nd.default)
_op(aten.upsample_nearest2d.vec)
_op(aten.embedding.default)
# Buffer write-back (state kept across calls).
_op(aten.copy.default)


def lookup(op) -> Optional[OpDef]:
    return OPS.get(op)


def by_et_name(name: str, overload: str) -> Optional[OpDef]:
    """The entry for an operator as a .pte names it, e.g. ("aten::convolution", "out")."""
    return _BY_ET.get((name, overload))


_BY_ET = {(d.et_name, d.et_overload): d for d in OPS.values()}
