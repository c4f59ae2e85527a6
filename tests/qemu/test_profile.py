"""Per-layer profiles (aot.profile): `aot run --profile` on a QEMU board laps plat_cycles()
under -icount around every kernel call, and the slots add up to the whole inference measured
around <name>_run, to within the counter's resolution (one SysTick tick: 40 instructions at
the MPS2's 25 MHz). The same hook on the host (aot.host, nanoseconds) and through the host
board; profiling changes no output."""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import aot
import aot.host
from aot import cli
from aot.firmware import run_on_board
from aot.profile import format_profile, profile_of
from aot.qemu import cycles_to_instructions
from aot.report import op_rows
from aot.zoo import ZOO
from conftest import require_board, require_tool


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    module, example = ZOO["kws"]()
    ep = torch.export.export(module, example)
    path = tmp_path_factory.mktemp("pt2") / "kws.pt2"
    torch.export.save(ep, str(path))
    return module, example, ep, path


def test_board_profile_adds_up_to_the_whole_inference(kws, tmp_path, capsys):
    board = require_board("mps2-an386")
    _, _, _, pt2 = kws
    svg = tmp_path / "kws-profile.svg"
    assert cli.main(["run", str(pt2), "--board", board.name, "--name", "kws", "--profile",
                     "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "profile of kws on mps2-an386 (instructions per call" in out
    report = run_on_board(pt2, board, name="kws", profile=True)
    assert report.ok
    p = report.profile
    tick = cycles_to_instructions(board, 1)                       # the counter's resolution
    assert p.unit == "instructions" and p.total is not None
    # the slots telescope: only the first lap's start and the last lap's end lie outside
    assert 0 <= p.total - p.sum <= 2 * tick + len(p.rows), (p.total, p.sum)
    convs = [r for r in p.rows if "convolution" in r.op]
    assert len(convs) == 9 and all(r.macs > 0 and r.count > 0 for r in convs)
    # the MACs are those `aot report` counts on the lowered graph
    manager = aot.to_edge(kws[2]).to_executorch()
    assert sum(r.macs for r in p.rows) == sum(r.macs for r in op_rows(manager.lowered("forward")))
    # every kernel call of the generated C has its row, in order, named as aot report does
    calls = [r for r in p.rows if r.index is not None]
    assert [r.index for r in calls] == sorted(r.index for r in calls)
    assert all(re.search(r"zoo\.py:\d+", r.source) for r in calls)
    # each row's figure is printed, and drawn
    for r in calls:
        assert f"{r.count:,.0f}" in out
    text = svg.read_text()
    assert text.startswith("<svg") and text.count("<rect") == len(p.rows)
    # profiling changes no output: the same values as a run without it
    plain = run_on_board(pt2, board, name="kws")
    assert all(np.array_equal(a, b) for a, b in zip(plain.outputs, report.outputs))


def test_svg_without_profile_is_refused(kws, tmp_path, capsys):
    assert cli.main(["run", str(kws[3]), "--board", "host", "--svg",
                     str(tmp_path / "p.svg")]) == 2
    assert "--profile" in capsys.readouterr().err
    assert not (tmp_path / "p.svg").exists()


def test_host_board_profile_is_in_nanoseconds(kws):
    require_board("host")
    report = run_on_board(kws[3], "host", name="kws", profile=True)
    assert report.ok and report.profile.unit == "ns"
    assert len(report.profile.rows) >= 3
    assert all(r.count >= 0 for r in report.profile.rows)


def test_aot_host_profile_hook(kws):
    require_tool("gcc")
    module, example, ep, _ = kws
    sources = aot.generate_c(aot.to_edge(ep).to_executorch(), name="kws")
    timed, plain = aot.host.build(sources, profile=True), aot.host.build(sources)
    x = example[0].numpy()
    got, want = timed(x), plain(x)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    p = timed.last_profile()
    assert p.unit == "ns" and len(p.rows) == len(sources.calls) + 2
    assert p.sum > 0 and all(r.count >= 0 for r in p.rows)
    assert "ns/MAC" in format_profile(p)
    with pytest.raises(aot.AotError, match="without profile=True"):
        plain.last_profile()
    with pytest.raises(ValueError, match="profile slots"):
        profile_of(sources, [0] * len(sources.calls), "ns", "host")
