"""Constants in the generated C: one array per buffer and dtype, as long as its largest reader.

The emitter merges constants whose bytes are the same, whatever their dtype: an int8 weight of
zeros and an int32 sum of zeros share a buffer. Each tensor must then read the buffer as its
own type. The reference is the C interpreter of the same .pte, which reads each tensor where
it lies in the file.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch import nn

import aot
import aot.host
import aot.interpreter as I
from aot import program as P
from aot.calls import decode_call
from aot.ops import by_et_name
from aot.pte import serialize_pte


class _Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 16)

    def forward(self, x):
        return self.fc(x)


def _linear_program() -> P.Program:
    torch.manual_seed(0)
    model = _Linear().eval()
    example = (torch.randn(2, 4),)
    calibration = [(torch.randn(2, 4),) for _ in range(4)]
    return aot.to_edge(aot.quantize(model, example, calibration)).to_executorch() \
        .executorch_program


def _share_zeros(program: P.Program) -> P.Program:
    """The linear's weights made zeros, and its kernel sum (int32 zeros, the sum of those
    weights) pointed at the same bytes."""
    plan = program.execution_plan[0]
    ins = next(i for i in plan.chains[0].instructions if isinstance(i, P.KernelCall) and
               plan.operators[i.op_index].name == "cortex_m::quantized_linear")
    op = by_et_name("cortex_m::quantized_linear", "out")
    args = decode_call(plan, ins, op.schema)
    weights, ksum = args["weights"], args["kernel_sum"]
    assert weights.tensor.scalar_type == P.ScalarType.CHAR
    assert ksum.tensor.scalar_type == P.ScalarType.INT
    assert weights.tensor.numel == 4 * ksum.tensor.numel == 64      # both 64 bytes
    buffers = list(program.constant_buffer)
    shared = weights.tensor.data_buffer_idx
    buffers[shared] = P.Buffer(bytes(64))
    values = list(plan.values)
    values[ksum.index] = dataclasses.replace(ksum.tensor, data_buffer_idx=shared)
    plan = dataclasses.replace(plan, values=values)
    return dataclasses.replace(program, execution_plan=[plan], constant_buffer=buffers)


def test_a_buffer_read_as_int8_and_as_int32():
    program = _share_zeros(_linear_program())
    sources = aot.generate_c(program, name="shared")
    text = sources.files["shared.c"]
    assert "static const int8_t shared_c" in text and "static const int32_t shared_c" in text
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    got = aot.host.build(sources)(x)          # the strict flags: a pointer of the wrong type
    pte = bytes(serialize_pte(program))       # fails the build
    want = I.build_host([pte]).run(pte, [x])
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
