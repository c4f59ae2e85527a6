"""What is checked before a project is written: the model's footprint against the board's
flash and RAM. Constants, inputs, arena, outputs and stack are exact; code is estimated from
the number of runtime files and kernel calls (the linker has the last word: run.py reports
its overflow too)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..boards import Board
from ..codegen.c import CSources
from ..errors import BoardError
from ..program import ARENA_MEMORY_ID, Tensor

# The flash estimate, before any compiler has run: constants and inputs exactly, code from
# these sizes, fitted to the zoo networks' largest code over the boards and rounded up: RV32
# once (soft float: KWS 24.9 KB after the fused activations), then the M4F and M7, whose
# float32 register blocks made KWS 31.1 KB, then 38 KB with their 2x8, 2x9 and 4x5 blocks
# and depthwise rows, 41.7 KB with the depthwise bands and the pointwise panels (VWW
# 41.7 KB), now 43.9 KB with every block's products interleaved into its sums (KWS).
CODE_BASE = 6_000           # startup, platform, printf_min, mathf_min, libc_min, main
CODE_PER_RUNTIME_FILE = 3_100
CODE_PER_CALL = 100         # one kernel call, its shapes and parameter structs
RAM_BASE = 512              # the platform's and printf's static data


@dataclass(frozen=True)
class Footprint:
    """Estimated memory use of a project on a board (bytes), checked before writing."""
    constants: int
    inputs: int
    code: int          # an estimate; see CODE_BASE
    arena: int
    outputs: int
    stack: int

    @property
    def flash(self) -> int:
        return self.constants + self.inputs + self.code

    @property
    def ram(self) -> int:
        return self.arena + self.outputs + self.stack + RAM_BASE


def estimate_footprint(sources: CSources, board: Board, inputs) -> Footprint:
    nbytes = lambda specs: sum(int(np.prod(s.shape, dtype=np.int64)) * np.dtype(s.dtype).itemsize
                               for s in specs)
    code = (CODE_BASE + CODE_PER_RUNTIME_FILE * len(sources.runtime_sources)
            + CODE_PER_CALL * len(sources.ops))
    return Footprint(constants=sources.constant_bytes, inputs=sum(a.nbytes for a in inputs),
                     code=code, arena=sources.arena_size, outputs=nbytes(sources.outputs),
                     stack=board.stack_size or 0)


def _too_big(name: str, board: Board, memory: str, need: int, parts: str, have: int):
    return BoardError(f"model {name!r} does not fit the {memory} of {board.name}: needs about "
                      f"{need:,} bytes ({parts}), the board has {have:,}")


def check_program_fits(program, method: str, name: str, board: Board) -> None:
    """The cheap check, before any C is rendered (a 64 MB model would take minutes): the
    method's constants alone against flash, its arena and the stack against RAM."""
    try:
        plan = program.method(method)
    except KeyError:
        return                                     # generate_c reports the unknown method
    constants = {v.data_buffer_idx for v in plan.values if isinstance(v, Tensor)
                 and v.allocation_info is None and v.data_buffer_idx > 0}
    const_bytes = sum(len(program.constant_buffer[i].storage) for i in constants
                      if i < len(program.constant_buffer))
    sizes = plan.non_const_buffer_sizes
    arena = sizes[ARENA_MEMORY_ID] if len(sizes) > ARENA_MEMORY_ID else 0
    stack = board.stack_size or 0
    if board.flash is not None and const_bytes > board.flash.length:
        raise _too_big(name, board, "flash", const_bytes, f"{const_bytes:,} constants",
                       board.flash.length)
    if board.ram is not None and arena + stack > board.ram.length:
        raise _too_big(name, board, "RAM", arena + stack,
                       f"{arena:,} arena + {stack:,} stack", board.ram.length)


def check_fit(sources: CSources, board: Board, inputs) -> Footprint:
    """The footprint; BoardError if it exceeds the board's flash or RAM (no check on host)."""
    fp = estimate_footprint(sources, board, inputs)
    if board.flash is not None and fp.flash > board.flash.length:
        raise _too_big(sources.name, board, "flash", fp.flash,
                       f"{fp.constants:,} constants + {fp.inputs:,} inputs + ~{fp.code:,} code",
                       board.flash.length)
    if board.ram is not None and fp.ram > board.ram.length:
        raise _too_big(sources.name, board, "RAM", fp.ram,
                       f"{fp.arena:,} arena + {fp.outputs:,} outputs + {fp.stack:,} stack + "
                       f"{RAM_BASE} other", board.ram.length)
    return fp


