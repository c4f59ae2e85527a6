"""The .pte interpreter's loader contract under AddressSanitizer and UBSan, on the host.

If rt_pte_load returns RT_OK, running the program reads and writes only its arena, its state,
its inputs and outputs and the file's bytes, with no undefined behaviour. The harness
(tests/fuzz/pte_fuzz.c, replay build) gives every block exactly the size the interpreter
reports, each a heap block of its own, so one byte past any of them is a sanitizer report,
and any report aborts the run.

It replays
- the checked-in corpus (tests/fuzz/corpus): every input a fuzzing campaign (make fuzz) ever
  crashed with, under crashes/, and a sample of the inputs that reached new code;
- fresh mutants of small float32 and int8 programs: bytes flipped, words set to hostile
  values, files cut short at any length.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import torch

import aot
from aot.codegen.runtime import STATUS_NAMES
from aot.zoo import ZOO, calibration_set
from conftest import TESTS, require_tool

sys.path.insert(0, str(TESTS.parent / "bench"))
import fuzz  # noqa: E402  (bench/fuzz.py builds the harness)

CORPUS = TESTS / "fuzz" / "corpus"
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:allocator_may_return_null=1",
           UBSAN_OPTIONS="print_stacktrace=1")


@pytest.fixture(scope="module")
def replay():
    return fuzz.build(replay=True, cc=require_tool("gcc"))


def _run(exe: Path, files: list[Path]) -> dict[str, str]:
    """Each file's status name, by path; fails on any sanitizer report or crash."""
    out: dict[str, str] = {}
    for k in range(0, len(files), 200):         # (command lines of a bounded length)
        batch = [str(f) for f in files[k:k + 200]]
        proc = subprocess.run([str(exe), *batch], capture_output=True, text=True, timeout=900,
                              env=ENV)
        assert proc.returncode == 0, proc.stdout[-500:] + proc.stderr[-4000:]
        for line in proc.stdout.splitlines():
            path, code, name = line.rsplit(" ", 2)
            assert STATUS_NAMES[int(code)] == name
            out[path] = name
    assert len(out) == len(files)
    return out


def test_the_checked_in_corpus(replay):
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file())
    crashes = [p for p in files if p.parent.name == "crashes"]
    assert files and crashes, "tests/fuzz/corpus holds the campaigns' inputs and crashes"
    statuses = _run(replay, files)
    assert set(statuses.values()) <= set(STATUS_NAMES.values())


def _programs() -> dict[str, bytes]:
    out = {}
    module, example = ZOO["kws"]()
    out["kws"] = aot.to_edge(torch.export.export(module.eval(), example)).to_executorch().buffer
    q = aot.quantize(module, example, calibration_set("kws", 4))
    out["kws_int8"] = aot.to_edge(q).to_executorch().buffer
    module, example = ZOO["autoencoder"]()
    q = aot.quantize(module, example, calibration_set("autoencoder", 4))
    out["autoencoder_int8"] = aot.to_edge(q).to_executorch().buffer
    return {k: bytes(v) for k, v in out.items()}


def _mutants(pte: bytes, count: int, seed: int):
    """Mutated copies of pte: bytes flipped, a word set to something hostile, cut short at any
    length, bytes changed in the flatbuffer's tables."""
    rng = random.Random(seed)
    program_end = int.from_bytes(pte[16:24], "little") if pte[8:12] == b"eh00" else len(pte)
    for k in range(count):
        data = bytearray(pte)
        how = k % 4
        if how == 0:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(program_end)] ^= 1 << rng.randrange(8)
        elif how == 1:
            at = rng.randrange(0, program_end - 4) & ~3
            data[at:at + 4] = rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000,
                                          rng.randrange(1 << 32)]).to_bytes(4, "little")
        elif how == 2:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(8, program_end)] = rng.randrange(256)
        yield bytes(data)


def test_fresh_mutants(replay, tmp_path):
    """Mutants of the float32 and int8 KWS and the int8 autoencoder: each refused with a status
    or run, none reading or writing outside its blocks; most refused."""
    files = []
    for name, pte in _programs().items():
        for k, data in enumerate(_mutants(pte, 150, seed=zlib.crc32(name.encode()))):
            path = tmp_path / f"{name}_{k}.pte"
            path.write_bytes(data)
            files.append(path)
    statuses = _run(replay, files)
    refused = sum(s != "RT_OK" for s in statuses.values())
    assert refused > len(files) // 4
