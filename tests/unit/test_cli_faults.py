"""The command line under faults: a destination that cannot be written, a full disk, a kill at
any instant. Errors are one ``error:`` line naming the path and exit code 2; nothing is left
half-written; a folder being replaced is always the old one or the new one, whole; what a
killed run leaves beside it is recovered or removed by the next run.

The tests run as root, which a chmod 0o555 does not stop: a read-only folder and a full disk
are simulated by making os functions fail, and a kill by a forked child that SIGKILLs itself
before its k-th filesystem step, for every k."""
from __future__ import annotations

import errno
import functools
import itertools
import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

if __name__ == "__main__":
    # Run as the kill driver (see lean): aot.atomic without the aot package's imports (torch),
    # as forking a process that holds torch costs ten times as much as forking this one.
    import types
    _aot = types.ModuleType("aot")
    _aot.__path__ = [str(Path(__file__).resolve().parents[2] / "aot")]
    sys.modules["aot"] = _aot

import pytest

import aot.atomic as atomic
from aot.atomic import WriteError, recover, write_file, write_tree

OLD = {"CMakeLists.txt": b"# old cmake\n", "model.c": b"old c\n" * 5000,
       "runtime_c/src/a.c": b"old a\n", "runtime_c/src/gone.c": b"only old\n"}
NEW = {"CMakeLists.txt": b"# new cmake\n", "model.c": b"new c\n" * 9000,
       "runtime_c/src/a.c": b"new a\n", "runtime_c/include/b.h": b"only new\n"}
THIRD = {"CMakeLists.txt": b"# third\n"}

# The os functions that change the filesystem, and those of them a full disk refuses.
MUTATING = ("mkdir", "open", "write", "fsync", "close", "rename", "replace", "unlink", "rmdir")
ALLOCATING = ("mkdir", "open", "write", "fsync")
EVERY_STEP = tuple(n for n in MUTATING if n != "close") + ("exchange",)  # a refused close leaks


def snapshot(folder: Path):
    """Every file under folder, by relative path, with its bytes; None if folder is missing."""
    if not os.path.lexists(folder):
        return None
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hidden(parent: Path) -> list[str]:
    return sorted(n for n in os.listdir(parent) if n.startswith("."))


def _creates(name, args, kwargs) -> bool:
    """Whether this os call is a step: os.open counts only when it may create a file."""
    if name != "open":
        return True
    flags = args[1] if len(args) > 1 else kwargs.get("flags", 0)
    return bool(flags & os.O_CREAT)


@contextmanager
def patched_os(hook):
    """Route every call of the MUTATING os functions, and of the atomic exchange, through
    hook(name, args, kwargs) first; restored on exit."""
    saved = {n: getattr(os, n) for n in MUTATING}
    saved_exchange = atomic._exchange

    def wrap(name, fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            hook(name, args, kwargs)
            return fn(*args, **kwargs)
        return call

    for n, fn in saved.items():
        setattr(os, n, wrap(n, fn))
    atomic._exchange = wrap("exchange", saved_exchange)
    try:
        yield
    finally:
        for n, fn in saved.items():
            setattr(os, n, fn)
        atomic._exchange = saved_exchange


class Faults:
    """Fail the ``at``-th step (1-based) with OSError(err). A full disk (``persistent``) then
    refuses every allocating step after it too; renames, unlinks and rmdirs still work."""

    def __init__(self, at: int, err: int, kinds=ALLOCATING, persistent: bool = True):
        self.at, self.err, self.kinds, self.persistent = at, err, kinds, persistent
        self.steps = 0
        self.failed = False

    def __call__(self, name, args, kwargs):
        if name not in self.kinds or not _creates(name, args, kwargs):
            return
        self.steps += 1
        if self.steps == self.at or (self.failed and self.persistent and name in ALLOCATING):
            self.failed = True
            target = args[0] if args and isinstance(args[0], (str, bytes, os.PathLike)) else None
            raise OSError(self.err, os.strerror(self.err), target)


@contextmanager
def faults(at, err=errno.ENOSPC, kinds=ALLOCATING, persistent=True):
    f = Faults(at, err, kinds, persistent)
    with patched_os(f):
        yield f


@contextmanager
def read_only(folder: Path, err=errno.EACCES):
    """folder as chmod 0o555 makes it for anyone but root: no entry in it can be made,
    renamed or removed (the mode is set too, for a run that is not root)."""
    folder = folder.resolve()

    def inside(p) -> bool:
        return isinstance(p, (str, os.PathLike)) and Path(os.path.abspath(p)).parent == folder

    def hook(name, args, kwargs):
        if kwargs.get("dir_fd") is not None or not _creates(name, args, kwargs):
            return
        if name in ("mkdir", "open", "unlink", "rmdir", "rename", "replace", "exchange") \
                and any(inside(a) for a in args[:2]):
            raise OSError(err, os.strerror(err), str(args[0]))

    mode = folder.stat().st_mode
    folder.chmod(0o555)
    try:
        with patched_os(hook):
            yield
    finally:
        folder.chmod(mode)


def run_killed(k: int, fn, exchange: bool = True) -> bool:
    """Run fn in a forked child that SIGKILLs itself just before its k-th filesystem step:
    True if it was killed there, False if fn finished first. exchange=False: as on a system
    without renameat2, the two-rename fallback."""
    pid = os.fork()
    if pid == 0:                                       # the child: never returns
        code = 3
        try:
            steps = [0]

            def hook(name, args, kwargs):
                steps[0] += 1
                if steps[0] == k:
                    os.kill(os.getpid(), signal.SIGKILL)

            if not exchange:
                atomic._exchange = lambda a, b: False
            with patched_os(hook):
                fn()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True
    assert os.WEXITSTATUS(status) == 0, f"the child failed (exit {os.WEXITSTATUS(status)})"
    return False


@pytest.fixture
def no_fsync(monkeypatch):
    """For the tests that write hundreds of times: os.fsync does nothing (the calls still
    count as steps, and are refused in turn). What it adds, surviving a power cut, no test
    here can show, and the waits would make up most of their time."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def fresh(parent: Path, files=OLD) -> Path:
    """parent/lib holding files, and nothing else in parent."""
    for n in os.listdir(parent):
        atomic._remove(parent / n)
    out = parent / "lib"
    if files is not None:
        write_tree(files, out)
    return out


# ---------------------------------------------------------------- write_tree and write_file

@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
@pytest.mark.parametrize("before", [OLD, None], ids=["replacing", "new"])
def test_full_disk_at_every_step_leaves_the_old_folder(tmp_path, monkeypatch, no_fsync,
                                                       exchange, before):
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    parent = tmp_path / "p"
    parent.mkdir()
    errors = 0
    for at in itertools.count(1):
        out = fresh(parent, before)
        target = out / "deeper" if before is None else out
        with faults(at) as f:
            try:
                write_tree(NEW, target, shown="out/lib")
                done = True
            except WriteError as e:
                assert str(e) == "cannot write out/lib: no space left on device"
                done = False
        if not f.failed:                               # every step has been refused once
            break
        if done:          # only the parent's fsync after the swap was refused: the swap stands
            assert snapshot(target) == NEW, at
        else:
            errors += 1
            assert snapshot(out) == (OLD if before else None), at
            assert os.listdir(parent) == (["lib"] if before else []), at   # no parent made
        assert hidden(parent) == [] and hidden(target if done else parent) == [], at
    assert errors > 20
    assert snapshot(target) == NEW
    assert hidden(parent) == [] and hidden(target) == []


def test_a_refused_step_anywhere_is_an_error_or_a_whole_write(tmp_path, no_fsync):
    """Any one filesystem call failing (renames and removals too): either an error with the
    old folder in place, or the new folder in place; leftovers are whole copies, named so,
    and the next run removes them."""
    parent = tmp_path / "p"
    parent.mkdir()
    for at in itertools.count(1):
        out = fresh(parent)
        with faults(at, errno.EIO, kinds=EVERY_STEP, persistent=False) as f:
            try:
                write_tree(NEW, out)
                done = True
            except WriteError as e:
                assert str(e) == f"cannot write {out}: input/output error"
                done = False
        if not f.failed:
            break
        assert snapshot(out) == (NEW if done else OLD), at
        for name in hidden(parent):
            assert name.endswith((".new", ".old", ".del")), (at, name)
        recover(out)
        assert snapshot(out) == (NEW if done else OLD) and hidden(parent) == [], at
    assert at > 20


def test_read_only_parent_is_one_error_and_nothing_written(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    for err, words in ((errno.EACCES, "permission denied"),
                       (errno.EROFS, "read-only file system")):
        with read_only(ro, err):
            with pytest.raises(WriteError) as e:
                write_tree(NEW, ro / "lib" / "sub", shown="ro/lib/sub")
            assert str(e.value) == f"cannot write ro/lib/sub: {words}"
            with pytest.raises(WriteError) as e:
                write_file(ro / "x.svg", "<svg/>", shown="ro/x.svg")
            assert str(e.value) == f"cannot write ro/x.svg: {words}"
        assert os.listdir(ro) == []


def test_write_file_full_disk_keeps_the_old_file(tmp_path):
    target = tmp_path / "map.svg"
    target.write_text("old")
    for at in itertools.count(1):
        with faults(at) as f:
            try:
                write_file(target, "new" * 1000, shown="map.svg")
                done = True
            except WriteError as e:
                assert str(e) == "cannot write map.svg: no space left on device"
                done = False
        if not f.failed:
            break
        assert os.listdir(tmp_path) == ["map.svg"], at
        # refused only at the folder's fsync after the rename: the new file stands
        assert target.read_text() == ("new" * 1000 if done else "old"), at
        target.write_text("old")
    assert at > 3
    assert target.read_text() == "new" * 1000 and os.listdir(tmp_path) == ["map.svg"]


def kill_at_every_step(parent: Path, exchange: bool) -> dict:
    """A write killed before its k-th filesystem step, for every k: lib is the old folder or
    the new one, whole (with the exchange, at every instant; with two renames, after the next
    run's recovery), and the next run leaves lib whole and nothing hidden: a recovery (lib
    stays as the kill left it), or where lib is missing a write (it recovers, then replaces
    lib). For each kind of state a kill leaves (lib old, new or missing; which leftovers),
    the recovery is killed too, before each of its steps in turn (each on what the killed
    ones before it left): it never touches a whole lib, and converges."""
    seen, kinds = set(), set()
    for k in itertools.count(1):
        out = fresh(parent)
        killed = run_killed(k, functools.partial(write_tree, NEW, out), exchange)
        state = snapshot(out)
        assert state in ((OLD, NEW) if exchange else (OLD, NEW, None)), k
        if not killed:
            assert state == NEW and hidden(parent) == []
            break
        label = "old" if state == OLD else "new" if state == NEW else "missing"
        seen.add(label)
        kind = (label, tuple(sorted(n.rsplit(".", 1)[1] for n in hidden(parent))))
        before = state
        for j in itertools.count(1) if kind not in kinds else ():
            again = run_killed(j, functools.partial(recover, out), exchange)
            state = snapshot(out)
            if before is not None:
                assert state == before, (k, j)           # recovery never touches a whole lib
            assert state in (OLD, NEW, None), (k, j)
            if not again:
                assert state in (OLD, NEW) and hidden(parent) == [], (k, hidden(parent))
                break
        kinds.add(kind)
        if before is None:                 # the next write: it recovers lib, then replaces it
            write_tree(THIRD, out)
            assert snapshot(out) == THIRD and hidden(parent) == [], (k, hidden(parent))
            continue
        recover(out)
        assert snapshot(out) == before and hidden(parent) == [], (k, hidden(parent))
    return dict(steps=k - 1, seen=sorted(seen), kinds=sorted(map(list, kinds)))


def kill_file_at_every_step(parent: Path, exchange: bool) -> dict:
    """write_file killed before each of its steps: the file is the old one or the new one;
    the next write of it removes its temporary file."""
    target = parent / "map.svg"
    for k in itertools.count(1):
        for n in os.listdir(parent):
            os.unlink(parent / n)
        target.write_text("old")
        killed = run_killed(k, functools.partial(write_file, target, "new" * 1000), exchange)
        assert target.read_text() in ("old", "new" * 1000), k
        if not killed:
            break
        write_file(target, "third")
        assert target.read_text() == "third" and os.listdir(parent) == ["map.svg"], k
    return dict(steps=k - 1)


def lean(scenario: str, parent: Path, exchange: bool = True) -> dict:
    """Run a kill scenario in a fresh interpreter that does not hold torch (cheap forks)."""
    r = subprocess.run([sys.executable, __file__, scenario, str(parent),
                        "exchange" if exchange else "renames"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_kill_at_every_step(tmp_path, exchange):
    """See kill_at_every_step."""
    result = lean("kill_at_every_step", tmp_path, exchange)
    assert result["steps"] > 30
    assert result["seen"] == (["new", "old"] if exchange else ["missing", "new", "old"])
    if not exchange:           # killed between the renames: lib missing, both copies whole
        assert ["missing", ["new", "old"]] in result["kinds"]


def test_kill_a_file_write_at_every_step(tmp_path):
    """See kill_file_at_every_step."""
    assert lean("kill_file_at_every_step", tmp_path)["steps"] >= 6


def test_leftovers_of_earlier_versions_are_recovered(tmp_path):
    """Before, a kill between the two renames left .lib.XXXXXXXX (new) and
    .lib.XXXXXXXX.old (old), and lib missing: the old one comes back, the rest goes."""
    out = fresh(tmp_path)
    write_tree(NEW, tmp_path / ".lib.k3j_x9a0")
    os.rename(out, tmp_path / ".lib.k3j_x9a0.old")
    (tmp_path / ".lib.svg.tmp").write_text("an old temporary file")
    (tmp_path / ".lib.tmp").write_text("an old temporary file")
    (tmp_path / ".library").mkdir()                     # not ours: kept
    recover(out)
    assert snapshot(out) == OLD
    assert hidden(tmp_path) == [".lib.svg.tmp", ".library"]


# ---------------------------------------------------------------- the command line

@pytest.fixture(scope="module")
def tiny_pt2(tmp_path_factory):
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    path = tmp_path_factory.mktemp("pt2") / "tiny.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 4),)), str(path))
    return path


_LOWERED, _GENERATED, _LIBRARIES = {}, {}, {}      # quick's, for the whole module


@pytest.fixture
def quick(monkeypatch):
    """aot compile and aot firmware as they are, but each model lowered, generated and laid
    out as a library once in this module: only the writing differs from one run to the
    next."""
    import aot.codegen.c as c
    import aot.firmware.project as project
    import aot.library as library
    from aot import cli
    load, gen, resolve, lay_out = (cli.load_model, c.generate_c, project._resolve,
                                   library.library_files)

    def once(cache, key, make):
        if key not in cache:
            cache[key] = make()
        return cache[key]

    monkeypatch.setattr(cli, "load_model",
                        lambda path, int8_io=False, overlap=False, patches=False: once(
                            _LOWERED, (path, int8_io, overlap, patches),
                            lambda: load(path, int8_io=int8_io, overlap=overlap,
                                         patches=patches)))
    monkeypatch.setattr(project, "_resolve",
                        lambda model, method, int8_io=False, overlap=False, patches=False: once(
                            _LOWERED, (str(model), method, int8_io, overlap, patches),
                            lambda: resolve(model, method, int8_io, overlap, patches)))

    def gen_once(model, name="model", method="forward"):
        return once(_GENERATED, (id(model), name, method),
                    lambda: gen(model, name=name, method=method))

    monkeypatch.setattr(c, "generate_c", gen_once)
    monkeypatch.setattr(project, "generate_c", gen_once)
    monkeypatch.setattr(library, "library_files", lambda sources, *args, **kwargs: dict(once(
        _LIBRARIES, (id(sources), args, tuple(sorted(kwargs.items()))),
        lambda: lay_out(sources, *args, **kwargs))))


def aot(capsys, *argv):
    from aot import cli
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_compile_into_a_read_only_parent(tiny_pt2, tmp_path, capsys, quick):
    ro = tmp_path / "out"
    ro.mkdir()
    with read_only(ro):
        code, out, err = aot(capsys, "compile", tiny_pt2, "-o", ro / "kws")
    assert code == 2 and out == ""
    assert err == f"error: cannot write {ro / 'kws'}: permission denied\n"
    assert os.listdir(ro) == []


def test_compile_where_a_file_stands_for_the_parent(tiny_pt2, tmp_path, capsys, quick):
    (tmp_path / "out").write_text("a file")
    code, out, err = aot(capsys, "compile", tiny_pt2, "-o", tmp_path / "out" / "sub" / "kws")
    assert code == 2 and out == ""
    assert err == (f"error: cannot write {tmp_path / 'out' / 'sub' / 'kws'}: "
                   f"{tmp_path / 'out'} is not a directory\n")
    assert (tmp_path / "out").read_text() == "a file"


def test_compile_onto_a_full_disk_at_every_write(tiny_pt2, tmp_path, capsys, quick, no_fsync):
    lib = tmp_path / "out" / "kws"
    code, _, err = aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "first")
    assert code == 0 and err == ""
    old = snapshot(lib)
    errors = 0
    for at in itertools.count(1):
        with faults(at) as f:
            code, out, err = aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "second")
        if not f.failed:
            break
        assert os.listdir(lib.parent) == ["kws"] and hidden(lib) == [], at
        if code == 0:     # only the parent's fsync after the swap was refused: the swap stands
            assert err == "" and "second.c" in snapshot(lib), at
            assert aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "first")[0] == 0
            continue
        errors += 1
        assert (code, out, err) == (2, "", f"error: cannot write {lib}: no space left on "
                                           "device\n"), at
        assert snapshot(lib) == old, at
    assert errors > 40
    assert code == 0 and err == "" and "second.c" in snapshot(lib)
    assert os.listdir(lib.parent) == ["kws"]


def test_compile_after_a_kill_recovers_the_folder(tiny_pt2, tmp_path, capsys, quick,
                                                  monkeypatch):
    """aot compile killed between its two renames (the fallback without renameat2): the
    folder is missing, both copies hidden; the next aot compile recovers and replaces it."""
    from aot import cli
    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    lib = tmp_path / "kws"
    argv = ["compile", str(tiny_pt2), "-o", str(lib), "--name", "second"]
    assert aot(capsys, *argv)[0] == 0                         # quick's cache filled
    assert aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "first")[0] == 0
    steps = []                                                # the steps of the same run
    with patched_os(lambda name, args, kwargs: steps.append((name, args))):
        assert cli.main(argv) == 0
    aside = next(i for i, (name, args) in enumerate(steps)
                 if name == "rename" and str(args[1]).endswith(".old"))
    assert aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "first")[0] == 0
    assert run_killed(aside + 2, functools.partial(cli.main, argv), exchange=False)
    capsys.readouterr()
    assert not lib.exists()
    assert sorted(n.rsplit(".", 1)[1] for n in hidden(tmp_path)) == ["new", "old"]
    code, out, err = aot(capsys, "compile", tiny_pt2, "-o", lib, "--name", "third")
    assert code == 0 and err == "" and "third.c" in snapshot(lib)
    assert "first.c" not in snapshot(lib) and "second.c" not in snapshot(lib)
    assert hidden(tmp_path) == []


def test_zoo_onto_a_full_disk_keeps_the_old_file(tmp_path, capsys, monkeypatch):
    import torch
    from aot.zoo import ZOO
    monkeypatch.setitem(ZOO, "tiny", lambda: (torch.nn.Linear(4, 2).eval(),
                                                      (torch.randn(1, 4),)))
    pt2 = tmp_path / "m.pt2"
    pt2.write_bytes(b"an earlier file")
    with faults(1):
        code, out, err = aot(capsys, "zoo", "tiny", "-o", pt2)
    assert (code, out) == (2, "")
    assert err == f"error: cannot write {pt2}: no space left on device\n"
    assert pt2.read_bytes() == b"an earlier file" and os.listdir(tmp_path) == ["m.pt2"]
    with read_only(tmp_path):
        code, out, err = aot(capsys, "zoo", "tiny", "-o", tmp_path / "new.pt2")
    assert code == 2 and err == f"error: cannot write {tmp_path / 'new.pt2'}: permission denied\n"
    assert aot(capsys, "zoo", "tiny", "-o", pt2)[0] == 0
    assert torch.export.load(str(pt2)) is not None and os.listdir(tmp_path) == ["m.pt2"]


def test_report_svg_onto_a_full_disk(tiny_pt2, tmp_path, capsys):
    svg = tmp_path / "map.svg"
    with faults(2):                                    # the temporary file is made, then full
        code, out, err = aot(capsys, "report", tiny_pt2, "--svg", svg)
    assert code == 2 and err == f"error: cannot write {svg}: no space left on device\n"
    assert "arena map" not in out and os.listdir(tmp_path) == []


def test_firmware_onto_a_full_disk_and_a_read_only_parent(tiny_pt2, tmp_path, capsys, quick):
    proj = tmp_path / "fw"
    code, out, err = aot(capsys, "firmware", tiny_pt2, "--board", "host", "-o", proj)
    assert code == 0 and err == ""
    old = snapshot(proj)
    for at in (1, 25, 60):
        with faults(at):
            code, out, err = aot(capsys, "firmware", tiny_pt2, "--board", "host", "-o", proj,
                                 "--name", "other")
        assert (code, out) == (2, "") and err == f"error: cannot write {proj}: no space left " \
                                                 "on device\n"
        assert snapshot(proj) == old and os.listdir(tmp_path) == ["fw"]
    with read_only(tmp_path):
        code, out, err = aot(capsys, "firmware", tiny_pt2, "--board", "host", "-o",
                             tmp_path / "fw2")
    assert code == 2 and err == f"error: cannot write {tmp_path / 'fw2'}: permission denied\n"
    assert os.listdir(tmp_path) == ["fw"]


def test_any_other_refusal_of_the_filesystem_is_one_line(tmp_path, capsys, monkeypatch):
    """An OSError no check foresaw (here: the model file cannot be read) is still one line
    naming the path, exit code 2."""
    from aot import cli

    def unreadable(path, int8_io=False, overlap=False, patches=False):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(cli, "load_model", unreadable)
    code, out, err = aot(capsys, "compile", tmp_path / "m.pt2", "-o", tmp_path / "lib")
    assert (code, out) == (2, "") and err == f"error: {tmp_path / 'm.pt2'}: permission denied\n"
    assert os.listdir(tmp_path) == []


if __name__ == "__main__":
    # A kill leaves the page cache as it was: what fsync adds (surviving a power cut) is not
    # what these scenarios test, and it costs most of their time. The calls still count as
    # steps (patched_os wraps this os.fsync), so a kill still falls between every two.
    os.fsync = lambda fd: None
    _scenario, _parent, _mode = sys.argv[1:]
    print(json.dumps(globals()[_scenario](Path(_parent), _mode == "exchange")))
