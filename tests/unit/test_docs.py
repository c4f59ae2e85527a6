"""The documentation: every relative link (and #anchor) of README.md, docs/**/*.md and
runtime_c/README.md resolves, the generated pages (docs/generate.py) are current, and the
README stays short."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted([REPO / "README.md", REPO / "runtime_c" / "README.md",
                *(REPO / "docs").rglob("*.md")])
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE = re.compile(r"`[^`\n]*`")


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        lines.append("" if fenced else _CODE.sub("``", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in path.read_text().splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[tuple[int, str]]:
    return [(i, m.group(1)) for i, line in enumerate(prose(path.read_text()), 1)
            for m in _LINK.finditer(line)]


def test_slug_follows_github():
    assert slug("One op's path") == "one-ops-path"
    assert slug("Per-layer profile: `bench/layer_profile.py`") == \
        "per-layer-profile-benchlayer_profilepy"
    assert slug("`cortex_m_dsp` (M4 `mps2-an386`, M7 `mps2-an500`)") == \
        "cortex_m_dsp-m4-mps2-an386-m7-mps2-an500"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    broken = []
    for line, target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):     # http:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{line}: {target} (no {path})")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{line}: {target} (no heading #{anchor} in {dest.name})")
    assert not broken, f"{page.relative_to(REPO)}:\n" + "\n".join(broken)


def test_generated_pages_are_current():
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.stale() == [], "run .venv/bin/python docs/generate.py"


def test_readme_is_one_page():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= 220, f"README.md is {lines} lines: move the detail to docs/"
