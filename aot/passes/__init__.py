"""The named passes of the lowering, in the order they run.

Edge passes take and return an ExportedProgram. The executorch stage hands typed values on:
ExportedProgram -> MethodGraph (out-variant calls) -> MemoryPlan -> Program.
"""
from functools import partial

from .check_static_shapes import check_static_shapes
from .check_training_mode import check_training_mode
from .decompose_to_core import decompose_to_core
from .fold_batch_norm import fold_batch_norm
from .fold_constants import fold_constants
from .lift_constants import lift_constants
from .lower_quantized import lower_quantized
from .lower_scalar_operands import lower_scalar_operands
from .promote_types import promote_types
from .remove_asserts import remove_asserts
from .replace_views import replace_views
from .verify_ops import unsupported_ops, verify_ops


def edge_passes(config):
    """ATen -> edge: the list ``to_edge`` runs, one line per named pass."""
    passes = [
        check_static_shapes,      # static shapes only: we plan memory ahead of time
        partial(lower_quantized, int8_io=config.int8_io),   # PT2E dq -> op -> q: int8 kernels
        decompose_to_core,        # core ATen is what the op table covers
        check_training_mode,      # batch norm must be in eval mode
        remove_asserts,           # run-time asserts have no kernel and no effect on outputs
        replace_views,            # views become *_copy ops, later zero-copy aliases
        lift_constants,           # tensor attributes become constant inputs
        lower_scalar_operands,    # numbers in tensor slots: scalar overloads or constants
        promote_types,            # every op sees one dtype
    ]
    if config.fold_constants:
        passes.append(fold_constants)    # weight transposes and casts happen now, not at run time
    if config.fold_batch_norm:
        passes.append(fold_batch_norm)   # BN(eval) disappears into conv / linear weights
    if config._check_ir_validity:
        passes.append(verify_ops)        # one error naming every unsupported op and its line
    return passes
