"""Estimated Cortex-M4 cycles, from exact per-instruction execution counts under QEMU.

QEMU counts instructions, not cycles. To estimate cycles, the firmware runs once more with a
TCG plugin (boards/common/qemu_plugin/exec_counts.c) that counts, per instruction address, how
often it ran, and every transfer of control to an instruction that does not follow the one
before (taken branches, calls, returns, exceptions). The counts come in segments, cut at each
call of ``plat_cycles()``, so the run of ``<name>_run`` and each profile slot is its own
segment. ``price`` then gives every execution its cost from the Cortex-M4 Technical Reference
Manual's timing tables (r0p1, ARM DDI 0439D: Tables 3-1, 3-2 and 7-1, section 3.3.2), with
the rules that depend on the instruction before it:

  * a single load or store after a single load costs one cycle less (the address and data
    phases pipeline), unless the first load's result forms the second's address;
  * a load or store whose address register the previous ALU instruction wrote waits a cycle
    (no forwarding path to the address generator);
  * a store with an immediate offset takes 1 cycle; with a register offset 2;
  * LDRD/STRD and LDM/STM/PUSH/POP take 1 + N and do not pipeline with their neighbours;
  * a taken branch takes 1 + P: P = 2, or 3 when the target is a 32-bit instruction that is
    not word-aligned; a conditional branch that falls through takes 1;
  * IT folds into a preceding 16-bit instruction (0 cycles), else takes 1;
  * an FPU arithmetic result read by the very next instruction costs it one more cycle,
    except as the addend of a multiply-accumulate (which reads its addend a cycle late);
  * an exception costs 12 cycles to enter and 10 to return.

The model assumes zero-wait-state memory and ignores flash wait states, the prefetch
buffer, bus contention, unaligned accesses and the split of a taken branch's P into 1..3 by
speculation. docs/cycles.md lists the table and the assumptions.

The Cortex-M55 is priced to first order by ``CortexM55``: scalar code as the M4's, Helium by
its beats on four pipes (see the class). The M7's dual issue is not modelled: it is not
priced.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from .boards import Board, data_root
from .errors import BoardError

PLUGIN_SOURCE = "common/qemu_plugin/exec_counts.c"
MARK_SYMBOL = "plat_cycles"


# ---- counting ----------------------------------------------------------------------------

@dataclass
class Segment:
    """What ran between two readings of the clock: executions per instruction address, and
    non-sequential transfers (from address, to address) -> count."""
    counts: dict[int, int] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)
    edges: dict[tuple[int, int], int] = field(default_factory=dict)

    @property
    def instructions(self) -> int:
        return sum(self.counts.values())


@lru_cache(maxsize=None)
def plugin_path() -> Path:
    """The counting plugin, built with the host C compiler on first use (cached by the
    source's hash under the temporary directory)."""
    source = data_root() / PLUGIN_SOURCE
    text = source.read_bytes()
    folder = Path(tempfile.gettempdir()) / f"mcu-aot-{os.getuid()}"
    folder.mkdir(parents=True, exist_ok=True)
    lib = folder / f"exec_counts-{hashlib.sha256(text).hexdigest()[:16]}.so"
    if lib.is_file():
        return lib
    partial = lib.with_suffix(f".{os.getpid()}.tmp")
    cmd = ["gcc", "-std=c99", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
           str(source), "-o", str(partial)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise BoardError("the cycle model builds a QEMU plugin with the host C compiler, and "
                         "there is no gcc: install it (make bootstrap does)") from None
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BoardError(f"building the QEMU counting plugin failed ({' '.join(cmd)}):\n"
                         f"{proc.stderr.strip()}")
    os.replace(partial, lib)
    return lib


def symbol_address(elf: Path, board: Board, symbol: str) -> int:
    """A function's address in the ELF (the Thumb bit cleared)."""
    proc = subprocess.run([f"{board.prefix}nm", str(elf)], capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            return int(parts[0], 16) & ~1
    raise BoardError(f"{elf}: no symbol {symbol} to cut the count at (is it firmware built "
                     "with boards/common/platform.h?)")


def counting_args(elf: Path, board: Board, out: Path) -> list[str]:
    """QEMU options that load the plugin, cutting segments at each plat_cycles() call."""
    mark = symbol_address(elf, board, MARK_SYMBOL)
    return ["-plugin", f"{plugin_path()},mark={mark:#x},out={out}", "-d", "plugin"]


def read_segments(path: Path) -> list[Segment]:
    """The plugin's output file, segment by segment."""
    segments: list[Segment] = []
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise BoardError(f"the QEMU counting plugin wrote no counts to {path}: {e}") from None
    for line in lines:
        kind, *rest = line.split()
        if kind == "S":
            segments.append(Segment())
        elif kind == "I":
            addr, size, n = int(rest[0], 16), int(rest[1]), int(rest[2])
            segments[-1].counts[addr] = n
            segments[-1].sizes[addr] = size
        elif kind == "E":
            segments[-1].edges[(int(rest[0], 16), int(rest[1], 16))] = int(rest[2])
    return segments


def merge(segments: Sequence[Segment]) -> Segment:
    """The segments' counts added together (the whole run from its slots, say)."""
    out = Segment()
    for s in segments:
        for a, n in s.counts.items():
            out.counts[a] = out.counts.get(a, 0) + n
        out.sizes.update(s.sizes)
        for e, n in s.edges.items():
            out.edges[e] = out.edges.get(e, 0) + n
    return out


# ---- disassembly -------------------------------------------------------------------------

_CONDS = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt",
          "gt", "le", "al"}
_REG = re.compile(r"\b(r1[0-5]|r[0-9]|sp|lr|pc|ip|fp|sl|sb|s[12][0-9]|s3[01]|s[0-9]|"
                  r"d1[0-5]|d[0-9]|q[0-7])\b")
_ALIASES = {"ip": "r12", "fp": "r11", "sl": "r10", "sb": "r9", "sp": "r13", "lr": "r14",
            "pc": "r15"}
_LINE = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{4}\b ?){1,2})\s*\t([a-z][\w.]*)\s*(.*)$")

# Families: a name per timing class. The cost of each is in CortexM4.price.
_ALU = {"adc", "add", "addw", "adr", "and", "asr", "bfc", "bfi", "bic", "clz", "cmn", "cmp",
        "eor", "lsl", "lsr", "mov", "movw", "movt", "mvn", "neg", "orn", "orr", "rbit", "rev",
        "rev16", "revsh", "ror", "rrx", "rsb", "sbc", "sbfx", "sub", "subw", "teq", "tst",
        "ubfx", "sxtb", "sxth", "uxtb", "uxth", "sxtab", "sxtah", "uxtab", "uxtah", "ssat",
        "usat", "nop", "dmb", "dsb", "isb", "mrs", "msr", "cpsid", "cpsie", "bkpt", "svc",
        "sev", "wfi", "wfe", "clrex"} | {
    # Armv8.1-M: conditional selects, and the long shifts of a register pair
    "csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg", "asrl",
    "lsll", "lsrl", "sqrshrl", "uqrshll", "sqshll", "uqshll", "srshrl", "urshrl", "sqrshr",
    "uqrshl", "sqshl", "uqshl", "srshr", "urshr"}
_SIMD = {"sxtb16", "uxtb16", "sxtab16", "uxtab16", "pkhbt", "pkhtb", "sel", "usad8", "usada8",
         "ssat16", "usat16", "qadd", "qsub", "qdadd", "qdsub"} | {
    p + op for p in ("s", "q", "sh", "u", "uq", "uh")
    for op in ("add8", "add16", "sub8", "sub16", "asx", "sax")}
_MUL = {"mul", "mla", "mls", "smull", "umull", "smlal", "umlal", "umaal", "smmul", "smmulr",
        "smmla", "smmlar", "smmls", "smmlsr"} | {
    f"{op}{x}" for op in ("smla", "smul", "smlal") for x in ("bb", "bt", "tb", "tt")} | {
    "smlawb", "smlawt", "smulwb", "smulwt"}
_DUAL = {"smlad", "smladx", "smlsd", "smlsdx", "smuad", "smuadx", "smusd", "smusdx",
         "smlald", "smlaldx", "smlsld", "smlsldx"}
_LONG_WRITES = {"smull", "umull", "smlal", "umlal", "umaal", "smlald", "smlaldx", "smlsld",
                "smlsldx", "smlalbb", "smlalbt", "smlaltb", "smlaltt", "ldrd", "ldrexd",
                "asrl", "lsll", "lsrl", "sqrshrl", "uqrshll", "sqshll", "uqshll", "srshrl",
                "urshrl"}
_LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrt", "ldrbt", "ldrht", "ldrsbt",
          "ldrsht", "ldrex", "ldrexb", "ldrexh"}
_STORES = {"str", "strb", "strh", "strt", "strbt", "strht", "strex", "strexb", "strexh"}
_MULTI = {"ldm", "ldmia", "ldmfd", "ldmdb", "ldmea", "stm", "stmia", "stmea", "stmdb", "stmfd",
          "push", "pop"}
_BRANCH = {"b", "bl", "blx", "bx", "cbz", "cbnz"}
_FP_MAC = {"vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms"}
_FP_ARITH = {"vadd", "vsub", "vmul", "vnmul", "vabs", "vneg", "vcvt", "vcvtr", "vcvtb",
             "vcvtt", "vdiv", "vsqrt"} | _FP_MAC
# Helium (MVE) instructions: a vector instruction names a Q register (or is one of _MVE_SYS).
# Each goes down one of the M55's vector pipes: load/store, integer, float/multiply (every
# multiply, multiply-accumulate, reduction, compare and float operation) or control.
_MVE_SYS = {"vpst", "vpnot", "vctp", "vpt", "vptt", "vpte", "vpttt", "vptte", "vptet",
            "vptee", "vptttt", "vpttte", "vpttet", "vpttee", "vptett", "vptete", "vpteet",
            "vpteee"}
_MVE_MUL = {"vmul", "vmulh", "vrmulh", "vmullb", "vmullt", "vqdmulh", "vqrdmulh", "vqdmullb",
            "vqdmullt", "vmla", "vmlas", "vqdmlah", "vqrdmlah", "vqdmlash", "vqrdmlash",
            "vcmp", "vcvt", "vfma", "vfms", "vfmas", "vcmla", "vcmul", "vcadd"} | {
    f"{op}{a}{x}" for op in ("vmladav", "vmlsdav", "vmlaldav", "vmlsldav", "vrmlaldavh",
                             "vrmlsldavh", "vmlav", "vaddv", "vaddlv", "vabav")
    for a in ("", "a") for x in ("", "x")} | {
    f"{op}{x}" for op in ("vqdmladh", "vqrdmladh", "vqdmlsdh", "vqrdmlsdh") for x in ("", "x")}
_MVE_LOOP = {"dls", "dlstp", "wls", "wlstp", "le", "letp", "lctp"}
_NO_DEST = {"cmp", "cmn", "tst", "teq", "b", "bl", "blx", "bx", "cbz", "cbnz", "it", "nop",
            "push", "bkpt", "svc", "dmb", "dsb", "isb", "vcmp", "vcmpe", "tbb", "tbh", "msr",
            "vmsr", "cpsid", "cpsie", "sev", "wfi", "wfe", "clrex"} | _STORES | {
    "stm", "stmia", "stmea", "stmdb", "stmfd", "strd", "vstr", "vstm", "vstmia", "vstmdb",
    "vpush"}
_KNOWN = (_ALU | _SIMD | _MUL | _DUAL | _LOADS | _STORES | _MULTI | _BRANCH | _FP_ARITH |
          _MVE_SYS | _MVE_MUL | _MVE_LOOP | {
    "ldrd", "strd", "tbb", "tbh", "it", "sdiv", "udiv", "vldr", "vstr", "vldm", "vldmia",
    "vldmdb", "vstm", "vstmia", "vstmdb", "vpush", "vpop", "vmov", "vmrs", "vmsr", "vcmp",
    "vcmpe"})


def _base(mnemonic: str) -> Optional[str]:
    """The instruction's name without width (.w/.n), data type (.f32), condition or S flag,
    or None if it is not one the table knows."""
    m = mnemonic.lower().split(".")[0]
    if m.startswith("it") and set(m[2:]) <= {"t", "e"}:
        return "it"
    tries = [m]
    if m[-2:] in _CONDS:
        tries.append(m[:-2])
    tries += [t[:-1] for t in list(tries) if t.endswith("s")]
    return next((t for t in tries if t in _KNOWN), None)


def _regs(text: str) -> list[str]:
    return [_ALIASES.get(r, r) for r in _REG.findall(text)]


def _reg_list(ops: str) -> list[str]:
    """The registers of an LDM/STM/PUSH/POP/VLDM list, ranges ({d8-d15}) expanded."""
    inside = ops[ops.index("{") + 1:ops.index("}")] if "{" in ops else ""
    out = []
    for part in inside.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = (p.strip() for p in part.split("-"))
            out += [f"{lo[0]}{i}" for i in range(int(lo[1:]), int(hi[1:]) + 1)]
        elif part:
            out += _regs(part)
    return out


@dataclass(frozen=True)
class Insn:
    addr: int
    size: int
    mnemonic: str           # as objdump prints it
    ops: str
    base: Optional[str]     # see _base; None: not in the table (priced as 1 cycle)
    writes: frozenset       # registers it writes (core and FPU)
    reads: frozenset        # registers it reads (for the FPU result stall)
    address: frozenset      # registers that form a load's or store's address
    transfers: int          # registers moved by LDM/STM/PUSH/POP/VLDM/VSTM, LDRD/STRD
    pipe: Optional[str] = None   # a Helium instruction's vector pipe (see _mve_pipe)

    @property
    def family(self) -> str:
        """The name a cost is reported under (``aot run --cycles``' breakdown)."""
        b = self.base
        if self.pipe is not None:
            return f"MVE {self.pipe}"
        if b is None:
            return "other"
        if b in _MVE_LOOP:
            return "branch"
        if b in ("ldrd", "ldrexd"):
            return "LDRD"
        if b == "strd":
            return "STRD"
        if b in _LOADS:
            return "LDR"
        if b in _STORES:
            return "STR"
        if b in _MULTI:
            return "LDM/POP" if b.startswith(("ldm", "pop")) else "STM/PUSH"
        if b in _BRANCH or b in ("tbb", "tbh"):
            return "branch"
        if b in _DUAL:
            return "SMLAD family"
        if b in _MUL:
            return "multiply"
        if b in ("sdiv", "udiv"):
            return "divide"
        if b in _SIMD:
            return "SIMD"
        if b in ("vldr", "vstr") or b.startswith(("vldm", "vstm", "vpush", "vpop")):
            return "FP load/store"
        if b in _FP_MAC:
            return "FP MAC"
        if b.startswith("v"):
            return "FP"
        return "IT" if b == "it" else "ALU"


def _mve_pipe(stem: str, mnemonic: str, regs: list[str]) -> Optional[str]:
    """The Cortex-M55 vector pipe of a Helium instruction (``stem``: its name without data
    type; in a VPT block it ends in t or e), or None for any other instruction."""
    if stem.startswith(("vpst", "vpnot", "vctp")):
        return "control"
    if not any(r.startswith("q") for r in regs) and not stem.startswith("vpt"):
        return None
    if stem.startswith(("vld", "vst")):
        return "load/store"
    bare = stem[:-1] if stem[-1:] in ("t", "e") and stem not in _MVE_MUL else stem
    if bare in _MVE_MUL or stem.startswith("vpt") or ".f" in mnemonic.lower():
        return "multiply"
    return "integer"


def _decode(addr: int, size: int, mnemonic: str, ops: str) -> Insn:
    base = _base(mnemonic)
    ops = ops.split(";")[0].split("@")[0].strip()
    regs = _regs(ops.split("<")[0])
    stem = mnemonic.lower().split(".")[0]
    pipe = _mve_pipe(stem, mnemonic, regs)
    if pipe is not None:
        base = stem
    writes: set[str] = set()
    address: set[str] = set()
    transfers = 0
    if "[" in ops:
        address = set(_regs(ops[ops.index("["):ops.index("]") + 1]))
        post = ops[ops.index("]") + 1:]
        if "!" in post or post.strip().startswith(","):
            writes |= set(_regs(ops[ops.index("["):ops.index("]")])[:1])   # write-back
    if base in _MULTI or (base or "").startswith(("vldm", "vstm", "vpush", "vpop")):
        listed = _reg_list(ops)
        transfers = sum(2 if r.startswith("d") else 1 for r in listed)
        head = ops.split("{")[0]
        if base not in ("push", "pop") and not base.startswith(("vpush", "vpop")):
            address = set(_regs(head))
        else:
            address = {"r13"}
        if "!" in head or base in ("push", "pop") or base.startswith(("vpush", "vpop")):
            writes |= address
        if base.startswith(("ldm", "pop", "vldm", "vpop")):
            writes |= set(listed)
    elif base in ("ldrd", "strd", "ldrexd"):
        transfers = 2
        if base != "strd":
            writes |= set(regs[:2])
    elif base not in _NO_DEST and regs and base is not None and \
            not (pipe is not None and base.startswith(("vst", "vpt", "vctp", "vcmp"))):
        # (a vector store writes no register; a vector compare or VCTP only the predicate)
        long = base in _LONG_WRITES or (pipe is not None and base.startswith(
            ("vmlaldav", "vmlsldav", "vrmlaldavh", "vrmlsldavh", "vaddlv")))
        writes |= set(regs[:2] if long else regs[:1])
    # What it reads (for the FPU result stall): every register it names but its destination,
    # unless the destination is named again as a source or is a multiply-accumulate's addend.
    dest_only = set() if base in _FP_MAC else writes - set(regs[1:])
    reads = set(regs) - dest_only
    return Insn(addr, size, mnemonic, ops, base, frozenset(writes), frozenset(reads),
                frozenset(address), transfers, pipe)


# objdump decodes Helium only when told the architecture (else it prints LDC, CDP, ...)
_MACHINES = {"cortex-m55": "armv8.1-m.main", "cortex-m85": "armv8.1-m.main"}


def objdump_command(elf: Path, board: Board) -> list[str]:
    """objdump -d of the ELF, told the core's architecture where it needs it."""
    machine = ["-m", _MACHINES[board.cpu]] if board.cpu in _MACHINES else []
    return [f"{board.prefix}objdump", "-d", *machine, str(elf)]


def disassemble(elf: Path, board: Board) -> dict[int, Insn]:
    """Every instruction of the ELF's code, by address (objdump -d)."""
    proc = subprocess.run(objdump_command(elf, board), capture_output=True, text=True)
    if proc.returncode != 0:
        raise BoardError(f"{board.prefix}objdump -d {elf} failed: {proc.stderr.strip()}")
    out: dict[int, Insn] = {}
    for line in proc.stdout.splitlines():
        m = _LINE.match(line)
        if m is None or m.group(3).startswith("."):
            continue                      # labels, and literal pools (.word)
        addr = int(m.group(1), 16)
        size = 2 * len(m.group(2).split())
        out[addr] = _decode(addr, size, m.group(3), m.group(4))
    return out


# ---- pricing -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CycleEstimate:
    cycles: int
    instructions: int
    by_family: tuple          # (family, cycles, executions), most cycles first
    unpriced: tuple = ()      # mnemonics the table does not know (each priced as 1 cycle)

    def ms(self, clock_mhz: float) -> float:
        return self.cycles / (clock_mhz * 1e3)


def _single(i: Insn) -> bool:
    """A single load or store (LDR, STR, VLDR, VSTR and their byte and halfword forms)."""
    return i.base in _LOADS or i.base in _STORES or i.base in ("vldr", "vstr")


def _register_offset(i: Insn) -> bool:
    inside = i.ops[i.ops.find("["):i.ops.find("]") + 1]
    return len(_regs(inside)) >= 2


class CortexM4:
    """The Cortex-M4 (r0p1) with zero-wait-state memory; see the module's docstring."""
    name = "cortex-m4"
    P = 2                    # pipeline refill of a taken branch (the TRM gives 1 to 3)
    EXCEPTION = 12 + 10      # entry and return
    DIVIDE = 12              # SDIV/UDIV take 2 to 12 by their operands: the worst case

    def cost(self, i: Insn, prev: Optional[Insn]) -> int:
        """Cycles of one execution of i right after prev; a taken branch's refill is
        priced on the transfer (``transfer``)."""
        b = i.base
        if b is None:
            return 1
        if _single(i):
            if b in _STORES and not _register_offset(i):
                c = 1        # STR Rt, [Rn, #imm] is always one cycle
            else:
                c = 1 if self._pipelines(prev, i) else 2
            return c + self._address_stall(i, prev) + self._fp_stall(i, prev)
        if b in ("ldrd", "strd", "ldrexd") or b in _MULTI or \
                b.startswith(("vldm", "vstm", "vpush", "vpop")):
            return 1 + i.transfers + self._address_stall(i, prev)
        if b in ("tbb", "tbh"):
            return 3 + self._address_stall(i, prev)
        if b in ("sdiv", "udiv"):
            return self.DIVIDE
        if b == "it":
            return 0 if prev is not None and prev.size == 2 else 1    # folded
        if b.startswith("v"):
            regs = _regs(i.ops)
            core = any(r.startswith("r") for r in regs)
            c = {"vdiv": 14, "vsqrt": 14}.get(b, 3 if b in _FP_MAC else 1)
            if b == "vmov" and core and len(regs) > 1:
                c = 2        # between core and FPU registers
            return c + self._fp_stall(i, prev)
        return 1

    @staticmethod
    def _pipelines(prev: Optional[Insn], i: Insn) -> bool:
        """A single load or store right after a single load overlaps it by a cycle, unless
        the load's result (or its written-back base) forms this one's address."""
        return prev is not None and (prev.base in _LOADS or prev.base == "vldr") and \
            "r15" not in prev.writes and not (prev.writes & i.address)

    @staticmethod
    def _address_stall(i: Insn, prev: Optional[Insn]) -> int:
        """+1 when the data-processing instruction before wrote an address register."""
        if prev is None or not (prev.writes & i.address):
            return 0
        return 1 if prev.family in ("ALU", "multiply", "SMLAD family", "SIMD", "divide") \
            else 0

    @staticmethod
    def _fp_stall(i: Insn, prev: Optional[Insn]) -> int:
        """+1 when i reads the result of the FP arithmetic right before it, unless only as
        the addend of a multiply-accumulate (read a cycle late)."""
        if prev is None or prev.base not in _FP_ARITH:
            return 0
        used = prev.writes & i.reads
        if i.base in _FP_MAC:
            used -= i.writes
        return 1 if used else 0

    def transfer(self, src: Insn, dst: Optional[Insn]) -> tuple[int, str]:
        """The cycles a non-sequential transfer adds, and the family they count under:
        a taken branch's refill, or an exception's entry and return."""
        if src.family != "branch" and "r15" not in src.writes:
            return self.EXCEPTION, "exception"
        p = 3 if src.base in ("tbb", "tbh") or src.family == "LDR" else self.P
        if dst is not None and dst.size == 4 and dst.addr % 4 == 2:
            p = 3            # refilling a 32-bit target that straddles a word
        return p, "branch"


class CortexM55(CortexM4):
    """The Cortex-M55, to first order, from the public description of its pipelines in
    LLVM's scheduling model (llvm/lib/Target/ARM/ARMScheduleM55.td): scalar code as the
    Cortex-M4 (its integer pipeline's timing is the M4's and the M33's; the dual issue of
    some 16-bit pairs is not modelled, so scalar code is priced high), and Helium by beats.
    A Helium instruction does a 128-bit operation in two beats of 64 bits on one of four
    pipes (load/store, integer, float/multiply, control). It issues one cycle after the
    instruction before it, and its second beat overlaps whatever comes next, unless that is
    another vector instruction for the same pipe: that one waits a cycle. A result of the
    float/multiply pipe (latency 2) read by the very next instruction costs it a cycle, except
    as a store's data. A low-overhead loop's LE branches back without a refill (the loop's
    start is cached)."""
    name = "cortex-m55"

    def cost(self, i: Insn, prev: Optional[Insn]) -> int:
        stall = 1 if prev is not None and prev.pipe == "multiply" and \
            prev.writes & i.reads and not (i.pipe is not None and i.base.startswith("vst")) \
            else 0
        if i.pipe is not None:
            busy = prev is not None and prev.pipe == i.pipe and i.pipe != "control"
            return 1 + busy + stall
        if i.base in _MVE_LOOP:
            return 1 + stall
        return super().cost(i, prev) + stall

    def transfer(self, src: Insn, dst: Optional[Insn]) -> tuple[int, str]:
        if src.base in ("le", "letp"):
            return 0, "branch"
        return super().transfer(src, dst)


def _priced(segment: Segment, insns: dict[int, Insn], model):
    """(instruction, executions, cycles, family) rows: each instruction's executions, priced
    after the instruction that ran before each (the one at the previous address, or a
    transfer's source), then each transfer's refill, on its source instruction."""
    order = sorted(insns)
    prev_of = {a: p for p, a in zip(order, order[1:])}
    into: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (src, dst), n in segment.edges.items():
        into[dst].append((src, n))
    for addr, n in segment.counts.items():
        i = insns.get(addr)
        if i is None:
            raise BoardError(f"QEMU ran an instruction at {addr:#x}, where objdump shows none")
        if segment.sizes.get(addr, i.size) != i.size:
            raise BoardError(f"QEMU ran a {segment.sizes[addr]}-byte instruction at "
                             f"{addr:#x}, where objdump shows {i.size} bytes: {i.mnemonic}")
        jumps = into.get(addr, [])
        sequential = n - sum(k for _, k in jumps)
        c = sequential * model.cost(i, insns.get(prev_of.get(addr, -1)))
        c += sum(k * model.cost(i, insns.get(src)) for src, k in jumps)
        yield i, n, c, i.family
    for (src, dst), n in segment.edges.items():
        extra, family = model.transfer(insns[src], insns.get(dst))
        yield insns[src], 0, n * extra, family


def price(segment: Segment, insns: dict[int, Insn], model=None) -> CycleEstimate:
    """The estimated cycles of one segment, split by instruction family."""
    by_cycles: Counter = Counter()
    by_count: Counter = Counter()
    unpriced: set[str] = set()
    for i, n, c, family in _priced(segment, insns, model or CortexM4()):
        by_cycles[family] += c
        by_count[family] += n
        if i.base is None:
            unpriced.add(i.mnemonic)
    families = tuple(sorted(((f, by_cycles[f], by_count[f]) for f in by_cycles),
                            key=lambda r: (-r[1], r[0])))
    return CycleEstimate(sum(by_cycles.values()), segment.instructions, families,
                         tuple(sorted(unpriced)))


def cycles_by_address(segment: Segment, insns: dict[int, Insn], model=None) -> Counter:
    """The estimated cycles of each instruction address (a taken branch's refill on the
    branch), for finding the hot loop of a kernel."""
    out: Counter = Counter()
    for i, _, c, _ in _priced(segment, insns, model or CortexM4()):
        out[i.addr] += c
    return out


MODELS = {m.name: m for m in (CortexM4, CortexM55)}   # by the core they price


def cycle_model(board: Board):
    """The board's cycle model, or None when its core is not priced."""
    model = MODELS.get(board.cpu)
    return model() if model is not None else None


def estimate_run(elf: Path, board: Board, counts: Path,
                 slots: int = 0) -> tuple[CycleEstimate, Optional[list[int]]]:
    """The run's estimate, and each profile slot's cycles when the firmware laps a profile
    clock (``slots`` of them). main.c reads plat_cycles() before and after <name>_run; a
    profiled run also reads it once on entry and once per slot, so the plugin's segments
    are: before the run, the run's own (1 or 1 + slots), then after."""
    model = cycle_model(board)
    if model is None:
        raise BoardError(f"board {board.name} ({board.cpu}) has no cycle model: only the "
                         f"{' and the '.join(MODELS)} are priced (see docs/cycles.md)")
    segments = read_segments(counts)
    reads = 2 + (1 + slots if slots else 0)
    if len(segments) != reads + 1:
        raise BoardError(f"the firmware read plat_cycles() {len(segments) - 1} times, where "
                         f"{reads} were expected: the counts cannot be matched to the run")
    insns = disassemble(elf, board)
    run = merge(segments[1:reads])
    per_slot = [price(seg, insns, model).cycles for seg in segments[2:2 + slots]] \
        if slots else None
    return price(run, insns, model), per_slot


def format_families(e: CycleEstimate) -> str:
    """One line: the largest shares of the estimate by instruction family."""
    return ", ".join(f"{f} {100 * c / e.cycles:.0f}%" for f, c, _ in e.by_family[:8]
                     if e.cycles)
