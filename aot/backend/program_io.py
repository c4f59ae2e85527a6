"""Reading delegate calls back from a Program (ours, or any .pte aot.load_program reads).

A DelegateCall's args are its input value indices followed by its output value indices, with no
count between them (ExecuTorch leaves that to the backend's blob). The split follows from the
data flow: an input is a value that exists before the call (a method input, a constant, state,
or a result of an earlier instruction); the outputs are the trailing values that the call is
the first to write.
"""
from __future__ import annotations

from .. import program as P
from ..errors import BackendError


def _written(plan: P.ExecutionPlan, ins) -> list[int]:
    """The values an instruction writes (KernelCalls list their result last)."""
    if isinstance(ins, P.KernelCall) and ins.args:
        last = plan.values[ins.args[-1]]
        return list(last.items) if isinstance(last, P.TensorList) else [ins.args[-1]]
    return []


def delegate_io(plan: P.ExecutionPlan, chain: P.Chain
                ) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Instruction index -> (input value indices, output value indices), per DelegateCall."""
    defined = set(plan.inputs)
    defined |= {i for i, v in enumerate(plan.values)
                if not isinstance(v, P.Tensor) or v.data_buffer_idx > 0}
    result = {}
    for index, ins in enumerate(chain.instructions):
        if not isinstance(ins, P.DelegateCall):
            defined |= set(_written(plan, ins))
            continue
        args = tuple(ins.args)
        n_in = 0
        while n_in < len(args) and args[n_in] in defined:
            n_in += 1
        inputs, outputs = args[:n_in], args[n_in:]
        if not outputs or any(a in defined for a in outputs):
            name = plan.delegates[ins.delegate_index].id \
                if 0 <= ins.delegate_index < len(plan.delegates) else "?"
            raise BackendError(f"delegate call {index} ({name}) of method {plan.name!r}: cannot "
                               f"tell its inputs from its outputs in args {list(args)}")
        result[index] = (inputs, outputs)
        defined |= set(outputs)
    return result
