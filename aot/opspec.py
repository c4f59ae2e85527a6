"""Call specs: how a call of an op becomes one call into runtime_c, declared once.

An op-table entry (aot/ops.py) may carry a ``CallSpec``: which of the call's arguments the kernel
reads and how (with the checks that refuse what it cannot take), the rule that picks the kernel,
and the kernel's argument list. Two renderers read it:

- the static C generator evaluates it on one call's known values and writes the C call
  (aot/codegen/spec_render.py);
- the interpreter's adapter for the op is compiled from it into C, which decodes the same
  arguments from a .pte's KernelCall at run time, makes the same checks in the same order and
  calls the same kernel with the same values (aot/codegen/adapters.py).

So the two agree by construction, as ExecuTorch's unpacking code agrees with functions.yaml.

A spec is a tuple of statements: ``If(cond, then, otherwise)``, ``Fail(kind, why)``,
``Read(*exprs)`` (read these now, so that every path after it shares them), ``Pre(name,
**args)`` (the kernel's precondition ``name``, which the op declares: aot/codegen/
preconditions.py checks it for the static C, ``rt_pte_pre_<name>`` of rt_pte_checks.h at load,
given these arguments in this order) and, ending every path, ``Call(kernel, *args)``.
Expressions read arguments by their schema names:

    Tensor("self")            a float32 tensor (``dtype=None``: any dtype the runtime takes)
    Opt("weight")             an optional tensor (None: NULL shape and data)
    Float("alpha")            a number, as the float32 the kernel takes
    Number("other")           a number, as a double
    WholeInt("alpha")         a number that must be whole (an int64 operand)
    Int("groups", lo, hi)     an int in [lo, hi]
    IsNone("min")             whether an optional argument is absent
    Bool("half_to_float")     a bool, as 0 or 1
    Dim("dim", of=x)          a dim of x, normalized to [0, max(rank, 1))
    DimMask("dim", of=x)      a dim list (or None: all) of x as a uint32 bit mask
    DimList("dims", of=x, perm=True)   a dim list of x as an int32 array (a permutation)
    Ints("output_size", n=2, lo=0)   an int list of n items as an int32 array; .at(k) an item
    Floats("scale_factors", n=2)     a float list of n items as doubles; .at(k) an item
    IntArray("pad")           an int list of any length as an int32 array, with its .count
    Tensors("tensors", like=out)   a tensor list: its .shapes, .ptrs, .count (and .dtypes)
    Pair("stride", default=k, lo=1)   a pooling parameter for one or two dims, as [h, w]
    Params("rt_pool2d_params", kernel_h=..., ...)   a kernel's parameter struct, by pointer
    Window(size, k, stride, pad, dil, out)   one axis of a window, for a precondition
    F32(e)                    a double rounded to float32
    Array(a, b, ...)          an int32 array of these items
    AllDims(x)                every dim of x as a mask
    ShapeTail("normalized_shape", of=x)   an int list that is x's last dims: its length
    IsRange("dim_order", n)   whether an int list is 0, 1, ..., n - 1
    Fn("rt_arange_numel", py, a, b)   a pure function of other expressions: its C definition
                              in runtime_c, ``py`` its Python twin (a test holds them equal)
                              (``items=``: an int32 array the function fills)
    Value(Number("value"), like=x)   a fill value of x's dtype, by pointer
    Choice("approximate", {"none": 0, "tanh": 1})   a string among these (else invalid)
    Act()                     the activation fused into this call, or NULL
    Select(cond, a, b)        a if cond else b (only the chosen side is read)
    Lit(value)                a constant

Expressions combine with ``+ - *``, ``//`` (C's division of ints: operands >= 0, divisor > 0),
``/`` (of doubles), comparisons and ``& | ~``; ``t.is_dtype("int64")``, ``t.rank``,
``t.size(i)``, ``t.numel``, ``t.dtype_code`` (its rt_dtype), ``t.elem_size``, ``t.data`` (its
pointer alone), ``t.same_shape(u)`` read a tensor; ``Out("out", like=x)`` is an output of x's
dtype. A call argument that is a tensor passes its (shape, data) pair. An
argument is read where it is first used, in statement order, on both sides; its checks fail
the call there. An input of the schema that no path reads is still checked for its kind (a
bool is a bool, an int? an int or None) by the adapter, before the call, as the program
verifier checks it for the static C.

This module is the bottom of the op table: it imports nothing of aot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Union

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

UNSUPPORTED = "unsupported"    # a valid call no kernel takes (RT_ERR_PTE_UNSUPPORTED)
INVALID = "invalid"            # arguments that contradict the op (RT_ERR_PTE_ARGS)


class Expr:
    """An expression over a call's arguments. It has no truth value in Python: branch with
    ``If`` or ``Select``."""
    ctype = "int64_t"

    def _bin(self, op: str, other, swap: bool = False) -> "BinOp":
        a, b = (lift(other), self) if swap else (self, lift(other))
        return BinOp(op, a, b)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __floordiv__(self, o): return self._bin("/", o)     # C's /: operands >= 0, divisor > 0
    def __mod__(self, o): return self._bin("%", o)          # C's %: operands >= 0, divisor > 0
    def __truediv__(self, o): return self._bin("/", o)      # of doubles
    def __rtruediv__(self, o): return self._bin("/", o, True)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __neg__(self): return BinOp("-", Lit(0), self)
    def __lt__(self, o): return self._bin("<", o)
    def __le__(self, o): return self._bin("<=", o)
    def __gt__(self, o): return self._bin(">", o)
    def __ge__(self, o): return self._bin(">=", o)
    def eq(self, o): return self._bin("==", o)
    def ne(self, o): return self._bin("!=", o)
    def __and__(self, o): return self._bin("&&", o)
    def __or__(self, o): return self._bin("||", o)
    def __invert__(self): return Not(self)

    def __bool__(self):
        raise TypeError("a spec expression has no truth value here: use If or Select")


def lift(v) -> Expr:
    return v if isinstance(v, Expr) else Lit(v)


@dataclass(frozen=True, eq=False)
class Lit(Expr):
    """A constant: an int, a float (written as a float32 literal) or a C token (``c``; with value
    None, e.g. NULL)."""
    value: Union[int, float, str, None]
    c: Optional[str] = None

    @property
    def ctype(self) -> str:
        return "float" if isinstance(self.value, float) else "int64_t"


@dataclass(frozen=True, eq=False)
class Arg(Expr):
    """An argument of the call, read by its schema name."""
    name: str


@dataclass(frozen=True, eq=False)
class Tensor(Arg):
    dtype: Optional[str] = "float32"
    out: bool = False
    optional: bool = False      # None passes (NULL, NULL) to the kernel
    like: Optional["Tensor"] = None     # the dtype is that tensor's (dtype is then None)
    ctype = "rt_pte_tensor"

    def is_dtype(self, dtype: str) -> "DtypeIs":
        return DtypeIs(self, dtype)

    @property
    def rank(self) -> "Prop":
        return Prop(self, "rank")

    def size(self, i) -> "Prop":
        """Its size along dim ``i`` (an int, or an expression such as a ``Dim``)."""
        return Prop(self, "size", i)

    @property
    def numel(self) -> "Prop":
        return Prop(self, "numel")

    @property
    def dtype_code(self) -> "Prop":
        return Prop(self, "dtype")

    @property
    def elem_size(self) -> "Prop":
        return Prop(self, "elem")

    @property
    def data(self) -> "Prop":
        """Its data pointer alone (a kernel argument without the shape)."""
        return Prop(self, "data")

    def same_shape(self, other: "Tensor") -> "SameShape":
        return SameShape(self, other)


def Out(name: str, dtype: Optional[str] = "float32", like: Optional[Tensor] = None) -> Tensor:
    """An output tensor (``like``: of that tensor's dtype)."""
    return Tensor(name, None if like is not None else dtype, out=True, like=like)


def Opt(name: str, dtype: Optional[str] = "float32") -> Tensor:
    """An optional tensor: None passes (NULL, NULL) to the kernel."""
    return Tensor(name, dtype, optional=True)


@dataclass(frozen=True, eq=False)
class Float(Arg):
    ctype = "float"


@dataclass(frozen=True, eq=False)
class Number(Arg):
    ctype = "double"


@dataclass(frozen=True, eq=False)
class WholeInt(Arg):
    ctype = "int64_t"


@dataclass(frozen=True, eq=False)
class Int(Arg):
    lo: Union[int, Expr] = INT32_MIN        # bounds: ints, or expressions read before it
    hi: Union[int, Expr] = INT32_MAX

    def __post_init__(self):
        object.__setattr__(self, "lo", lift(self.lo))
        object.__setattr__(self, "hi", lift(self.hi))


@dataclass(frozen=True, eq=False)
class IsNone(Arg):
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Bool(Arg):
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Dim(Arg):
    """A dim of tensor ``of``, in [-size, size) normalized to [0, size), size = max(rank, 1)."""
    of: "Tensor"
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class DimMask(Arg):
    """Dims of tensor ``of`` as a bit mask (bit d: dim d), each normalized as ``Dim``; None,
    or an empty list, is every dim of ``of``. ``one``: the argument is a single dim (or None),
    and a rank-0 tensor has no dim to name (mask 0); else a list with no dim repeated, and
    with ``empty_is_all=False`` an empty list is no dim (mask 0)."""
    of: "Tensor"
    one: bool = False
    empty_is_all: bool = True
    ctype = "uint32_t"


@dataclass(frozen=True, eq=False)
class DimList(Arg):
    """Dims of tensor ``of``, each normalized as ``Dim``, none repeated: an int32 array for the
    kernel (``perm=True``: every dim of ``of`` once, a permutation)."""
    of: "Tensor"
    perm: bool = False
    ctype = "const int32_t *"


@dataclass(frozen=True, eq=False)
class _List(Arg):
    """A list argument, whose items a spec reads with ``.at(k)``."""

    def at(self, k: int) -> "Item":
        return Item(self, k)


@dataclass(frozen=True, eq=False)
class Ints(_List):
    """An int list of exactly ``n`` items, each in [lo, hi]: an int32 array for the kernel."""
    n: int = 1
    lo: int = INT32_MIN
    hi: int = INT32_MAX
    ctype = "const int32_t *"

    def tail(self, count: Expr) -> "Tail":
        return Tail(self, lift(count))


@dataclass(frozen=True, eq=False)
class IntArray(_List):
    """An int list of any length, each item in [lo, hi]: an int32 array for the kernel (a long
    one, a layer's per-channel requantization, as load cached it), with its ``count``."""
    lo: int = INT32_MIN
    hi: int = INT32_MAX
    ctype = "const int32_t *"

    @property
    def count(self) -> "Count":
        return Count(self)


@dataclass(frozen=True, eq=False)
class Count(Expr):
    """How many items an ``IntArray`` or a ``Tensors`` has."""
    of: Union[IntArray, "Tensors"]
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Scratch(Arg):
    """A planned scratch tensor, as the kernel's ``const rt_scratch *`` (its bytes)."""
    ctype = "const rt_scratch *"


@dataclass(frozen=True, eq=False)
class Checked(Arg):
    """An int list of any length, each item in [lo, hi]: checked, not kept."""
    lo: int = INT32_MIN
    hi: int = INT32_MAX
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Spatial(_List):
    """A convolution parameter, one item for every spatial dim or one each of ``spatial``
    (1 or 2), each in [lo, INT32_MAX]: as [h, w], a 1-D convolution's h being ``unit`` (it runs
    as H = 1)."""
    lo: int = 0
    unit: int = 0
    spatial: Expr = None
    ctype = "const int32_t *"


@dataclass(frozen=True, eq=False)
class Tail(Expr):
    """The last ``count`` items of an ``Ints`` (0 <= count <= n), an int32 array for the kernel."""
    of: Ints
    count: Expr
    ctype = "const int32_t *"


@dataclass(frozen=True, eq=False)
class Value(Expr):
    """One value of tensor dtype ``dtype`` (or ``like``'s) in memory, passed by pointer (a fill
    value); a number converts to it as numpy's astype does."""
    a: Expr
    dtype: Optional[str] = None
    like: Optional["Tensor"] = None
    ctype = "const void *"


@dataclass(frozen=True, eq=False)
class Tensors(Arg):
    """A Tensor[] argument, each of ``like``'s dtype (None: any), ``out`` if the kernel writes
    them, at most ``max`` (a C constant) for the interpreter. ``optional``: a Tensor?[], whose
    None entries pass rank 0 and NULL. The kernel takes ``.shapes``, ``.ptrs``, ``.count`` and,
    of an optional list, ``.dtypes`` (each one's rt_dtype, -1 for None)."""
    like: Optional["Tensor"] = None
    out: bool = False
    optional: bool = False
    max: str = "RT_PTE_MAX_TENSOR_LIST"

    @property
    def shapes(self) -> "ListPart":
        return ListPart(self, "shapes")

    @property
    def ptrs(self) -> "ListPart":
        return ListPart(self, "ptrs")

    @property
    def dtypes(self) -> "ListPart":
        return ListPart(self, "dtypes")

    @property
    def count(self) -> "Count":
        return Count(self)


@dataclass(frozen=True, eq=False)
class ListPart(Expr):
    """What a kernel takes of a ``Tensors``: its shapes, its data pointers or its dtypes."""
    of: Tensors
    what: str

    @property
    def ctype(self) -> str:
        return {"shapes": "const rt_shape *", "dtypes": "const int32_t *",
                "ptrs": "void *const *" if self.of.out else "const void *const *"}[self.what]


@dataclass(frozen=True, eq=False)
class Pair(_List):
    """A pooling parameter for one or two dims, as [h, w]: one item stands for both; none (or
    None) is ``default``'s (another Pair or an Array; None: the call is invalid). Each item is
    in [lo, INT32_MAX]."""
    default: Optional[Expr] = None
    lo: int = 0
    ctype = "const int32_t *"


@dataclass(frozen=True, eq=False)
class Floats(_List):
    """A float list of exactly ``n`` items, as doubles (``optional``: None reads as n zeros, and
    ``IsNone`` tells them apart)."""
    n: int = 1
    optional: bool = False
    ctype = "const double *"


@dataclass(frozen=True, eq=False)
class Item(Expr):
    """Item k of an ``Ints``, a ``Pair`` or a ``Spatial`` (an int32), or of a ``Floats`` (a
    double)."""
    of: _List
    k: int

    @property
    def ctype(self) -> str:
        return "double" if isinstance(self.of, Floats) else "int32_t"


@dataclass(frozen=True, eq=False)
class Array(Expr):
    """An int32 array of these items, for the kernel (a Select between two arrays must follow a
    Read of both)."""
    items: tuple
    ctype = "const int32_t *"

    def __init__(self, *items):
        object.__setattr__(self, "items", tuple(lift(v) for v in items))


@dataclass(frozen=True, eq=False)
class Params(Expr):
    """A kernel's parameter struct ``ctype`` with these fields (the rest zero; an int array's
    field points at it), passed by pointer."""
    struct: str
    fields: tuple

    def __init__(self, struct: str, **fields):
        object.__setattr__(self, "struct", struct)
        object.__setattr__(self, "fields", tuple((k, lift(v)) for k, v in fields.items()))

    @property
    def ctype(self) -> str:
        return f"const {self.struct} *"


@dataclass(frozen=True, eq=False)
class Window(Expr):
    """One spatial axis of a window for a precondition (rt_pte_window; preconditions.Window):
    the input's size, taps, stride, padding, dilation and the output's size."""
    items: tuple
    ctype = "rt_pte_window"

    def __init__(self, size, k, stride, pad, dil, out):
        object.__setattr__(self, "items", tuple(lift(v) for v in (size, k, stride, pad, dil, out)))


@dataclass(frozen=True, eq=False)
class F32(Expr):
    """A double rounded to float32 (past float's range: infinity), as the kernel takes it."""
    a: Expr
    ctype = "float"


@dataclass(frozen=True, eq=False)
class ShapeTail(Arg):
    """An int list that must be the last dims of tensor ``of`` (at least one, each >= 0): its
    length (layer norm's normalized_shape)."""
    of: "Tensor"
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class IsRange(Arg):
    """Whether an int list (each item an int32) is 0, 1, ..., n - 1: a contiguous dim order."""
    n: Expr = None
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class AllDims(Expr):
    """Every dim of tensor ``of`` as a mask (0 at rank 0)."""
    of: "Tensor"
    ctype = "uint32_t"


@dataclass(frozen=True, eq=False)
class Fn(Expr):
    """``c(*args)``: a pure function that both renderings evaluate, the static C generator
    through ``py``, the adapter by calling ``c`` (declared in runtime_c's headers). A tensor
    argument is its shape: a tuple for ``py``, a ``const rt_shape *`` for ``c``. With ``items``
    (a C constant) it gives an int32 array: ``c`` writes at most that many into its last
    argument, ``py`` returns the list."""
    c: str
    py: Callable
    args: tuple
    ctype: str = "int64_t"
    items: Optional[str] = None

    def __init__(self, c: str, py: Callable, *args, ctype: str = "int64_t",
                 items: Optional[str] = None):
        object.__setattr__(self, "c", c)
        object.__setattr__(self, "py", py)
        object.__setattr__(self, "args", tuple(lift(a) for a in args))
        object.__setattr__(self, "ctype", "const int32_t *" if items else ctype)
        object.__setattr__(self, "items", items)


@dataclass(frozen=True, eq=False)
class Choice(Arg):
    """A string argument among ``options`` (string -> code); None reads as ``none_code`` (or
    is invalid where that is None)."""
    options: Mapping[str, int] = field(default_factory=dict)
    none_code: Optional[int] = None
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Act(Expr):
    """The activation fused into this call (aot.codegen.epilogue): ``form`` "ptr", a pointer
    to it or NULL; "on", whether there is one; "struct", a parameter struct's rt_act_f32
    field (zero, or left out, when there is none)."""
    form: str = "ptr"

    @property
    def ctype(self) -> str:
        return {"ptr": "const rt_act_f32 *", "on": "int32_t", "struct": "rt_act_f32"}[self.form]


@dataclass(frozen=True, eq=False)
class DtypeIs(Expr):
    tensor: Tensor
    dtype: str
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Prop(Expr):
    tensor: Tensor
    what: str   # "rank" | "size" | "numel" | "dtype" | "elem" (its element's bytes) | "data"
    index: Union[int, Expr] = 0

    def __post_init__(self):
        object.__setattr__(self, "index", lift(self.index))

    @property
    def ctype(self) -> str:
        return {"numel": "int64_t", "data": "const void *"}.get(self.what, "int32_t")


@dataclass(frozen=True, eq=False)
class SameShape(Expr):
    """Whether two tensors have the same shape."""
    a: Tensor
    b: Tensor
    ctype = "int32_t"


@dataclass(frozen=True, eq=False)
class Select(Expr):
    cond: Expr
    a: Expr
    b: Expr

    def __post_init__(self):
        object.__setattr__(self, "a", lift(self.a))
        object.__setattr__(self, "b", lift(self.b))

    @property
    def ctype(self) -> str:
        return lift(self.a).ctype


@dataclass(frozen=True, eq=False)
class BinOp(Expr):
    op: str
    a: Expr
    b: Expr

    @property
    def ctype(self) -> str:
        if self.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return "int32_t"
        for wide in ("double", "float"):
            if wide in (self.a.ctype, self.b.ctype):
                return wide
        return "int64_t"        # integer arithmetic is int64's (int32 sizes and items cannot wrap)


@dataclass(frozen=True, eq=False)
class Not(Expr):
    a: Expr
    ctype = "int32_t"


# -- statements --------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Call:
    """The kernel call ending a path: ``kernel(*args)``, each tensor as (shape, data)."""
    kernel: str
    args: tuple

    def __init__(self, kernel: str, *args):
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "args", tuple(lift(a) for a in args))


@dataclass(frozen=True, eq=False)
class Fail:
    kind: str               # UNSUPPORTED | INVALID
    why: str


@dataclass(frozen=True, eq=False)
class Read:
    """Read these expressions now, in order (their checks fail the call here); the paths after
    it reuse the values."""
    exprs: tuple

    def __init__(self, *exprs):
        object.__setattr__(self, "exprs", tuple(lift(e) for e in exprs))


@dataclass(frozen=True, eq=False)
class Pre:
    """The kernel's precondition ``name`` on these arguments (keywords, in the C check's order;
    ``struct``: the C check takes them as one struct of that type, fields in this order;
    ``call``: the C check takes the call first, to read constants; a string Lit is the Python
    check's alone, a name for its message; a tensor, or a Select of two, is its argument's name
    for the Python check, a pointer for C's, NULL where an optional one is None). ``form``: the
    check's form for these arguments (rt_pte_pre_<name>_<form> in C; the Python check takes
    ``form``)."""
    name: str
    args: tuple
    struct: Optional[str] = None
    call: bool = False
    form: Optional[str] = None

    def __init__(self, name: str, struct: Optional[str] = None, call: bool = False,
                 form: Optional[str] = None, **args):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "args", tuple((k, lift(v)) for k, v in args.items()))
        object.__setattr__(self, "struct", struct)
        object.__setattr__(self, "call", call)
        object.__setattr__(self, "form", form)

    @property
    def check(self) -> str:
        """The check's name in both languages (the precondition's, or that of its form)."""
        return self.name if self.form is None else f"{self.name}_{self.form}"


@dataclass(frozen=True, eq=False)
class If:
    cond: Expr
    then: tuple
    otherwise: tuple = ()

    def __init__(self, cond: Expr, then, otherwise=()):
        object.__setattr__(self, "cond", cond)
        object.__setattr__(self, "then", _block(then))
        object.__setattr__(self, "otherwise", _block(otherwise))


Stmt = Union[Call, Fail, If, Read, Pre]


def _block(stmts) -> tuple:
    return tuple(stmts) if isinstance(stmts, (list, tuple)) else (stmts,)


@dataclass(frozen=True, eq=False)
class CallSpec:
    """An op's call: its statements (every path ends in a Call or a Fail)."""
    body: tuple

    def __init__(self, *body: Stmt):
        object.__setattr__(self, "body", tuple(body))

    def kernels(self) -> tuple[str, ...]:
        """Every kernel some path calls, in order of appearance."""
        return self._names(Call, "kernel")

    def preconditions(self) -> tuple[str, ...]:
        """Every precondition some path checks, in order of appearance."""
        return self._names(Pre, "name")

    def _names(self, kind: type, attr: str) -> tuple[str, ...]:
        found: list[str] = []

        def walk(block):
            for s in block:
                if isinstance(s, kind) and getattr(s, attr) not in found:
                    found.append(getattr(s, attr))
                elif isinstance(s, If):
                    walk(s.then)
                    walk(s.otherwise)
        walk(self.body)
        return tuple(found)


def names_read(spec: CallSpec) -> frozenset[str]:
    """The schema names some path of ``spec`` reads."""
    found: set[str] = set()

    def walk(x):
        if isinstance(x, Arg):
            found.add(x.name)
        if isinstance(x, (tuple, list)):
            for y in x:
                walk(y)
        elif isinstance(x, (Expr, Call, If, Read, Pre, CallSpec)):
            for f in x.__dataclass_fields__:
                walk(getattr(x, f))
    walk(spec)
    return frozenset(found)


def Require(cond: Expr, kind: str, why: str) -> If:
    """Fail unless ``cond``."""
    return If(~cond, Fail(kind, why))
