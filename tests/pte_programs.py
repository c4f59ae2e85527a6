"""The small real programs the crafted mutants start from (tests/pte_mutants.py), and the
edits and reads the mutants are made with: on the aot.program dataclasses (re-serialized by
aot.pte.serialize_pte), or on the bytes of the flatbuffer.
"""
from __future__ import annotations

import dataclasses
import functools
import struct
import sys
from pathlib import Path
from typing import Optional

import numpy as np

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


# -- the base programs ------------------------------------------------------------------------

def _f32_module():
    import torch
    from torch import nn

    class ConvLinear(nn.Module):
        """conv 3x3 (2 -> 4 channels, padding 1), relu, flatten, linear 64 -> 3."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.fc = nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    torch.manual_seed(0)
    return ConvLinear().eval(), (torch.randn(1, 2, 4, 4),)


@functools.lru_cache(maxsize=None)
def bases() -> dict[str, bytes]:
    """name -> .pte bytes of the small programs the mutants start from (a few KB each):
    f32   float32 conv + relu + linear (aten::convolution, relu, addmm)
    mlp   int8 linear 12 -> 16 -> 4, per-channel (its first layer's requantization: two
          int lists of 16 items, which rt_pte_load caches in the state), tests/int8_models.py
    conv  int8 strided, dilated, grouped, depthwise and pointwise convolutions
          (tests/int8_models.py conv_blocks)"""
    import torch
    import aot
    sys.path.insert(0, str(TESTS))
    from int8_models import lowered
    module, example = _f32_module()
    f32 = aot.to_edge(torch.export.export(module, example)).to_executorch()
    return {"f32": bytes(f32.buffer), "mlp": bytes(lowered("mlp", False).buffer),
            "conv": bytes(lowered("conv_blocks", False).buffer)}


@functools.lru_cache(maxsize=None)
def base_program(name: str):
    from aot.pte import load_program
    return load_program(bases()[name])


def base_inputs(name: str) -> list[np.ndarray]:
    """Zeros of each input of a base program (the M4's inputs slot)."""
    from aot.ir import TORCH_DTYPES
    import torch
    plan = base_program(name).method("forward")
    out = []
    for i in plan.inputs:
        v = plan.values[i]
        dtype = torch.empty(0, dtype=TORCH_DTYPES[v.scalar_type]).numpy().dtype
        out.append(np.zeros(v.sizes, dtype))
    return out


# -- editing a Program --------------------------------------------------------------------------

def _plan(program):
    return program.execution_plan[0]


def _with_plan(program, **changes):
    plan = dataclasses.replace(_plan(program), **changes)
    return dataclasses.replace(program, execution_plan=(plan,) + program.execution_plan[1:])


def _set_values(program, changes: dict):
    values = list(_plan(program).values)
    for i, v in changes.items():
        values[i] = v
    return _with_plan(program, values=tuple(values))


def _append_values(program, *new):
    """(program with `new` appended to its values, index of the first one)."""
    values = _plan(program).values
    return _with_plan(program, values=values + tuple(new)), len(values)


def _instructions(program):
    return _plan(program).chains[0].instructions


def _set_instructions(program, instructions):
    chain = _plan(program).chains[0]
    stack = chain.stacktrace if len(instructions) == len(chain.instructions) else None
    chain = dataclasses.replace(chain, instructions=tuple(instructions), stacktrace=stack)
    return _with_plan(program, chains=(chain,) + _plan(program).chains[1:])


def _call(program, op: str, nth: int = 0):
    """(instruction index, KernelCall) of the nth call of operator `op` (name.overload)."""
    plan = _plan(program)
    found = [(i, ins) for i, ins in enumerate(_instructions(program))
             if hasattr(ins, "op_index") and
             f"{plan.operators[ins.op_index].name}.{plan.operators[ins.op_index].overload}" == op]
    return found[nth]


def _arg(program, op: str, k: int, nth: int = 0) -> int:
    """The value index of argument k of the nth call of `op`."""
    return _call(program, op, nth)[1].args[k]


def _replace_tensor(program, v: int, **changes):
    return _set_values(program, {v: dataclasses.replace(_plan(program).values[v], **changes)})


def _alloc(memory_id: int, offset: int):
    from aot.program import AllocationDetails
    return AllocationDetails(memory_id, offset, 0)


def _serialize(program, **options) -> bytes:
    from aot.pte import serialize_pte
    return bytes(serialize_pte(program, **options))


def _first(program, kind) -> int:
    return next(i for i, v in enumerate(_plan(program).values) if isinstance(v, kind))


CONV_F32 = "aten::convolution.out"
RELU = "aten::relu.out"
ADDMM = "aten::addmm.out"
QLINEAR = "cortex_m::quantized_linear.out"
QCONV = "cortex_m::quantized_conv2d_nhwc.out"
QUANTIZE = "cortex_m::quantize_per_tensor.out"


# -- the bytes of a .pte: a few reads of its flatbuffer -----------------------------------------

def _u32(b, at: int) -> int:
    return struct.unpack_from("<I", b, at)[0]


def _ref(b, at: int) -> int:
    return at + _u32(b, at)


def _field(b, table: int, f: int) -> Optional[int]:
    """File position of field f of the table at `table`, None when absent."""
    vt = table - struct.unpack_from("<i", b, table)[0]
    at = 4 + 2 * f
    if at + 2 > struct.unpack_from("<H", b, vt)[0]:
        return None
    off = struct.unpack_from("<H", b, vt + at)[0]
    return table + off if off else None


def _root(b) -> int:
    return _ref(b, 0)


def _vector(b, table: int, f: int) -> int:
    """Position of the length word of vector field f."""
    return _ref(b, _field(b, table, f))


def _plan_table(b) -> int:
    plans = _vector(b, _root(b), 1)          # Program.execution_plan
    return _ref(b, plans + 4)


def _value_table(b, v: int) -> int:
    values = _vector(b, _plan_table(b), 2)   # ExecutionPlan.values
    return _ref(b, values + 4 + 4 * v)


def _put(b: bytes, at: int, fmt: str, value) -> bytes:
    out = bytearray(b)
    struct.pack_into(fmt, out, at, value)
    return bytes(out)
