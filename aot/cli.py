"""The ``aot`` command line. Errors the user can fix print one line and exit 2."""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import torch

from . import quantization
from .api import to_edge
from .atomic import describe, write_file
from .boards import list_boards, load_board, missing_tools
from .codegen.c import generate_c
from .codegen.report import format_c_report
from .config import EdgeCompileConfig, backend_config
from .errors import AotError
from .firmware import format_run_report, generate_firmware, run_on_board
from .firmware.interp import generate_interpreter_firmware, run_interpreter
from .library import check_arch, library_files, write_library
from .loading import load_model, load_pt2
from .memory import render_arena_svg
from .passes.verify_program import executorch_lacks
from .profile import format_profile, render_profile_svg
from .quiet import quiet_third_party
from .report import format_report
from .zoo import ZOO, calibration_set


def cmd_report(args) -> int:
    edge = to_edge(load_pt2(args.model), compile_config=EdgeCompileConfig(
        int8_io=args.int8_io, patches=args.patches is not False))
    manager = edge.to_executorch(backend_config(args.overlap))
    # (without --overlap, what it would plan: the same program planned again)
    overlapped = None if args.overlap else edge.to_executorch(backend_config(True))
    for name in sorted(manager.methods):
        method = manager.lowered(name)
        more = overlapped.lowered(name).plan.arena_size if overlapped is not None else None
        print(format_report(method, f"{Path(args.model).name} :: {name}", more))
        if args.svg:
            labels = {t.id: t.name for t in method.graph.tensors}
            write_file(args.svg, render_arena_svg(method.buffers, method.plan, labels), args.svg)
            print(f"arena map    {args.svg}")
    return 0


def cmd_compile(args) -> int:
    check_arch(args.arch)
    model = load_model(args.model, int8_io=args.int8_io, overlap=args.overlap,
                       patches=args.patches)
    sources = generate_c(model, name=args.name, method=args.method)   # fails before writing
    files = library_files(sources, args.arch, label=Path(args.model).name, method=args.method)
    if hasattr(model, "buffer"):
        files[f"{sources.name}.pte"] = model.buffer
    report = format_c_report(sources)
    files[f"{sources.name}_report.txt"] = report.encode()
    out = write_library(files, args.output)
    print(report)
    runtime = sum(1 for f in files if f.startswith("runtime_c/src/") and f.endswith(".c"))
    print(f"wrote {out}/: {sources.name}.c/.h, CMakeLists.txt (library {sources.name}), "
          f"README.md, {runtime} runtime files ({args.arch})"
          + (f", {sources.name}.pte" if hasattr(model, "buffer") else ""))
    if hasattr(model, "buffer") and args.overlap:
        print(f"note: {sources.name}.pte is planned with --overlap: it runs on mcu-aot's C "
              "runtime (its interpreter), not on ExecuTorch's, whose kernels do not keep the "
              "overlaps' loop order")
    elif hasattr(model, "buffer"):
        lacks = executorch_lacks(model.executorch_program)
        other = [op for op in lacks if not op.startswith("cortex_m::")]
        if lacks and not other:
            print(f"note: {sources.name}.pte calls ExecuTorch's cortex_m (int8) ops: it runs on "
                  "ExecuTorch's Cortex-M backend and on mcu-aot's C runtime, not on "
                  "ExecuTorch's portable kernels")
        elif lacks:
            print(f"note: ExecuTorch's portable runtime has no kernel for {', '.join(other)}: "
                  f"{sources.name}.pte runs on mcu-aot's C runtime, not on ExecuTorch's")
    return 0


def cmd_zoo(args) -> int:
    if args.name not in ZOO:
        raise AotError(f"unknown zoo model {args.name!r}; known: {', '.join(sorted(ZOO))}")
    model, example = ZOO[args.name]()
    if args.int8:
        ep = quantization.quantize(model, example, calibration_set(args.name))
    else:
        ep = torch.export.export(model, example)
    out = Path(args.output)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    write_file(out, buf.getvalue(), args.output)
    kind = "int8 (PT2E, Int8Quantizer)" if args.int8 else "float32"
    print(f"wrote {out} ({args.name}, {kind}, input {tuple(example[0].shape)})")
    return 0


def cmd_boards(args) -> int:
    rows = [("board", "cpu", "flash", "RAM", "stack", "runs under", "tools")]
    for name in list_boards():
        b = load_board(name)
        kib = lambda n: f"{n // 1024:,} KiB" if n is not None else "-"
        missing = missing_tools(b)
        rows.append((b.name, b.cpu, kib(b.flash.length if b.flash else None),
                     kib(b.ram.length if b.ram else None), kib(b.stack_size),
                     f"{b.qemu.system} -M {b.qemu.machine}" if b.qemu else "this machine",
                     "missing " + ", ".join(missing) if missing else "installed"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


def _interpreter_args(args) -> dict:
    """The --interpreter options, refusing those of the static C path."""
    for flag, given in (("--name", args.name is not None),
                        ("--weights-section", args.weights_section is not None),
                        ("--profile", getattr(args, "profile", False))):
        if given:
            raise AotError(f"{flag} is for the static C; the interpreter runs the .pte as it "
                           "is (drop --interpreter, or the option)")
    return dict(programs=args.programs or (), all_kernels=args.all_kernels,
                arena_bytes=args.arena_size, pte_capacity=args.pte_capacity)


def _static_args(args) -> None:
    for flag, given in (("--programs", args.programs), ("--all-kernels", args.all_kernels),
                        ("--arena-size", args.arena_size is not None),
                        ("--pte-capacity", args.pte_capacity is not None),
                        ("--swap", getattr(args, "swap", None))):
        if given:
            raise AotError(f"{flag} is an option of the interpreter: give --interpreter too")
    args.name = args.name or "model"


def cmd_firmware(args) -> int:
    if args.interpreter:
        p = generate_interpreter_firmware(args.model, args.board, args.output,
                                          inputs=args.inputs, method=args.method,
                                          int8_io=args.int8_io, overlap=args.overlap,
                                          patches=args.patches,
                                          **_interpreter_args(args))
        print(f"wrote {len(p.files)} files to {p.directory}/: the interpreter with "
              f"{p.label} for {p.board.name} ({p.board.cpu}); kernel table of "
              f"{len(p.table.adapters) - 1} operator(s)")
        print(f"program slot {p.pte_capacity:,} bytes (holds {len(p.pte):,}), arena "
              f"{p.arena_bytes:,} bytes; slot images: model_pte.slot, inputs.slot")
        print(f"build: make -C {args.output}    run: make -C {args.output} run")
        return 0
    _static_args(args)
    p = generate_firmware(args.model, args.board, args.output, inputs=args.inputs,
                          name=args.name, method=args.method, int8_io=args.int8_io,
                          overlap=args.overlap, patches=args.patches,
                          weights_section=args.weights_section)
    fp, b = p.footprint, p.board
    fit = lambda need, region: f"~{need:,} bytes" + (f" of {region.length:,}" if region else "")
    print(f"wrote {len(p.files)} files to {p.directory}/: {p.name} ({p.model}) for {b.name} "
          f"({b.cpu}), inputs {'from ' + ', '.join(args.inputs) if args.inputs else 'seeded random'}")
    print(f"flash {fit(fp.flash, b.flash)}, RAM {fit(fp.ram, b.ram)} "
          f"(arena {p.sources.arena_size:,}, constants {p.sources.constant_bytes:,})")
    print(f"build: make -C {args.output}    run: make -C {args.output} run")
    return 0


def cmd_run(args) -> int:
    if args.svg and not args.profile:
        raise AotError("--svg draws the per-layer profile: give --profile too")
    if args.interpreter:
        if args.swap_inputs and not args.swap:
            raise AotError("--swap-inputs are the inputs of --swap's program: give --swap too")
        report = run_interpreter(args.model, args.board, inputs=args.inputs, method=args.method,
                                 out_dir=args.output, timeout=args.timeout,
                                 tolerance=args.tolerance, int8_io=args.int8_io,
                                 overlap=args.overlap, patches=args.patches,
                                 lsb_tolerance=args.lsb_tolerance, swap=args.swap,
                                 swap_inputs=args.swap_inputs, cycles=args.cycles,
                                 clock_mhz=args.clock_mhz, **_interpreter_args(args))
        print(format_run_report(report))
        return 0 if report.ok else 1
    _static_args(args)
    report = run_on_board(args.model, args.board, inputs=args.inputs, name=args.name,
                          method=args.method, out_dir=args.output, timeout=args.timeout,
                          tolerance=args.tolerance, int8_io=args.int8_io,
                          overlap=args.overlap, patches=args.patches,
                          lsb_tolerance=args.lsb_tolerance, profile=args.profile,
                          weights_section=args.weights_section, cycles=args.cycles,
                          clock_mhz=args.clock_mhz)
    print(format_run_report(report))
    if report.profile is not None:
        print()
        print(format_profile(report.profile))
        if args.svg:
            write_file(args.svg, render_profile_svg(report.profile), args.svg)
            print(f"profile chart  {args.svg}")
    return 0 if report.ok else 1


def _lowering_flags(p) -> None:
    p.add_argument("--int8-io", action="store_true", help="a quantized model takes and "
                   "returns int8 (the header states each one's scale and zero point)")
    p.add_argument("--overlap", action="store_true", help="plan outputs over their inputs' "
                   "dead bytes where the kernels allow (int8 convolutions of up to 64 "
                   "filters, float32 pointwise and same-padding ones, depthwise layers, "
                   "pools): a smaller arena, for mcu-aot's C runtime only (docs/memory.md)")
    p.add_argument("--patches", action=argparse.BooleanOptionalAction, default=None,
                   help="compute a run of a network's convolutions patch by patch where that "
                   "lowers the arena, for at most 4%% more cycles in halos and copies (as "
                   "modelled for the M4 and the M55; bit-exact; with --overlap it may start "
                   "mid-network: docs/memory.md). On by default for a .pt2; --no-patches "
                   "turns it off")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="aot", description="mcu-aot: PyTorch models to "
                                "microcontrollers, ahead of time.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("report", help="per-op table and the arena against its lower bound")
    r.add_argument("model", help="a torch.export .pt2 file")
    r.add_argument("--svg", help="also draw the arena (offset against time) to this SVG file")
    _lowering_flags(r)
    r.set_defaults(func=cmd_report)
    c = sub.add_parser("compile", help="write the model as a C library folder (CMake target, "
                       "its runtime files, README) and its .pte")
    c.add_argument("model", help="a torch.export .pt2 file, or a .pte file")
    c.add_argument("-o", "--output", required=True, help="output directory")
    c.add_argument("--name", default="model", help="C symbol prefix and file name (model)")
    c.add_argument("--method", default="forward")
    c.add_argument("--arch", default="portable", help="runtime kernels to include: portable "
                   "(any C99 compiler), cortex_m_dsp (M4, M7, M33), cortex_m_mve (M55), "
                   "x86_64")
    _lowering_flags(c)
    c.set_defaults(func=cmd_compile)
    z = sub.add_parser("zoo", help="export one of the MLPerf Tiny reference networks to .pt2")
    z.add_argument("name", help="kws, vww, resnet8 or autoencoder")
    z.add_argument("-o", "--output", required=True)
    z.add_argument("--int8", action="store_true", help="quantize it (PT2E, Int8Quantizer, "
                   "calibrated on seeded random inputs)")
    z.set_defaults(func=cmd_zoo)
    b = sub.add_parser("boards", help="list the boards: CPU, flash, RAM, and their tools")
    b.set_defaults(func=cmd_boards)
    for cmd, func, text in (
            ("firmware", cmd_firmware, "write a firmware project (make -C DIR builds it)"),
            ("run", cmd_run, "build and run the model on a board (QEMU), compare with torch")):
        f = sub.add_parser(cmd, help=text)
        f.add_argument("model", help="a torch.export .pt2 file, or a .pte file")
        f.add_argument("--board", required=True, help="a board name (see: aot boards)")
        f.add_argument("--inputs", nargs="+", metavar="NPY", help="one .npy file per model "
                       "input (default: seeded random inputs)")
        f.add_argument("--name", help="C symbol prefix and file name (model)")
        f.add_argument("--method", default="forward")
        f.add_argument("--interpreter", action="store_true", help="run the .pte with the "
                       "interpreter of runtime_c instead of generated C: the program in a "
                       "flash slot of its own, swappable without a relink")
        f.add_argument("--programs", nargs="+", metavar="PTE", help="with --interpreter: more "
                       ".pte files the firmware must run (their kernels linked, room in the "
                       "slots and arena)")
        f.add_argument("--all-kernels", action="store_true", help="with --interpreter: link "
                       "the kernel of every operator, not only the programs' ones")
        f.add_argument("--arena-size", type=int, metavar="BYTES", help="with --interpreter: "
                       "reserve this much arena (default: what the programs need)")
        f.add_argument("--pte-capacity", type=int, metavar="BYTES", help="with "
                       "--interpreter: the program slot's size (default: the largest program)")
        f.add_argument("--weights-section", metavar="SECTION", help="put the model's "
                       "constants in this linker section (the board's script must place it: "
                       ".model_weights on the QEMU boards)")
        if cmd == "firmware":
            f.add_argument("-o", "--output", required=True, help="project directory")
        else:
            f.add_argument("-o", "--output", help="keep the project here (default: a "
                           "temporary directory)")
            f.add_argument("--timeout", type=float, default=60.0, help="seconds (60)")
            f.add_argument("--tolerance", type=float, default=1e-4,
                           help="largest max abs error accepted (1e-4)")
            f.add_argument("--lsb-tolerance", type=float, default=3.0,
                           help="for a quantized model: largest error accepted, in output "
                           "steps (3)")
            f.add_argument("--profile", action="store_true", help="also print what each "
                           "kernel call costs (instructions under QEMU, ns on the host)")
            f.add_argument("--cycles", action="store_true", help="also estimate Cortex-M4 "
                           "cycles from exact per-instruction counts (mps2-an386; per call "
                           "with --profile; see docs/cycles.md)")
            f.add_argument("--clock-mhz", type=float, metavar="F", help="with --cycles (which "
                           "it implies): also print the latency at F MHz")
            f.add_argument("--svg", help="with --profile: draw it as a bar chart to this SVG")
            f.add_argument("--swap", metavar="PTE", help="with --interpreter: build the "
                           "firmware for MODEL, then run this program on it instead, written "
                           "over the slot by QEMU's loader (no relink)")
            f.add_argument("--swap-inputs", nargs="+", metavar="NPY", help="the inputs of "
                           "--swap's program (default: seeded random)")
        _lowering_flags(f)
        f.set_defaults(func=func)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    quiet_third_party()
    try:
        return args.func(args)
    except AotError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:          # the filesystem refused something the checks did not foresee
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{describe(e)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
