"""The committed bindings in aot/pte/_fb/ are exactly what schema/regenerate.sh produces."""
from __future__ import annotations

import filecmp
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "schema" / "regenerate.sh"
COMMITTED = ROOT / "aot" / "pte" / "_fb"
PINNED = "2.0.8"  # must match FLATC_VERSION in schema/regenerate.sh


def _unavailable(reason: str):
    """Skip locally; in CI a missing or wrong flatc is a failure, never a skip."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: cannot verify the generated bindings)")
    pytest.skip(reason)


def test_script_pins_the_same_flatc_version():
    assert f'FLATC_VERSION="{PINNED}"' in SCRIPT.read_text()


def _pinned_flatc() -> str | None:
    """The flatc regenerate.sh would use: $FLATC, else the first of the pinned version on PATH."""
    explicit = os.environ.get("FLATC")
    dirs = os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin"]
    for candidate in [explicit] if explicit else [os.path.join(d, "flatc") for d in dirs]:
        if candidate and os.access(candidate, os.X_OK):
            version = subprocess.run([candidate, "--version"], capture_output=True,
                                     text=True).stdout.strip()
            if version == f"flatc version {PINNED}":
                return candidate
    return None


def test_regenerating_changes_nothing(tmp_path):
    flatc = _pinned_flatc()
    if not flatc:
        _unavailable(f"no flatc {PINNED} found (Debian: apt install flatbuffers-compiler)")

    out = tmp_path / "_fb"
    subprocess.run(["sh", str(SCRIPT), str(out)], check=True, env={**os.environ, "FLATC": flatc})

    generated = sorted(p.name for p in out.iterdir())
    committed = sorted(p.name for p in COMMITTED.iterdir() if p.suffix == ".py")
    assert generated == committed
    match, mismatch, errors = filecmp.cmpfiles(out, COMMITTED, generated, shallow=False)
    assert mismatch == [] and errors == [], f"regenerate the bindings: {mismatch + errors}"
