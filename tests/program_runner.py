"""Run a Program (as aot.load_program reads it back from a .pte) in Python, over its arena.

Kernel calls run torch's out-variant ops with the arguments the .pte stores; delegate calls run
their backend's Python reference on the blob the .pte carries. Nothing comes from the
MethodGraph that made the file, so a match with eager torch proves the file itself.
"""
from __future__ import annotations

import numpy as np
import torch

from aot import program as P
from aot.backend import run_delegate
from aot.backend.program_io import delegate_io
from aot.ir import TORCH_DTYPES
from aot.ops import by_et_name


def _tensor_view(arena: bytearray, program: P.Program, t: P.Tensor) -> torch.Tensor:
    dtype = TORCH_DTYPES[t.scalar_type]
    if t.allocation_info is not None:
        flat = torch.frombuffer(arena, dtype=dtype, count=t.numel,
                                offset=t.allocation_info.offset) if t.numel else \
            torch.empty(0, dtype=dtype)
        return flat.view(t.sizes)
    if t.data_buffer_idx > 0:
        data = program.constant_buffer[t.data_buffer_idx].storage
        return torch.from_numpy(np.frombuffer(data, dtype=torch.empty((), dtype=dtype)
                                              .numpy().dtype, count=t.numel).copy()).view(t.sizes)
    return torch.empty(t.sizes, dtype=dtype)


def run_program(program: P.Program, inputs, method: str = "forward", overrides=None,
                used=None) -> list[torch.Tensor]:
    """``overrides``: operator name ("cortex_m::quantized_add.out") -> a kernel to run instead
    of the op table's reference, with the same keyword arguments; it may return None to hand
    the call back. ``used`` (a set) collects the operators an override ran."""
    plan = program.method(method)
    overrides = overrides or {}
    arena = bytearray(max(plan.non_const_buffer_sizes[1] if len(plan.non_const_buffer_sizes) > 1
                          else 0, 1))
    tensors = {i: _tensor_view(arena, program, v) for i, v in enumerate(plan.values)
               if isinstance(v, P.Tensor)}
    for i, x in zip(plan.inputs, inputs):
        tensors[i].copy_(x)

    def value(i):
        v = plan.values[i]
        if isinstance(v, P.Tensor):
            return tensors[i]
        if isinstance(v, P.Null):
            return None
        if isinstance(v, P.IntList):
            return [plan.values[j].int_val for j in v.items]
        if isinstance(v, P.TensorList):
            return [tensors[j] for j in v.items]
        if isinstance(v, (P.DoubleList, P.BoolList)):
            return list(v.items)
        for attr in ("int_val", "double_val", "bool_val", "string_val"):
            if hasattr(v, attr):
                return getattr(v, attr)
        raise TypeError(v)

    chain = plan.chains[0]
    io = delegate_io(plan, chain)
    for k, ins in enumerate(chain.instructions):
        if isinstance(ins, P.DelegateCall):
            d = plan.delegates[ins.delegate_index]
            blob = program.backend_delegate_data[d.processed.index].data
            ins_idx, outs_idx = io[k]
            outs = run_delegate(d.id, blob, d.compile_specs,
                                [tensors[i].clone() for i in ins_idx])
            for i, o in zip(outs_idx, outs):
                tensors[i].copy_(o.reshape(tensors[i].shape))
            continue
        opr = plan.operators[ins.op_index]
        op = by_et_name(opr.name, opr.overload)
        kwargs = {a.name: value(ins.args[j]) for j, a in enumerate(op.schema.arguments)}
        kernel = overrides.get(f"{opr.name}.{opr.overload}")
        if kernel is not None and kernel(**kwargs) is not None:
            if used is not None:
                used.add(f"{opr.name}.{opr.overload}")
            continue
        op.run(**kwargs)
    return [tensors[i].clone() for i in plan.outputs]
