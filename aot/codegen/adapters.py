"""The interpreter's adapters, compiled from the op table's call specs (aot/opspec.py).

An adapter decodes a KernelCall's arguments (runtime_c/include/rt_pte_args.h), makes the
spec's checks in the spec's order, returns RT_OK in check mode (rt_pte_load runs every call so
once) and otherwise calls the kernel: the static C generator's call, read from the .pte at run
time (aot/codegen/spec_render.py reads the same spec). A renderer's ``invalid`` is
RT_ERR_PTE_ARGS here, ``unsupported`` RT_ERR_PTE_UNSUPPORTED, a tensor of another dtype
RT_ERR_PTE_DTYPE.

The source is generated with the kernel table (aot/interpreter.py), for the operators a
firmware's programs call; it is deterministic: the same ops give the same bytes.
"""
from __future__ import annotations

import re

from .. import opspec as S
from .context import C_TYPES
from .literals import f32_literal

_DTYPE_MACROS = {"uint8": "RT_DTYPE_U8", "int8": "RT_DTYPE_I8", "int16": "RT_DTYPE_I16",
                 "int32": "RT_DTYPE_I32", "int64": "RT_DTYPE_I64", "float32": "RT_DTYPE_F32",
                 "bool": "RT_DTYPE_BOOL"}
_STATUS = {S.UNSUPPORTED: "RT_ERR_PTE_UNSUPPORTED", S.INVALID: "RT_ERR_PTE_ARGS"}
_PREFIX = {"rt_pte_tensor": "t", "float": "f", "double": "d", "int64_t": "i", "int32_t": "b",
           "uint32_t": "m", "const rt_act_f32 *": "a"}


def _dtype(d) -> str:
    return "RT_PTE_ANY_DTYPE" if d is None else f"(int32_t){_DTYPE_MACROS[d]}"


def _int_literal(v: int) -> str:
    if v == -(1 << 63):
        return "INT64_MIN"
    return f"{v}LL" if not -(1 << 31) <= v < (1 << 31) else str(v)


class _Block:
    def __init__(self, memo: dict):
        self.lines: list[str] = []
        self.memo = dict(memo)


class _Compiler:
    def __init__(self, op, keep=None):
        self.op = op
        self.keep = keep
        self.index = {a.name: i for i, a in enumerate(op.schema.arguments)}
        self.count = 0

    def fresh(self, ctype: str) -> str:
        self.count += 1
        return f"{_PREFIX.get(ctype, 'v')}{self.count}"

    def arg(self, name: str) -> int:
        if name not in self.index:
            raise KeyError(f"{self.op.key}: its call spec reads {name!r}, which the schema "
                           f"({self.op.schema}) lacks")
        return self.index[name]

    def decode(self, b: _Block, e: S.Expr, ctype: str, call: str) -> str:
        var = self.fresh(ctype)
        b.lines.append(f"{ctype} {var};")
        b.lines.append(f"RT_TRY({call.format(c='c', i=self.arg(e.name), v='&' + var)});")
        return var

    def expr(self, b: _Block, e: S.Expr) -> str:
        """A C expression for ``e``, after the statements that read what it needs."""
        key = id(e)
        if key in b.memo:
            return b.memo[key]
        text = self._expr(b, e)
        if isinstance(e, (S.Arg, S.Select, S.Array, S.Params, S.Value)) or \
                isinstance(e, S.Fn) and e.items is not None:
            b.memo[key] = text
        return text

    def _expr(self, b: _Block, e: S.Expr) -> str:
        if isinstance(e, S.Lit):
            if e.c is not None:
                return e.c
            return f32_literal(e.value) if isinstance(e.value, float) \
                else _int_literal(int(e.value))
        if isinstance(e, S.Tensor):
            same = ("tensor", e.name, e.dtype, e.optional, None if e.like is None else id(e.like))
            if same in b.memo:                  # the same argument, read the same way
                return b.memo[same]
            read = b.memo.get(("tensor", e.name))
            if read is not None and e.dtype is not None:
                b.lines += [f"if ({read}.dtype != {_dtype(e.dtype)}) {{",
                            "    return RT_ERR_PTE_DTYPE;", "}"]
                return read
            reader = "rt_pte_arg_opt_tensor" if e.optional else "rt_pte_arg_tensor"
            dtype = f"{self.expr(b, e.like)}.dtype" if e.like is not None else _dtype(e.dtype)
            var = self.decode(b, e, "rt_pte_tensor", f"{reader}({{c}}, {{i}}, {dtype}, {{v}})")
            b.memo[same] = var
            if e.dtype is None and e.like is None:
                b.memo[("tensor", e.name)] = var
            return var
        if isinstance(e, S.Float):
            return self.decode(b, e, "float", "rt_pte_arg_f32({c}, {i}, {v})")
        if isinstance(e, S.Number):
            return self.decode(b, e, "double", "rt_pte_arg_double({c}, {i}, {v})")
        if isinstance(e, S.WholeInt):
            return self.decode(b, e, "int64_t", "rt_pte_arg_whole({c}, {i}, {v})")
        if isinstance(e, S.Int):
            lo, hi = self.expr(b, e.lo), self.expr(b, e.hi)
            return self.decode(b, e, "int64_t",
                               f"rt_pte_arg_int_in({{c}}, {{i}}, {lo}, {hi}, {{v}})")
        if isinstance(e, S.IsNone):
            return f"rt_pte_arg_is_none(c, {self.arg(e.name)})"
        if isinstance(e, S.Bool):
            return self.decode(b, e, "int32_t", "rt_pte_arg_bool({c}, {i}, {v})")
        if isinstance(e, S.Dim):
            rank = f"{self.expr(b, e.of)}.shape.rank"
            return self.decode(b, e, "int32_t", f"rt_pte_arg_dim({{c}}, {{i}}, {rank}, {{v}})")
        if isinstance(e, S.DimMask):
            rank = f"{self.expr(b, e.of)}.shape.rank"
            mode = "RT_PTE_DIM_ONE" if e.one else \
                "RT_PTE_DIM_LIST" if e.empty_is_all else "RT_PTE_DIM_LIST_EMPTY_NONE"
            return self.decode(b, e, "uint32_t", f"rt_pte_arg_dim_mask({{c}}, {{i}}, {rank}, "
                                                 f"{mode}, {{v}})")
        if isinstance(e, S.ShapeTail):
            shape = f"&{self.expr(b, e.of)}.shape"
            return self.decode(b, e, "int32_t",
                               f"rt_pte_arg_shape_tail({{c}}, {{i}}, {shape}, {{v}})")
        if isinstance(e, S.Ints):
            var = self.fresh("ints")
            b.lines += [f"int32_t {var}[{e.n}], {var}_n;",
                        f"RT_TRY(rt_pte_arg_ints_in(c, {self.arg(e.name)}, "
                        f"{_int_literal(e.lo)}, {_int_literal(e.hi)}, {var}, {e.n}, &{var}_n));",
                        f"if ({var}_n != {e.n}) {{", "    return RT_ERR_PTE_ARGS;", "}"]
            return var
        if isinstance(e, S.Pair):
            default = "NULL" if e.default is None else self.expr(b, e.default)
            var = self.fresh("pair")
            b.lines += [f"int32_t {var}[2];",
                        f"RT_TRY(rt_pte_arg_pair(c, {self.arg(e.name)}, {e.lo}, {default}, "
                        f"{var}));"]
            return var
        if isinstance(e, S.Params):
            fields = [f".{k} = {_bare(self.expr(b, v))}" for k, v in e.fields]
            var = self.fresh("params")
            b.lines.append(f"const {e.struct} {var} = {{{', '.join(fields)}}};")
            return f"&{var}"
        if isinstance(e, S.Window):
            items = ", ".join(_bare(self.expr(b, v)) for v in e.items)
            return f"(rt_pte_window){{{items}}}"
        if isinstance(e, S.Floats):
            var, i = self.fresh("floats"), self.arg(e.name)
            read = f"RT_TRY(rt_pte_arg_doubles_n(c, {i}, {var}, {e.n}));"
            b.lines.append(f"double {var}[{e.n}] = {{0.0}};")
            b.lines += [f"if (!rt_pte_arg_is_none(c, {i})) {{", f"    {read}", "}"] \
                if e.optional else [read]
            return var
        if isinstance(e, S.Item):
            return f"{self.expr(b, e.of)}[{e.k}]"
        if isinstance(e, S.Tail):
            return f"({self.expr(b, e.of)} + ({e.of.n} - {_bare(self.expr(b, e.count))}))"
        if isinstance(e, S.Value) and e.like is not None:
            var = self.fresh("value")           # room for any dtype's one value
            b.lines += [f"int64_t {var} = 0;",
                        f"rt_pte_fill_value({self.expr(b, e.like)}.dtype, "
                        f"{_bare(self.expr(b, e.a))}, &{var});"]
            return f"&{var}"
        if isinstance(e, S.Tensors):
            var, i = self.fresh("list"), self.arg(e.name)
            b.lines += [f"rt_shape {var}_s[{e.max}];", f"void *{var}_p[{e.max}];",
                        f"int32_t {var}_n;"]
            if e.optional:
                b.lines += [f"int32_t {var}_d[{e.max}];",
                            f"RT_TRY(rt_pte_arg_opt_tensor_list(c, {i}, {var}_s, {var}_p, "
                            f"{var}_d, {e.max}, &{var}_n));"]
            else:
                dtype = f"{self.expr(b, e.like)}.dtype" if e.like is not None \
                    else "RT_PTE_ANY_DTYPE"
                b.lines.append(f"RT_TRY(rt_pte_arg_tensor_list(c, {i}, {dtype}, {var}_s, "
                               f"{var}_p, {e.max}, &{var}_n));")
            return var
        if isinstance(e, S.ListPart):
            var = self.expr(b, e.of)
            if e.what == "ptrs" and not e.of.out:
                return f"(const void *const *){var}_p"
            return f"{var}_{e.what[0]}"
        if isinstance(e, S.Value):
            ctype = C_TYPES[e.dtype]
            var = self.fresh(ctype)
            b.lines.append(f"const {ctype} {var} = ({ctype}){_bare(self.expr(b, e.a))};")
            return f"&{var}"
        if isinstance(e, S.Array):
            items = [_bare(self.expr(b, v)) for v in e.items]
            var = self.fresh("array")
            b.lines.append(f"const int32_t {var}[{len(items)}] = {{{', '.join(items)}}};")
            return var
        if isinstance(e, S.F32):
            return f"rt_pte_f32({_bare(self.expr(b, e.a))})"
        if isinstance(e, S.DimList):
            rank = f"{self.expr(b, e.of)}.shape.rank"
            var = self.fresh("dims")
            b.lines += [f"int32_t {var}[RT_MAX_DIMS], {var}_n;",
                        f"RT_TRY(rt_pte_arg_dims(c, {self.arg(e.name)}, {rank}, {var}, "
                        f"&{var}_n));"]
            if e.perm:
                b.lines += [f"if ({var}_n != {rank}) {{", "    return RT_ERR_PTE_ARGS;", "}"]
            return var
        if isinstance(e, S.IsRange):
            n = self.expr(b, e.n)
            return self.decode(b, e, "int32_t", f"rt_pte_arg_is_range({{c}}, {{i}}, {n}, {{v}})")
        if isinstance(e, S.AllDims):
            return f"rt_pte_all_dims({self.expr(b, e.of)}.shape.rank)"
        if isinstance(e, S.Choice):
            names = sorted(e.options)
            table = self.fresh("choice")
            b.lines.append(f"static const char *const {table}_names[{len(names)}] = "
                           f"{{{', '.join(_c_string(n) for n in names)}}};")
            b.lines.append(f"static const int32_t {table}_codes[{len(names)}] = "
                           f"{{{', '.join(str(e.options[n]) for n in names)}}};")
            none = -1 if e.none_code is None else e.none_code
            return self.decode(b, e, "int32_t",
                               f"rt_pte_arg_choice({{c}}, {{i}}, {table}_names, {table}_codes, "
                               f"{len(names)}, {none}, {{v}})")
        if isinstance(e, S.Act):
            return {"ptr": "(c->act.on ? &c->act : NULL)", "on": "c->act.on",
                    "struct": "(c->act.on ? c->act : (rt_act_f32){0})"}[e.form]
        if isinstance(e, S.IntArray):
            var = self.fresh("ints")
            b.lines += [f"int32_t {var}_buf[RT_PTE_CACHE_MIN_ITEMS], {var}_n;",
                        f"const int32_t *{var};",
                        f"RT_TRY(rt_pte_arg_int32s(c, {self.arg(e.name)}, {_int_literal(e.lo)}, "
                        f"{_int_literal(e.hi)}, {var}_buf, RT_PTE_CACHE_MIN_ITEMS, &{var}, "
                        f"&{var}_n));"]
            return var
        if isinstance(e, S.Count):
            return f"{self.expr(b, e.of)}_n"
        if isinstance(e, S.Scratch):
            t = self.decode(b, e, "rt_pte_tensor",
                            "rt_pte_arg_tensor({c}, {i}, RT_PTE_ANY_DTYPE, {v})")
            var = self.fresh("rt_scratch")
            b.lines.append(f"const rt_scratch {var} = "
                           f"{{{t}.data, (int32_t)rt_pte_numel(&{t}.shape)}};")
            return f"&{var}"
        if isinstance(e, S.Checked):
            var = self.fresh("checked")
            b.lines += [f"int32_t {var};",
                        f"RT_TRY(rt_pte_arg_ints_in(c, {self.arg(e.name)}, {_int_literal(e.lo)}, "
                        f"{_int_literal(e.hi)}, NULL, 0, &{var}));"]
            return var
        if isinstance(e, S.Spatial):
            var = self.fresh("spatial")
            b.lines += [f"int32_t {var}[2];",
                        f"RT_TRY(rt_pte_arg_spatial(c, {self.arg(e.name)}, {e.lo}, "
                        f"{_bare(self.expr(b, e.spatial))}, {e.unit}, {var}));"]
            return var
        if isinstance(e, S.DtypeIs):
            return f"({self.expr(b, e.tensor)}.dtype == {_dtype(e.dtype)})"
        if isinstance(e, S.Prop):
            t = self.expr(b, e.tensor)
            if e.what == "numel":
                return f"rt_pte_numel(&{t}.shape)"
            if e.what == "dtype":
                return f"{t}.dtype"
            if e.what == "elem":
                return f"rt_pte_elem_size({t}.dtype)"
            if e.what == "data":
                return f"{t}.data"
            if e.what == "rank":
                return f"{t}.shape.rank"
            return f"{t}.shape.d[{_bare(self.expr(b, e.index))}]"
        if isinstance(e, S.Not):
            if isinstance(e.a, S.Not):         # a Require of a negation
                return self.expr(b, e.a.a)
            return f"!{self.expr(b, e.a)}"
        if isinstance(e, S.BinOp):
            if e.op in ("&&", "||"):
                return self._short_circuit(b, e)
            a, bv = self.expr(b, e.a), self.expr(b, e.b)
            if e.ctype == "int64_t" and not _int64_in_c(e.a):
                a = f"(int64_t){a}"             # in int64: int32 operands cannot wrap
            return f"({a} {e.op} {bv})"
        if isinstance(e, S.SameShape):
            return f"rt_pte_same_shape(&{self.expr(b, e.a)}.shape, &{self.expr(b, e.b)}.shape)"
        if isinstance(e, S.Fn):
            args = [f"&{self.expr(b, a)}.shape" if isinstance(a, S.Tensor) else self.expr(b, a)
                    for a in e.args]
            if e.items is None:
                return f"{e.c}({', '.join(args)})"
            var = self.fresh("fn")
            b.lines += [f"int32_t {var}[{e.items}];", f"{e.c}({', '.join(args + [var])});"]
            return var
        if isinstance(e, S.Select):
            return self._select(b, e)
        raise TypeError(f"not a spec expression: {e!r}")

    def _pre_arg(self, b: _Block, e: S.Expr) -> str:
        """A precondition's argument: a tensor by pointer (NULL where an optional one is
        None)."""
        if isinstance(e, S.Select) and e.ctype == "rt_pte_tensor":
            cond = _bare(self.expr(b, e.cond))
            return f"{cond} ? ({self._pre_arg(b, e.a)}) : ({self._pre_arg(b, e.b)})"
        text = _bare(self.expr(b, e))
        if not isinstance(e, S.Tensor):
            return text
        if e.optional:
            return f"rt_pte_arg_is_none(c, {self.arg(e.name)}) ? NULL : &{text}"
        return f"&{text}"

    def _branch(self, b: _Block, e: S.Expr) -> tuple[list[str], str]:
        inner = _Block(b.memo)
        return inner.lines, self.expr(inner, e)

    def _select(self, b: _Block, e: S.Select) -> str:
        cond = self.expr(b, e.cond)
        (a_lines, a), (b_lines, bv) = self._branch(b, e.a), self._branch(b, e.b)
        if e.ctype == "rt_pte_tensor" and not a_lines and not b_lines:   # one of two read
            var = self.fresh(e.ctype)
            b.lines.append(f"const rt_pte_tensor {var} = {_bare(cond)} ? {a} : {bv};")
            return var
        if not a_lines and not b_lines:
            text = f"({cond} ? {a} : {bv})"
            if "(" not in a + bv:           # a choice of two names or literals: inline
                return text
            var = self.fresh(e.ctype)       # else computed once, named
            b.lines.append(f"{e.ctype} {var} = {_bare(text)};")
            return var
        if e.ctype.endswith("*"):
            raise TypeError(f"{self.op.key}: a Select between arrays that are not yet read: "
                            "Read them first (an array declared in a branch dies with it)")
        var = self.fresh(e.ctype)
        b.lines.append(f"{e.ctype} {var};")
        b.lines += [f"if ({_bare(cond)}) {{", *_indent(a_lines + [f"{var} = {a};"]),
                    "} else {", *_indent(b_lines + [f"{var} = {bv};"]), "}"]
        return var

    def _short_circuit(self, b: _Block, e: S.BinOp) -> str:
        a = self.expr(b, e.a)
        rest_lines, rest = self._branch(b, e.b)
        if not rest_lines:
            return f"({a} {e.op} {rest})"
        var = self.fresh("int32_t")
        b.lines.append(f"int32_t {var} = {a};")
        b.lines += [f"if ({'' if e.op == '&&' else '!'}{var}) {{",
                    *_indent(rest_lines + [f"{var} = {rest};"]), "}"]
        return var

    def block(self, stmts, memo: dict) -> list[str]:
        b = _Block(memo)
        for s in stmts:
            if isinstance(s, S.If):
                cond = self.expr(b, s.cond)
                then = self.block(s.then, b.memo)
                b.lines += [f"if ({_bare(cond)}) {{", *_indent(then), "}"]
                if s.otherwise:
                    other = self.block(s.otherwise, b.memo)
                    if len(s.otherwise) == 1 and isinstance(s.otherwise[0], S.If) and \
                            other[0].startswith("if ("):
                        b.lines[-1] = "} else " + other[0]      # else if: no deeper nesting
                        b.lines += other[1:]
                    else:
                        b.lines[-1] = "} else {"
                        b.lines += [*_indent(other), "}"]
            elif isinstance(s, S.Read):
                for e in s.exprs:
                    self.expr(b, e)
            elif isinstance(s, S.Pre):
                args = ", ".join(["c"] * s.call + [self._pre_arg(b, e) for _, e in s.args
                                                   if not _message_only(e)])
                check = [f"RT_TRY(rt_pte_pre_{s.check}({args}));"]
                if s.struct is not None:            # the check takes one struct of them
                    var = self.fresh("pre")
                    check = [f"const {s.struct} {var} = {{{args}}};",
                             f"RT_TRY(rt_pte_pre_{s.check}(&{var}));"]
                b.lines += ["if (c->check) {", *_indent(check), "}"]
            elif isinstance(s, S.Fail):
                b.lines.append(f"return {_STATUS[s.kind]};")
                return b.lines
            elif self.keep is not None and s.kernel not in self.keep:
                used = [f"(void)({_bare(self.expr(b, a))});" for a in s.args
                        if not isinstance(a, S.Lit)]      # (what only it reads: not unused)
                b.lines += [*used, f"return RT_ERR_PTE_UNSUPPORTED; /* {s.kernel}: not used */"]
                return b.lines
            else:
                args = []
                for a in s.args:
                    v = self.expr(b, a)
                    if a.ctype == "rt_pte_tensor":
                        args += [f"RT_PTE_SHAPE(&{v})" if _optional(a) else f"&{v}.shape",
                                 f"{v}.data"]
                    else:
                        args.append(v)
                b.lines += ["if (c->check) {", "    return RT_OK;", "}",
                            f"return {s.kernel}({', '.join(args)});"]
                return b.lines
        return b.lines


_KIND_CHECKS = {"bool": "rt_pte_kind_bool", "int": "rt_pte_kind_int",
                "Optional[int]": "rt_pte_kind_opt_int",
                "List[int]": "rt_pte_kind_ints", "Optional[List[int]]": "rt_pte_kind_opt_ints",
                "Tensor": "rt_pte_kind_tensor",
                "float": "rt_pte_kind_double", "ScalarType": "rt_pte_kind_int"}


def _kind_checks(op) -> list[str]:
    """The kind check of each schema input no path of the spec reads, made at load (an output
    the kernel does not write, e.g. batch norm's saved statistics, is not read)."""
    read = S.names_read(op.spec)
    lines = []
    for i, a in enumerate(op.schema.arguments):
        if a.name in read or a.is_out:
            continue
        kind = str(a.type)
        if kind not in _KIND_CHECKS:
            raise TypeError(f"{op.key}: its call spec never reads {a.name!r} ({kind}), and the "
                            f"adapter has no kind check for that type: read it in the spec")
        lines.append(f"RT_TRY({_KIND_CHECKS[kind]}(c, {i}));")
    return lines


def _int64_in_c(e: S.Expr) -> bool:
    """Whether the C text of ``e`` is an int64_t (else integer arithmetic on it casts first)."""
    return isinstance(e, (S.Int, S.WholeInt)) or \
        (isinstance(e, S.BinOp) and e.op in ("+", "-", "*", "/", "%") and
         e.ctype == "int64_t") or \
        (isinstance(e, S.Prop) and e.what == "numel")


def _optional(e: S.Expr) -> bool:
    """Whether a tensor expression may be None (a Select: either side)."""
    if isinstance(e, S.Select):
        return _optional(e.a) or _optional(e.b)
    return isinstance(e, S.Tensor) and e.optional


def _message_only(e: S.Expr) -> bool:
    """A Pre argument only the Python check takes: a string for its message."""
    return isinstance(e, S.Lit) and isinstance(e.value, str) and e.c is None


def _bare(cond: str) -> str:
    """A condition without the parentheses its expression already has."""
    if cond.startswith("(") and cond.endswith(")") and _balanced(cond[1:-1]):
        return cond[1:-1]
    return cond


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]


def _c_string(s: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_ .-]*", s):
        raise ValueError(f"a choice {s!r} the adapter generator cannot quote")
    return f'"{s}"'


def _wrap(line: str, width: int = 100) -> list[str]:
    """A long line broken after the commas of its first call (or of its initializer list),
    aligned under its items."""
    brace, paren = line.find(" = {"), line.find("(")
    if line.lstrip().startswith("RT_TRY("):       # the call inside it
        paren = line.find("(", paren + 1)
    if len(line) <= width or brace < 0 and paren < 0:
        return [line]
    opening = "{" if brace >= 0 and (paren < 0 or brace < paren) else "("
    if opening == "(" and " = " in line[:paren]:   # an expression's call: no place to break
        return [line]
    cut = brace + 3 if opening == "{" else paren
    head, rest = line[:cut], line[cut + 1:]
    pieces, depth, start = [], 0, 0
    for k, ch in enumerate(rest):          # its own commas, not its items'
        depth += {"(": 1, ")": -1, "{": 1, "}": -1}.get(ch, 0)
        if depth == 0 and rest.startswith(", ", k):
            pieces.append(rest[start:k])
            start = k + 2
    pieces.append(rest[start:])
    out, current = [], f"{head}{opening}{pieces[0]}"
    for piece in pieces[1:]:
        if len(current) + 2 + len(piece) > width:
            out.append(current + ",")
            current = " " * (len(head) + 1) + piece
        else:
            current += ", " + piece
    return out + [current]


def adapter_source(op, name: str, keep=None) -> str:
    """The C definition of ``name``, the adapter of op-table entry ``op`` (which has a spec).
    ``keep``: the kernels to link (default all); a path ending in a call of another refuses
    with RT_ERR_PTE_UNSUPPORTED (no program of the firmware takes it)."""
    body = _Compiler(op, keep).block(op.spec.body, {})
    kinds = _kind_checks(op)        # first, as the Program check makes them before any renderer
    body = (["if (c->check) {", *_indent(kinds), "}"] if kinds else []) + body
    lines = [f"/* {op.key}: {op.schema} */", f"rt_status {name}(const rt_pte_call *c)", "{"]
    for line in _indent(body):
        lines += _wrap(line)
    lines.append("}")
    return "\n".join(lines)
