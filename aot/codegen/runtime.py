"""Which runtime_c sources a generated model needs: the kernels it calls, and what they call.

Portable kernels live in ``src/<category>/<file>.c``. An architecture may replace a file with an
optimized one of the same name and contract in ``src/arch/<arch>/<file>.c`` (TFLM's
``kernels/cmsis_nn/``): ``runtime_sources_for(kernels, arch)`` takes, for every function, the
arch file when one defines it, else the portable file. An arch file with no portable namesake
is the arch's own helper, shared by its kernels (the Helium matrix product,
``src/arch/cortex_m_mve/conv_mve.c``): none of its functions may be a portable one, and it is
linked where a kernel calls it. The generated C is the same for every arch; only the list of
runtime files to link differs.
"""
from __future__ import annotations

import platform
import re
from functools import lru_cache
from pathlib import Path

from ..errors import AotError
from ..resources import data_dir

PORTABLE = "portable"

# An arch may build on another: its own files come first and the base's fill in the rest (the
# M55's Helium kernels on top of the DSP ones every Armv8.1-M core also runs).
ARCH_BASES = {"cortex_m_mve": "cortex_m_dsp"}


def arch_chain(arch: str) -> tuple[str, ...]:
    """``arch`` and the arches it builds on, most specific first (() for portable)."""
    chain = []
    while arch != PORTABLE and arch not in chain:
        chain.append(arch)
        arch = ARCH_BASES.get(arch, PORTABLE)
    return tuple(chain)

# A function defined (or declared) at file level: not a typedef, not a function pointer.
_DEFINITION = re.compile(r"^(?!typedef\b)[A-Za-z_][\w \*]*?\b(rt_\w+)\s*\((?!\s*\*)", re.M)
# Any use of a runtime name in code: a call, or a function passed by its address (a kernel
# an adapter hands to a shared helper). Names of types and macros are not in the index.
_CALL = re.compile(r"\b(rt_\w+)\b")
# A pair of kernels defined by rt_internal.h's macro: rt_<name>_f32 and rt_<name>_scalar_f32.
_BINARY_PAIR = re.compile(r"^RT_BINARY_F32_KERNELS\((\w+),", re.M)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_PROTOTYPE = re.compile(r"^[A-Za-z_][\w \*]*?\brt_\w+\s*\([^;{]*\);", re.M)


# rt_status (runtime_c/include/rt_types.h), for messages.
STATUS_NAMES = {0: "RT_OK", 1: "RT_ERR_NULL", 2: "RT_ERR_RANK", 3: "RT_ERR_SHAPE",
                4: "RT_ERR_PARAM", 5: "RT_ERR_SCRATCH", 6: "RT_ERR_INDEX",
                7: "RT_ERR_PTE_TRUNCATED", 8: "RT_ERR_PTE_CORRUPT", 9: "RT_ERR_PTE_OPERATOR",
                10: "RT_ERR_PTE_ARENA", 11: "RT_ERR_PTE_DTYPE", 12: "RT_ERR_PTE_ARGS",
                13: "RT_ERR_PTE_BACKEND", 14: "RT_ERR_PTE_UNSUPPORTED", 15: "RT_ERR_PTE_LIMIT",
                16: "RT_ERR_PTE_ALIGN"}


def status_name(code: int) -> str:
    return STATUS_NAMES.get(code, "unknown status")


def runtime_dir() -> Path:
    return data_dir("runtime_c")


def host_arch() -> str:
    """The runtime arch for code built on and run by this machine."""
    return platform.machine() if platform.machine() in available_arches() else PORTABLE


@lru_cache(maxsize=1)
def _cpu_flags() -> frozenset:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def host_cflags(arch: str) -> tuple[str, ...]:
    """Compiler flags that widen ``arch``'s kernels on this machine, chosen at build time: the
    x86-64 kernels take 8-float AVX2 vectors where the CPU has AVX2 (same results, see
    runtime_c/src/arch/x86_64/conv2d.c), SSE2 otherwise."""
    if arch == "x86_64" and platform.machine() == "x86_64" and "avx2" in _cpu_flags():
        return ("-mavx2",)
    return ()


@lru_cache(maxsize=1)
def available_arches() -> tuple[str, ...]:
    arch = runtime_dir() / "src" / "arch"
    return tuple(sorted(p.name for p in arch.iterdir() if p.is_dir())) if arch.is_dir() else ()


def _included(path: Path, seen: set) -> str:
    """The local headers ``path`` includes, without their prototypes: what is left (macros,
    inline functions) may call kernels."""
    text = ""
    for name in _INCLUDE.findall(path.read_text()):
        header = (path.parent / name).resolve()
        if header.is_file() and header not in seen:
            seen.add(header)
            text += _PROTOTYPE.sub("", header.read_text()) + _included(header, seen)
    return text


def _included_sources(path: Path) -> str:
    """The .c files ``path`` includes: an arch file may build on its portable twin by
    including it (runtime_c/src/arch/cortex_m_dsp/conv2d.c), and then defines its functions."""
    return "".join((path.parent / name).read_text() for name in _INCLUDE.findall(path.read_text())
                   if name.endswith(".c") and (path.parent / name).is_file())


def _scan(paths) -> tuple[dict, dict]:
    defined, calls = {}, {}
    for path in paths:
        rel = path.relative_to(runtime_dir()).as_posix()
        text = path.read_text()
        text_defs = text + _included_sources(path)
        defined[rel] = set(_DEFINITION.findall(text_defs)) | {
            f"rt_{name}{suffix}" for name in _BINARY_PAIR.findall(text_defs)
            for suffix in ("_f32", "_scalar_f32")}
        calls[rel] = set(_CALL.findall(_COMMENT.sub(" ", text + _included(path, set()))))
    return defined, calls


@lru_cache(maxsize=None)
def _index(arch: str) -> tuple[dict, dict, dict, tuple]:
    """function -> defining file, file -> functions it calls, portable file -> its arch twin,
    and the arches' helper files (all relative to runtime_c/)."""
    src = runtime_dir() / "src"
    portable = sorted(p for p in src.glob("*/*.c") if p.parent.name != "arch")
    defs, calls = _scan(portable)
    defined: dict[str, str] = {}
    twins: dict[str, str] = {}
    helpers: list[str] = []
    for rel in sorted(defs):
        for name in defs[rel]:
            defined.setdefault(name, rel)
    by_name = {Path(rel).name: rel for rel in defs}
    for layer in reversed(arch_chain(arch)):   # the base first, so the specific wins
        if layer not in available_arches():
            raise AotError(f"no runtime_c/src/arch/{layer}/ (have: "
                           f"{', '.join(available_arches())})")
        arch_defs, arch_calls = _scan(sorted((src / "arch" / layer).glob("*.c")))
        for rel, names in arch_defs.items():
            base = by_name.get(Path(rel).name)
            if base is None:   # the arch's own helper: no portable function of its own
                clash = sorted(n for n in names if n in defined and
                               not defined[n].startswith("src/arch/"))
                if clash:
                    raise AotError(f"runtime_c/{rel} has no portable file of its name but "
                                   f"defines portable functions: {', '.join(clash)}")
                helpers.append(rel)
            # Same file name, same functions: the arch file replaces the portable one whole,
            # so the two are never linked together.
            elif defs[base] != names:
                raise AotError(f"runtime_c/{rel} must define exactly the functions of a "
                               f"portable file of the same name")
            else:
                twins[base] = rel
            defined.update(dict.fromkeys(names, rel))
        calls.update(arch_calls)
    return defined, calls, twins, tuple(helpers)


def _closure(files, defined: dict, calls: dict) -> tuple[str, ...]:
    todo, done = list(files), set()
    while todo:
        f = todo.pop()
        if f in done:
            continue
        done.add(f)
        todo.extend(defined[c] for c in calls.get(f, ()) if c in defined and defined[c] not in done)
    return tuple(sorted(done))


def runtime_sources_for(kernels, arch: str = PORTABLE) -> tuple[str, ...]:
    """The runtime .c files (relative to runtime_c/) that define ``kernels``, transitively,
    taking ``src/arch/<arch>/`` files over portable ones."""
    defined, calls, _, _ = _index(arch)
    return _closure([defined[k] for k in kernels if k in defined], defined, calls)


def arch_files(arch: str) -> tuple[str, ...]:
    """The files of ``arch`` (and of the arches it builds on) that replace portable ones, and
    their helpers."""
    _, _, twins, helpers = _index(arch)
    return tuple(sorted((*twins.values(), *helpers)))


def for_arch(files, arch: str) -> tuple[str, ...]:
    """Portable runtime ``files`` (a model's ``CSources.runtime_sources``, which may hold more
    than its kernels' files, e.g. a delegate's) with every file that has a twin in
    ``src/arch/<arch>/`` replaced by it, plus what the twins call."""
    defined, calls, twins, _ = _index(arch)
    return _closure([twins.get(f, f) for f in files], defined, calls)
