"""mcu-aot: ahead-of-time compilation of PyTorch models to microcontrollers."""
from .api import (EdgeProgramManager, export, to_edge, to_edge_transform_and_lower)
from .config import EdgeCompileConfig, ExecutorchBackendConfig, MemoryPlanningPass
from .errors import AotError

__all__ = ["to_edge", "to_edge_transform_and_lower", "export", "EdgeProgramManager",
           "EdgeCompileConfig", "ExecutorchBackendConfig", "MemoryPlanningPass", "AotError"]
