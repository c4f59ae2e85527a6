"""mcu-aot: ahead-of-time compilation of PyTorch models to microcontrollers."""
from .api import (EdgeProgramManager, export, to_edge, to_edge_transform_and_lower)
from .backend import LoweredBackendModule, to_backend
from .codegen.c import CSources, generate_c
from .config import EdgeCompileConfig, ExecutorchBackendConfig, MemoryPlanningPass
from .errors import AotError
from .executorch import ExecutorchProgramManager
from .profile import Profile, format_profile, render_profile_svg
from .pte import load_program
from . import backends  # noqa: F401  (registers the backends that ship with mcu-aot: the one place)
from . import quantization, zoo


def quantize(model, example_inputs, calibration, quantizer=None):
    """PT2E int8 (see ``aot.quantization.quantize``): the converted ExportedProgram."""
    return quantization.quantize(model, example_inputs, calibration, quantizer)


def __getattr__(name):
    if name == "Int8Quantizer":              # imports torchao: only when asked for
        return quantization.Int8Quantizer
    raise AttributeError(f"module 'aot' has no attribute {name!r}")


__all__ = ["to_edge", "to_edge_transform_and_lower", "export", "EdgeProgramManager",
           "ExecutorchProgramManager", "EdgeCompileConfig", "ExecutorchBackendConfig",
           "MemoryPlanningPass", "AotError", "generate_c", "CSources", "load_program",
           "to_backend", "LoweredBackendModule", "quantize", "Int8Quantizer",
           "Profile", "format_profile", "render_profile_svg"]
