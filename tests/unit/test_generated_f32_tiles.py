"""The checked-in runtime_c/src/arch/cortex_m_dsp/f32_tiles.h is what gen_f32_tiles.py writes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = (Path(__file__).resolve().parents[2] / "runtime_c" / "src" / "arch" / "cortex_m_dsp"
          / "gen_f32_tiles.py")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_f32_tiles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_tiles_are_current():
    gen = _generator()
    assert gen.OUT.read_text() == gen.render(), (
        f"{gen.OUT.name} is stale: run python3 {SCRIPT.relative_to(SCRIPT.parents[4])}")

