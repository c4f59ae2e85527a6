"""The op table's int8 ops (aot/quantization/ops.py, ExecuTorch's cortex_m names): their calls
into runtime_c, declared once (aot/opspec.py).

int8 tensors are NHWC feature maps or plain arrays: the shapes the kernels take are the
physical layout.
"""
from __future__ import annotations

from .opspec import (INT32_MAX, INVALID, UNSUPPORTED, Call, CallSpec, Dim, DimList, F32, Int,
                     Number, Out, Params, Pre, Read, Require, Select, Tensor)


def _i8(name: str) -> Tensor:
    return Tensor(name, "int8")


_out = Out("out", "int8")

_qmin, _qmax = Int("quant_min", -128, 127), Int("quant_max", -128, 127)
_zero_point = Int("zero_point", -128, 127)

# quantize: float32 -> int8 at 1 / scale (a float32 reciprocal, as TFLite Micro takes it).
_fx, _scale = Tensor("input"), Number("scale")
_quantize = Params("rt_quant_params", scale=F32(1.0 / _scale), zero_point=_zero_point,
                   qmin=_qmin, qmax=_qmax)
_QUANTIZE = CallSpec(Read(_fx, _out),
                     Require(_scale > 0.0, INVALID, "a scale that is not positive"),
                     Require(_fx.same_shape(_out), INVALID, "an output of another shape"),
                     Read(_qmin, _qmax, _quantize),
                     Require(_qmin <= _qmax, INVALID, "an empty quantization range"),
                     Call("rt_quantize_f32_s8", _quantize, _fx, _out))

# dequantize: int8 -> float32 at scale (as a float32).
_qx, _fout = _i8("input"), Out("out")
_dequantize = Params("rt_quant_params", scale=F32(_scale), zero_point=_zero_point, qmin=_qmin,
                     qmax=_qmax)
_DEQUANTIZE = CallSpec(Read(_qx, _fout),
                       Require(_qx.same_shape(_fout), INVALID, "an output of another shape"),
                       Call("rt_dequantize_s8_f32", _dequantize, _qx, _fout))


def _minmax(kernel: str) -> CallSpec:
    """maximum / minimum of two int8 tensors of one scale (the kernel broadcasts)."""
    return CallSpec(Call(kernel, _i8("self"), _i8("other"), _out))


# quantized_activation: any int8 -> int8 function, as a 256-entry table.
_x, _lut = _i8("input"), _i8("lut")
_LUT = CallSpec(Read(_x, _out, _lut),
                Require(_lut.numel.eq(256), INVALID, "a lookup table of other than 256 entries"),
                Require(_x.same_shape(_out), INVALID, "an output of another shape"),
                Call("rt_lut_s8", _lut.data, _x, _out))

# softmax over the last dim, out at zero point -128 (scale 1/256), with the precondition that
# its scaled differences fit int32.
_rank = Select(_x.rank > 1, _x.rank, 1)
_shift, _diff_min = Int("input_shift", 0, 31), Int("diff_min", hi=0)
_softmax = Params("rt_softmax_s8_params", mult=Int("input_multiplier", 0, INT32_MAX),
                  shift=_shift, diff_min=_diff_min)
_SOFTMAX = CallSpec(
    Read(_x, _out),
    Require(Dim("dim", of=_x).eq(_rank - 1), UNSUPPORTED, "int8 softmax over a dim other than "
                                                          "the last"),
    Require(Int("output_zero_point").eq(-128), INVALID,
            "int8 softmax outputs at zero point -128 (scale 1/256)"),
    Require(_x.same_shape(_out), INVALID, "an output of another shape"),
    Read(_shift, _diff_min, _softmax),
    Pre("softmax_scaling_fits", shift=_shift, diff_min=_diff_min),
    Call("rt_softmax_s8", _softmax, _x, _out))

# transpose: a permutation of any dtype the runtime takes (int8 maps, int32 biases).
_tx = Tensor("input", dtype=None)
_tout = Out("out", dtype=None)
_perm = DimList("perm", of=_tx, perm=True)
_TRANSPOSE = CallSpec(Read(_tx, _tout, _perm),
                      Require(_tx.dtype_code.eq(_tout.dtype_code), INVALID,
                              "a transpose into another dtype"),
                      Call("rt_permute", _tx.elem_size, _perm, _tx, _tout))

INT8 = {
    "quantize_per_tensor": _QUANTIZE,
    "dequantize_per_tensor": _DEQUANTIZE,
    "maximum": _minmax("rt_maximum_s8"),
    "minimum": _minmax("rt_minimum_s8"),
    "quantized_activation": _LUT,
    "softmax": _SOFTMAX,
    "transpose": _TRANSPOSE,
}
