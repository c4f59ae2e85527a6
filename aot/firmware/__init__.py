"""Firmware: one model on one board, as a project folder that ``make`` builds on its own.

    project = generate_firmware("kws.pt2", "mps2-an386", "out/kws")   # make -C out/kws
    report = run_on_board("kws.pt2", "mps2-an386")                  # build, QEMU, compare
    print(format_run_report(report))

A project holds everything its build reads, and nothing else:
    Makefile               sets SOURCES and includes boards/common/firmware.mk
    main.c                 from codegen_templates/firmware_main.c.j2: the inputs, the arena in
                           .bss, one timed <name>_run, every output value printed
    <name>.c, <name>.h     the generated model (aot.codegen.c)
    runtime_c/             include/ and only the src/ files the model calls
    boards/                the board's folder and the boards/common files its build uses
    inputs_<k>.npy         the inputs main.c embeds (given, or seeded random ones)
The same model, board and inputs always give byte-identical files.

The package reads in the order the work happens:
    model.py     what it is made from: the model as a Program, its reference, the inputs
    fit.py       what is checked: the footprint against the board's flash and RAM
    project.py   what is generated: the project's files, written atomically
    run.py       what is run: build, QEMU, the board's output parsed and compared
    interp.py    the same for the .pte interpreter: the program in a flash slot of its own
"""
from .fit import (CODE_BASE, CODE_PER_CALL, CODE_PER_RUNTIME_FILE, RAM_BASE, Footprint,
                  check_fit, check_program_fits, estimate_footprint)
from .model import DEFAULT_SEED, Reference, check_inputs, output_scales, random_inputs
from .project import (MARKER, RESERVED_NAMES, FirmwareProject, board_runtime, generate_firmware,
                      project_files, render_main, render_makefile, runtime_files)
from .run import (DEFAULT_TOLERANCE, LSB_TOLERANCE, RunReport, elf_size, format_run_report,
                  max_abs_error, parse_outputs, run_on_board)
from .interp import (InterpreterProject, generate_interpreter_firmware, run_interpreter,
                     slot_image)
from .model import _executorch  # noqa: F401  (tests patch the ExecuTorch reference)
from .run import _build  # noqa: F401  (bench/ builds projects it has generated)

__all__ = ["CODE_BASE", "CODE_PER_CALL", "CODE_PER_RUNTIME_FILE", "RAM_BASE", "Footprint",
           "check_fit", "check_program_fits", "estimate_footprint", "DEFAULT_SEED",
           "Reference", "check_inputs", "output_scales", "random_inputs", "MARKER",
           "RESERVED_NAMES", "FirmwareProject", "board_runtime", "generate_firmware",
           "project_files", "render_main", "render_makefile", "runtime_files",
           "DEFAULT_TOLERANCE", "LSB_TOLERANCE", "RunReport", "elf_size", "format_run_report",
           "max_abs_error", "parse_outputs", "run_on_board", "InterpreterProject",
           "generate_interpreter_firmware", "run_interpreter", "slot_image"]
