"""A coverage-guided fuzzing campaign against the .pte interpreter (rt_pte_load + rt_pte_run).

    make fuzz SECONDS=1800                     # or:
    .venv/bin/python bench/fuzz.py --seconds 1800 [--workers 2]

Builds tests/fuzz/pte_fuzz.c with clang's libFuzzer, AddressSanitizer and UBSan against the
kernel table of every operator, seeds it with mcu-aot's float32 and int8 programs (the zoo's
KWS and autoencoder, every op model of tests/op_models.py and tests/int8_models.py) and with
programs ExecuTorch's exir wrote, and runs it. The harness gives the interpreter blocks of
exactly the sizes it reports (file, state, arena, unplanned inputs and outputs) and mutates
the .pte's structure (offsets, vector lengths, value indices, list items, dtypes) as well as
its bytes.

Prints executions, edge coverage, corpus size, and every sanitizer report, crash and hang
(timeout), and copies each crashing input into tests/fuzz/corpus/crashes/ so that `make test`
replays it from then on. Exits 1 if the campaign found anything.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
BUILD = ROOT / "build" / "fuzz"
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
HARNESS = ROOT / "tests" / "fuzz" / "pte_fuzz.c"
CLANG = ("clang-14", "clang")


def _clang() -> str:
    for name in CLANG:
        path = shutil.which(name)
        if path:
            return path
    sys.exit("bench/fuzz.py needs clang with libFuzzer: apt-get install clang-14 "
             "libclang-rt-14-dev (make fuzz installs them)")


def sources() -> tuple[Path, list[str]]:
    """The kernel table of every operator, written into build/fuzz, and the runtime files it
    links (portable C: the fuzzer runs what every board's interpreter runs)."""
    import aot.interpreter as I
    from aot.codegen.runtime import runtime_dir
    table = I.table_source()
    BUILD.mkdir(parents=True, exist_ok=True)
    path = BUILD / "table.c"
    if not path.is_file() or path.read_text() != table.source:
        path.write_text(table.source)
    root = runtime_dir()
    return path, [str(root / rel) for rel in I.runtime_files(table, "portable")]


def build(replay: bool = False, cc: str | None = None) -> Path:
    """The libFuzzer binary (or, replay=True, the replay program) under ASan and UBSan."""
    from aot.codegen.runtime import runtime_dir
    table, files = sources()
    cc = cc or _clang()
    exe = BUILD / ("pte_replay" if replay else "pte_fuzz")
    root = runtime_dir()
    flags = ["-std=c99", "-O1", "-g", "-fno-omit-frame-pointer", "-ffp-contract=off",
             "-fsanitize=address,undefined" + ("" if replay else ",fuzzer"),
             "-fno-sanitize-recover=all", f"-I{root / 'include'}"]
    if replay:
        flags.append("-DPTE_FUZZ_REPLAY")
    cmd = [cc, *flags, str(HARNESS), str(table), *files, "-o", str(exe), "-lm"]
    key = hashlib.sha256(repr(cmd).encode() + HARNESS.read_bytes() + table.read_bytes() +
                         b"".join(Path(f).read_bytes() for f in files) +
                         b"".join(p.read_bytes() for p in sorted(root.rglob("*.h"))))
    stamp = exe.with_suffix(".key")
    if exe.is_file() and stamp.is_file() and stamp.read_text() == key.hexdigest():
        return exe
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"building {exe.name} failed:\n{r.stderr[-4000:]}")
    stamp.write_text(key.hexdigest())
    return exe


def _write_seed(folder: Path, name: str, data: bytes) -> None:
    (folder / f"{name}.pte").write_bytes(bytes(data))


def seeds() -> Path:
    """The seed corpus: mcu-aot's own programs and ExecuTorch-written ones (made once)."""
    folder = BUILD / "seeds"
    done = folder / ".complete"
    if done.is_file():
        return folder
    import warnings
    import torch
    import aot
    from aot.zoo import ZOO, calibration_set
    folder.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore")
    for name in ("kws", "autoencoder"):
        model, example = ZOO[name]()
        _write_seed(folder, name, aot.to_edge(torch.export.export(model.eval(), example))
                    .to_executorch().buffer)
        q = aot.quantize(model, example, calibration_set(name, 4))
        _write_seed(folder, f"{name}_int8", aot.to_edge(q).to_executorch().buffer)
    from op_models import OP_MODELS
    for name, (model, example) in OP_MODELS.items():
        try:
            ep = torch.export.export(model.eval(), example)
            _write_seed(folder, f"op_{name}", aot.to_edge(ep).to_executorch().buffer)
        except aot.AotError:
            pass       # an op model meant to be refused
    from aot.backends import AddMulPartitioner

    class AddMul(torch.nn.Module):                 # a delegate call (DemoBackend) between kernels
        def forward(self, a, b):
            return torch.relu(torch.sin(a) * b + a) - b

    example = (torch.randn(2, 8), torch.randn(2, 8))
    _write_seed(folder, "delegate_demo", aot.to_edge(torch.export.export(AddMul(), example))
                .to_backend(AddMulPartitioner()).to_executorch().buffer)
    from int8_models import INT8_MODELS, lowered
    for name in INT8_MODELS:
        _write_seed(folder, f"int8_{name}", lowered(name, True).buffer)
    try:
        from interop.test_pte_et_files import MODELS, executorch_file
    except ImportError:
        MODELS = {}
    for name in MODELS:
        _write_seed(folder, f"et_{name}", executorch_file(name)[0])
    done.write_text("")
    return folder


_STAT = re.compile(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)")


def campaign(seconds: int, workers: int) -> int:
    exe = build()
    seed_dir = seeds()
    work = BUILD / "corpus"
    work.mkdir(parents=True, exist_ok=True)
    artifacts = BUILD / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    for old in artifacts.iterdir():
        old.unlink()
    max_len = max(p.stat().st_size for p in seed_dir.glob("*.pte"))
    logs = []
    procs = []
    t0 = time.time()
    for k in range(workers):
        log = BUILD / f"worker{k}.log"
        logs.append(log)
        cmd = [str(exe), str(work), str(seed_dir), f"-max_total_time={seconds}",
               f"-max_len={max_len}", "-timeout=10", "-rss_limit_mb=4096",
               "-print_final_stats=1", f"-artifact_prefix={artifacts}/", f"-seed={k + 1}",
               "-reload=30"]
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1",
                   UBSAN_OPTIONS="print_stacktrace=1")
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                      stderr=log.open("w"), env=env))
    for p in procs:
        p.wait()
    elapsed = time.time() - t0
    execs = cov = ft = corp = 0
    reports = []
    for log in logs:
        text = log.read_text(errors="replace")
        m = re.search(r"stat::number_of_executed_units: (\d+)", text)
        execs += int(m.group(1)) if m else 0
        stats = _STAT.findall(text)
        if stats:
            cov = max(cov, int(stats[-1][1]))
            ft = max(ft, int(stats[-1][2]))
            corp = max(corp, int(stats[-1][3]))
        reports += re.findall(r"^(?:==\d+==ERROR: \w+Sanitizer: .*|.*runtime error: .*|"
                              r"==\d+== ERROR: libFuzzer: .*|ALARM: .*)$", text, re.M)
    found = sorted(artifacts.iterdir())
    kept = CORPUS / "crashes"
    for path in found:
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, kept / path.name)
    kinds = {"crash": 0, "timeout": 0, "oom": 0, "leak": 0}
    for path in found:
        kinds[path.name.split("-")[0]] = kinds.get(path.name.split("-")[0], 0) + 1
    print(f"campaign: {seconds} s x {workers} worker(s) ({elapsed:.0f} s wall), "
          f"seeds {len(list(seed_dir.glob('*.pte')))}")
    print("| executions | exec/s | edges (cov) | features (ft) | corpus | sanitizer reports "
          "| crashes | hangs |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {execs:,} | {execs / max(elapsed, 1):,.0f} | {cov:,} | {ft:,} | {corp:,} | "
          f"{len(reports)} | {kinds['crash'] + kinds['oom']} | {kinds['timeout']} |")
    for line in reports[:20]:
        print("  " + line)
    for path in found:
        print(f"  kept {kept / path.name}")
    return 1 if found or reports else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--build-only", action="store_true")
    args = ap.parse_args(argv)
    if args.build_only:
        print(build())
        print(seeds())
        return 0
    return campaign(args.seconds, args.workers)


if __name__ == "__main__":
    sys.exit(main())
