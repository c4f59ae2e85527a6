"""The `aot` command line, and the wheel: a non-editable install must work on its own."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _aot(*args, cwd=None, exe=(sys.executable, "-m", "aot")):
    return subprocess.run([*exe, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.fixture(scope="module")
def autoencoder_pt2(tmp_path_factory):
    path = tmp_path_factory.mktemp("pt2") / "ae.pt2"
    r = _aot("zoo", "autoencoder", "-o", str(path))
    assert r.returncode == 0, r.stderr
    return path


def test_report_prints_table_and_bound(autoencoder_pt2, tmp_path):
    svg = tmp_path / "map.svg"
    r = _aot("report", str(autoencoder_pt2), "--svg", str(svg))
    assert r.returncode == 0, r.stderr
    assert "aten::addmm.out" in r.stdout and "MACs" in r.stdout and "offset" in r.stdout
    assert "lower bound" in r.stdout
    assert "3,072 B" in r.stdout                   # the autoencoder's liveness bound
    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg")


def test_report_of_missing_file_is_one_line(tmp_path):
    r = _aot("report", str(tmp_path / "nope.pt2"))
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {tmp_path / 'nope.pt2'}: no such file"


def test_report_of_a_file_that_is_not_pt2(tmp_path):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"not a zip file")
    r = _aot("report", str(bad))
    assert r.returncode == 2 and "not a torch.export .pt2 file" in r.stderr
    assert "Traceback" not in r.stderr


def test_non_editable_wheel_install_works(tmp_path, autoencoder_pt2):
    """Build the wheel, install it (without deps) into a fresh venv that borrows this venv's
    torch & co through a .pth file, and run `aot report` from outside the repo."""
    wheels = tmp_path / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                        "--no-build-isolation", "-q", "-w", str(wheels), str(REPO)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    wheel = next(wheels.glob("mcu_aot-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = sysconfig.get_paths()["purelib"]
    (Path(site) / "borrowed_deps.pth").write_text(deps + "\n")
    r = subprocess.run([py, "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([py, "-c", "import aot, pathlib; print(pathlib.Path(aot.__file__)"
                            ".parent)"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert where.returncode == 0, where.stderr
    pkg = Path(where.stdout.strip())
    assert pkg.is_relative_to(venv), pkg          # the installed copy, not the checkout
    for folder in ("codegen_templates", "runtime_c", "schema", "boards"):
        assert (pkg / "_data" / folder).is_dir(), folder
    assert any((pkg / "_data" / "boards").glob("*/board.json"))
    r = _aot("report", str(autoencoder_pt2), cwd=tmp_path, exe=(str(venv / "bin" / "aot"),))
    assert r.returncode == 0, r.stderr
    assert "lower bound" in r.stdout


def test_commands_print_only_our_own_output(autoencoder_pt2, tmp_path):
    """No warnings or log lines from torch, torchao or ExecuTorch reach the user: stderr
    stays empty, including for a .pte checked against ExecuTorch's runtime."""
    for args in (("zoo", "autoencoder", "-o", str(tmp_path / "ae.pt2")),
                 ("report", str(autoencoder_pt2)),
                 ("compile", str(autoencoder_pt2), "-o", str(tmp_path / "c"), "--name", "ae")):
        r = _aot(*args)
        assert r.returncode == 0 and r.stderr == "", (args, r.stderr)
    probe = ("import sys, numpy as np\n"
             "from aot import load_program\n"
             "from aot.firmware import _executorch\n"
             "data = open(sys.argv[1], 'rb').read()\n"
             "run, _ = _executorch(load_program(data), lambda: data, 'forward')\n"
             "run(np.zeros((1, 640), np.float32))\n")
    r = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "c" / "ae.pte")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "cpuinfo" not in r.stderr, r.stderr
