"""The cycle models (aot.cycles): the QEMU plugin's counts are exact, the pricing gives the
cycles worked out by hand on micro-benchmarks (fixtures/cycles: the Cortex-M4's from its TRM,
the Cortex-M55's from its model's rules), and `aot run --cycles` reports them for a network,
per call with --profile, and as a latency with --clock-mhz. Boards whose core no model prices
are refused by name."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from aot import cli, cycles
from aot.errors import BoardError
from aot.firmware import run_interpreter, run_on_board
from aot.qemu import build_firmware, cycles_to_instructions, run_elf
from aot.zoo import ZOO
from conftest import require_board

from int8_models import int8_inputs, lowered

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "cycles"

# Each routine of benches_m4.S, in main.c's order: (cycles, instructions) of its body, as
# worked out beside it from the TRM's tables; its return is the same in every routine.
BY_HAND = {
    "empty": (0, 0),
    "ldr_run": (9, 8),            # LDR, then 7 pipelined LDRs
    "ldr_chase": (6, 3),          # each address from the load before: no pipelining
    "address_stall": (8, 4),      # ADDS then LDR through its result: +1 each
    "stores": (8, 6),             # STR #imm 1; STR [Rn, Rm] 2, or 1 behind a load
    "multiple": (18, 4),          # LDRD, LDM of 4, PUSH and POP of 4: 1 + N each
    "loop": (39, 21),             # 10 SUBS, 9 taken BNE (1 + P), one falling through
    "dsp": (4, 4),                # SMLAD, SMLABB, SXTB16: 1 each
    "it_fold": (5, 6),            # IT folds after a 16-bit CMP, not after a 32-bit one
    "fp_dependent": (5, 4),       # VADD reading the VADD right before it: +1
    "fp_mac": (11, 4),            # VMLA 3, its accumulator read late; a multiplicand +1
    "fp_memory": (12, 5),         # VLDR 2 then 1; VLDM 1 + N; VSTR of a fresh result +1
    "branch_aligned": (4, 2),     # B to a word-aligned 32-bit instruction: 1 + 2
    "branch_straddling": (5, 2),  # B to a 32-bit instruction at a halfword: 1 + 3
}


# benches_m55.S's routines on the Cortex-M55: (cycles, instructions) by its model's rules.
BY_HAND_M55 = {
    "empty": (0, 0),
    "ldr_run": (4, 3),            # scalar code as on the M4: LDR, two pipelined
    "beats": (4, 4),              # VLDRW, VADD, VMUL, VSTRW: four pipes, each overlapping
    "same_pipe": (5, 4),          # VLDRB right after VLDRW waits a beat
    "product_read": (5, 4),       # VADD reading a VMUL's product +1; a store's data not
    "reduce": (6, 4),             # VMLADAVA twice (same pipe +1), then ADDS of the sum +1
    "predicated": (3, 3),         # VPST a single beat, then VADDT, VSTRW
    "low_overhead_loop": (12, 12),  # DLS, 4 x (VADD, LE): LE branches back without refill
}


@pytest.fixture(scope="module")
def m4():
    return require_board("mps2-an386")


def _benches(board, source, by_hand, out):
    """Each micro-benchmark's (cycles, instructions), less the empty routine's."""
    elf = build_firmware(FIXTURE, board, build_dir=out, make_vars={"BENCHES": source})
    counts = out / "counts.txt"
    result = run_elf(elf, board, extra_args=cycles.counting_args(elf, board, counts))
    assert result.exit_code == 0 and f"mcu-aot benches: {len(by_hand)}" in result.stdout
    segments = cycles.read_segments(counts)
    # before the first region; then per routine its region and the stretch up to the next
    assert len(segments) == 2 * len(by_hand) + 1
    insns = cycles.disassemble(elf, board)
    model = cycles.cycle_model(board)
    regions = [cycles.price(segments[2 * k + 1], insns, model) for k in range(len(by_hand))]
    assert not any(e.unpriced for e in regions), regions[0].unpriced
    return {name: (e.cycles - regions[0].cycles, e.instructions - regions[0].instructions)
            for name, e in zip(by_hand, regions)}


@pytest.fixture(scope="module")
def benches(m4, tmp_path_factory):
    return _benches(m4, "benches_m4.S", BY_HAND, tmp_path_factory.mktemp("cycles"))


@pytest.fixture(scope="module")
def benches_m55(tmp_path_factory):
    return _benches(require_board("mps3-an547"), "benches_m55.S", BY_HAND_M55,
                    tmp_path_factory.mktemp("cycles_m55"))


@pytest.mark.parametrize("name", [n for n in BY_HAND if n != "empty"])
def test_micro_benchmark_matches_the_hand_count(benches, name):
    assert benches[name] == BY_HAND[name]


@pytest.mark.parametrize("name", [n for n in BY_HAND_M55 if n != "empty"])
def test_m55_micro_benchmark_matches_the_hand_count(benches_m55, name):
    assert benches_m55[name] == BY_HAND_M55[name]


def test_an_int8_network_is_estimated_on_the_m55():
    """The M55's estimate covers exactly the instructions -icount measured around
    <name>_run, every one priced, and most of int8 KWS's cycles are Helium's."""
    board = require_board("mps3-an547")
    r = run_on_board(lowered("kws", True), board, inputs=int8_inputs("kws"), cycles=True,
                     profile=True)
    assert r.ok and r.estimate is not None, r
    assert abs(r.estimate.instructions - r.instructions) <= cycles_to_instructions(board, 1)
    assert not r.estimate.unpriced
    helium = sum(c for f, c, _ in r.estimate.by_family if f.startswith("MVE"))
    assert helium > r.estimate.cycles / 2
    assert r.estimate.instructions < r.estimate.cycles < 3 * r.estimate.instructions
    assert r.profile.cycle_model == "cortex-m55"


def test_plugin_counts_every_instruction_qemu_counts(m4, tmp_path):
    """The run's segment holds exactly the instructions -icount measured around <name>_run
    (to within the SysTick tick that measurement reads), on a float32 network; and a
    profiled run's slots add up to the run."""
    module, example = ZOO["kws"]()
    ep = torch.export.export(module, example)
    plain = run_on_board(ep, m4, cycles=True)
    assert plain.ok and plain.estimate is not None
    tick = cycles_to_instructions(m4, 1)
    assert abs(plain.estimate.instructions - plain.instructions) <= tick
    assert not plain.estimate.unpriced
    # a float32 network is mostly the FPU's: VLDR, VMUL/VADD or VMLA
    families = {f for f, _, _ in plain.estimate.by_family}
    assert {"FP", "FP load/store", "LDR", "branch"} <= families
    assert plain.estimate.cycles > plain.estimate.instructions
    profiled = run_on_board(ep, m4, cycles=True, profile=True)
    p = profiled.profile
    assert p.cycle_model == "cortex-m4" and all(r.cycles is not None for r in p.rows)
    # the slots telescope: entering <name>_run and the first and last laps lie outside
    assert 0 <= profiled.estimate.cycles - p.cycles <= 400
    # profiling adds the laps but changes no kernel: each conv's instructions are its
    # cycles' basis, and a kernel call costs more cycles than instructions
    convs = [r for r in p.rows if "convolution" in r.op]
    assert convs and all(r.cycles > r.count for r in convs)


def test_aot_run_cycles_prints_the_estimate_and_latency(m4, tmp_path, capsys):
    module, example = ZOO["autoencoder"]()
    pt2 = tmp_path / "ae.pt2"
    torch.export.save(torch.export.export(module, example), str(pt2))
    assert cli.main(["run", str(pt2), "--board", m4.name, "--profile",
                     "--clock-mhz", "120"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"^cycles\s+([\d,]+) per inference \(estimated for the cortex-m4, zero wait "
                  r"states, ([\d.]+) ms at 120 MHz\): (.*)$", out, re.M)
    assert m, out
    total = int(m.group(1).replace(",", ""))
    assert float(m.group(2)) == pytest.approx(total / 120e3, abs=0.006)
    assert "LDR" in m.group(3) or "FP" in m.group(3)
    assert "profile of model on mps2-an386 (instructions and estimated cortex-m4 cycles" in out
    assert re.search(r"cycles\s+cyc/MAC\s+share", out)


def test_the_interpreter_run_is_estimated_too(m4):
    """The .pte interpreter's firmware reads the clock around rt_pte_run as main.c does
    around <name>_run: its estimate covers the interpreted inference."""
    module, example = ZOO["autoencoder"]()
    ep = torch.export.export(module, example)
    r = run_interpreter(ep, m4, cycles=True, clock_mhz=80)
    assert r.ok and r.estimate is not None and r.clock_mhz == 80
    assert abs(r.estimate.instructions - r.instructions) <= cycles_to_instructions(m4, 1)
    assert r.estimate.cycles > r.estimate.instructions


def test_boards_without_a_cycle_model_are_refused(tmp_path, capsys):
    module, example = ZOO["autoencoder"]()
    for name in ("mps2-an500",):
        board = require_board(name)
        with pytest.raises(BoardError, match=f"board {name} .* has no cycle model"):
            run_on_board(torch.export.export(module, example), board, cycles=True)
    pt2 = tmp_path / "ae.pt2"
    torch.export.save(torch.export.export(module, example), str(pt2))
    assert cli.main(["run", str(pt2), "--board", "mps2-an386", "--clock-mhz", "0"]) == 2
    assert "the clock must be a positive number of MHz" in capsys.readouterr().err
