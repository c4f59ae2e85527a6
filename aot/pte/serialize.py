"""Render an in-memory Program as .pte bytes that ExecuTorch's runtime loads.

The Program holds constants, delegate blobs, named blobs and mutable initial values inline.
serialize_pte moves them out into segments (see aot/pte/layout.py for the byte layout), in
this order: the constant segment, one segment per mutable-data table, one per distinct
delegate blob, one per distinct named blob. The flatbuffer itself is built by
aot/pte/flatbuffer.py. The result is a list of chunks, so large constants are written to a
file without first being joined into one copy.
"""
from __future__ import annotations

import dataclasses
import os
from typing import BinaryIO, Union

from aot.pte import flatbuffer
from aot.pte.layout import (HEADER_LENGTH, SCHEMA_DATA_ALIGNMENT, ExtendedHeader, align_up,
                            check_alignment)
from aot.program import (BackendDelegateDataReference, BackendDelegateInlineData, Buffer,
                         DataLocation, DataSegment, Program, SubsegmentOffsets)

Chunk = Union[bytes, memoryview]


@dataclasses.dataclass(frozen=True)
class PteData:
    """A serialized .pte file as a sequence of byte chunks."""
    chunks: tuple[Chunk, ...]

    def __len__(self) -> int:
        return sum(len(c) for c in self.chunks)

    def to_bytes(self) -> bytes:
        return b"".join(self.chunks)

    __bytes__ = to_bytes

    def write_to(self, file: Union[BinaryIO, str, os.PathLike]) -> None:
        """Write to an open binary file, or to a path (created or truncated)."""
        if isinstance(file, (str, os.PathLike)):
            with open(file, "wb") as f:
                self.write_to(f)
            return
        for chunk in self.chunks:
            file.write(chunk)


def serialize_pte(program: Program, *, extract_constant_segment: bool = True,
                  extract_delegate_segments: bool = True, segment_alignment: int = 128,
                  constant_tensor_alignment: int = 16, delegate_alignment: int | None = None,
                  emit_stacktrace: bool = True) -> PteData:
    """Serialize `program` (in its in-memory, all-inline form) to .pte bytes.

    Deterministic: equal Programs and options give byte-identical output.
    extract_constant_segment: constants go to a segment (each offset a multiple of
        constant_tensor_alignment) rather than into Program.constant_buffer. Offsets are
        relative to the segment, which starts at a multiple of segment_alignment: keep
        segment_alignment >= constant_tensor_alignment for absolute alignment in the file.
        ExecuTorch's runtime (1.5.1 wheel) only loads files with a constant segment, and
        only if constant_buffer has at least its placeholder entry 0.
    extract_delegate_segments: non-empty delegate blobs go to segments (identical blobs
        share one) rather than into Program.backend_delegate_data.
    delegate_alignment: alignment of inline delegate blobs (default: the schema's 16).
    emit_stacktrace: False drops Chain.stacktrace.
    """
    check_alignment("segment_alignment", segment_alignment)
    check_alignment("constant_tensor_alignment", constant_tensor_alignment)
    delegate_alignment = delegate_alignment or SCHEMA_DATA_ALIGNMENT
    check_alignment("delegate_alignment", delegate_alignment)
    _check_in_memory_form(program)

    segments = _Segments(segment_alignment)
    wire = program
    if extract_constant_segment and program.constant_buffer:
        chunks, offsets = _pack_items(program.constant_buffer, constant_tensor_alignment)
        index = segments.add(chunks)
        wire = dataclasses.replace(wire, constant_buffer=(),
                                   constant_segment=SubsegmentOffsets(index, offsets))
    mutable = []
    for buffers in program.mutable_data:
        chunks, offsets = _pack_items(buffers, 1)  # copied at load time: no alignment needed
        mutable.append(SubsegmentOffsets(segments.add(chunks), offsets))
    wire = dataclasses.replace(wire, mutable_data=(), mutable_data_segments=tuple(mutable))
    if extract_delegate_segments:
        wire = _extract_delegates(wire, segments)
    named = tuple(flatbuffer.NamedDataRef(entry.key, segments.add_shared("named", entry.data))
                  for entry in program.named_data)
    wire = dataclasses.replace(wire, named_data=(), segments=segments.table)
    if not emit_stacktrace:
        wire = _drop_stacktraces(wire)

    fb = flatbuffer.build(wire, named, constant_alignment=constant_tensor_alignment,
                          delegate_alignment=delegate_alignment)
    if segments.size == 0:
        return PteData((fb.data,))
    return _with_segments(fb, segments, segment_alignment)


def _check_in_memory_form(program: Program) -> None:
    if program.segments or program.constant_segment is not None or program.mutable_data_segments:
        raise ValueError("serialize_pte takes a Program in its in-memory form: segments, "
                         "constant_segment and mutable_data_segments must be empty")
    count = len(program.backend_delegate_data)
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            ref = delegate.processed
            if ref.location != DataLocation.INLINE or not 0 <= ref.index < count:
                raise ValueError(f"delegate {delegate.id!r} of method {plan.name!r} must refer "
                                 f"to backend_delegate_data (of {count}), not {ref}")


class _Segments:
    """Segment data in file order, and the DataSegment table describing it."""

    def __init__(self, alignment: int):
        self.alignment = alignment
        self.chunks: list[Chunk] = []  # segment data with padding between segments
        self.table: tuple[DataSegment, ...] = ()
        self.size = 0
        self._by_content: dict[tuple[str, bytes], int] = {}

    def add(self, chunks: list[Chunk]) -> int:
        start = align_up(self.size, self.alignment)
        if start > self.size:
            self.chunks.append(bytes(start - self.size))
        length = sum(len(c) for c in chunks)
        self.chunks.extend(c for c in chunks if len(c))
        self.table += (DataSegment(start, length),)
        self.size = start + length
        return len(self.table) - 1

    def add_shared(self, kind: str, data: bytes) -> int:
        """Like add, but identical blobs of one kind share one segment."""
        key = (kind, data)
        if key not in self._by_content:
            self._by_content[key] = self.add([data])
        return self._by_content[key]


def _pack_items(buffers: tuple[Buffer, ...], alignment: int) -> tuple[list[Chunk], tuple[int, ...]]:
    """Concatenate buffers, each starting at a multiple of `alignment`; return their offsets."""
    chunks: list[Chunk] = []
    offsets = []
    pos = 0
    for buffer in buffers:
        start = align_up(pos, alignment)
        if start > pos:
            chunks.append(bytes(start - pos))
        offsets.append(start)
        chunks.append(buffer.storage)
        pos = start + len(buffer.storage)
    return chunks, tuple(offsets)


def _extract_delegates(program: Program, segments: _Segments) -> Program:
    """Move non-empty delegate blobs into segments; empty ones stay inline."""
    inline: list[BackendDelegateInlineData] = []
    plans = []
    for plan in program.execution_plan:
        delegates = []
        for delegate in plan.delegates:
            data = program.backend_delegate_data[delegate.processed.index].data
            if data:
                ref = BackendDelegateDataReference(DataLocation.SEGMENT,
                                                   segments.add_shared("delegate", data))
            else:
                ref = BackendDelegateDataReference(DataLocation.INLINE, len(inline))
                inline.append(BackendDelegateInlineData(b""))
            delegates.append(dataclasses.replace(delegate, processed=ref))
        plans.append(dataclasses.replace(plan, delegates=tuple(delegates)))
    return dataclasses.replace(program, execution_plan=tuple(plans),
                               backend_delegate_data=tuple(inline))


def _drop_stacktraces(program: Program) -> Program:
    plans = tuple(dataclasses.replace(plan, chains=tuple(
        dataclasses.replace(chain, stacktrace=None) for chain in plan.chains))
        for plan in program.execution_plan)
    return dataclasses.replace(program, execution_plan=plans)


def _with_segments(fb: flatbuffer.Built, segments: _Segments, segment_alignment: int) -> PteData:
    """Insert the extended header at byte 8 and append the segments."""
    header_length = align_up(HEADER_LENGTH, fb.max_alignment)
    program_size = len(fb.data) + header_length
    base = align_up(program_size, segment_alignment)
    header = ExtendedHeader(program_size, base, segments.size).pack(header_length)
    root_offset = int.from_bytes(fb.data[0:4], "little") + header_length
    head = root_offset.to_bytes(4, "little") + bytes(fb.data[4:8]) + header
    chunks = [head, fb.data[8:], bytes(base - program_size), *segments.chunks]
    return PteData(tuple(c for c in chunks if len(c)))
