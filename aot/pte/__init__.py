"""Read, write and print ExecuTorch .pte files (schema: schema/program.fbs)."""
from aot.pte.dump import format_program
from aot.pte.reader import load_program
from aot.pte.serialize import PteData, serialize_pte

__all__ = ["PteData", "format_program", "load_program", "serialize_pte"]
