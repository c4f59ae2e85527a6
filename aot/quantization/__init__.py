"""int8: PT2E quantization (``Int8Quantizer``, ``quantize``), the int8 ops of a lowered graph
(``ops``) and the fixed-point arithmetic the int8 kernels compute (``arith``). The lowering of
quantized graphs is the edge pass ``aot.passes.lower_quantized``.

The quantizer imports torchao, so it loads on first use."""
from ..errors import AotError


def __getattr__(name):
    if name in ("Int8Quantizer", "quantize"):
        try:
            from . import quantizer   # optional: it imports torchao
        except ModuleNotFoundError as e:
            if e.name is None or not e.name.startswith("torchao"):
                raise
            raise AotError("int8 quantization needs torchao (PT2E): pip install "
                           "'mcu-aot[int8]' (or torchao==0.18.*)") from None
        return getattr(quantizer, name)
    raise AttributeError(f"module 'aot.quantization' has no attribute {name!r}")


__all__ = ["Int8Quantizer", "quantize"]
