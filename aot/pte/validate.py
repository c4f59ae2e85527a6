"""Check a .pte as the C interpreter's loader checks it (runtime_c/src/pte/pte_core.c).

The reader runs these on every file it loads, so a file the C loader (rt_pte_load) would
refuse fails at load time with a PteFormatError that names the value, the tensor field or the
instruction, instead of sending a later stage (or the runtime) out of bounds:

- ``check_flatbuffer``: the flatbuffer read as the C reads it (pte_read.h): every table's
  vtable inside the buffer, of an even size of at least 4 bytes, over a table of at least 4
  bytes; every field the C reads inside its table; every offset non-zero and inside the
  buffer; every vector inside the buffer; every string the C reads NUL-terminated;
- ``find_bad_reference``: the decoded Program's indices and layout: every value index inside
  the values, list items of the kind their list holds, operators and delegates that exist, a
  planned tensor inside a memory area of the method (1 .. n, 0 is reserved), its bytes inside
  that area and its offset a multiple of its element size, data in the file that holds the
  tensor's bytes.

What only running the program asks of a file (a dtype the C runtime has, a static shape,
rank 6 at most, a forward jump, no MoveCall, ...) is checked by the C generator
(aot.codegen.c.generate_c), not here: load_program reads every valid ExecuTorch program.
"""
from __future__ import annotations

import struct

from aot import program as ir
from aot.program import ELEMENT_SIZE, tensor_nbytes   # (and the reader's, through here)


class _Bad(Exception):
    pass


# -- the decoded Program ----------------------------------------------------------------------

def find_bad_reference(program: ir.Program) -> str | None:
    """Describe the first out-of-range index in `program`, or return None if there is none."""
    for plan in program.execution_plan:
        try:
            _check_plan(plan, program)
        except _Bad as e:
            return f"method {plan.name!r}: {e}"
    return None


def _in_range(where: str, index: int, count: int, noun: str, *, allow: tuple = ()) -> None:
    if not (0 <= index < count or index in allow):
        raise _Bad(f"{where} refers to {noun} {index}, but there are {count}")


# The kind of value each list's items must be (the C loader: RT_ERR_PTE_CORRUPT otherwise).
_ITEM_KIND = {ir.IntList: ir.Int, ir.TensorList: ir.Tensor, ir.OptionalTensorList: ir.Tensor}


def _check_plan(plan: ir.ExecutionPlan, program: ir.Program) -> None:
    n = len(plan.values)

    def values(where: str, indices, allow: tuple = ()) -> None:
        for i in indices:
            _in_range(where, i, n, "value", allow=allow)

    values("inputs", plan.inputs)
    values("outputs", plan.outputs)
    for v, value in enumerate(plan.values):
        where = f"value {v}"
        if isinstance(value, (ir.IntList, ir.TensorList, ir.OptionalTensorList)):
            kind = _ITEM_KIND[type(value)]
            for k, i in enumerate(value.items):
                if i == -1 and isinstance(value, ir.OptionalTensorList):
                    continue     # -1 is None
                _in_range(f"{where} ({type(value).__name__}) item {k}", i, n, "value")
                if not isinstance(plan.values[i], kind):
                    raise _Bad(f"{where} ({type(value).__name__}) item {k} is value {i}, a "
                               f"{type(plan.values[i]).__name__}, not an {kind.__name__}"
                               if kind is ir.Int else
                               f"{where} ({type(value).__name__}) item {k} is value {i}, a "
                               f"{type(plan.values[i]).__name__}, not a {kind.__name__}")
        elif isinstance(value, ir.Tensor):
            _check_tensor(where, value, plan, program)
    for c, chain in enumerate(plan.chains):
        values(f"chain {c} inputs", chain.inputs)
        values(f"chain {c} outputs", chain.outputs)
        for k, instr in enumerate(chain.instructions):
            where = f"chain {c} instruction {k}"
            if isinstance(instr, ir.KernelCall):
                _in_range(where, instr.op_index, len(plan.operators), "operator")
                values(where, instr.args)
            elif isinstance(instr, ir.DelegateCall):
                _in_range(where, instr.delegate_index, len(plan.delegates), "delegate")
                values(where, instr.args)
            elif isinstance(instr, ir.MoveCall):
                values(where, (instr.move_from, instr.move_to))
            elif isinstance(instr, ir.JumpFalseCall):
                values(where, (instr.cond_value_index,))
                # Jumping to len(instructions) ends the chain.
                _in_range(where, instr.destination_instruction, len(chain.instructions) + 1,
                          "instruction")
            else:
                values(where, (instr.value_index,))


def _check_tensor(where: str, t: ir.Tensor, plan: ir.ExecutionPlan, program: ir.Program) -> None:
    extra = t.extra_tensor_info
    if any(s < 0 for s in t.sizes):
        raise _Bad(f"{where} is a tensor with a negative size {t.sizes}")
    nbytes = tensor_nbytes(t)
    alloc = t.allocation_info
    if alloc is not None:
        areas = len(plan.non_const_buffer_sizes) - 1      # entry 0 is reserved
        if not 1 <= alloc.memory_id <= areas:
            raise _Bad(f"{where}: allocation_info.memory_id is {alloc.memory_id}, but the "
                       "method's memory areas are " +
                       (f"1..{areas}" if areas > 0 else "none") + " (0 is reserved)")
        size = plan.non_const_buffer_sizes[alloc.memory_id]
        if nbytes is not None and alloc.offset + nbytes > size:
            raise _Bad(f"{where}: {nbytes} bytes at allocation_info offset {alloc.offset} run "
                       f"past the end of memory area {alloc.memory_id} ({size} bytes)")
        es = ELEMENT_SIZE.get(int(t.scalar_type))
        if es is not None and alloc.offset % es:
            raise _Bad(f"{where}: allocation_info offset {alloc.offset} in memory area "
                       f"{alloc.memory_id} is not a multiple of the {es}-byte elements of "
                       f"its {dtype_name(t.scalar_type)} data")
    if t.data_buffer_idx == 0 or (extra is not None and extra.location == 1):
        return  # no data in this file
    if alloc is None:
        _in_range(f"{where} (data_buffer_idx)", t.data_buffer_idx, len(program.constant_buffer),
                  "constant")
        data = program.constant_buffer[t.data_buffer_idx].storage
    else:
        k = extra.mutable_data_segments_idx if extra is not None else 0
        _in_range(f"{where} (extra_tensor_info.mutable_data_segments_idx)", k,
                  len(program.mutable_data), "mutable data table")
        _in_range(f"{where} (data_buffer_idx)", t.data_buffer_idx, len(program.mutable_data[k]),
                  "mutable data entry")
        data = program.mutable_data[k][t.data_buffer_idx].storage
    if nbytes is not None and len(data) < nbytes:
        raise _Bad(f"{where} is a {nbytes}-byte tensor, but its data {t.data_buffer_idx} has "
                   f"only {len(data)} bytes")


_DTYPE_NAMES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                6: "float32", 7: "float64", 11: "bool", 15: "bfloat16"}


def dtype_name(scalar_type) -> str:
    """A ScalarType as the C runtime names it (float32, int8 ...), else its schema name."""
    if int(scalar_type) in _DTYPE_NAMES:
        return _DTYPE_NAMES[int(scalar_type)]
    try:
        return ir.ScalarType(scalar_type).name.lower()
    except ValueError:
        return f"scalar type {int(scalar_type)}"


# -- the flatbuffer, as the C loader reads it -------------------------------------------------

# Table and field numbers of schema/program.fbs (as runtime_c/src/pte/pte_internal.h names them).
_EV_NULL, _EV_INT, _EV_BOOL, _EV_DOUBLE, _EV_TENSOR, _EV_STRING = 1, 2, 3, 4, 5, 6
_EV_INT_LIST, _EV_DOUBLE_LIST, _EV_BOOL_LIST, _EV_TENSOR_LIST, _EV_OPT_TENSOR_LIST = \
    7, 8, 9, 10, 11
_EV_NAMES = {1: "Null", 2: "Int", 3: "Bool", 4: "Double", 5: "Tensor", 6: "String", 7: "IntList",
             8: "DoubleList", 9: "BoolList", 10: "TensorList", 11: "OptionalTensorList"}
_INS_KERNEL, _INS_DELEGATE, _INS_MOVE, _INS_JUMP_FALSE, _INS_FREE = 1, 2, 3, 4, 5
_INS_NAMES = {1: "KernelCall", 2: "DelegateCall", 3: "MoveCall", 4: "JumpFalseCall",
              5: "FreeCall"}

_U16, _U32, _I32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<i"), \
    struct.Struct("<Q")


class _Flatbuffer:
    """Checked reads of a flatbuffer, by the rules of runtime_c/src/pte/pte_read.h. Each
    failure raises _Bad naming where (the path of the table) and what (its field).
    ``trace``, when given, is a list that gets (where, field, value) of each field, vector and
    string read: what the C loader sees of the file, whatever the bytes' positions."""

    def __init__(self, buf: bytes, trace: list | None = None):
        self.b = buf
        self.n = len(buf)
        self.trace = trace
        self.tables: dict[int, tuple[int, int, int]] = {}

    def note(self, where: str, what: str, value) -> None:
        if self.trace is not None:
            self.trace.append((where, what, value))

    def has(self, pos: int, length: int, where: str, what: str) -> None:
        """[pos, pos + length) lies in the buffer."""
        if pos > self.n or self.n - pos < length:
            raise _Bad(f"{where}: {what} (bytes {pos}..{pos + length}) runs past the end of "
                       f"the {self.n}-byte flatbuffer")

    def u8(self, pos: int, where: str, what: str) -> int:
        self.has(pos, 1, where, what)
        return self.b[pos]

    def u16(self, pos: int, where: str, what: str) -> int:
        self.has(pos, 2, where, what)
        return _U16.unpack_from(self.b, pos)[0]

    def u32(self, pos: int, where: str, what: str) -> int:
        self.has(pos, 4, where, what)
        return _U32.unpack_from(self.b, pos)[0]

    def u64(self, pos: int, where: str, what: str) -> int:
        self.has(pos, 8, where, what)
        return _U64.unpack_from(self.b, pos)[0]

    def ref(self, pos: int, where: str, what: str) -> int:
        """The position the uoffset at `pos` refers to."""
        off = self.u32(pos, where, what)
        if off == 0:
            raise _Bad(f"{where}: {what} is a zero offset")
        if off > self.n - pos:
            raise _Bad(f"{where}: {what} points {off} bytes ahead, past the end of the "
                       f"{self.n}-byte flatbuffer")
        return pos + off

    def table(self, t: int, where: str) -> tuple[int, int, int]:
        """(vtable position, vtable size, table size) of the table at t."""
        got = self.tables.get(t)
        if got is not None:
            return got
        self.has(t, 4, where, "the table's vtable offset")
        soff = _I32.unpack_from(self.b, t)[0]
        if (soff > 0 and soff > t) or (soff < 0 and -soff > self.n - t):
            raise _Bad(f"{where}: the table's vtable (offset {soff}) lies outside the "
                       "flatbuffer")
        vt = t - soff
        vt_size = self.u16(vt, where, "the vtable's size")
        t_size = self.u16(vt + 2, where, "the table's size")
        if vt_size < 4 or vt_size & 1 or t_size < 4:
            raise _Bad(f"{where}: a vtable of {vt_size} bytes over a table of {t_size} bytes "
                       "(each at least 4, the vtable's even)")
        self.has(vt, vt_size, where, "the vtable")
        self.has(t, t_size, where, "the table")
        got = self.tables[t] = (vt, vt_size, t_size)
        return got

    def field(self, t: int, f: int, where: str, name: str) -> int:
        """Position of field f of the table at t, or 0 when the table leaves it out."""
        vt, vt_size, t_size = self.table(t, where)
        at = 4 + 2 * f
        if at + 2 > vt_size:
            return 0
        fo = self.u16(vt + at, where, f"the vtable entry of {name}")
        if fo == 0:
            return 0
        if fo >= t_size:
            raise _Bad(f"{where}: field {name} lies at byte {fo} of a {t_size}-byte table")
        return t + fo

    def fu8(self, t: int, f: int, where: str, name: str, default: int = 0) -> int:
        p = self.field(t, f, where, name)
        value = self.u8(p, where, name) if p else default
        self.note(where, name, value)
        return value

    def fu32(self, t: int, f: int, where: str, name: str, default: int = 0) -> int:
        p = self.field(t, f, where, name)
        value = self.u32(p, where, name) if p else default
        self.note(where, name, value)
        return value

    def fu64(self, t: int, f: int, where: str, name: str) -> int:
        p = self.field(t, f, where, name)
        value = self.u64(p, where, name) if p else 0
        self.note(where, name, value)
        return value

    def fref(self, t: int, f: int, where: str, name: str) -> int:
        p = self.field(t, f, where, name)
        return self.ref(p, where, name) if p else 0

    def fvec(self, t: int, f: int, width: int, where: str, name: str,
             items: bool = True) -> tuple[int, int]:
        """(position of the first element, length) of a vector field; (0, 0) when absent.
        ``items``: the C reads every item (False: only some, each read on its own)."""
        v = self.fref(t, f, where, name)
        if v == 0:
            return 0, 0
        count = self.u32(v, where, f"the length of {name}")
        if count > 0x7FFFFFFF or count * width > self.n - v - 4:
            raise _Bad(f"{where}: {name} claims {count} items of {width} bytes, past the end "
                       f"of the {self.n}-byte flatbuffer")
        self.note(where, name, bytes(self.b[v + 4:v + 4 + count * width]) if items else count)
        return v + 4, count

    def elem(self, first: int, i: int, where: str, name: str) -> int:
        """Table i of a vector of tables at `first`."""
        return self.ref(first + 4 * i, where, f"{name}[{i}]")

    def fstr(self, t: int, f: int, where: str, name: str) -> int | None:
        """Length of a string field (NUL-terminated, checked); None when absent."""
        p, count = self.fvec(t, f, 1, where, name)
        if p == 0:
            return None
        self.has(p, count + 1, where, f"{name} and its terminating NUL")
        if self.b[p + count] != 0:
            raise _Bad(f"{where}: {name} ({count} bytes) has no terminating NUL")
        return count


def check_flatbuffer(data: bytes, trace: list | None = None) -> str | None:
    """Describe the first problem the C loader finds in the flatbuffer `data` (the bytes up
    to the extended header's program_size), reading what it reads: every method's values,
    inputs, outputs, chains, operators, delegates and buffer sizes, and the Program's segments
    and constant and mutable-data tables where a tensor uses them. None when there is none.
    ``trace``: see _Flatbuffer."""
    fb = _Flatbuffer(bytes(data), trace)
    try:
        _walk_program(fb)
    except _Bad as e:
        return str(e)
    return None


def _walk_program(fb: _Flatbuffer) -> None:
    root = fb.ref(0, "the file", "the root table offset")
    plans, n_plans = fb.fvec(root, 1, 4, "the program", "execution_plan", items=False)
    segments, n_segments = fb.fvec(root, 4, 4, "the program", "segments", items=False)
    delegate_data, n_delegate_data = fb.fvec(root, 3, 4, "the program",
                                             "backend_delegate_data", items=False)
    const_offsets = n_const_offsets = 0
    cs = fb.fref(root, 5, "the program", "constant_segment")
    if cs:
        index = fb.fu32(cs, 0, "constant_segment", "segment_index")
        const_offsets, n = fb.fvec(cs, 1, 8, "constant_segment", "offsets", items=False)
        if n > 0:
            _segment(fb, segments, n_segments, index, "constant_segment")
            n_const_offsets = n
    program = (root, segments, n_segments, delegate_data, n_delegate_data, const_offsets,
               n_const_offsets)
    for k in range(n_plans):
        _walk_plan(fb, fb.elem(plans, k, "the program", "execution_plan"),
                   f"execution_plan[{k}]", program)


def _segment(fb: _Flatbuffer, segments: int, n_segments: int, index: int, where: str) -> None:
    if index >= n_segments:
        raise _Bad(f"{where} refers to segment {index}, but there are {n_segments}")
    seg = fb.elem(segments, index, where, "segments")
    fb.fu64(seg, 0, f"segments[{index}]", "offset")
    fb.fu64(seg, 1, f"segments[{index}]", "size")


def _walk_plan(fb: _Flatbuffer, plan: int, where: str, program: tuple) -> None:
    values, n_values = fb.fvec(plan, 2, 4, where, "values", items=False)
    for v in range(n_values):
        _walk_value(fb, fb.elem(values, v, where, "values"), f"{where}.values[{v}]", program)
    fb.fvec(plan, 8, 8, where, "non_const_buffer_sizes")
    for field, name in ((3, "inputs"), (4, "outputs")):
        fb.fvec(plan, field, 4, where, name)
    operators, n_ops = fb.fvec(plan, 6, 4, where, "operators", items=False)
    for k in range(n_ops):
        op = fb.elem(operators, k, where, "operators")
        fb.fstr(op, 0, f"{where}.operators[{k}]", "name")
        fb.fstr(op, 1, f"{where}.operators[{k}]", "overload")
    delegates, n_delegates = fb.fvec(plan, 7, 4, where, "delegates", items=False)
    for k in range(n_delegates):
        _walk_delegate(fb, fb.elem(delegates, k, where, "delegates"), f"{where}.delegates[{k}]",
                       program)
    chains, n_chains = fb.fvec(plan, 5, 4, where, "chains", items=False)
    for c in range(n_chains):
        chain = fb.elem(chains, c, where, "chains")
        instructions, n = fb.fvec(chain, 2, 4, f"{where}.chains[{c}]", "instructions", items=False)
        for i in range(n):
            _walk_instruction(fb, fb.elem(instructions, i, f"{where}.chains[{c}]",
                                          "instructions"),
                              f"{where}.chains[{c}].instructions[{i}]")


def _walk_value(fb: _Flatbuffer, ev: int, where: str, program: tuple) -> None:
    kind = fb.fu8(ev, 0, where, "val_type")
    t = fb.fref(ev, 1, where, "val")
    if kind == _EV_NULL:
        return
    if kind not in _EV_NAMES:
        raise _Bad(f"{where}: value of unknown kind {kind}")
    where = f"{where} ({_EV_NAMES[kind]})"
    if t == 0:
        raise _Bad(f"{where}: the value has no table")
    if kind in (_EV_INT, _EV_DOUBLE):
        fb.fu64(t, 0, where, "int_val" if kind == _EV_INT else "double_val")
    elif kind == _EV_BOOL:
        fb.fu8(t, 0, where, "bool_val")
    elif kind == _EV_STRING:
        fb.fstr(t, 0, where, "string_val")
    elif kind == _EV_TENSOR:
        _walk_tensor(fb, t, where, program)
    elif kind in (_EV_DOUBLE_LIST, _EV_BOOL_LIST):
        fb.fvec(t, 0, 8 if kind == _EV_DOUBLE_LIST else 1, where, "items")
    else:
        fb.fvec(t, 0, 8 if kind == _EV_INT_LIST else 4, where, "items")


def _walk_tensor(fb: _Flatbuffer, t: int, where: str, program: tuple) -> None:
    (root, segments, n_segments, _, _, const_offsets, n_const_offsets) = program
    fb.fu8(t, 0, where, "scalar_type")
    fb.fvec(t, 2, 4, where, "sizes")
    fb.fvec(t, 3, 1, where, "dim_order")
    fb.fu32(t, 1, where, "storage_offset")
    fb.fu8(t, 8, where, "shape_dynamism")
    buf_idx = fb.fu32(t, 5, where, "data_buffer_idx")
    alloc = fb.fref(t, 6, where, "allocation_info")
    if alloc:
        for f, name in enumerate(("memory_id", "memory_offset_low", "memory_offset_high")):
            fb.fu32(alloc, f, f"{where}.allocation_info", name)
        if buf_idx > 0:       # mutable state: its initial value in a mutable-data segment
            extra = fb.fref(t, 9, where, "extra_tensor_info")
            which = fb.fu64(extra, 0, f"{where}.extra_tensor_info",
                            "mutable_data_segments_idx") if extra else 0
            tables, n = fb.fvec(root, 6, 4, "the program", "mutable_data_segments", items=False)
            if extra:
                fb.fu8(extra, 2, f"{where}.extra_tensor_info", "location")
            if which < n:
                sub = fb.elem(tables, which, "the program", "mutable_data_segments")
                what = f"mutable_data_segments[{which}]"
                index = fb.fu32(sub, 0, what, "segment_index")
                offsets, n_off = fb.fvec(sub, 1, 8, what, "offsets", items=False)
                if buf_idx < n_off:
                    fb.note(what, f"offsets[{buf_idx}]",
                            fb.u64(offsets + 8 * buf_idx, what, f"offsets[{buf_idx}]"))
                    _segment(fb, segments, n_segments, index, what)
    elif buf_idx > 0 and buf_idx < n_const_offsets:
        fb.note("constant_segment", f"offsets[{buf_idx}]",
                fb.u64(const_offsets + 8 * buf_idx, "constant_segment", f"offsets[{buf_idx}]"))


def _walk_delegate(fb: _Flatbuffer, bd: int, where: str, program: tuple) -> None:
    (_, segments, n_segments, delegate_data, n_delegate_data, _, _) = program
    if fb.fstr(bd, 0, where, "id") is None:
        raise _Bad(f"{where}: the delegate has no backend id")
    ref = fb.fref(bd, 1, where, "processed")
    specs, n_specs = fb.fvec(bd, 2, 4, where, "compile_specs", items=False)
    if ref == 0:
        raise _Bad(f"{where}: the delegate has no processed data reference")
    location = fb.fu8(ref, 0, f"{where}.processed", "location")
    index = fb.fu32(ref, 1, f"{where}.processed", "index")
    if location == 0:
        if index >= n_delegate_data:
            raise _Bad(f"{where}: processed refers to inline blob {index}, but there are "
                       f"{n_delegate_data}")
        blob = fb.elem(delegate_data, index, where, "backend_delegate_data")
        fb.fvec(blob, 0, 1, f"backend_delegate_data[{index}]", "data")
    else:
        _segment(fb, segments, n_segments, index, f"{where}.processed")
    for s in range(n_specs):
        spec = fb.elem(specs, s, where, "compile_specs")
        if fb.fstr(spec, 0, f"{where}.compile_specs[{s}]", "key") is None:
            raise _Bad(f"{where}.compile_specs[{s}]: the compile spec has no key")
        fb.fvec(spec, 1, 1, f"{where}.compile_specs[{s}]", "value")


def _walk_instruction(fb: _Flatbuffer, ins: int, where: str) -> None:
    kind = fb.fu8(ins, 0, where, "instr_args_type")
    body = fb.fref(ins, 1, where, "instr_args")
    if body == 0:
        raise _Bad(f"{where}: the instruction has no arguments table")
    where = f"{where} ({_INS_NAMES.get(kind, f'kind {kind}')})"
    if kind in (_INS_KERNEL, _INS_DELEGATE):
        fb.fvec(body, 1, 4, where, "args")
        fb.fu32(body, 0, where, "op_index" if kind == _INS_KERNEL else "delegate_index")
    elif kind == _INS_FREE:
        fb.fu32(body, 0, where, "value_index")
    elif kind == _INS_JUMP_FALSE:
        fb.fu32(body, 0, where, "cond_value_index")
        fb.fu32(body, 1, where, "destination_instruction")
