"""Build runtime_c with cffi and call its kernels on numpy arrays.

    rt = kernel_harness.load()                     # all kernels, cached build
    out = rt.empty((2, 3))                         # NaN-filled float32 output
    rt.call("rt_mul_f32", a, b, out)               # array -> (rt_shape*, data*)

`call` turns each numpy array into the (shape, data) pair of the runtime's
argument convention, None into (NULL, NULL) and `NULL` into one NULL pointer
(an absent `const rt_act_f32 *`, say); any other argument is passed
through (floats, ints, `rt.params(...)` structs, `rt.int32s(...)` arrays). A
status other than RT_OK raises KernelError.

Builds are cached under <repo>/build/kernel_harness/<hash of sources+flags>.
AOT_SANITIZE=1 builds with -fsanitize=address,undefined; such a build can
only be loaded into a python started with LD_PRELOAD=<libasan.so> (see
`sanitizer_env`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
NULL = type("NullPointer", (), {"__repr__": lambda self: "NULL"})()   # one NULL argument
RUNTIME = REPO / "runtime_c"
INCLUDE = RUNTIME / "include"
CACHE = REPO / "build" / "kernel_harness"

STRICT_FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                  "-fno-omit-frame-pointer", "-g"]
# Headers whose declarations cffi needs (rt_check.h holds macros only).
CDEF_HEADERS = ("rt_types.h", "rt_kernels.h", "rt_kernels_s8.h")

STATUS = {0: "RT_OK", 1: "RT_ERR_NULL", 2: "RT_ERR_RANK", 3: "RT_ERR_SHAPE",
          4: "RT_ERR_PARAM", 5: "RT_ERR_SCRATCH", 6: "RT_ERR_INDEX"}
_CTYPES = {np.dtype(np.float32): "float *", np.dtype(np.uint8): "uint8_t *",
           np.dtype(np.bool_): "uint8_t *", np.dtype(np.int64): "int64_t *",
           np.dtype(np.int32): "int32_t *", np.dtype(np.int8): "int8_t *",
           np.dtype(np.int16): "int16_t *"}


class KernelError(RuntimeError):
    def __init__(self, name: str, status: int):
        super().__init__(f"{name} returned {STATUS.get(status, status)}")
        self.status = status


def runtime_sources(categories: tuple[str, ...] | None = None) -> list[Path]:
    """All runtime .c files, or core/ plus the given category folders."""
    src = RUNTIME / "src"
    dirs = sorted(p for p in src.iterdir() if p.is_dir())
    if categories is not None:
        dirs = [d for d in dirs if d.name == "core" or d.name in categories]
    return sorted(f for d in dirs for f in d.glob("*.c"))


def cdef_text() -> str:
    """The public declarations in a form cffi's cdef parser accepts: only
    integer #defines survive from the preprocessor lines, and the argument-list
    macros (RT_F32_LAYER_TENSORS, ...) are written out where they are used."""
    keep, lists = [], {}
    for name in CDEF_HEADERS:
        text = (INCLUDE / name).read_text().replace("\\\n", " ")
        for line in text.splitlines():
            m = re.match(r"#define\s+(RT_\w+_TENSORS)\s+(.*)$", line)
            if m:
                lists[m.group(1)] = " ".join(m.group(2).split())
            elif not line.startswith("#") or re.match(r"#define\s+\w+\s+\d+\s*$", line):
                keep.append(line)
    text = "\n".join(keep)
    return re.sub(r"\b(RT_\w+_TENSORS)\b", lambda m: lists[m.group(1)], text) if lists else text


def sanitize_requested() -> bool:
    return os.environ.get("AOT_SANITIZE", "") not in ("", "0")


def sanitizer_env() -> dict[str, str]:
    """Environment for a python subprocess that can load a sanitized build."""
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"],
                             capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, AOT_SANITIZE="1", LD_PRELOAD=libasan,
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    return env


def runtime_objects(sources: list[Path], cflags: list[str]) -> list[Path]:
    """The runtime files' objects, through aot.host's object cache (under CACHE): a file that
    several builds share (the portable ones, beside each arch's) compiles once a flag set."""
    from aot.host import runtime_objects as cached
    return cached([s.relative_to(RUNTIME).as_posix() for s in sources], cflags, CACHE)


def _build(sources: list[Path], sanitize: bool) -> Path:
    import cffi

    cflags = STRICT_FLAGS + (SANITIZE_FLAGS if sanitize else [])
    h = hashlib.sha256()
    for part in [sys.version, sysconfig.get_platform(), " ".join(cflags), cdef_text()]:
        h.update(part.encode())
    for f in sorted(sources) + sorted(INCLUDE.glob("*.h")) + sorted(RUNTIME.glob("src/*/*.h")):
        h.update(str(f.relative_to(RUNTIME)).encode())
        h.update(f.read_bytes())
    key = h.hexdigest()[:16]
    modname = f"_rt_kernels_{key}"
    final = CACHE / key
    found = list(final.glob(f"{modname}*.so")) if final.is_dir() else []
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=CACHE))
    # The runtime gets the strict flags; cffi's generated glue gets its own.
    try:
        objects = runtime_objects(sources, cflags)
        ffi = cffi.FFI()
        ffi.cdef(cdef_text())
        ffi.set_source(modname, '#include "rt.h"', include_dirs=[str(INCLUDE)],
                       extra_objects=[str(o) for o in objects],
                       extra_link_args=SANITIZE_FLAGS[:1] if sanitize else [])
        ffi.compile(tmpdir=str(tmp), verbose=False)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        os.replace(tmp, final)  # atomic publish; a concurrent build may win
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return next(final.glob(f"{modname}*.so"))


class Runtime:
    """numpy-friendly access to one built copy of the runtime."""

    def __init__(self, module):
        self.ffi = module.ffi
        self.lib = module.lib

    # ---- argument helpers ----------------------------------------------
    def shape(self, dims) -> object:
        dims = [int(d) for d in dims]
        s = self.ffi.new("rt_shape *")
        s.rank = len(dims)
        for i, d in enumerate(dims):
            s.d[i] = d
        return s

    def data(self, arr: np.ndarray) -> object:
        if not arr.flags.c_contiguous:
            raise ValueError("kernel arrays must be C-contiguous")
        return self.ffi.cast(_CTYPES[arr.dtype], self.ffi.from_buffer(arr))

    def params(self, struct: str, **fields) -> object:
        p = self.ffi.new(f"{struct} *")
        for k, v in fields.items():
            if isinstance(v, (list, tuple)):
                for i, x in enumerate(v):
                    getattr(p, k)[i] = x
            else:
                if isinstance(v, self.ffi.CData):   # a pointer field: its array lives on
                    self.__dict__.setdefault("_alive", []).append(v)
                setattr(p, k, v)
        return p

    def int32s(self, values) -> object:
        return self.ffi.new("int32_t[]", [int(v) for v in values])

    @staticmethod
    def empty(shape, dtype=np.float32) -> np.ndarray:
        """Output buffer pre-filled with a sentinel, so unwritten elements show."""
        out = np.empty(shape, dtype)
        out.fill(np.nan if out.dtype.kind == "f" else 0xAB if out.dtype == np.uint8 else -7)
        return out

    # ---- calling ----------------------------------------------------------
    def call(self, name: str, *args) -> None:
        cargs = []
        for a in args:
            if a is NULL:
                cargs.append(self.ffi.NULL)
            elif isinstance(a, np.ndarray):
                cargs += [self.shape(a.shape), self.data(a)]
            elif a is None:
                cargs += [self.ffi.NULL, self.ffi.NULL]
            else:
                cargs.append(a)
        status = getattr(self.lib, name)(*cargs)
        if status != 0:
            raise KernelError(name, status)

    def cat(self, dim: int, inputs: list[np.ndarray], out: np.ndarray) -> None:
        shapes = self.ffi.new("rt_shape[]", len(inputs))
        for i, a in enumerate(inputs):
            shapes[i] = self.shape(a.shape)[0]
        ptrs = self.ffi.new("void *[]", [self.data(a) for a in inputs])
        self.call("rt_cat_f32", dim, len(inputs), shapes, ptrs, out)


_loaded: dict[tuple, Runtime] = {}


def load(categories: tuple[str, ...] | None = None, sanitize: bool | None = None) -> Runtime:
    """Build (or reuse) and import the runtime; sanitize defaults to AOT_SANITIZE."""
    sanitize = sanitize_requested() if sanitize is None else sanitize
    key = (categories, sanitize)
    if key not in _loaded:
        so = _build(runtime_sources(categories), sanitize)
        modname = so.name.split(".")[0]
        spec = importlib.util.spec_from_file_location(modname, so)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[key] = Runtime(module)
    return _loaded[key]
