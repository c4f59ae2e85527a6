"""Read a .pte file (ours or ExecuTorch's) into the in-memory Program.

load_program accepts constants in a segment (current files) or inline in constant_buffer
(older files), delegate blobs inline or in segments, mutable initial values and named blobs,
and returns the one in-memory form (see aot/program.py):

- constant_buffer holds every constant, entry 0 the empty placeholder. Each constant loses
  the zero bytes at its end, down to the size of the largest tensor using it: the padding
  between constants in a segment goes, the tensors' own bytes stay. (A constant no tensor
  uses loses all its trailing zeros.) The same holds for mutable_data;
- backend_delegate_data holds one blob per delegate, in (method, delegate) order, and every
  delegate refers to its own entry with location INLINE;
- mutable_data and named_data hold their blobs inline;
- segments, constant_segment and mutable_data_segments are empty.

So load -> serialize_pte -> load gives an equal Program, whatever options the file was
written with. Anything malformed raises PteFormatError naming the file and the problem.
"""
from __future__ import annotations

import bisect
import dataclasses
import os
from typing import Callable, Union

from aot.errors import PteFormatError
from aot.passes.verify_program import program_problems
from aot.pte import decode, validate
from aot.pte.flatbuffer import NamedDataRef
from aot.pte.layout import (FILE_IDENTIFIER, HEADER_LENGTH, HEADER_OFFSET, MIN_HEADER_LENGTH,
                            ExtendedHeader)
from aot.program import (BackendDelegateDataReference, BackendDelegateInlineData, Buffer,
                         DataLocation, NamedData, Program, Tensor)

Source = Union[str, os.PathLike, bytes, bytearray, memoryview]


def load_program(source: Source) -> Program:
    """Read a .pte file from a path or from its bytes."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as e:
            raise PteFormatError(f"{name}: cannot read: {e.strerror or e}") from e
    elif isinstance(source, (bytes, bytearray, memoryview)):
        name = "<bytes>"
        data = bytes(source)
    else:
        raise TypeError(f"load_program takes a path or bytes, not {type(source).__name__}")
    return _Reader(data, name).read()


class _Reader:
    def __init__(self, data: bytes, name: str):
        self.data = data
        self.name = name

    def fail(self, message: str) -> PteFormatError:
        return PteFormatError(f"{self.name}: {message}")

    def read(self) -> Program:
        header = self.header()
        program_size = header.program_size if header else len(self.data)
        flatbuffer = self.data[:program_size]
        try:
            wire, named = decode.decode_program(flatbuffer)
        except decode.DecodeError as e:
            raise self.fail(str(e)) from None
        # The tables, offsets, vectors and strings the C interpreter reads, by its rules.
        problem = validate.check_flatbuffer(flatbuffer)
        if problem:
            raise self.fail(problem)
        segments = self.segments(wire, header)
        self.check_constant_alignment(wire, header)
        program = self.resolve(wire, named, segments)
        problem = validate.find_bad_reference(program)
        if problem:
            raise self.fail(problem)
        # Each call of an operator mcu-aot knows must be well-formed (aot.passes.verify_program).
        problems = program_problems(program, known_only=True)
        if problems:
            raise self.fail(str(problems[0]))
        return program

    # -- file layout ---------------------------------------------------------------------------

    def header(self) -> ExtendedHeader | None:
        size = len(self.data)
        if size < 8:
            raise self.fail(f"only {size} bytes; too short to be a .pte file")
        ident = self.data[4:8]
        if ident != FILE_IDENTIFIER:
            raise self.fail(f"file identifier is {ident!r}, expected {FILE_IDENTIFIER!r} "
                            "(not an ExecuTorch program, or an unsupported version)")
        header = ExtendedHeader.find(self.data)
        if header is None:
            return None
        # The fields read lie in the first HEADER_LENGTH bytes; a longer header's length
        # says nothing a reader needs (nor does the C interpreter read it).
        end = HEADER_OFFSET + min(header.length, HEADER_LENGTH)
        if header.length < MIN_HEADER_LENGTH:
            raise self.fail(f"extended header length {header.length} is below "
                            f"{MIN_HEADER_LENGTH}")
        if size < end or header.program_size > size:
            raise self.fail(f"truncated: the header describes a {header.program_size}-byte "
                            f"program but the file has {size} bytes")
        if header.program_size < end:
            raise self.fail(f"extended header says the program is {header.program_size} bytes, "
                            "less than the header itself")
        base, data_size = header.segment_base_offset, header.segment_data_size
        if base and not header.program_size <= base <= size:
            raise self.fail(f"segment base offset {base} is outside the file "
                            f"(program ends at {header.program_size}, file at {size})")
        if base + data_size > size:
            raise self.fail(f"truncated: {data_size} bytes of segment data expected at offset "
                            f"{base}, file has {size} bytes")
        return header

    def segments(self, wire: Program, header: ExtendedHeader | None) -> list[memoryview]:
        """The bytes of every segment listed in Program.segments (views, not copies)."""
        base = header.segment_base_offset if header else 0
        available = len(self.data) - base if base else 0
        view = memoryview(self.data)
        blobs = []
        for i, seg in enumerate(wire.segments):
            if seg.size == 0:
                blobs.append(view[0:0])
                continue
            if not base:
                raise self.fail(f"segment {i} has {seg.size} bytes but the file gives no "
                                "segment base offset (extended header) to find them")
            if seg.offset + seg.size > available:
                raise self.fail(f"segment {i} (offset {seg.offset}, {seg.size} bytes) runs past "
                                f"the end of the file ({available} bytes of segment data)")
            start = base + seg.offset
            blobs.append(view[start:start + seg.size])
        return blobs

    def check_constant_alignment(self, wire: Program, header: ExtendedHeader | None) -> None:
        """Each constant in the constant segment lies in the file at a multiple of its
        tensor's element size: read in place (the C interpreter reads it so, as a float *,
        an int32_t * ...), it must be aligned for its dtype. The file's start is taken as
        16-byte aligned, as every reader keeps it."""
        cs = wire.constant_segment
        if cs is None or not cs.offsets or not header or \
                not 0 <= cs.segment_index < len(wire.segments):
            return
        start = header.segment_base_offset + wire.segments[cs.segment_index].offset
        for plan in wire.execution_plan:
            for v, t in enumerate(plan.values):
                if not isinstance(t, Tensor) or t.allocation_info is not None or \
                        not 0 < t.data_buffer_idx < len(cs.offsets):
                    continue
                size = validate.ELEMENT_SIZE.get(int(t.scalar_type))
                at = start + cs.offsets[t.data_buffer_idx]
                if size and at % size:
                    raise self.fail(
                        f"method {plan.name!r}: value {v} ({validate.dtype_name(t.scalar_type)}"
                        f" tensor) has its data (constant {t.data_buffer_idx}) at file offset "
                        f"{at}, not a multiple of its {size}-byte elements")

    # -- normalization -------------------------------------------------------------------------

    def segment(self, segments: list[memoryview], index: int, what: str) -> memoryview:
        if not 0 <= index < len(segments):
            raise self.fail(f"{what} refers to segment {index}, but there are "
                            f"{len(segments)} segments")
        return segments[index]

    def resolve(self, wire: Program, named: tuple[NamedDataRef, ...],
                segments: list[memoryview]) -> Program:
        constants = wire.constant_buffer
        offsets = wire.constant_segment.offsets if wire.constant_segment else ()
        constant_sizes = _nbytes_by_index(wire, lambda t: t.allocation_info is None)
        if offsets:
            if constants:
                raise self.fail("constants are both inline (constant_buffer) and in "
                                "constant_segment; a file may use only one")
            blob = self.segment(segments, wire.constant_segment.segment_index, "constant_segment")
            constants = self.split(blob, offsets, "constant_segment", constant_sizes)
        constants = _drop_padding(constants, constant_sizes)

        mutable = []
        for k, sub in enumerate(wire.mutable_data_segments):
            what = f"mutable_data_segments[{k}]"
            blob = self.segment(segments, sub.segment_index, what)
            sizes = _nbytes_by_index(wire, lambda t, k=k: _mutable_segment_of(t) == k)
            mutable.append(_drop_padding(self.split(blob, sub.offsets, what, sizes), sizes))

        named = tuple(NamedData(ref.key, bytes(self.segment(segments, ref.segment_index,
                                                            f"named data {ref.key!r}")))
                      for ref in named)
        return dataclasses.replace(self.inline_delegates(wire, segments),
                                   constant_buffer=tuple(constants), segments=(),
                                   constant_segment=None, mutable_data_segments=(),
                                   mutable_data=tuple(mutable), named_data=named)

    def split(self, blob: memoryview, offsets: tuple[int, ...], what: str,
              sizes: dict[int, int]) -> tuple[Buffer, ...]:
        """Cut a segment into items at `offsets`: each runs to the next one (out of order,
        to the nearest offset after its own, or to the segment's end), and on to at least
        the size of the largest tensor that reads it (sizes[i]) where the segment holds that
        much, since a reader takes a tensor's bytes from where its item starts (offsets need
        not increase; items may overlap). An item no tensor reads may start anywhere: it is
        left empty."""
        ends = sorted(set(offsets) | {len(blob)})
        items = []
        for i, start in enumerate(offsets):
            if start > len(blob):
                if i not in sizes:      # no tensor reads it (nor does any reader)
                    items.append(Buffer(b""))
                    continue
                raise self.fail(f"{what}: item {i} starts at byte {start}, past the end of its "
                                f"{len(blob)}-byte segment")
            if i + 1 < len(offsets) and start <= offsets[i + 1] <= len(blob):
                end = offsets[i + 1]          # packed in order, as writers do
            else:
                end = ends[bisect.bisect_right(ends, start)] if start < len(blob) else start
            end = max(end, min(start + sizes.get(i, 0), len(blob)))
            items.append(Buffer(bytes(blob[start:end])))
        return tuple(items)

    def inline_delegates(self, wire: Program, segments: list[memoryview]) -> Program:
        blobs: list[BackendDelegateInlineData] = []
        plans = []
        for plan in wire.execution_plan:
            delegates = []
            for d, delegate in enumerate(plan.delegates):
                ref = delegate.processed
                what = f"method {plan.name!r} delegate {d} ({delegate.id!r})"
                if ref.location == DataLocation.SEGMENT:
                    data = self.segment(segments, ref.index, what)
                elif 0 <= ref.index < len(wire.backend_delegate_data):
                    data = wire.backend_delegate_data[ref.index].data
                else:
                    raise self.fail(f"{what} refers to inline blob {ref.index}, but there are "
                                    f"{len(wire.backend_delegate_data)}")
                processed = BackendDelegateDataReference(DataLocation.INLINE, len(blobs))
                blobs.append(BackendDelegateInlineData(bytes(data)))
                delegates.append(dataclasses.replace(delegate, processed=processed))
            plans.append(dataclasses.replace(plan, delegates=tuple(delegates)))
        return dataclasses.replace(wire, execution_plan=tuple(plans),
                                   backend_delegate_data=tuple(blobs))


def _drop_padding(buffers: tuple[Buffer, ...], sizes: dict[int, int]) -> tuple[Buffer, ...]:
    """Drop trailing zero bytes of each buffer, but keep at least sizes[i] bytes of buffer i.

    Idempotent, and it undoes the zero padding serialize_pte adds, so the result survives
    serialize -> load unchanged."""
    out = []
    for i, buffer in enumerate(buffers):
        data = buffer.storage
        keep = max(len(data.rstrip(b"\0")), min(sizes.get(i, 0), len(data)))
        out.append(buffer if keep == len(data) else Buffer(data[:keep]))
    return tuple(out)


def _mutable_segment_of(t: Tensor) -> int | None:
    """Which mutable-data table holds the tensor's initial value, or None if it has none."""
    if t.allocation_info is None or t.data_buffer_idx == 0 or _is_external(t):
        return None
    return t.extra_tensor_info.mutable_data_segments_idx if t.extra_tensor_info else 0


def _is_external(t: Tensor) -> bool:
    return t.extra_tensor_info is not None and t.extra_tensor_info.location == 1


def _nbytes_by_index(program: Program, uses: Callable[[Tensor], bool]) -> dict[int, int]:
    """data_buffer_idx -> largest byte size of the tensors (satisfying `uses`) stored there."""
    sizes: dict[int, int] = {}
    for plan in program.execution_plan:
        for v in plan.values:
            if isinstance(v, Tensor) and v.data_buffer_idx > 0 and not _is_external(v) and uses(v):
                n = validate.tensor_nbytes(v)
                if n is not None:
                    sizes[v.data_buffer_idx] = max(n, sizes.get(v.data_buffer_idx, 0))
    return sizes

