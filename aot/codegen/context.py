"""What a kernel renderer sees of one call: its arguments by schema name, as checked values.

A renderer (aot.codegen.spec_render) reads arguments through a CallContext and returns the C
function to call with its argument list. The same renderer runs in two places:
- the C generator, where tensors become pointer expressions into the arena or flash;
- the support check (``check_call``), run by ``to_edge`` on graph nodes and by the Program
  check on every call, where tensors have shapes and dtypes but no storage. A call that the
  check passes renders; one it refuses is refused before anything is written.

Renderers raise through ``ctx.unsupported`` (a valid call the runtime has no kernel for) or
``ctx.invalid`` (arguments that contradict each other or the op, e.g. a stride list of the
wrong length). Every accessor validates what it returns, so no renderer meets a value that
makes it fail in another way.

Where the kernel needs more (an op's ``preconditions``, aot.codegen.preconditions), the renderer
states each one's arguments through ``ctx.require``, which checks it in both places;
``check_call`` refuses to pass a call whose renderer left a declared precondition unchecked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from .. import program as P
from ..calls import TensorValue
from . import preconditions as _pre
from .literals import f32_literal

INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1

DTYPES = {  # ScalarType -> (our name, C type, numpy dtype)
    P.ScalarType.FLOAT: ("float32", "float", np.float32),
    P.ScalarType.LONG: ("int64", "int64_t", np.int64),
    P.ScalarType.INT: ("int32", "int32_t", np.int32),
    P.ScalarType.BOOL: ("bool", "uint8_t", np.uint8),
    P.ScalarType.BYTE: ("uint8", "uint8_t", np.uint8),
    P.ScalarType.CHAR: ("int8", "int8_t", np.int8),
    P.ScalarType.SHORT: ("int16", "int16_t", np.int16),
}

DTYPE_CODES = {name: int(st) for st, (name, _, _) in DTYPES.items()}   # "float32" -> 6
_C_OF = {name: (ctype, np_dtype) for name, ctype, np_dtype in DTYPES.values()}
ELEM_SIZES = {name: np.dtype(np_dtype).itemsize for name, _, np_dtype in DTYPES.values()}
C_TYPES = {name: ctype for name, ctype, _ in DTYPES.values()}                # "int8" -> "int8_t"


def c_literals(data: np.ndarray) -> list[str]:
    """C initializers for the elements of a numpy array."""
    if data.dtype == np.float32:
        return [f32_literal(x) for x in data.tolist()]
    suffix = "LL" if data.dtype == np.int64 else ""
    # The most negative value has no literal of its own (-9223372036854775808LL is the
    # negation of a constant too large for long long): INT64_MIN / INT32_MIN name it.
    lowest = {np.dtype(np.int64): "INT64_MIN", np.dtype(np.int32): "INT32_MIN"}.get(data.dtype)
    low = int(np.iinfo(data.dtype).min) if lowest else None
    return [lowest if lowest and int(x) == low else f"{int(x)}{suffix}" for x in data.tolist()]


class Unsupported(Exception):
    """A valid call that the C runtime has no kernel for."""


class Invalid(Exception):
    """A call whose arguments contradict each other or the op."""


@dataclass(frozen=True)
class TensorArg:
    index: int               # value index in the plan (-1: a graph node being checked)
    shape: tuple[int, ...]
    dtype: str
    ptr: str                 # C expression for the data pointer
    shape_ref: str           # C expression for `const rt_shape *`

    @property
    def pair(self) -> list[str]:
        return [self.shape_ref, self.ptr]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1


NONE_PAIR = TensorArg(-1, (), "none", "NULL", "NULL")


def dtype_name(t: P.Tensor) -> str:
    entry = DTYPES.get(t.scalar_type)
    if entry is None:
        raise Unsupported(f"tensor dtype {P.ScalarType(t.scalar_type).name}")
    return entry[0]


class CallContext:
    """One call's arguments (``values``: schema name -> checked value, see aot.calls)."""

    def __init__(self, gen, op, values: dict[str, Any], act=None):
        self.gen, self.op, self.values = gen, op, values
        self.act = act   # (lo, hi) of an activation fused into this call (aot.codegen.epilogue)
        self.op_name = op.et_name
        self.prelude: list[str] = []   # statements that must run right before the call
        self.checked: set[str] = set()   # the preconditions ctx.require has checked

    # -- scalars -------------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.values

    def is_none(self, name: str) -> bool:
        return self.values.get(name) is None

    def _get(self, name: str) -> Any:
        if name not in self.values:
            self.invalid(f"the call has no argument {name!r}")
        return self.values[name]

    def int(self, name: str, lo: int = INT32_MIN, hi: int = INT32_MAX) -> int:
        v = self._get(name)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, int):
            self.invalid(f"argument {name!r} must be an int, not {v!r}")
        if not lo <= v <= hi:
            self.invalid(f"argument {name!r} is {v}, outside [{lo}, {hi}]")
        return int(v)

    def bool(self, name: str) -> bool:
        v = self._get(name)
        if not isinstance(v, (bool, int)):
            self.invalid(f"argument {name!r} must be a bool, not {v!r}")
        return bool(v)

    def scalar(self, name: str) -> float:
        v = self._get(name)
        if not isinstance(v, (bool, int, float)):
            self.invalid(f"argument {name!r} must be a number, not {v!r}")
        return float(v)

    def float(self, name: str) -> str:
        """A number argument as a C float literal."""
        return f32_literal(self.scalar(name))

    def str_or_none(self, name: str) -> Optional[str]:
        v = self.values.get(name)
        if v is not None and not isinstance(v, str):
            self.invalid(f"argument {name!r} must be a string, not {v!r}")
        return v

    def ints(self, name: str, lengths: Optional[Sequence[int]] = None,
             lo: int = INT32_MIN, hi: int = INT32_MAX) -> list[int]:
        """An int list (a single int reads as a list of one). ``lengths``: those allowed."""
        v = self._get(name)
        items = [v] if isinstance(v, int) and not isinstance(v, bool) else v
        if not isinstance(items, (list, tuple)) or \
                not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
            self.invalid(f"argument {name!r} must be a list of ints, not {v!r}")
        if lengths is not None and len(items) not in lengths:
            self.invalid(f"argument {name!r} has {len(items)} entries, not "
                         f"{' or '.join(map(str, lengths))}")
        if any(not lo <= x <= hi for x in items):
            self.invalid(f"argument {name!r} = {list(items)} has an entry outside "
                         f"[{lo}, {hi}]")
        return [int(x) for x in items]

    def floats(self, name: str) -> list[float]:
        v = self._get(name)
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, (int, float))
                                                       for x in v):
            self.invalid(f"argument {name!r} must be a list of floats, not {v!r}")
        return [float(x) for x in v]

    def dim(self, name: str, rank: int) -> int:
        """A dim argument, normalized to [0, rank) (a rank-0 tensor has dim 0 or -1)."""
        size = max(rank, 1)
        d = self.int(name, -size, size - 1)
        return d % size

    def dims(self, name: str, rank: int) -> list[int]:
        size = max(rank, 1)
        out = [d % size for d in self.ints(name, lo=-size, hi=size - 1)]
        if len(set(out)) != len(out):
            self.invalid(f"argument {name!r} repeats a dim: {out}")
        return out

    # -- tensors -------------------------------------------------------------------------------
    def _tensor_value(self, name: str) -> TensorValue:
        v = self._get(name)
        if not isinstance(v, TensorValue):
            self.invalid(f"argument {name!r} must be a tensor")
        return v

    def t(self, name: str, dtype: Optional[str] = "float32") -> TensorArg:
        arg = self.gen.tensor(self._tensor_value(name), write=False)
        if dtype is not None and arg.dtype != dtype:
            self.unsupported(f"{name} of dtype {arg.dtype} (kernel takes {dtype})")
        return arg

    def out(self, name: str, dtype: Optional[str] = "float32") -> TensorArg:
        arg = self.gen.tensor(self._tensor_value(name), write=True)
        if dtype is not None and arg.dtype != dtype:
            self.unsupported(f"output {name} of dtype {arg.dtype} (kernel takes {dtype})")
        return arg

    def opt(self, name: str, dtype: Optional[str] = "float32") -> TensorArg:
        return NONE_PAIR if self.is_none(name) else self.t(name, dtype)

    def _list(self, name: str) -> tuple:
        v = self._get(name)
        if not isinstance(v, tuple):
            self.invalid(f"argument {name!r} must be a tensor list")
        return v

    def t_list(self, name: str, dtype: Optional[str] = "float32") -> list[TensorArg]:
        out = []
        for v in self._list(name):
            if not isinstance(v, TensorValue):
                self.invalid(f"argument {name!r} must list tensors")
            arg = self.gen.tensor(v, write=False)
            if dtype is not None and arg.dtype != dtype:
                self.unsupported(f"{name} of dtype {arg.dtype} (kernel takes {dtype})")
            out.append(arg)
        return out

    def opt_list(self, name: str, dtype: Optional[str] = None) -> list[Optional[TensorArg]]:
        """A Tensor?[] argument: None where an entry is absent."""
        out = []
        for v in self._list(name):
            if v is None:
                out.append(None)
                continue
            if not isinstance(v, TensorValue):
                self.invalid(f"argument {name!r} must list tensors or None")
            arg = self.gen.tensor(v, write=False)
            if dtype is not None and arg.dtype != dtype:
                self.unsupported(f"{name} of dtype {arg.dtype} (kernel takes {dtype})")
            out.append(arg)
        return out

    def out_list(self, name: str, dtype: Optional[str] = "float32") -> list[TensorArg]:
        out = []
        for v in self._list(name):
            if not isinstance(v, TensorValue):
                self.invalid(f"argument {name!r} must list tensors")
            arg = self.gen.tensor(v, write=True)
            if dtype is not None and arg.dtype != dtype:
                self.unsupported(f"output {name} of dtype {arg.dtype} (kernel takes {dtype})")
            out.append(arg)
        return out

    def rank(self, arg: TensorArg, *allowed: int) -> int:
        """The tensor's rank, which must be one of ``allowed``."""
        if arg.rank not in allowed:
            self.unsupported(f"a rank-{arg.rank} tensor (kernel takes rank "
                             f"{' or '.join(map(str, allowed))})")
        return arg.rank

    def same_shape(self, a: TensorArg, b: TensorArg) -> None:
        if a.shape != b.shape:
            self.invalid(f"shapes {list(a.shape)} and {list(b.shape)} must agree")

    def is_constant(self, name: str) -> Optional[bool]:
        """Whether a tensor argument is a constant (its values are the program's bytes, known
        before it runs), not planned in an arena nor supplied at run time; None for a graph
        node's value (checked before the program exists: not yet known)."""
        v = self._tensor_value(name)
        if v.index < 0:
            return None
        return v.tensor.data_buffer_idx > 0 and v.tensor.allocation_info is None

    def constant_values(self, name: str) -> Optional[np.ndarray]:
        """A constant tensor argument's values, flat; None when the program's bytes are not at
        hand (a check of a call alone)."""
        t = self._tensor_value(name).tensor
        program = getattr(self.gen, "program", None)
        entry = DTYPES.get(t.scalar_type)
        if program is None or entry is None or not self.is_constant(name) or \
                t.data_buffer_idx >= len(program.constant_buffer):
            return None
        np_dtype = np.dtype(entry[2])
        blob = bytes(program.constant_buffer[t.data_buffer_idx].storage)
        count = t.numel
        blob = blob[:count * np_dtype.itemsize].ljust(count * np_dtype.itemsize, b"\0")
        return np.frombuffer(blob, dtype=np_dtype, count=count)

    # -- preconditions (aot.codegen.preconditions) --------------------------------------------
    def require(self, name: str, form: Optional[str] = None, **args: Any) -> None:
        """Check the precondition ``name`` of the op's kernel on these arguments, in the check's
        ``form`` if given (the op must declare it: OpDef.preconditions)."""
        if name not in getattr(self.op, "preconditions", ()):
            raise RuntimeError(f"{self.op_name}: its renderer checks precondition {name!r}, "
                               "which the op table does not declare")
        _pre.CHECKS[name](self, **args) if form is None else \
            _pre.CHECKS[name](self, form=form, **args)
        self.checked.add(name)

    # -- static data ---------------------------------------------------------------------------
    def params(self, ctype: str, **fields: Any) -> str:
        return self.gen.static_struct(ctype, fields)

    def act_ptr(self) -> str:
        """The fused activation as ``const rt_act_f32 *`` (NULL when there is none)."""
        if self.act is None:
            return "NULL"
        return self.params("rt_act_f32", on=1, lo=float(self.act[0]), hi=float(self.act[1]))

    def int_array(self, values: list[int]) -> str:
        return self.gen.static_array("int32_t", [str(v) for v in values])

    def float_array(self, values: list[float]) -> str:
        return self.gen.static_array("float", [f32_literal(v) for v in values])

    def data_array(self, name_of_dtype: str, values) -> str:
        """A static const array of ``values`` in a tensor dtype ("float32", "int64", ...)."""
        ctype, np_dtype = _C_OF[name_of_dtype]
        data = np.asarray(values).astype(np_dtype).reshape(-1)
        return self.gen.static_array(ctype, c_literals(data) or ["0"])

    def shape_array(self, shapes: list[tuple[int, ...]]) -> str:
        return self.gen.static_array("rt_shape", [self.gen.shape_init(s) for s in shapes])

    def ptr_array(self, ptrs: list[str], ctype: str = "const float *") -> str:
        """A local array of input pointers (arena pointers are only known at run time)."""
        name = f"ptrs{len(self.gen.locals)}"
        self.gen.locals.append(f"{ctype}{name}[{max(len(ptrs), 1)}];")
        self.prelude.extend(f"{name}[{i}] = {p};" for i, p in enumerate(ptrs))
        return name

    def scratch(self, name: str) -> str:
        """A planned scratch tensor as ``const rt_scratch *`` (its arena address is only
        known at run time, so the struct is a local filled right before the call)."""
        t = self.gen.tensor(self._tensor_value(name), write=True)
        var = f"scratch{len(self.gen.locals)}"
        self.gen.locals.append(f"rt_scratch {var};")
        self.prelude.extend([f"{var}.buf = (void *){t.ptr};", f"{var}.size = {t.numel};"])
        return f"&{var}"

    def scratch_arg(self, name: str) -> TensorArg:
        """A planned scratch tensor as a TensorArg (its bytes: ``numel``), for what reads a
        call beyond its C text."""
        return self.gen.tensor(self._tensor_value(name), write=True)

    @staticmethod
    def f32_literal(x: float) -> str:
        return f32_literal(x)

    def unsupported(self, why: str):
        raise Unsupported(why)

    def invalid(self, why: str):
        raise Invalid(why)
