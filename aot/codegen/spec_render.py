"""The static C generator's reading of a CallSpec (aot/opspec.py): one call's known values in,
the kernel and its C argument list out.

Arguments are read through the CallContext's checked accessors, where the spec first uses
them, as the interpreter's adapter compiled from the same spec reads them at run time
(aot/codegen/adapters.py).
"""
from __future__ import annotations

import math

import numpy as np

from .. import opspec as S
from .context import DTYPE_CODES, ELEM_SIZES
from .preconditions import Window
from .literals import f32_literal, f64_literal, int64_literal


class _Eval:
    def __init__(self, ctx):
        self.ctx = ctx
        self.memo: dict[int, object] = {}

    def value(self, e: S.Expr):
        key = id(e)
        if key not in self.memo:
            self.memo[key] = self._value(e)
        return self.memo[key]

    def _value(self, e: S.Expr):
        ctx = self.ctx
        if isinstance(e, S.Lit):
            return e.value
        if isinstance(e, S.Tensor):
            dtype = self.value(e.like).dtype if e.like is not None else e.dtype
            return (ctx.out if e.out else ctx.opt if e.optional else ctx.t)(e.name, dtype)
        if isinstance(e, S.Float):
            return ctx.scalar(e.name)
        if isinstance(e, S.Number):
            return ctx.scalar(e.name)
        if isinstance(e, S.WholeInt):
            v = ctx.scalar(e.name)
            if not math.isfinite(v) or v != int(v) or not -2.0 ** 63 <= v < 2.0 ** 63:
                ctx.unsupported(f"{e.name}={v} on an integer tensor")
            return int(v)
        if isinstance(e, S.Int):
            return ctx.int(e.name, self.value(e.lo), self.value(e.hi))
        if isinstance(e, S.IsNone):
            return ctx.is_none(e.name)
        if isinstance(e, S.Bool):
            return int(ctx.bool(e.name))
        if isinstance(e, S.Dim):
            return ctx.dim(e.name, self.value(e.of).rank)
        if isinstance(e, S.DimMask):
            rank = self.value(e.of).rank
            every = _all_dims(rank)
            if ctx.is_none(e.name):
                return every
            if e.one:
                return (1 << ctx.dim(e.name, rank)) & every
            dims = ctx.dims(e.name, rank)
            return sum(1 << d for d in dims) if dims or not e.empty_is_all else every
        if isinstance(e, S.Ints):
            return ctx.ints(e.name, lengths=(e.n,), lo=e.lo, hi=e.hi)
        if isinstance(e, S.Pair):
            if ctx.is_none(e.name):
                v = []
            else:
                v = ctx.ints(e.name, lengths=(0, 1, 2), lo=e.lo)
            if not v:
                if e.default is None:
                    ctx.invalid(f"argument {e.name!r} is empty")
                return list(self.value(e.default))
            return v * 2 if len(v) == 1 else v
        if isinstance(e, S.Params):       # a field of value None is left zero
            fields = {k: self._field(v) for k, v in e.fields}
            return ctx.params(e.struct, **{k: v for k, v in fields.items() if v is not None})
        if isinstance(e, S.Window):
            return Window(*(self.value(v) for v in e.items))
        if isinstance(e, S.Floats):
            if e.optional and ctx.is_none(e.name):
                return [0.0] * e.n
            v = ctx.floats(e.name)
            if len(v) != e.n:
                ctx.invalid(f"argument {e.name!r} has {len(v)} entries, not {e.n}")
            return v
        if isinstance(e, S.Item):
            return self.value(e.of)[e.k]
        if isinstance(e, S.Tail):
            items = self.value(e.of)
            return items[len(items) - self.value(e.count):]
        if isinstance(e, S.Value):
            dtype = self.value(e.like).dtype if e.like is not None else e.dtype
            return ctx.data_array(dtype, [self.value(e.a)])
        if isinstance(e, S.Tensors):
            if e.optional:
                return ctx.opt_list(e.name)
            dtype = self.value(e.like).dtype if e.like is not None else None
            return (ctx.out_list if e.out else ctx.t_list)(e.name, dtype)
        if isinstance(e, S.ListPart):
            items = self.value(e.of)
            if e.what == "shapes":
                return ctx.shape_array([t.shape if t is not None else () for t in items])
            if e.what == "ptrs":
                return ctx.ptr_array([t.ptr if t is not None else "NULL" for t in items],
                                     "void *" if e.of.out else "const void *")
            return [DTYPE_CODES[t.dtype] if t is not None else -1 for t in items]
        if isinstance(e, S.Array):
            return [int(self.value(v)) for v in e.items]
        if isinstance(e, S.F32):
            with np.errstate(over="ignore"):        # past float's range: infinity
                return float(np.float32(self.value(e.a)))
        if isinstance(e, S.DimList):
            rank = self.value(e.of).rank
            dims = ctx.dims(e.name, rank)
            if e.perm and len(dims) != rank:
                ctx.invalid(f"{e.name} {dims} is not a permutation of a rank-{rank} tensor")
            return dims
        if isinstance(e, S.IsRange):
            return ctx.ints(e.name) == list(range(self.value(e.n)))
        if isinstance(e, S.AllDims):
            return _all_dims(self.value(e.of).rank)
        if isinstance(e, S.ShapeTail):
            shape = list(self.value(e.of).shape)
            tail = ctx.ints(e.name, lo=0)
            if not 1 <= len(tail) <= len(shape) or shape[len(shape) - len(tail):] != tail:
                ctx.invalid(f"{e.name} {tail} is not the end of the input's shape {shape}")
            return len(tail)
        if isinstance(e, S.Choice):
            v = ctx.str_or_none(e.name)
            if v is None and e.none_code is not None:
                return e.none_code
            if v not in e.options:
                ctx.invalid(f"{e.name}={v!r} (the op takes "
                            f"{', '.join(repr(k) for k in e.options if k)})")
            return e.options[v]
        if isinstance(e, S.Act):
            if e.form == "on":
                return int(ctx.act is not None)
            if e.form == "struct" and ctx.act is not None:
                return (1, float(ctx.act[0]), float(ctx.act[1]))
            return None
        if isinstance(e, S.IntArray):
            return ctx.ints(e.name, lo=e.lo, hi=e.hi)
        if isinstance(e, S.Count):
            return len(self.value(e.of))
        if isinstance(e, S.Scratch):
            return ctx.scratch(e.name)
        if isinstance(e, S.Checked):
            ctx.ints(e.name, lo=e.lo, hi=e.hi)
            return 0
        if isinstance(e, S.Spatial):
            spatial = self.value(e.spatial)
            v = ctx.ints(e.name, lengths=(1, spatial), lo=e.lo)
            v = v * spatial if len(v) == 1 else v
            return [e.unit] + v if spatial == 1 else v
        if isinstance(e, S.DtypeIs):
            return self.value(e.tensor).dtype == e.dtype
        if isinstance(e, S.Prop):
            t = self.value(e.tensor)
            if e.what == "size":
                return t.shape[self.value(e.index)]
            if e.what == "elem":
                return ELEM_SIZES[t.dtype]
            if e.what == "dtype":
                return DTYPE_CODES[t.dtype]
            if e.what == "data":
                return t.ptr
            return t.rank if e.what == "rank" else t.numel
        if isinstance(e, S.SameShape):
            return tuple(self.value(e.a).shape) == tuple(self.value(e.b).shape)
        if isinstance(e, S.Fn):
            return e.py(*(tuple(self.value(a).shape) if isinstance(a, S.Tensor) else self.value(a)
                          for a in e.args))
        if isinstance(e, S.Select):
            return self.value(e.a) if self.value(e.cond) else self.value(e.b)
        if isinstance(e, S.Not):
            return not self.value(e.a)
        if isinstance(e, S.BinOp):
            a = self.value(e.a)
            if e.op == "&&":
                return bool(a) and bool(self.value(e.b))
            if e.op == "||":
                return bool(a) or bool(self.value(e.b))
            return _BINOPS[e.op](a, self.value(e.b))
        raise TypeError(f"not a spec expression: {e!r}")

    def _pre_arg(self, e: S.Expr):
        """A precondition's argument: a tensor by its argument's name."""
        while isinstance(e, S.Select) and e.ctype == "rt_pte_tensor":
            e = e.a if self.value(e.cond) else e.b
        return e.name if isinstance(e, S.Tensor) else self.value(e)

    def _field(self, e: S.Expr):
        """A parameter struct's field: an int array by the name of its static array, a truth
        value as 0 or 1."""
        v = self.value(e)
        if _is_array(e):
            return self._int_array(v)
        return int(v) if isinstance(v, bool) else v

    def _int_array(self, v: list) -> str:
        """A static int32 array of ``v`` (C has no empty array: one unread 0)."""
        return self.ctx.int_array(v or [0])

    def c_args(self, e: S.Expr) -> list:
        """The C text of one call argument (a tensor gives two); a Select writes its chosen
        side."""
        while isinstance(e, S.Select):
            e = e.a if self.value(e.cond) else e.b
        v = self.value(e)
        if isinstance(e, S.Tensor):
            return v.pair
        if isinstance(e, S.Act):
            return [self.ctx.act_ptr()]
        if isinstance(e, S.Lit) and e.c is not None:
            return [e.c]
        if e.ctype == "float":
            return [f32_literal(v)]
        if isinstance(e, S.WholeInt):
            return [int64_literal(v)]
        if e.ctype == "double":
            return [f64_literal(v)]
        if e.ctype == "uint32_t":
            return [f"{int(v)}u"]
        if _is_array(e):
            return [self._int_array(v)]
        if isinstance(e, (S.Params, S.Value, S.Scratch, S.ListPart)) or \
                isinstance(e, S.Prop) and e.what == "data":
            return [v]
        return [int(v)]

    def _raw(self, exprs) -> dict:
        """A call's arguments as values, for what reads the call beyond its C text
        (aot.codegen.mve_variants): each tensor's TensorArg (a scratch's too) by its name,
        the parameter struct's fields (the last struct's, as "params")."""
        raw = {}
        for e in exprs:
            while isinstance(e, S.Select):
                e = e.a if self.value(e.cond) else e.b
            if isinstance(e, S.Tensor):
                raw[e.name] = self.value(e)
            elif isinstance(e, S.Scratch):
                raw[e.name] = self.ctx.scratch_arg(e.name)
            elif isinstance(e, S.Params):
                raw["params"] = {k: self.value(v) for k, v in e.fields}
        return raw

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, S.If):
                got = self.block(s.then if self.value(s.cond) else s.otherwise)
                if got is not None:
                    return got
            elif isinstance(s, S.Read):
                for e in s.exprs:
                    self.value(e)
            elif isinstance(s, S.Pre):
                self.ctx.require(s.name, form=s.form,
                                 **{k: self._pre_arg(e) for k, e in s.args})
            elif isinstance(s, S.Fail):
                (self.ctx.unsupported if s.kind == S.UNSUPPORTED else self.ctx.invalid)(s.why)
            else:
                args = []
                for a in s.args:
                    args += self.c_args(a)
                self.ctx.raw_call = self._raw(s.args)
                return s.kernel, args
        return None


_ARRAYS = (S.DimList, S.Ints, S.IntArray, S.Array, S.Tail)     # int32 arrays for the kernel


def _is_array(e: S.Expr) -> bool:
    """Whether ``e`` is an int32 array for the kernel (a static array in the C)."""
    return isinstance(e, _ARRAYS) or isinstance(e, S.Fn) and e.items is not None or \
        isinstance(e, S.ListPart) and e.what == "dtypes"


def _all_dims(rank: int) -> int:
    """Every dim of a rank-``rank`` tensor as a mask (rt_pte_all_dims)."""
    return (1 << rank) - 1


def _c_div(a, b):
    """C's division: of doubles, or of ints (toward zero)."""
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


_BINOPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "/": _c_div, "%": lambda a, b: a - _c_div(a, b) * b,
           "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def render(spec: S.CallSpec, ctx):
    """(kernel, C arguments) of one call, as the op's renderer returns them."""
    got = _Eval(ctx).block(spec.body)
    if got is None:
        raise TypeError(f"{ctx.op_name}: a path of its call spec ends in no Call")
    return got

