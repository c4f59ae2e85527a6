"""Run a lowered method with torch's out-variant ops over one simulated arena.

This executes exactly what the .pte and the C code will: the same calls, in the same order,
with every planned tensor a view into one bytearray at its planned offset. A wrong offset, a bad
alias or an unsafe in-place decision corrupts the result, so comparing with eager torch proves
the lowering and the plan together. State tensors keep their bytes between calls, as on device.
"""
from __future__ import annotations

import torch

from .backend import run_delegate
from .ir import DelegateCallSpec, MethodGraph, Ref, TensorKind
from .memory import MemoryPlan


class ArenaInterpreter:
    def __init__(self, graph: MethodGraph, plan: MemoryPlan):
        self.graph, self.plan = graph, plan
        self.arena = bytearray(max(plan.arena_size, 1))
        # Fill with a pattern so a read of never-written bytes shows up as garbage, not zeros.
        self.arena[:] = b"\xa5" * len(self.arena)
        for tid, data in graph.state.items():
            self._view(tid).copy_(torch.from_numpy(data.copy()).reshape(graph.tensors[tid].shape))

    def _view(self, tid: int) -> torch.Tensor:
        t = self.graph.tensors[tid]
        offset = self.plan.offsets[self.graph.root(tid)] + self.graph.root_offset(tid)
        flat = torch.frombuffer(self.arena, dtype=t.dtype, count=t.numel, offset=offset) \
            if t.numel else torch.empty(0, dtype=t.dtype)
        return flat.view(t.shape)

    def __call__(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        g = self.graph
        if len(inputs) != len(g.inputs):
            raise ValueError(f"{g.name} takes {len(g.inputs)} inputs, got {len(inputs)}")
        values: dict[int, torch.Tensor] = {}
        for t in g.tensors:
            if g.root(t.id) in self.plan.offsets:
                values[t.id] = self._view(t.id)
            elif t.kind == TensorKind.CONSTANT:
                values[t.id] = torch.from_numpy(g.constants[t.id].copy()).reshape(t.shape)
            elif t.alias_of is None:
                values[t.id] = torch.empty(t.shape, dtype=t.dtype)
        for tid, x in zip(g.inputs, inputs):
            if g.root(tid) in self.plan.offsets:
                values[tid].copy_(x)
            else:
                values[tid] = x
        for t in g.tensors:  # unplanned aliases (none in practice) share their root's tensor
            if t.id not in values:
                start = g.root_offset(t.id) // t.dtype.itemsize
                values[t.id] = values[g.root(t.id)].view(-1)[start:start + t.numel].view(t.shape)

        def arg(v):
            if isinstance(v, Ref):
                return values[v.id]
            if isinstance(v, tuple) and any(isinstance(r, Ref) for r in v):
                return [values[r.id] if isinstance(r, Ref) else r for r in v]   # Tensor?[]
            return list(v) if isinstance(v, tuple) else v

        for call in g.calls:
            if isinstance(call, DelegateCallSpec):
                self._delegate(call, values)
            else:
                call.op.run(**{name: arg(v) for name, v in call.args})
        return [values[t].clone() for t in g.outputs]

    @staticmethod
    def _delegate(call: DelegateCallSpec, values: dict) -> None:
        """The backend's Python reference on the processed bytes (else the program it was
        lowered from), its outputs copied into their planned storage."""
        inputs = [values[i].clone() for i in call.inputs]   # an output may overwrite one
        outs = run_delegate(call.backend_id, call.processed_bytes, call.compile_specs, inputs,
                            call.original)
        if len(outs) != len(call.outs):
            raise ValueError(f"delegate {call.backend_id} gave {len(outs)} outputs, "
                             f"not {len(call.outs)}")
        for tid, out in zip(call.outs, outs):
            values[tid].copy_(out.reshape(values[tid].shape))
