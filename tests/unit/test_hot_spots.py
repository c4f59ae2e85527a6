"""bench/hot_spots.py sums per-address counts (the cycle model's plugin) per function: a
function owns the addresses from its symbol up to the next one."""
from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "hot_spots", Path(__file__).resolve().parents[2] / "bench" / "hot_spots.py")
hot_spots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hot_spots)


def test_functions_own_their_addresses_up_to_the_next_symbol():
    per_pc = collections.Counter({0x100: 1, 0x102: 1, 0x108: 3, 0x10A: 3, 0x10C: 1, 0x80: 5})
    fn = hot_spots.per_function(per_pc, [(0x100, "main"), (0x108, "loop")])
    assert fn == {"main": 2, "loop": 7, "?": 5}
