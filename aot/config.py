"""Configuration, as frozen dataclasses with the seeds' names. Nothing else changes the output."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union


@dataclass(frozen=True)
class EdgeCompileConfig:
    """Controls the ATen -> edge lowering (``aot.to_edge``)."""
    # Run the op verifier (every op must be in mcu-aot's op table).
    _check_ir_validity: bool = True
    # Fold eval-mode batch norm into the preceding convolution or linear layer.
    fold_batch_norm: bool = True
    # Evaluate ops whose inputs are all constants at compile time.
    fold_constants: bool = True
    # A quantized model takes and returns int8 tensors instead of float32 (the quantize at
    # each input and the dequantize at each output go; the header states their qparams).
    int8_io: bool = False
    # Compute a run of a network's convolutions patch by patch (aot.passes.patch_stage,
    # chosen in to_executorch for the plan it makes) where that lowers the arena, for a price
    # (halos recomputed, copies: modelled M4 and M55 cycles) within 4% of the network's. Bit-exact,
    # and ExecuTorch runs it too (crops, pads and concatenations). False: never; (layers,
    # rows, columns): the first chain's first layers in that grid, whatever it costs.
    patches: Union[bool, tuple[int, int, int]] = True


@dataclass(frozen=True)
class MemoryPlanningPass:
    """How the arena is planned. ``algorithms`` names planners from ``aot.memory``; the suite
    keeps the smallest arena. As in ExecuTorch, graph inputs and outputs can be planned into the
    arena (the default) or left for the caller to supply."""
    alloc_graph_input: bool = True
    alloc_graph_output: bool = True
    alignment: Optional[int] = None             # None: ExecutorchBackendConfig.alignment
    algorithms: Optional[Sequence[str]] = None  # None: every planner in the suite
    # Let an op's output overlap the input it reads for the last time, where the op table
    # declares a lag its kernels honour (OpDef.overlap, aot.memory.Overlap). Only this
    # project's C runs such a plan correctly (the static C and its .pte interpreter):
    # ExecuTorch's own kernels do not honour the lags, so a .pte for its runtime keeps this off.
    overlap: bool = False


@dataclass(frozen=True)
class ExecutorchBackendConfig:
    """Controls ``to_executorch``: memory planning, emission and serialization."""
    memory_planning_pass: MemoryPlanningPass = field(default_factory=MemoryPlanningPass)
    # Alignment of planned tensors in the arena, unless memory_planning_pass sets its own.
    alignment: int = 16
    emit_stacktrace: bool = False
    extract_delegate_segments: bool = True
    extract_constant_segment: bool = True
    segment_alignment: int = 128
    constant_tensor_alignment: Optional[int] = None   # None: 16
    delegate_alignment: Optional[int] = None

    @property
    def planning_alignment(self) -> int:
        return self.memory_planning_pass.alignment or self.alignment


def backend_config(overlap: bool = False) -> ExecutorchBackendConfig:
    """The defaults, with outputs planned over their inputs' dead bytes where ``overlap``
    (MemoryPlanningPass.overlap: for mcu-aot's C runtime, not ExecuTorch's kernels)."""
    return ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(overlap=overlap))
