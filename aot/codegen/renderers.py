"""Which renderer writes an op-table entry's call, and the check that a call is renderable.

Every entry with a kernel has a call spec (aot/opspec.py), rendered by aot.codegen.spec_render.
The op table itself imports neither: it declares, the renderers render.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from .. import program as P
from .context import CallContext, Invalid, TensorArg, Unsupported, dtype_name
from .spec_render import render


def renderer_of(op) -> Optional[Callable]:
    """The static C renderer of an op-table entry (None: the runtime has no kernel for it)."""
    if op.spec is None:
        return None
    return lambda ctx: render(op.spec, ctx)


class CheckGen:
    """Stands in for the C generator when a call is only checked: tensors have shapes and
    dtypes, pointers and static data are placeholders."""

    def __init__(self, program: Optional[P.Program] = None):
        self.locals: list[str] = []
        self.program = program   # for constants' values, where the caller has the program

    def tensor(self, ref, write: bool) -> TensorArg:
        t = ref.tensor
        if any(s < 0 for s in t.sizes):
            raise Invalid(f"a tensor has a negative size {list(t.sizes)}")
        return TensorArg(ref.index, tuple(t.sizes), dtype_name(t), "p", "s")

    def shape_init(self, shape) -> str:
        return "{}"

    def static_struct(self, ctype: str, fields: dict) -> str:
        return "&p"

    def static_array(self, ctype: str, items: list) -> str:
        return "a"


def check_call(op, values: dict[str, Any], program: Optional[P.Program] = None) -> None:
    """Raise Unsupported or Invalid if ``op``'s renderer would refuse these arguments, or if they
    break one of the kernel's preconditions (``op.preconditions``). ``program``: the Program
    the call belongs to, whose constants' values some preconditions read (without it, those
    values go unchecked; whether a tensor is a constant is checked either way)."""
    if not op.has_kernel:
        raise Unsupported("no kernel in the C runtime")
    ctx = CallContext(CheckGen(program), op, values)
    renderer_of(op)(ctx)
    missing = [name for name in getattr(op, "preconditions", ()) if name not in ctx.checked]
    if missing:
        raise RuntimeError(f"{op.key}: its renderer did not check the preconditions {missing} "
                           "the op table declares")
