"""The C of a method's delegate calls, rendered through each backend's ``codegen_c`` hook.

A backend either returns a C function that is pasted into the model's .c, or names an
rt_backend of runtime_c that the generated init finds by id in the model's registration table.
``DelegateCalls`` works for any generator with the ``Generator`` interface below (the C
generator of aot/codegen/c.py is one).
"""
from __future__ import annotations

from typing import Protocol

from .. import program as P
from ..backend.c_hook import DelegateC, DelegateIO
from ..backend.details import get_backend
from ..backend.program_io import delegate_io
from ..errors import AotError, BackendError
from .context import DTYPES, TensorArg, Unsupported
from .rows import OpRow


class Generator(Protocol):
    """What ``DelegateCalls`` reads of the C generator of a method."""
    program: P.Program
    plan: P.ExecutionPlan       # the method
    name: str                   # the model's C prefix
    values: list                # the method's EValues (tensors by value index)
    locals: list[str]           # C declarations of the run function, appended to

    def tensor(self, index: int, write: bool) -> TensorArg:
        """The C expression of tensor ``index``: its shape, dtype and pointer."""


class DelegateCalls:
    """The C of a method's delegate calls, through each backend's ``codegen_c`` hook (see
    aot/backend/c_hook.py): compiled functions pasted into the model's .c, or delegates run by
    an rt_backend of runtime_c, found by id in the model's registration table at init."""

    def __init__(self, gen: Generator, chain: P.Chain):
        self.gen = gen
        self.chain = chain
        self._io = None
        self.sources: list[str] = []          # compiled functions, in first-use order
        self._hooks: dict[tuple, object] = {}  # (backend, blob, specs, io) -> its DelegateC
        self.runtime: list[dict] = []         # one rt_delegate per runtime delegate call
        self.blobs: dict[int, dict] = {}      # backend_delegate_data index -> C array
        self.backends: list[str] = []         # the registration table: rt_backend symbols
        self.runtime_sources: set[str] = set()

    def _split(self, i: int):
        if self._io is None:
            self._io = delegate_io(self.gen.plan, self.chain)
        return self._io[i]

    def _io_list(self, indices, write: bool):
        out = []
        for v in indices:
            arg = self.gen.tensor(v, write=write)
            out.append((arg, DelegateIO(arg.shape, arg.dtype, DTYPES[
                self.gen.values[v].scalar_type][1], arg.ptr)))
        return out

    def call(self, i: int, ins: P.DelegateCall, source: str):
        plan, gen = self.gen.plan, self.gen
        if not 0 <= ins.delegate_index < len(plan.delegates):
            raise AotError(f"instruction {i} calls delegate {ins.delegate_index}, past the "
                           f"{len(plan.delegates)} of method {plan.name!r}")
        d = plan.delegates[ins.delegate_index]
        label = f"delegate {ins.delegate_index} {d.id}"
        ref = d.processed
        if ref.location != P.DataLocation.INLINE or \
                not 0 <= ref.index < len(gen.program.backend_delegate_data):
            raise AotError(f"{label}: its blob is not in the program ({ref})")
        blob = gen.program.backend_delegate_data[ref.index].data
        try:
            backend = get_backend(d.id)
        except BackendError as e:
            raise Unsupported(f"{label} ({e})") from None
        ins_idx, outs_idx = self._split(i)
        inputs, outputs = self._io_list(ins_idx, False), self._io_list(outs_idx, True)
        key = (d.id, blob, d.compile_specs, tuple((a.shape, a.dtype) for a, _ in inputs),
               tuple((a.shape, a.dtype) for a, _ in outputs))
        dc = self._hooks.get(key)
        if dc is None:   # identical calls share the hook's answer (and a compiled function)
            try:
                dc = backend.codegen_c(blob, list(d.compile_specs), [io for _, io in inputs],
                                       [io for _, io in outputs],
                                       f"{gen.name}_d{ins.delegate_index}")
            except Exception as e:
                raise BackendError(f"{label}: backend {d.id}'s codegen_c failed: "
                                   f"{type(e).__name__}: {e}") from e
            if dc is None:
                raise Unsupported(f"{label} (backend {d.id} generates no C)")
            if not isinstance(dc, DelegateC):
                raise BackendError(f"{label}: backend {d.id}'s codegen_c returned "
                                   f"{type(dc).__name__}, not a DelegateC")
            self._hooks[key] = dc
            self.runtime_sources.update(dc.runtime_sources)
            if not dc.is_runtime:
                self.sources.append(dc.c_source.rstrip() + "\n")
        row = OpRow(i, label, dc.function_name, outputs[0][0].shape, source)
        call = dict(index=i, op=label, source=source.replace("*/", "* /"), fills=[])
        if dc.is_runtime:
            return self._runtime(ins, d, ref.index, blob, dc, inputs, outputs, call), row
        call.update(fn=dc.function_name, args=[a.ptr for a, _ in inputs + outputs])
        return call, row

    def _runtime(self, ins, d, blob_index, blob, dc, inputs, outputs, call):
        gen = self.gen
        name = f"{gen.name}_d{ins.delegate_index}"
        if dc.backend_symbol not in self.backends:
            self.backends.append(dc.backend_symbol)
        if blob_index not in self.blobs:
            self.blobs[blob_index] = dict(name=f"{gen.name}_blob{blob_index}",
                                          count=max(len(blob), 1),
                                          values=[f"0x{b:02x}" for b in blob] or ["0"])
        specs = [dict(key=_c_string(s.key), name=f"{name}_spec{k}", size=len(s.value),
                      values=[f"0x{b:02x}" for b in s.value] or ["0"])
                 for k, s in enumerate(d.compile_specs)]
        self.runtime.append(dict(name=name, backend_id=_c_string(d.id),
                                 blob=self.blobs[blob_index]["name"], blob_size=len(blob),
                                 specs=specs, n_inputs=len(inputs), n_outputs=len(outputs)))
        fills = []
        for kind, items in (("in", inputs), ("out", outputs)):
            if not items:
                continue
            gen.locals.append(f"rt_tensor {name}_{kind}[{len(items)}];")
            for k, (arg, _) in enumerate(items):
                dtype = int(gen.values[arg.index].scalar_type)
                fills.append(f"{name}_{kind}[{k}] = (rt_tensor){{{arg.shape_ref}, "
                             f"(void *){arg.ptr}, {dtype}}};")
        call.update(fn="rt_delegate_execute", fills=fills,
                    args=[f"{name}_backend", f"&{name}", f"{name}_in" if inputs else "NULL",
                          f"{name}_out"])
        return call


def _c_string(text: str) -> str:
    """A C string literal: printable ASCII as is, anything else as octal escapes."""
    out = []
    for b in text.encode():
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'
