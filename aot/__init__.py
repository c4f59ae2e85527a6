"""mcu-aot: ahead-of-time compilation of PyTorch models to microcontrollers."""
from .api import (EdgeProgramManager, export, to_edge, to_edge_transform_and_lower)
from .backend import LoweredBackendModule, to_backend
from .codegen.c import CSources, generate_c
from .config import EdgeCompileConfig, ExecutorchBackendConfig, MemoryPlanningPass
from .errors import AotError
from .executorch import ExecutorchProgramManager
from .pte import load_program
from . import zoo

__all__ = ["to_edge", "to_edge_transform_and_lower", "export", "EdgeProgramManager",
           "ExecutorchProgramManager", "EdgeCompileConfig", "ExecutorchBackendConfig",
           "MemoryPlanningPass", "AotError", "generate_c", "CSources", "load_program",
           "to_backend", "LoweredBackendModule"]
