"""Delegation: hand parts of a program to a backend, in the .pte and in the generated C.

The API follows ExecuTorch's ``executorch.exir.backend``:

    lowered = to_backend("DemoBackend", edge.exported_program(), [])   # flow 1: whole program
    class Composite(nn.Module): ... self.lowered = lowered ...           # flow 2: compose, export
    edge = edge.to_backend(AddMulPartitioner())                          # flow 3: partition

A backend subclasses BackendDetails (preprocess; optionally a Python reference, a C hook and
in-place inputs); a partitioner subclasses Partitioner and tags nodes. Shipped backends are in
``aot.backends``.
"""
from .c_hook import DelegateC, DelegateIO
from .call_delegate import executorch_call_delegate, is_delegate_call
from .details import (BackendDetails, CompileSpec, PreprocessResult, get_backend,
                      known_backends, run_delegate)
from .lower import to_backend
from .lowered import LoweredBackendModule
from .partitioner import DelegationSpec, PartitionResult, Partitioner

__all__ = ["BackendDetails", "CompileSpec", "PreprocessResult", "DelegationSpec",
           "PartitionResult", "Partitioner", "LoweredBackendModule", "to_backend",
           "executorch_call_delegate", "is_delegate_call", "get_backend", "known_backends",
           "run_delegate", "DelegateC", "DelegateIO"]
