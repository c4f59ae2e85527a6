"""Byte layout of a .pte file around its flatbuffer: identifier, extended header, segments.

    offset 0   u32   root table offset (flatbuffer)
    offset 4   4s    file identifier b"ET12"
    offset 8   ...   extended header, only when segment data follows:
                       4s  magic b"eh00"
                       u32 header length (32; the header is zero-padded so the
                           flatbuffer tables after it keep their alignment)
                       u64 program_size: bytes from file start to the end of the flatbuffer
                       u64 segment_base_offset: where segment data starts (0: none)
                       u64 segment_data_size: bytes of segment data (0 in old files)
    then the flatbuffer tables, padding up to segment_base_offset, and the segments, each
    starting at a multiple of the segment alignment (relative to segment_base_offset).
All integers are little-endian.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

FILE_IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"
HEADER_OFFSET = 8
HEADER_LENGTH = 32
# Files older than segment_data_size have a 24-byte header; readers accept both.
MIN_HEADER_LENGTH = 24
# Alignment the schema forces on inline constant and delegate bytes.
SCHEMA_DATA_ALIGNMENT = 16

_HEADER = struct.Struct("<4sIQQQ")


def align_up(n: int, alignment: int) -> int:
    return (n + alignment - 1) // alignment * alignment


def check_alignment(name: str, alignment: int) -> None:
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"{name} must be a positive power of two, got {alignment!r}")


@dataclass(frozen=True)
class ExtendedHeader:
    program_size: int
    segment_base_offset: int
    segment_data_size: int
    length: int = HEADER_LENGTH

    def pack(self, padded_length: int) -> bytes:
        raw = _HEADER.pack(HEADER_MAGIC, HEADER_LENGTH, self.program_size,
                           self.segment_base_offset, self.segment_data_size)
        return raw + bytes(padded_length - len(raw))

    @staticmethod
    def find(data: bytes) -> "ExtendedHeader | None":
        """The header at byte 8 of `data`, or None if there is none. Fields are not validated."""
        if data[HEADER_OFFSET:HEADER_OFFSET + 4] != HEADER_MAGIC:
            return None
        head = bytes(data[HEADER_OFFSET:HEADER_OFFSET + HEADER_LENGTH])
        head += bytes(HEADER_LENGTH - len(head))
        _, length, program_size, base, size = _HEADER.unpack(head)
        if length < HEADER_LENGTH:
            size = 0  # a 24-byte header has no segment_data_size
        return ExtendedHeader(program_size, base, size, length)
