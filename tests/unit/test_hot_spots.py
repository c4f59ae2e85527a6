"""bench/hot_spots.py reads QEMU's in_asm,exec,nochain log: a block's instructions are listed
once, when it is translated, and every run of it logs its start address; each instruction's
count is its block's runs. Functions own the addresses from their symbol up to the next."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "hot_spots", Path(__file__).resolve().parents[2] / "bench" / "hot_spots.py")
hot_spots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hot_spots)

LOG = """\
----------------
IN: main
0x00000100:  b508       push     {r3, lr}
0x00000102:  f000 f801  bl       #0x108

Trace 0: 0x7f0000000100 [00800408/00000100/00000110/ff000200] main
----------------
IN: loop
0x00000108:  3801       subs     r0, #1
0x0000010a:  d1fd       bne      #0x108

Trace 0: 0x7f0000000200 [00800408/00000108/00000110/ff000200] loop
Trace 0: 0x7f0000000200 [00800408/00000108/00000110/ff000200] loop
Trace 0: 0x7f0000000200 [00800408/00000108/00000110/ff000200] loop
----------------
IN: loop
0x0000010c:  4770       bx       lr

Trace 0: 0x7f0000000300 [00800408/0000010c/00000110/ff000200] loop
"""


def test_each_instruction_counts_its_blocks_runs(tmp_path):
    log = tmp_path / "blocks.log"
    log.write_text(LOG)
    per_pc = hot_spots.block_counts(log)
    assert per_pc == {0x100: 1, 0x102: 1, 0x108: 3, 0x10A: 3, 0x10C: 1}


def test_functions_own_their_addresses_up_to_the_next_symbol(tmp_path):
    log = tmp_path / "blocks.log"
    log.write_text(LOG)
    fn = hot_spots.per_function(hot_spots.block_counts(log), [(0x100, "main"), (0x108, "loop")])
    assert fn == {"main": 2, "loop": 7}
