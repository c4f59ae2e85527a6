"""The backends that ship with mcu-aot. Importing this package registers them: ``aot/__init__``
does, once, and that is the one place they are registered.

- ``DemoBackend`` + ``AddMulPartitioner`` (demo.py): a tiny sin/add/mul program run by
  runtime_c's rt_backend interface; for tests and as the model of a backend.
- ``FusedElementwiseBackend`` + ``FusedElementwisePartitioner`` (fused.py): connected chains
  of pointwise ops compiled into one loop with no intermediate tensors.
"""
from .demo import AddMulPartitioner, DemoBackend
from .fused import FusedElementwiseBackend, FusedElementwisePartitioner

__all__ = ["DemoBackend", "AddMulPartitioner", "FusedElementwiseBackend",
           "FusedElementwisePartitioner"]
