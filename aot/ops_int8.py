"""The op table's int8 ops (aot/quantization/ops.py, ExecuTorch's cortex_m names): their calls
into runtime_c, declared once (aot/opspec.py).

int8 tensors are NHWC feature maps or plain arrays: the shapes the kernels take are the
physical layout.
"""
from __future__ import annotations

from .opspec import (INT32_MAX, INVALID, UNSUPPORTED, Bool, Call, CallSpec, Dim, DimList, F32,
                     Fn, If, Int, Ints, Lit, Number, Out, Params, Pre, Read, Require, Select,
                     Tensor, Window)
from .quantization.arith import (ADD_HALF, ADD_IN_MAX, ADD_LEFT_SHIFT, MUL_IN_MAX,
                                 REQUANT_OUT_MAX, requant_max)


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

# -- elementwise: add and mul of two int8 tensors (the kernels broadcast) -----------------------

def _act() -> tuple:
    """The activation's [lo, hi] (int8; not empty)."""
    lo, hi = Int("activation_min", -128, 127), Int("activation_max", -128, 127)
    return lo, hi, (Read(lo, hi), Require(lo <= hi, INVALID, "an empty activation range"))


def _requant(prefix: str, mult_lo: int = 0) -> tuple[Int, Int]:
    return Int(f"{prefix}_multiplier", mult_lo, INT32_MAX), Int(f"{prefix}_shift", -31, 31)


def _offset(name: str):
    """-zero_point: what the kernel adds to an input."""
    return -Int(name, -128, 127)


def _requant_max(in_max, mult, shift) -> Fn:
    return Fn("rt_pte_requant_max", requant_max, in_max, mult, shift, ctype="uint64_t")


# quantized_add: each input rescaled (the second's multiplier may be negative: a subtraction),
# summed, requantized; each rescaled input within 2^30 - 1, so that their sum fits int32.
_a, _b = _i8("self"), _i8("other")
_lo, _hi, _act_read = _act()
_m1, _s1 = _requant("self")
_m2, _s2 = _requant("other", -INT32_MAX)
_mo, _so = _requant("output")
_add = Params("rt_add_s8_params", in1_offset=_offset("self_zero_point"), in1_mult=_m1,
              in1_shift=_s1, in2_offset=_offset("other_zero_point"), in2_mult=_m2, in2_shift=_s2,
              left_shift=ADD_LEFT_SHIFT, out_offset=Int("output_zero_point", -128, 127),
              out_mult=_mo, out_shift=_so, act_min=_lo, act_max=_hi)
_sum_max = _requant_max(ADD_IN_MAX, _m1, _s1) + _requant_max(ADD_IN_MAX, _m2, _s2)
_ADD = CallSpec(Read(_a, _b, _out), *_act_read, Read(_add),
                *(Pre("requant_shift", mult=m, shift=s, mult_lo=lo, in_max=in_max,
                      out_max=out_max, what=m.name)
                  for m, s, lo, in_max, out_max in
                  ((_m1, _s1, 0, ADD_IN_MAX, ADD_HALF), (_m2, _s2, -INT32_MAX, ADD_IN_MAX, ADD_HALF),
                   (_mo, _so, 0, _sum_max, REQUANT_OUT_MAX))),
                Call("rt_add_s8", _add, _a, _b, _out))

# quantized_mul: the product of the two offset inputs, requantized.
_mm, _ms = _requant("output")
_mul = Params("rt_mul_s8_params", in1_offset=_offset("self_zero_point"),
              in2_offset=_offset("other_zero_point"),
              out_offset=Int("output_zero_point", -128, 127), out_mult=_mm, out_shift=_ms,
              act_min=-128, act_max=127)
_MUL = CallSpec(Read(_a, _b, _out, _mul),
                Pre("requant_shift", mult=_mm, shift=_ms, mult_lo=0, in_max=MUL_IN_MAX,
                    out_max=REQUANT_OUT_MAX, what=_mm.name),
                Call("rt_mul_s8", _mul, _a, _b, _out))


# -- pooling of NHWC maps -------------------------------------------------------------------------

def _nhwc(t: Tensor) -> tuple:
    return Read(t), Require(t.rank.eq(4), UNSUPPORTED, f"int8 {t.name} of a rank other than 4")


def _pool(average: bool) -> CallSpec:
    """quantized_avg_pool2d_nhwc / quantized_max_pool2d_nhwc, with the precondition
    pool_geometry_fits (and for an average, that a window's sum fits int32: up to 128 a tap,
    and half the count to round). An average over the whole map with no padding is the global
    kernel (KWS ends so)."""
    x, out = _i8("input"), Out("out", "int8")
    k, s, pad = (Ints(name, n=2, lo=lo) for name, lo in
                 (("kernel_size", 1), ("stride", 1), ("padding", 0)))
    dil = Ints("dilation", n=2, lo=1)
    if average:
        lo, hi, act_read, d = Lit(-128), Lit(127), (), (Lit(1), Lit(1))
    else:
        (lo, hi, act_read), d = _act(), (dil.at(0), dil.at(1))
    params = Params("rt_pool_s8_params", kernel_h=k.at(0), kernel_w=k.at(1), stride_h=s.at(0),
                    stride_w=s.at(1), pad_h=pad.at(0), pad_w=pad.at(1), dilation_h=d[0],
                    dilation_w=d[1], act_min=lo, act_max=hi)
    h, w = (Window(x.size(1 + i), k.at(i), s.at(i), pad.at(i), d[i], out.size(1 + i))
            for i in (0, 1))
    geometry = Pre("pool_geometry_fits", struct="rt_pte_pool_geometry", h=h, w=w,
                   batch=x.size(0), channels=x.size(3), ceil_mode=Bool("ceil_mode"),
                   average=Lit(int(average)))
    shape = Require(out.size(0).eq(x.size(0)) & out.size(3).eq(x.size(3)), INVALID,
                    "pooling into an output of another batch or channel count")
    if not average:
        return CallSpec(*_nhwc(x), *_nhwc(out), Read(dil), *act_read, Read(k, s, pad), shape,
                        Read(params), geometry, Call("rt_max_pool2d_s8", params, x, out))
    taps = Select(k.at(0) < x.size(1), k.at(0), x.size(1)) * \
        Select(k.at(1) < x.size(2), k.at(1), x.size(2))
    whole = k.at(0).eq(x.size(1)) & k.at(1).eq(x.size(2)) & pad.at(0).eq(0) & \
        pad.at(1).eq(0) & out.size(1).eq(1) & out.size(2).eq(1)
    return CallSpec(*_nhwc(x), *_nhwc(out), Read(k, s, pad), shape, Read(params), geometry,
                    Pre("accumulator_fits", call=True, terms=taps, term_max=129,
                        bias=Lit(None, c="NULL"), n=0, what="kernel_size"),
                    If(whole, Call("rt_global_avg_pool2d_s8", params, x, out),
                       Call("rt_avg_pool2d_s8", params, x, out)))


INT8 = {
    "quantize_per_tensor": _QUANTIZE,
    "dequantize_per_tensor": _DEQUANTIZE,
    "maximum": _minmax("rt_maximum_s8"),
    "minimum": _minmax("rt_minimum_s8"),
    "quantized_activation": _LUT,
    "softmax": _SOFTMAX,
    "transpose": _TRANSPOSE,
    "quantized_add": _ADD,
    "quantized_mul": _MUL,
    "quantized_avg_pool2d_nhwc": _pool(average=True),
    "quantized_max_pool2d_nhwc": _pool(average=False),
}
