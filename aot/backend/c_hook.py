"""How a backend reaches the static C translation unit.

For each delegate call the C generator asks the backend's ``codegen_c`` hook for a DelegateC,
giving it the processed bytes, the compile specs and one DelegateIO per input and output. A
DelegateC is one of two kinds:

* compiled: ``DelegateC(function_name, c_source)``. ``c_source`` defines
      static rt_status <function_name>(const T *in0, ..., T *out0, ...)
  (one pointer per input, then per output, in DelegateIO order; no ``restrict``: an output may
  be planned over an input the backend listed in ``inplace_inputs``). The generator pastes
  the source into the model's .c and calls the function in sequence with the DelegateIO
  pointers, under a comment naming the delegate and its source line.

* runtime: ``DelegateC.on_runtime(backend_symbol, execute_function, runtime_sources)``: the
  backend's C lives in runtime_c (``src/backend/<name>.c`` defines ``const rt_backend
  <backend_symbol>``, see runtime_c/include/rt_backend.h). The generator embeds the processed bytes and compile specs,
  lists the backend in the model's registration table, resolves it by id and calls its
  ``init`` in ``<model>_init``, and calls its ``execute`` in sequence in ``<model>_run``.

``runtime_sources`` are paths relative to runtime_c/ that the model must be linked with.
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class DelegateIO:
    """One tensor a delegate call reads or writes, as the generated C sees it."""
    shape: tuple[int, ...]
    dtype: str    # "float32", "int32", "int64", "int8", "uint8", "int16", "bool"
    ctype: str    # "float", "int32_t", ... ("uint8_t" for bool)
    ptr: str      # the C expression of its data pointer at the call, e.g. "(float *)(arena + 64)"

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class DelegateC:
    function_name: str = ""
    c_source: str = ""
    runtime_sources: tuple[str, ...] = ()
    # Set: the runtime kind. function_name is then the backend's public execute function in
    # runtime_c (what reports list as the kernel, and how the runtime-file finder links it).
    backend_symbol: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "runtime_sources", tuple(self.runtime_sources))
        if not self.function_name or (self.backend_symbol is None and not self.c_source):
            raise ValueError("a DelegateC needs function_name, and c_source unless it runs on "
                             "an rt_backend")

    @staticmethod
    def on_runtime(backend_symbol: str, execute_function: str,
                   runtime_sources: tuple[str, ...]) -> "DelegateC":
        return DelegateC(function_name=execute_function, runtime_sources=runtime_sources,
                         backend_symbol=backend_symbol)

    @property
    def is_runtime(self) -> bool:
        return self.backend_symbol is not None
