"""What a backend implements, and the registry that finds it by name.

A backend is a subclass of ``BackendDetails``; it registers itself under its class name, which
is the ``backend_id`` that ``to_backend`` takes and the .pte stores (``BackendDelegate.id``).
The backends that ship with mcu-aot register in one place: ``aot/__init__.py`` imports
``aot.backends`` once.

    class MyBackend(BackendDetails):
        @staticmethod
        def preprocess(edge_program, compile_specs) -> PreprocessResult: ...   # required
        @classmethod
        def execute(cls, processed_bytes, compile_specs, inputs): ...           # Python reference
        @classmethod
        def codegen_c(cls, processed_bytes, compile_specs, inputs, outputs, name): ...  # C
        @classmethod
        def inplace_inputs(cls, processed_bytes, compile_specs): ...            # arena reuse

Only ``preprocess`` is required. Without ``execute`` the interpreter runs the program the
delegate was lowered from; without ``codegen_c`` the C generator reports the delegate as
unsupported. The C hook's types are in ``aot.backend.c_hook``.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Sequence

import torch
from torch.export import ExportedProgram
from torch.utils._pytree import tree_leaves

from ..errors import BackendError
from ..program import CompileSpec   # (key, value: bytes), as the .pte stores it

__all__ = ["BackendDetails", "CompileSpec", "PreprocessResult", "get_backend", "known_backends",
           "run_delegate"]

# Backend-internal id (e.g. an instruction of the processed program) -> the debug handles of
# the edge-graph nodes it came from.
DebugHandleMap = Mapping[int, tuple[int, ...]]


@dataclass(frozen=True)
class PreprocessResult:
    """What ``preprocess`` returns: the blob the .pte carries, and where its parts came from."""
    processed_bytes: bytes
    debug_handle_map: Optional[DebugHandleMap] = None

    def __post_init__(self):
        if not isinstance(self.processed_bytes, (bytes, bytearray)):
            raise TypeError(f"processed_bytes must be bytes, not "
                            f"{type(self.processed_bytes).__name__}")
        object.__setattr__(self, "processed_bytes", bytes(self.processed_bytes))
        handles = {int(k): tuple(v) if isinstance(v, (list, tuple)) else (int(v),)
                   for k, v in (self.debug_handle_map or {}).items()}
        object.__setattr__(self, "debug_handle_map", MappingProxyType(handles))


_REGISTRY: dict[str, type] = {}


class BackendDetails:
    """Base class of every backend; a subclass registers under its class name."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        old = _REGISTRY.get(cls.__name__)
        if old is not None and (old.__module__, old.__qualname__) != (cls.__module__,
                                                                      cls.__qualname__):
            raise BackendError(f"two backends are named {cls.__name__!r}: "
                               f"{old.__module__}.{old.__qualname__} and "
                               f"{cls.__module__}.{cls.__qualname__}; rename one")
        _REGISTRY[cls.__name__] = cls   # a re-definition (a reloaded module) replaces the old

    @staticmethod
    def preprocess(edge_program: ExportedProgram,
                   compile_specs: Sequence[CompileSpec]) -> PreprocessResult:
        """Compile the edge program to the blob the backend's runtime executes."""
        raise NotImplementedError

    @classmethod
    def execute(cls, processed_bytes: bytes, compile_specs: Sequence[CompileSpec],
                inputs: Sequence[torch.Tensor]) -> Optional[list[torch.Tensor]]:
        """A Python reference of the backend's runtime: the outputs of the processed program
        on ``inputs`` (a flat list of tensors). None: no reference, run the original program."""
        return None

    @classmethod
    def codegen_c(cls, processed_bytes: bytes, compile_specs: Sequence[CompileSpec],
                  inputs, outputs, name: str):
        """The C of one delegate call: a ``c_hook.DelegateC``. ``inputs``/``outputs`` are
        ``c_hook.DelegateIO`` (shape, dtype, C pointer expression); ``name`` is a C prefix
        unique to this call for every symbol the code defines. None: no C for this backend."""
        return None

    @classmethod
    def inplace_inputs(cls, processed_bytes: bytes,
                       compile_specs: Sequence[CompileSpec]) -> tuple[int, ...]:
        """Inputs whose storage output 0 may take over when the input dies at the call: each
        output element depends only on the same element of that input, read before it is
        written. The lowering still checks shapes, dtypes and lifetimes. Default: none."""
        return ()


def known_backends() -> list[str]:
    return sorted(_REGISTRY)


def get_backend(backend_id: str) -> type:
    """The backend class registered as ``backend_id``; BackendError naming the known ones."""
    try:
        return _REGISTRY[backend_id]
    except (KeyError, TypeError):
        raise BackendError(f"unknown backend {backend_id!r}; known backends: "
                           f"{', '.join(known_backends()) or '(none)'}") from None


def run_delegate(backend_id: str, processed_bytes: bytes, compile_specs: Sequence[CompileSpec],
                 inputs: Sequence[torch.Tensor],
                 original: Optional[ExportedProgram] = None) -> list[torch.Tensor]:
    """One delegate call in Python: the backend's reference when it has one, else the program
    the delegate was lowered from. Returns the flat list of outputs."""
    backend = get_backend(backend_id)
    outs = backend.execute(processed_bytes, list(compile_specs), list(inputs))
    if outs is None:
        if original is None:
            raise BackendError(f"backend {backend_id} has no Python reference (execute) and "
                               "the program it was lowered from is not at hand")
        with torch.no_grad():
            outs = original.module()(*inputs)
    return [t for t in tree_leaves(outs)]
