"""Run generated C on the host, from Python: regression tests for firmware developers.

    import aot, aot.host
    sources = aot.generate_c(manager, name="kws")
    model = aot.host.build(sources)          # compiled once, cached by content hash
    (scores,) = model(features)              # numpy in, numpy out

    timed = aot.host.build(sources, profile=True)
    timed(features)
    print(aot.format_profile(timed.last_profile()))   # nanoseconds per kernel call

``build`` compiles the generated translation unit and exactly the runtime_c files it needs
(this machine's ``runtime_c/src/arch/<arch>/`` kernels where there are some, see
``aot.codegen.runtime``) into a shared library (gcc, -std=c99 -Wall -Wextra -Wpedantic -Werror)
and loads it through cffi. The library
is cached under ``~/.cache/mcu-aot/host`` (or ``cache_dir``) by a hash of every source and flag,
so a re-run only loads it. Each runtime file's object is cached there too (``objects/``, by a
hash of the file, the runtime's headers and the flags), so a new model compiles only its own
translation unit; missing objects compile in parallel.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Sequence

import cffi
import numpy as np

from .codegen.c import CSources
from .codegen.runtime import for_arch, host_arch, host_cflags, runtime_dir, status_name
from .errors import AotError
from .profile import profile_of

STRICT_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                "-ffp-contract=off")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                  "-fno-omit-frame-pointer", "-g")


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcu-aot" / "host"


class HostModel:
    """A compiled model: call it with numpy arrays, get a list of numpy arrays."""

    def __init__(self, sources: CSources, lib, ffi, library_path: Path,
                 profiled: bool = False):
        self.sources, self._lib, self._ffi = sources, lib, ffi
        self.library_path = library_path
        self.profiled = profiled
        # The arena lives as long as this object, so state survives from call to call.
        self._arena_buf = np.zeros(max(sources.arena_size, 1) + 64, dtype=np.uint8)
        start = (-self._arena_buf.ctypes.data) % 64
        self.arena = self._arena_buf[start:start + max(sources.arena_size, 1)]
        self._arena_ptr = ffi.cast("uint8_t *", self.arena.ctypes.data)
        self._check(getattr(lib, f"{sources.name}_init")(self._arena_ptr), "init")

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise AotError(f"{self.sources.name}_{what} returned {status} "
                           f"({status_name(status)})")

    def __call__(self, *inputs) -> list:
        spec = self.sources.inputs
        if len(inputs) != len(spec):
            raise AotError(f"{self.sources.name} takes {len(spec)} input(s), got {len(inputs)}")
        arrays = []
        for k, (x, s) in enumerate(zip(inputs, spec)):
            x = np.require(np.asarray(x), np.dtype(s.dtype), "C")   # keeps rank 0
            if tuple(x.shape) != s.shape:
                raise AotError(f"input {k}: shape {tuple(x.shape)}, the model takes {s.shape}")
            arrays.append(x)
        outs = [np.empty(s.shape, dtype=np.dtype(s.dtype)) for s in self.sources.outputs]
        ffi = self._ffi
        in_ptrs = ffi.new("const void *[]", [ffi.cast("const void *", a.ctypes.data)
                                             for a in arrays] or [ffi.NULL])
        out_ptrs = ffi.new("void *[]", [ffi.cast("void *", o.ctypes.data) for o in outs]
                           or [ffi.NULL])
        run = getattr(self._lib, f"{self.sources.name}_run")
        self._check(run(self._arena_ptr, in_ptrs, out_ptrs), "run")
        return outs

    def last_profile(self):
        """The last call's per-layer profile (aot.profile.Profile, nanoseconds per kernel
        call); the model must be built with ``profile=True``."""
        if not self.profiled:
            raise AotError(f"{self.sources.name} was built without profile=True")
        ticks = getattr(self._lib, f"{self.sources.name}_profile_ticks")
        n = len(self.sources.calls) + 2
        return profile_of(self.sources, [int(ticks[k]) for k in range(n)], "ns", "host")


def headers_digest() -> bytes:
    """Every runtime header, by path and contents: any of them may reach any runtime file."""
    root = runtime_dir()
    h = hashlib.sha256()
    for header in sorted((root / "include").glob("*.h")) + sorted(root.glob("src/**/*.h")):
        h.update(header.relative_to(root).as_posix().encode() + b"\0" + header.read_bytes())
    return h.digest()


def _digest(sources: CSources, runtime: Sequence[str], flags: Sequence[str],
            headers: bytes) -> str:
    h = hashlib.sha256(headers)
    for name in sorted(sources.files):
        h.update(name.encode() + b"\0" + sources.files[name].encode() + b"\0")
    root = runtime_dir()
    for rel in runtime:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes())
    h.update(repr((tuple(flags), sys.version_info[:2], sys.platform)).encode())
    return h.hexdigest()[:20]


_CDEF = """
int32_t {name}_init(uint8_t *arena);
int32_t {name}_run(uint8_t *arena, const void *const *inputs, void *const *outputs);
"""
_CDEF_PROFILE = "extern uint64_t {name}_profile_ticks[{slots}];\n"

# The profile's clock on the host: CLOCK_MONOTONIC in nanoseconds.
_PROFILE_CLOCK = """#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <time.h>

uint64_t {name}_profile_clock(void);

uint64_t {name}_profile_clock(void)
{{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}}
"""


def compiler() -> str:
    """The host C compiler (gcc, else cc)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise AotError("building for the host needs a C compiler (gcc): apt-get install gcc")
    return cc


def _run(cmd: list[str], what: str) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise AotError(f"compiling {what} for the host failed:\n{r.stderr.strip()}")


def _object(cc: str, rel: str, flags: Sequence[str], headers: bytes, cache: Path) -> Path:
    """runtime_c/<rel> compiled with ``flags`` (position-independent), from the object cache or
    into it (atomically: an object is whole or absent)."""
    src = runtime_dir() / rel
    h = hashlib.sha256(headers)
    h.update(rel.encode() + b"\0" + src.read_bytes())
    h.update(repr((cc, tuple(flags), sys.platform)).encode())
    obj = cache / "objects" / f"{Path(rel).stem}-{h.hexdigest()[:20]}.o"
    if not obj.is_file():
        obj.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{obj.stem}-", suffix=".o", dir=obj.parent)
        os.close(fd)
        try:
            _run([cc, *flags, "-fPIC", f"-I{runtime_dir() / 'include'}", "-c", str(src),
                  "-o", tmp], rel)
            os.replace(tmp, obj)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return obj


def runtime_objects(runtime: Sequence[str], flags: Sequence[str], cache: Path,
                    headers: Optional[bytes] = None) -> list[Path]:
    """The objects of ``runtime`` (paths under runtime_c/) built with ``flags``, from the object
    cache under ``cache``; the missing ones compile in parallel."""
    cc = compiler()
    headers = headers_digest() if headers is None else headers
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(lambda rel: _object(cc, rel, flags, headers, cache), runtime))


def _compile(sources: CSources, runtime: Sequence[str], flags: Sequence[str],
             headers: bytes, cache: Path, work: Path) -> Path:
    """gcc -shared: the model TU, with the runtime files' cached objects, under the strict
    flags."""
    cc = compiler()
    profile = f"-D{sources.name.upper()}_PROFILE"
    # the runtime files' objects serve any model: the model's own define is left out
    objects = runtime_objects(runtime, [f for f in flags if f != profile], cache, headers)
    for fname, text in sources.files.items():
        (work / fname).write_text(text)
    root = runtime_dir()
    lib = work / f"lib{sources.name}.so"
    extra = []
    if profile in flags:
        clock = work / f"{sources.name}_profile_clock.c"
        clock.write_text(_PROFILE_CLOCK.format(name=sources.name))
        extra.append(str(clock))
    _run([cc, *flags, "-shared", "-fPIC", f"-I{work}", f"-I{root / 'include'}",
          str(work / f"{sources.name}.c"), *extra, *map(str, objects), "-o", str(lib), "-lm"],
         f"{sources.name}.c")
    return lib


def build(sources: CSources, *, cflags: Sequence[str] = (), sanitize: bool = False,
          cache_dir: Optional[os.PathLike] = None, arch: Optional[str] = None,
          profile: bool = False) -> HostModel:
    """Compile ``sources`` (from aot.generate_c) and the runtime into a shared library and load
    it through cffi. The runtime files are those of ``arch`` (default: this machine's, e.g.
    ``runtime_c/src/arch/x86_64/`` kernels on x86-64, with AVX2 where the CPU has it;
    ``"portable"`` for the reference ones).
    A sanitized build (``sanitize=True``) can only be loaded by a Python process started with
    libasan preloaded (docs/api.md). ``profile=True`` builds the per-layer profile in:
    after each call, ``last_profile()`` gives nanoseconds per kernel call."""
    arch = arch or host_arch()
    flags = list(STRICT_FLAGS) + (list(SANITIZE_FLAGS) if sanitize else []) + \
        list(host_cflags(arch)) + list(cflags) + \
        ([f"-D{sources.name.upper()}_PROFILE"] if profile else [])
    runtime = for_arch(sources.runtime_sources, arch)
    headers = headers_digest()
    key = _digest(sources, runtime, flags, headers)
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    target = cache / key
    lib_path = target / f"lib{sources.name}.so"
    if not lib_path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache))
        try:
            _compile(sources, runtime, flags, headers, cache, work)
            try:
                os.replace(work, target)      # atomic: a cache entry is whole or absent
            except OSError:
                pass                          # another process won the race: use theirs
        finally:
            shutil.rmtree(work, ignore_errors=True)
    ffi = cffi.FFI()
    ffi.cdef(_CDEF.format(name=sources.name) + (_CDEF_PROFILE.format(
        name=sources.name, slots=len(sources.calls) + 2) if profile else ""))
    return HostModel(sources, ffi.dlopen(str(lib_path)), ffi, lib_path, profile)
