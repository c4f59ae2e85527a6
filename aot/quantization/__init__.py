"""int8: PT2E quantization (``Int8Quantizer``, ``quantize``), the int8 ops of a lowered graph
(``ops``) and the fixed-point arithmetic the int8 kernels compute (``arith``). The lowering of
quantized graphs is the edge pass ``aot.passes.lower_quantized``.

The quantizer imports torchao, so it loads on first use."""


def __getattr__(name):
    if name in ("Int8Quantizer", "quantize"):
        from . import quantizer
        return getattr(quantizer, name)
    raise AttributeError(f"module 'aot.quantization' has no attribute {name!r}")


__all__ = ["Int8Quantizer", "quantize"]
