"""Writing outputs so that an error, a full disk or a kill never leaves one half-written.

    write_file(path, data)       one file: written beside it, fsynced, os.replace'd into place
    write_tree(files, out)       a folder: written beside it, then swapped into place whole
    recover(out)                 finishes or removes what a killed write left beside ``out``

Every temporary thing sits beside its target as ``.<name>.<token>.<state>``, and the state
in its name says what it holds, so a later run can always tell what to keep:

    .part   a folder being written: incomplete, removed
    .new    a complete folder: the new one (renamed from .part once its files and folders
            are fsynced), or, after the exchange below, the earlier one on its way out
    .old    a complete earlier folder, moved aside (only when the atomic exchange is missing)
    .del    a folder being removed: garbage
    .tmp    a file being written: incomplete, removed

A ``.new`` or ``.old`` is only ever made by renaming a complete folder, and is renamed to
``.del`` before it is removed, so every ``.new`` and ``.old`` is complete. Replacing ``out``:

    1. write .part, fsync every file and folder in it; rename .part -> .new; fsync the parent
    2. out missing: rename .new -> out.
       out present: exchange .new and out atomically (Linux renameat2 RENAME_EXCHANGE), so
       out always holds the old or the new folder; .new then holds the old one.
       Without the exchange (another OS, a filesystem that refuses it): rename out -> .old,
       rename .new -> out. Killed between the two, out is missing until the next run
       moves the .new in.
    3. fsync the parent; rename what is left (.new or .old) -> .del and remove it.

Recovery (at the start of every write, and of ``check_destination``): if ``out`` is missing,
the newest complete copy is moved in (a ``.new``, else an ``.old``); everything else beside
``out`` in that namespace is removed. Folders left by earlier versions of mcu-aot
(``.<name>.XXXXXXXX`` being written, ``.<name>.XXXXXXXX.old`` moved aside) are recovered too.
Writers of one folder take an flock on the parent folder, so a recovery never removes the
folder another live run is writing.

Errors raise WriteError (an AotError): ``cannot write <path>: <what is wrong>``, after
removing whatever this write had made (temporary folders and files, parents it created).
"""
from __future__ import annotations

import ctypes
import errno
import os
import re
import secrets
import shutil
import stat
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Union

from .errors import AotError

PathLike = Union[str, os.PathLike]

_CHUNK = 1 << 20
_STATE_RE = re.compile(r"([0-9a-f]{16})\.(part|new|old|del|tmp)")
_LEGACY_RE = re.compile(r"[a-z0-9_]{8}(\.old)?")     # earlier versions: mkdtemp's folders
_LEGACY_FILES = ("tmp", "tmp.pt2")                    # and their temporary files
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class WriteError(AotError):
    """An output could not be written (permissions, a full disk, a file in the way)."""


def describe(e: OSError) -> str:
    """What went wrong, as words: 'permission denied', 'no space left on device'."""
    text = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
    return text[:1].lower() + text[1:]


def _fail(shown, e: OSError) -> WriteError:
    return WriteError(f"cannot write {shown}: {describe(e)}")


# ---------------------------------------------------------------- low-level steps

_RENAMEAT2 = None


def _renameat2():
    """libc's renameat2, or None where there is none (not Linux, an old glibc)."""
    global _RENAMEAT2
    if _RENAMEAT2 is None:
        fn = False
        if sys.platform.startswith("linux"):
            try:
                fn = ctypes.CDLL(None, use_errno=True).renameat2
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                               ctypes.c_uint]
                fn.restype = ctypes.c_int
            except (OSError, AttributeError):
                fn = False
        _RENAMEAT2 = fn
    return _RENAMEAT2 or None


def _exchange(a: Path, b: Path) -> bool:
    """Swap a and b atomically; False where the OS or the filesystem cannot."""
    fn = _renameat2()
    if fn is None:
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM):
        return False          # unsupported here (EPERM: a seccomp filter); the renames decide
    raise OSError(err, os.strerror(err), str(b))


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError:
        if os.name == "nt":       # no folder handles to sync there
            return
        raise
    try:
        os.fsync(fd)
    except OSError as e:      # some filesystems cannot sync a folder: nothing to do there
        if e.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _write_new_file(path: Path, data: bytes) -> None:
    """Create path (it must not exist), write data whole and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:_CHUNK]):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    """Remove a file or a folder, ignoring what cannot be removed (a next run retries)."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


@contextmanager
def _locked(parent: Path) -> Iterator[None]:
    """An exclusive flock on the parent folder (released by the OS if the process dies)."""
    try:
        import fcntl              # POSIX only: imported where it is used
    except ImportError:           # no flock on this OS: writers are not serialized
        yield
        return
    fd = os.open(parent, os.O_RDONLY | _CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as e:  # a filesystem without locks: go on unserialized
            if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
                raise
        yield
    finally:
        os.close(fd)


def _make_parents(folder: Path, shown) -> list[Path]:
    """Create folder and its missing parents; the ones created, outermost first."""
    missing, p = [], folder
    while True:
        try:
            st = os.stat(p)
        except (FileNotFoundError, NotADirectoryError):
            missing.append(p)
            if p.parent == p:
                raise
            p = p.parent
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise WriteError(f"cannot write {shown}: {p} is not a directory")
        break
    made: list[Path] = []
    try:
        for q in reversed(missing):
            os.mkdir(q)
            made.append(q)
    except BaseException:
        _remove_parents(made)
        raise
    return made


def _remove_parents(made: list[Path]) -> None:
    for q in reversed(made):
        try:
            os.rmdir(q)
        except OSError:
            pass


# ---------------------------------------------------------------- the namespace beside out

def _leftovers(out: Path) -> list[tuple[Path, str]]:
    """What earlier writes of out left beside it, with each one's state."""
    prefix = f".{out.name}."
    found = []
    try:
        entries = list(os.scandir(out.parent))
    except (FileNotFoundError, NotADirectoryError):
        return []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        rest = entry.name[len(prefix):]
        m = _STATE_RE.fullmatch(rest)
        if m:
            found.append((Path(entry.path), m.group(2)))
        elif _LEGACY_RE.fullmatch(rest) and entry.is_dir(follow_symlinks=False):
            found.append((Path(entry.path), "old" if rest.endswith(".old") else "part"))
        elif rest in _LEGACY_FILES and entry.is_file(follow_symlinks=False):
            found.append((Path(entry.path), "tmp"))
    return sorted(found)


def _sibling(out: Path, state: str, token: Optional[str] = None) -> Path:
    return out.with_name(f".{out.name}.{token or secrets.token_hex(8)}.{state}")


def _discard(path: Path, state: str, out: Path) -> None:
    """Remove a leftover; a complete copy is renamed to .del first, so that a kill while
    removing it never leaves a partial folder under a name that says complete."""
    if state in ("new", "old"):
        doomed = _sibling(out, "del", _token(path, out))
        os.rename(path, doomed)
        path = doomed
    _remove(path)


def _token(path: Path, out: Path) -> Optional[str]:
    m = _STATE_RE.fullmatch(path.name[len(out.name) + 2:])
    return m.group(1) if m else None


def _synced(folder: Path) -> None:
    """fsync a folder after a rename that is already done and seen: a failure there cannot
    be undone, and both names hold a whole copy, so it is not an error of the write."""
    try:
        _fsync_dir(folder)
    except OSError:
        pass


def _recover(out: Path) -> None:
    """Called with the parent locked: if out is missing, move the newest complete copy in
    (a .new, else an .old); then remove every leftover. A complete copy is kept while out
    is still missing."""
    items = _leftovers(out)
    if not items:
        return
    if not os.path.lexists(out):
        for state in ("new", "old"):
            complete = [p for p, s in items if s == state]
            complete.sort(key=lambda p: (os.lstat(p).st_mtime_ns, p.name), reverse=True)
            for p in complete:
                try:
                    os.rename(p, out)
                except OSError:
                    continue
                _synced(out.parent)
                items = [(q, s) for q, s in items if q != p]
                break
            if os.path.lexists(out):
                break
    keep = () if os.path.lexists(out) else ("new", "old")
    for p, s in items:
        if s not in keep:
            _discard(p, s, out)


def recover(out: PathLike, shown=None) -> None:
    """Finish or clean up what a killed write of out left beside it (see the module
    docstring); nothing to do, and no write needed, when nothing was left."""
    out = Path(os.path.abspath(out))
    try:
        if not _leftovers(out):
            return
        with _locked(out.parent):
            _recover(out)
    except OSError as e:
        raise _fail(shown or out, e) from None


# ---------------------------------------------------------------- writing

def _swap_in(new: Path, out: Path) -> None:
    """new (complete) takes out's place, atomically where the OS can; out's earlier folder,
    if any, is removed. Raises only while out still holds the earlier folder."""
    if not os.path.lexists(out):
        os.rename(new, out)
        _synced(out.parent)
        return
    if _exchange(new, out):
        _synced(out.parent)
        earlier = new                      # the earlier folder, now under new's name
    else:
        earlier = _sibling(out, "old", _token(new, out))
        os.rename(out, earlier)
        try:
            os.rename(new, out)
        except BaseException:
            try:
                os.rename(earlier, out)    # put it back; if this fails, the cleanup retries
            except OSError:
                pass
            raise
        _synced(out.parent)
    try:
        _discard(earlier, "new" if earlier == new else "old", out)
    except OSError:
        pass                               # whole, and named so: the next run removes it


def _cleanup_after_error(out: Path, token: str) -> None:
    """After a failed write (parent locked): what this write made beside out is removed, and
    out gets its earlier folder back if it was moved aside. Errors here are dropped (what
    stays is named by its state, for the next run): the first error is the one to report."""
    try:
        mine = [(p, s) for p, s in _leftovers(out) if _token(p, out) == token]
        for p, s in mine:
            if s == "old" and not os.path.lexists(out):
                os.rename(p, out)
                _synced(out.parent)
        for p, s in mine:
            if os.path.lexists(p):
                _discard(p, s, out)
    except OSError:
        pass


def write_tree(files: dict[str, bytes], out: PathLike, shown=None) -> None:
    """Write files (relative path -> bytes) as the folder out, replacing whatever folder is
    there whole (see the module docstring). ``shown``: out as errors name it."""
    out = Path(os.path.abspath(out))
    shown = shown if shown is not None else out
    try:
        made = _make_parents(out.parent, shown)
    except OSError as e:
        raise _fail(shown, e) from None
    try:
        with _locked(out.parent):
            _recover(out)
            part = _sibling(out, "part")
            try:
                os.mkdir(part)
                folders = {part}
                for rel, data in files.items():
                    path = part / rel
                    for d in reversed(path.parents):
                        if d not in folders and d.is_relative_to(part):
                            os.mkdir(d)
                            folders.add(d)
                    _write_new_file(path, data)
                for d in sorted(folders, key=lambda d: len(d.parts), reverse=True):
                    _fsync_dir(d)
                new = _sibling(out, "new", _token(part, out))
                os.rename(part, new)
                _fsync_dir(out.parent)
                _swap_in(new, out)
            except BaseException:
                _cleanup_after_error(out, _token(part, out))
                raise
    except OSError as e:
        _remove_parents(made)
        raise _fail(shown, e) from None


def write_file(path: PathLike, data: Union[bytes, str], shown=None) -> None:
    """Write one file whole, or leave it as it was: the bytes go to a new file beside path,
    are fsynced, and the file is renamed over path. ``shown``: path as errors name it."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    path = Path(os.path.abspath(path))
    shown = shown if shown is not None else path
    try:
        made = _make_parents(path.parent, shown)
    except OSError as e:
        raise _fail(shown, e) from None
    try:
        with _locked(path.parent):
            tmp = _sibling(path, "tmp")
            try:
                _recover(path)
                _write_new_file(tmp, raw)
                os.replace(tmp, path)
            except BaseException:
                _remove(tmp)
                raise
            _synced(path.parent)
    except OSError as e:
        _remove_parents(made)
        raise _fail(shown, e) from None
