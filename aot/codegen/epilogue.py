"""Fused epilogues: an activation the C runs inside the conv, linear or add before it.

The planned program keeps ``relu(conv(x))`` as two instructions, so the .pte runs as
ExecuTorch expects; the planner already put the activation in place over the conv's output
(aot.passes.to_out_variant). When nothing else reads that output, the C renders the pair as
one call: the producer clamps each output as it stores it and the activation costs no pass
over memory. Both renderings read the same program and the same arena offsets; the result is
bit for bit the same, since the kernels clamp exactly as rt_clamp_f32 does.

    y = relu(conv(x))      .pte:  convolution.out(x, w, b, out=t); relu.out(t, out=t)
                           C:     rt_conv2d_f32({..., .act = {1, 0.0f, INFINITY}}, x, w, b, t)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .. import program as P
from ..calls import ArgError, TensorValue, decode_call
from ..ops import SCRATCH_ARGS, by_et_name

aten = torch.ops.aten

# Producers whose kernels take a fused activation (float32 only, see rt_act_f32).
PRODUCERS = {aten.convolution.default, aten.addmm.default, aten.add.Tensor}
_VIEW = ("executorch_prim::et_view", "default")


@dataclass(frozen=True)
class Epilogue:
    producer: int       # instruction index of the conv / addmm / add
    activation: int     # instruction index of the relu / hardtanh / clamp it absorbs
    lo: float
    hi: float


def _bounds(op, values) -> tuple[float, float] | None:
    """The activation's clamp bounds, or None if it is not one we fuse."""
    def num(name, default):
        v = values.get(name, default)
        return default if v is None else float(v)
    if op.aten is aten.relu.default:
        return 0.0, math.inf
    if op.aten is aten.hardtanh.default:
        return num("min_val", -1.0), num("max_val", 1.0)
    if op.aten is aten.clamp.default:
        return num("min", -math.inf), num("max", math.inf)
    return None


def _float_tensor(plan, index) -> bool:
    t = plan.values[index]
    return isinstance(t, P.Tensor) and t.scalar_type == P.ScalarType.FLOAT


def _same_storage(plan, a: int, b: int) -> bool:
    ta, tb = plan.values[a].allocation_info, plan.values[b].allocation_info
    return ta is not None and tb is not None and ta.memory_id == tb.memory_id and \
        ta.offset == tb.offset and plan.values[a].sizes == plan.values[b].sizes


def find_epilogues(plan, chain) -> list[Epilogue]:
    """Every (producer, activation) pair of ``chain`` the C may render as one call: an
    activation and the kernel call before it, views aside (anything else in between breaks
    the pair)."""
    readers: dict[int, set] = {}
    for k, ins in enumerate(chain.instructions):
        for v in getattr(ins, "args", ()):
            readers.setdefault(v, set()).add(k)
    found, previous = [], None     # previous: (index, op) of the last kernel call
    for j, ins in enumerate(chain.instructions):
        op = None
        if isinstance(ins, P.KernelCall):
            opr = plan.operators[ins.op_index]
            if (opr.name, opr.overload) == _VIEW:
                continue
            op = by_et_name(opr.name, opr.overload)
        if op is None:
            previous = None
            continue
        fused = _match(plan, chain, previous, j, op, readers)
        found += [fused] if fused is not None else []
        previous = None if fused is not None else (j, op)
    return found


def _values(plan, ins, op) -> dict:
    try:
        return decode_call(plan, ins, op.schema)
    except ArgError:   # a malformed call: the generator reports it where it renders it
        return {}


def _match(plan, chain, previous, j, act_op, readers) -> Epilogue | None:
    if previous is None:
        return None
    i, prod_op = previous
    act_ins, prod_ins = chain.instructions[j], chain.instructions[i]
    if prod_op.aten not in PRODUCERS:
        return None
    act, prod = _values(plan, act_ins, act_op), _values(plan, prod_ins, prod_op)
    bounds = _bounds(act_op, act) if act else None
    if bounds is None or not prod:
        return None
    x, y, out = act.get("self"), act.get("out"), prod.get("out")
    if not all(isinstance(v, TensorValue) for v in (x, y, out)) or x.index != out.index:
        return None
    if prod_op.aten is aten.convolution.default and prod.get("transposed"):
        return None
    tensors = [v.index for k, v in prod.items()   # (an in-place layer's scratch is bytes)
               if isinstance(v, TensorValue) and k not in SCRATCH_ARGS]
    if not all(_float_tensor(plan, v) for v in tensors + [y.index]):
        return None
    # The activation overwrites the producer's output in place, and is its only reader.
    if not _same_storage(plan, x.index, y.index) or readers.get(x.index, set()) - {i, j} or \
            x.index in plan.outputs or x.index in plan.inputs:
        return None
    return Epilogue(i, j, *bounds)
