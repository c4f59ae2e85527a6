"""Every error mcu-aot raises on purpose derives from AotError and reads as one clear message.

The CLI prints ``error: <message>`` and exits 2 for these; anything else is a bug in mcu-aot.
"""


class AotError(Exception):
    """Base class: a problem with the user's model, file, board or options."""


class ExportFailure(AotError):
    """The model could not be traced by torch.export."""


class UnsupportedOpError(AotError):
    """One or more ops have no kernel. The message lists every one with its source line."""

    def __init__(self, missing: list[tuple[str, str]], where: str = "mcu-aot"):
        self.missing = missing
        lines = "\n".join(f"  {op}  at {src}" for op, src in missing)
        super().__init__(f"{len(missing)} unsupported op(s) for {where}:\n{lines}")


class DynamicShapeError(AotError):
    """A tensor has a symbolic dimension; mcu-aot plans static shapes only."""


class TrainingModeError(AotError):
    """The model was exported in training mode (e.g. batch norm updating running stats)."""


class PteFormatError(AotError):
    """A .pte file is truncated, has the wrong identifier, or is otherwise malformed."""


class UnsupportedCallError(UnsupportedOpError, PteFormatError):
    """Calls of operators the C runtime has, with arguments none of its kernels takes (a
    dtype, a layout, a kind of argument). A program read from a .pte that makes such a call
    is a file the C interpreter refuses at load, so this is a PteFormatError too. The message
    lists every such call with its instruction and source line."""


class PlanError(AotError):
    """A memory plan is invalid (overlap, misalignment) or a tensor cannot be planned."""


class BoardError(AotError):
    """An unknown board, a missing toolchain, or a model that does not fit the board."""


class BackendError(AotError):
    """A delegation problem: unknown backend, bad partition, or a failing preprocess."""


class QuantizationError(AotError):
    """A quantized model mcu-aot cannot run as int8: a dtype or scheme other than static int8,
    or a model prepared for quantization but never calibrated."""
