"""How aot.cycles reads objdump's Thumb-2 listing: the instruction's name under its width,
condition and flag suffixes, the registers it writes and addresses through, and how many
registers a multiple transfer moves. (The pricing itself is checked against hand counts
under QEMU in tests/qemu/test_cycle_model.py.)"""
from __future__ import annotations

import pytest

from aot.cycles import CortexM4, _decode


def insn(text: str, addr: int = 0x100, size: int = 4):
    mnemonic, _, ops = text.partition(" ")
    return _decode(addr, size, mnemonic, ops.strip())


@pytest.mark.parametrize("text,base,family", [
    ("bls.n 1f0 <f+0x10>", "b", "branch"),          # b + ls, not bl + s
    ("lsls r1, r2, #3", "lsl", "ALU"),               # lsl + s, not ls as a condition
    ("movs r1, #1", "mov", "ALU"),
    ("moveq r1, r2", "mov", "ALU"),
    ("addseq r1, r1, #1", "add", "ALU"),
    ("itete ne", "it", "IT"),
    ("smladx r1, r2, r3, r4", "smladx", "SMLAD family"),
    ("smlabb r1, r2, r3, r1", "smlabb", "multiply"),
    ("sxtb16 r1, r2, ror #8", "sxtb16", "SIMD"),
    ("vmla.f32 s0, s1, s2", "vmla", "FP MAC"),
    ("vadd.f32 s0, s1, s2", "vadd", "FP"),
    ("vldmia r0!, {s2-s5}", "vldmia", "FP load/store"),
    ("ldrd ip, lr, [r9, #-64]", "ldrd", "LDRD"),
    ("pop {r4, r5, pc}", "pop", "LDM/POP"),
    ("stmdb sp!, {r4, lr}", "stmdb", "STM/PUSH"),
    ("frobnicate r1", None, "other"),
])
def test_names_and_families(text, base, family):
    i = insn(text)
    assert (i.base, i.family) == (base, family)


def test_registers_written_and_addressed():
    ldr = insn("ldr.w r2, [sl], #4")                  # post-indexed: the base is written back
    assert ldr.writes == {"r2", "r10"} and ldr.address == {"r10"}
    ldrd = insn("ldrd ip, lr, [r9, #-64]")
    assert ldrd.writes == {"r12", "r14"} and ldrd.address == {"r9"} and ldrd.transfers == 2
    pop = insn("ldmia.w sp!, {r4, r5, r6, r7, r8, r9, pc}")
    assert pop.transfers == 7 and {"r4", "r9", "r15", "r13"} <= pop.writes
    assert insn("vpush {d8-d15}").transfers == 16
    assert insn("smlal r0, r1, r2, r3").writes == {"r0", "r1"}
    assert insn("str r1, [r0, r2]").writes == frozenset()
    assert insn("cmp r0, r1").writes == frozenset()


def test_pricing_rules_between_neighbours():
    m = CortexM4()
    load, store_imm = insn("ldr r1, [r0, #4]"), insn("str r1, [r0, #4]")
    store_reg, add = insn("str r1, [r0, r2]"), insn("adds r0, r0, #4")
    assert m.cost(load, insn("nop")) == 2 and m.cost(load, load) == 1
    assert m.cost(insn("ldr r2, [r1]"), insn("ldr r1, [r0]")) == 2   # address from the load
    assert m.cost(store_imm, add) == 1 + 1                             # address stall
    assert m.cost(store_reg, insn("nop")) == 2 and m.cost(store_reg, load) == 1
    assert m.cost(insn("it eq", size=2), insn("cmp r0, r0", size=2)) == 0
    assert m.cost(insn("vmla.f32 s0, s3, s4"), insn("vmla.f32 s0, s1, s2")) == 3
    assert m.cost(insn("vmla.f32 s6, s0, s4"), insn("vmla.f32 s0, s1, s2")) == 4
    assert m.transfer(insn("b.n 200"), insn("add.w r1, r1, #1", addr=0x202)) == (3, "branch")
    assert m.transfer(insn("bne.n 200"), insn("adds r1, #1", addr=0x202, size=2)) == \
        (2, "branch")
    assert m.transfer(insn("adds r1, #1"), None) == (22, "exception")


@pytest.mark.parametrize("text,pipe,writes", [
    ("vldrb.s16 q0, [r1], #8", "load/store", {"q0", "r1"}),   # post-increment writes back
    ("vstrw.32 q1, [r0]", "load/store", set()),
    ("vstrbt.8 q1, [r0]", "load/store", set()),                # in a VPT block
    ("vadd.i32 q0, q1, q2", "integer", {"q0"}),
    ("vaddt.i32 q0, q0, q1", "integer", {"q0"}),
    ("vadd.f32 q0, q1, q2", "multiply", {"q0"}),               # float: the FP/multiply pipe
    ("vmladava.s8 r2, q0, q1", "multiply", {"r2"}),
    ("vmlaldava.s16 r2, r3, q0, q1", "multiply", {"r2", "r3"}),
    ("vmullt.s8 q0, q1, q2", "multiply", {"q0"}),
    ("vpst", "control", set()),
    ("vctp.8 r2", "control", set()),                          # writes the predicate only
    ("vcmp.s8 gt, q0, q1", "multiply", set()),
    ("vadd.f32 s0, s1, s2", None, {"s0"}),                     # scalar FP: no vector pipe
])
def test_helium_pipes(text, pipe, writes):
    i = insn(text)
    assert (i.pipe, set(i.writes)) == (pipe, writes)
    assert i.family == (f"MVE {pipe}" if pipe else "FP")
