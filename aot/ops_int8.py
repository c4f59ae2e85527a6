"""The op table's int8 ops (aot/quantization/ops.py, ExecuTorch's cortex_m names): their calls
into runtime_c, declared once (aot/opspec.py).

int8 tensors are NHWC feature maps or plain arrays: the shapes the kernels take are the
physical layout.
"""
from __future__ import annotations

from .opspec import (INT32_MAX, INVALID, UNSUPPORTED, Bool, Call, CallSpec, Dim, DimList, F32,
                     Fn, If, Int, IntArray, Ints, IsNone, Lit, Number, Opt, Out, Params, Pre,
                     Read, Require, Scratch, Select, Tensor, Value, Window)
from .quantization.arith import (ADD_HALF, ADD_IN_MAX, ADD_LEFT_SHIFT, LOG_SOFTMAX_ROW_MAX,
                                 MUL_IN_MAX, MUL_S16_IN_MAX, REQUANT_OUT_MAX, requant_max)


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

# log_softmax (ours: ExecuTorch's cortex_m has none) over the last dim, out at scale 16/256,
# zero point 127, as TFLite Micro's LOG_SOFTMAX; rows of up to LOG_SOFTMAX_ROW_MAX (the sum of
# their exps fits its Q12.19).
_log_softmax = Params("rt_log_softmax_s8_params", mult=Int("input_multiplier", 0, INT32_MAX),
                      shift=Int("input_shift", 0, 31),
                      rev_mult=Int("reverse_multiplier", 0, INT32_MAX),
                      rev_shift=Int("reverse_shift", -31, 0),
                      diff_min=Int("diff_min", -INT32_MAX, 0))
_LOG_SOFTMAX = CallSpec(
    Read(_x, _out),
    Require(_x.rank >= 1, UNSUPPORTED, "an int8 log_softmax of a scalar"),
    Require(Dim("dim", of=_x).eq(_x.rank - 1), UNSUPPORTED,
            "int8 log_softmax over a dim other than the last"),
    Require(_x.size(_x.rank - 1) <= LOG_SOFTMAX_ROW_MAX, UNSUPPORTED,
            f"int8 log_softmax rows of over {LOG_SOFTMAX_ROW_MAX} (their sum of exps "
            f"overflows)"),
    Require(_x.same_shape(_out), INVALID, "an output of another shape"),
    Read(_log_softmax),
    Call("rt_log_softmax_s8", _log_softmax, _x, _out))

# transpose: a permutation of any dtype the runtime takes (int8 maps, int32 biases).
_tx = Tensor("input", dtype=None)
_tout = Out("out", dtype=None)
_perm = DimList("perm", of=_tx, perm=True)
_TRANSPOSE = CallSpec(Read(_tx, _tout, _perm),
                      Require(_tx.dtype_code.eq(_tout.dtype_code), INVALID,
                              "a transpose into another dtype"),
                      Call("rt_permute", _tx.elem_size, _perm, _tx, _tout))

# -- convolution of NHWC maps (weights OHWI; depthwise [1, KH, KW, Cout]) ----------------------

# The largest magnitude of one term of an int8 kernel's sum, (x + input_offset) * w, and of the
# folds the vector kernels make of it (input_offset * sum(w) apart): the accumulator_fits
# precondition's term_max where the weights are symmetric (2^15 >= 255 * 128), and where they
# are not (a linear layer's filter_offset: 255 * 255).
TERM_MAX, TERM_MAX_ASYM = 1 << 15, 255 * 255


def _conv_params(x, w, out, stride, pad, dil, lo, hi, mults, shifts) -> tuple:
    """rt_conv_s8_params of an NHWC convolution (plain, depthwise or transposed), and the
    windows of its two spatial axes."""
    params = Params("rt_conv_s8_params", stride_h=stride.at(0), stride_w=stride.at(1),
                    pad_h=pad.at(0), pad_w=pad.at(1), dilation_h=dil.at(0), dilation_w=dil.at(1),
                    input_offset=Int("input_offset", -127, 128),
                    output_offset=Int("output_offset", -128, 127), act_min=lo, act_max=hi,
                    mult=mults.data, shift=shifts.data)
    windows = (Window(x.size(1 + k), w.size(1 + k), stride.at(k), pad.at(k), dil.at(k),
                      out.size(1 + k)) for k in (0, 1))
    return (params, *windows)


def _layer_checks(x, out, bias, cout, act_read, mults, shifts, params) -> tuple:
    """A convolution's bias, output and per-channel requantization against its output
    channels, then its parameters."""
    return (Require(IsNone("bias") | bias.numel.eq(cout), INVALID,
                    "a bias of another size than the output channels"),
            Require(out.size(3).eq(cout) & out.size(0).eq(x.size(0)), INVALID,
                    "an output of another batch or channel count"),
            *act_read, Read(mults, shifts),
            Require(mults.numel.eq(cout) & shifts.numel.eq(cout), INVALID,
                    "requantization of another size than the output channels"),
            Read(params))


def _sums_fit(taps, bias, cout, mults, shifts) -> tuple:
    """accumulator_fits and requant_shift of a convolution's sums of ``taps`` products."""
    return (Pre("accumulator_fits", call=True, terms=taps, term_max=TERM_MAX, bias=bias, n=cout),
            Pre("requant_shift", form="tensors", call=True, mult=mults, shift=shifts, n=cout,
                terms=taps, term_max=TERM_MAX, bias=bias))


def _conv(depthwise: bool) -> CallSpec:
    """quantized_conv2d_nhwc / quantized_depthwise_conv2d_nhwc: per-channel requantization
    from two int32 constant tensors, with the preconditions accumulator_fits, requant_shift (of
    those sums) and conv_geometry_fits. Each has a specialised kernel of the same contract and
    result, which a model without such layers does not link: a pointwise convolution; a
    depthwise 3x3 of multiplier 1 on rows of 6 outputs or more (the DSP boards run it a channel
    at a time along the rows, which pays where rows are long; KWS's 25x5 maps stay on the
    general kernel, whose code keeps its firmware within budget, issue 11)."""
    x, w, out = _i8("input"), _i8("weight"), _out
    bias = Opt("bias", "int32")
    mults = Tensor("requantize_multipliers", "int32")
    shifts = Tensor("requantize_shifts", "int32")
    stride, pad, dil = (Ints(name, n=2, lo=lo) for name, lo in
                        (("stride", 1), ("padding", 0), ("dilation", 1)))
    lo, hi, act_read = _act()
    if depthwise:
        cout, mult = w.size(3), Int("depth_multiplier", 1, INT32_MAX)
        filters = (Read(mult),
                   Require(w.size(0).eq(1) & cout.eq(x.size(3) * mult), INVALID,
                           "a depthwise filter of another shape than the channels give"))
        groups, taps = Select(x.size(3) > 1, x.size(3), 1), w.size(1) * w.size(2)
    else:
        cin_g, cout = w.size(3), w.size(0)
        groups = x.size(3) // cin_g
        filters = (Require(cin_g.ne(0) & (x.size(3) % cin_g).eq(0) & groups.ne(0) &
                           (cout % groups).eq(0), INVALID,
                           "a filter whose input channels do not divide the input's"),)
        taps = w.size(1) * w.size(2) * cin_g
    params, h, wd = _conv_params(x, w, out, stride, pad, dil, lo, hi, mults, shifts)
    common = (
        *_nhwc(x), *_nhwc(w), *_nhwc(out), *filters,
        Read(stride, pad, dil, bias),
        *_layer_checks(x, out, bias, cout, act_read, mults, shifts, params))
    pres = (*_sums_fit(taps, bias, cout, mults, shifts),
            Pre("conv_geometry_fits", struct="rt_pte_conv_geometry", h=h, w=wd, batch=x.size(0),
                cin=x.size(3), cout=out.size(3), groups=groups, transposed=0, out_pad_h=0,
                out_pad_w=0))
    # a plan with overlaps gives a layer that runs in place by bands their scratch
    # (OpDef.in_place_scratch); other plans give a depthwise or pointwise layer none
    scratch, bands = Scratch("scratch"), _i8("scratch")
    banded = bands.numel > 0
    layer = (params, x, w, bias, out)
    if depthwise:
        rows = w.size(1).eq(3) & w.size(2).eq(3) & mult.eq(1) & (out.size(2) >= 6) & \
            dil.at(0).eq(1) & dil.at(1).eq(1)
        return CallSpec(*common, Read(bands), *pres, If(
            rows, If(banded, Call("rt_depthwise_conv2d_3x3_in_place_s8", scratch, *layer),
                     Call("rt_depthwise_conv2d_3x3_s8", *layer)),
            If(banded, Call("rt_depthwise_conv2d_in_place_s8", scratch, *layer),
               Call("rt_depthwise_conv2d_s8", *layer))))
    pointwise = w.size(1).eq(1) & w.size(2).eq(1) & cin_g.eq(x.size(3)) & \
        stride.at(0).eq(1) & stride.at(1).eq(1) & pad.at(0).eq(0) & pad.at(1).eq(0) & \
        out.size(1).eq(x.size(1)) & out.size(2).eq(x.size(2))
    return CallSpec(*common, Read(bands, scratch), *pres, If(
        pointwise, If(banded, Call("rt_conv2d_1x1_in_place_s8", scratch, *layer),
                      Call("rt_conv2d_1x1_s8", scratch, *layer)),
        Call("rt_conv2d_s8", scratch, *layer)))


def _transpose_conv() -> CallSpec:
    """quantized_transpose_conv2d_nhwc of one group (weights OHWI, O the output channels), with
    the preconditions accumulator_fits (every tap of the filter, a bound on the taps one output
    sums), requant_shift and conv_geometry_fits of a transposed window. The kernel gathers, so
    neither scratch is used: ExecuTorch plans them for CMSIS-NN's scatter."""
    x, w, out = _i8("input"), _i8("weight"), _out
    bias = Opt("bias", "int32")
    mults = Tensor("requantize_multipliers", "int32")
    shifts = Tensor("requantize_shifts", "int32")
    stride, pad, out_pad, dil = (Ints(name, n=2, lo=lo) for name, lo in
                                 (("stride", 1), ("padding", 0), ("output_padding", 0),
                                  ("dilation", 1)))
    lo, hi, act_read = _act()
    cout, taps = w.size(0), w.size(1) * w.size(2) * w.size(3)
    params, h, wd = _conv_params(x, w, out, stride, pad, dil, lo, hi, mults, shifts)
    return CallSpec(
        *_nhwc(x), *_nhwc(w), *_nhwc(out),
        Require(w.size(3).eq(x.size(3)), UNSUPPORTED,
                "an int8 transposed convolution of more than one group"),
        Read(stride, pad, out_pad, dil, bias),
        *_layer_checks(x, out, bias, cout, act_read, mults, shifts, params),
        *_sums_fit(taps, bias, cout, mults, shifts),
        Pre("conv_geometry_fits", struct="rt_pte_conv_geometry", h=h, w=wd, batch=x.size(0),
            cin=x.size(3), cout=cout, groups=Lit(1), transposed=Lit(1),
            out_pad_h=out_pad.at(0), out_pad_w=out_pad.at(1)),
        Call("rt_transpose_conv2d_s8", params, x, w, bias, out))


# -- fully connected: weights [Cout, K] over the last dim of an input of any rank --------------

def last_is(shape: tuple, out: tuple, size: int) -> bool:
    """rt_pte_last_is: whether ``out`` is ``shape`` (rank 1 or more) with ``size`` for its last
    dim."""
    return len(shape) >= 1 and tuple(out) == (*shape[:-1], size)


def _linear() -> CallSpec:
    """quantized_linear, requantized by one (multiplier, shift) pair or one per output channel
    (int lists), with the preconditions accumulator_fits and requant_shift. A kernel_sum
    (ExecuTorch's MVE form: input_offset * sum(w) + bias, precomputed) stands in for the bias,
    with the input offset already in it."""
    x, w, out = _i8("input"), _i8("weights"), _out
    bias, ksum = Opt("bias", "int32"), Opt("kernel_sum", "int32")
    has_ksum = ~IsNone("kernel_sum")
    cout, k, last = w.size(0), w.size(1), x.rank - 1
    mults = IntArray("requantize_multipliers", lo=0, hi=INT32_MAX)
    shifts = IntArray("requantize_shifts", lo=-31, hi=31)
    lo, hi, act_read = _act()
    x_off, w_off = Int("input_offset", -127, 128), Int("filter_offset", -127, 128)
    term = Select(w_off.eq(0), TERM_MAX, TERM_MAX_ASYM)

    params = Params("rt_fc_s8_params", input_offset=Select(has_ksum, Lit(0), x_off),
                    filter_offset=w_off, output_offset=Int("output_offset", -128, 127),
                    act_min=lo, act_max=hi, per_channel=mults.count > 1, mult=mults,
                    shift=shifts)
    sum0 = Select(has_ksum, ksum, bias)
    return CallSpec(
        Read(x, w, out),
        Require(w.rank.eq(2), UNSUPPORTED, "int8 weights of a rank other than 2"),
        Read(ksum, bias),
        Require((last >= 0) & x.size(last).eq(k) &
                Fn("rt_pte_last_is", last_is, x, out, cout, ctype="int32_t"), INVALID,
                "an input or output of another shape than the weights give"),
        Require(Select(has_ksum, ksum.numel.eq(cout), IsNone("bias") | bias.numel.eq(cout)),
                INVALID, "a kernel_sum or bias of another size than the output channels"),
        Read(mults, shifts),
        Require(mults.count.eq(shifts.count) & (mults.count.eq(1) | mults.count.eq(cout)),
                INVALID, "other than one requantization or one per output channel"),
        *act_read, Read(x_off, w_off, params, sum0),
        Pre("accumulator_fits", call=True, terms=k, term_max=term, bias=sum0, n=cout,
            what="weights"),
        Pre("requant_shift", form="lists", call=True, mult=mults, shift=shifts, n=mults.count,
            terms=k, term_max=term, bias=sum0, channels=cout, what=mults.name),
        Call("rt_fully_connected_s8", params, x, w, sum0, out))


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
                  ((_m1, _s1, 0, ADD_IN_MAX, ADD_HALF),
                   (_m2, _s2, -INT32_MAX, ADD_IN_MAX, ADD_HALF),
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


# The int16 cell state of an LSTM (ours: TFLite Micro keeps it in int16 inside its fused LSTM;
# ExecuTorch's cortex_m has no int16 op): symmetric, zero point 0.
# quantized_mul_s16: a gate (int8) times the cell state (int16) or a gate (int8), into int16.
_g, _other, _out16 = _i8("self"), Tensor("other", dtype=None), Out("out", "int16")
_m16, _s16 = _requant("output")
_mul16 = Params("rt_mul_s16_params", in1_offset=_offset("self_zero_point"),
                in2_offset=_offset("other_zero_point"), out_mult=_m16, out_shift=_s16)
_MUL_S16 = CallSpec(
    Read(_g, _other, _out16, _mul16),
    Require(_g.same_shape(_out16) & _other.same_shape(_out16), UNSUPPORTED,
            "operands of another shape than the output (the cell state is not broadcast)"),
    Require(_other.is_dtype("int8") | Int("other_zero_point").eq(0), INVALID,
            "an int16 operand at a zero point other than 0"),
    Pre("requant_shift", mult=_m16, shift=_s16, mult_lo=0, in_max=MUL_S16_IN_MAX,
        out_max=REQUANT_OUT_MAX, what=_m16.name),
    Call("rt_mul_s8_s16", _mul16, _g, _other, _other.elem_size, _out16))

# add_s16: the saturating sum of two int16 tensors of one scale.
_c1, _c2 = Tensor("self", "int16"), Tensor("other", "int16")
_ADD_S16 = CallSpec(Read(_c1, _c2, _out16),
                    Require(_c1.same_shape(_out16) & _c2.same_shape(_out16), UNSUPPORTED,
                            "operands of another shape than the output"),
                    Call("rt_add_s16", _c1, _c2, _out16))

# step_s16: a non-decreasing int16 -> int8 function (tanh of the cell state) by its steps.
_cx, _steps, _first = Tensor("input", "int16"), Tensor("steps", "int16"), Int("first", -128, 127)
_STEP_S16 = CallSpec(Read(_cx, _steps, _out, _first),
                     Require(_steps.rank.eq(1) & (_steps.numel + _first <= 127), INVALID,
                             "more steps than the int8 codes above the first"),
                     Require(_cx.same_shape(_out), INVALID, "an output of another shape"),
                     Call("rt_step_s16_s8", _steps.data, _steps.numel, _first, _cx, _out))


# quantized_batch_matmul: lhs [B, M, K] times rhs [B, K, N], given as rhs_transposed [B, N, K]
# (TFLite's BATCH_MATMUL with adj_y); both operands offset ("zero points" that are -zp, as
# ExecuTorch's op takes them), so each product is at most 255 * 255.
_lhs, _rhs = _i8("lhs"), _i8("rhs_transposed")
_bm, _bs = _requant("output")
_inner = _lhs.size(2)
_bmm = Params("rt_bmm_s8_params", lhs_offset=Int("lhs_zero_point", -127, 128),
              rhs_offset=Int("rhs_zero_point", -127, 128),
              out_offset=Int("output_zero_point", -128, 127), out_mult=_bm, out_shift=_bs)
_BMM = CallSpec(
    Read(_lhs, _rhs, _out),
    Require(_lhs.rank.eq(3) & _rhs.rank.eq(3) & _out.rank.eq(3), UNSUPPORTED,
            "an int8 batch matmul of operands other than rank 3"),
    Require(_rhs.size(0).eq(_lhs.size(0)) & _rhs.size(2).eq(_inner) &
            _out.size(0).eq(_lhs.size(0)) & _out.size(1).eq(_lhs.size(1)) &
            _out.size(2).eq(_rhs.size(1)), INVALID,
            "operands or an output whose batch, rows and columns do not agree"),
    Read(_bmm),
    Pre("accumulator_fits", call=True, terms=_inner, term_max=TERM_MAX_ASYM,
        bias=Lit(None, c="NULL"), n=0, what="lhs"),
    Pre("requant_shift", mult=_bm, shift=_bs, mult_lo=0, in_max=_inner * TERM_MAX_ASYM,
        out_max=REQUANT_OUT_MAX, what=_bm.name),
    Call("rt_batch_matmul_s8", _bmm, _lhs, _rhs, _out))


# quantized_reduce_sum / reduce_min (ours: ExecuTorch's cortex_m has no reductions): over dim 1
# of an (A, R, B) int8 view into (A, 1, B), as TFLite Micro's SUM / REDUCE_MIN.
def _rows(x: Tensor, out: Tensor) -> tuple:
    return (Read(x, out),
            Require(x.rank.eq(3) & out.rank.eq(3), UNSUPPORTED,
                    "an int8 reduction of other than (A, R, B) rows"),
            Require((x.size(1) >= 1) & out.size(0).eq(x.size(0)) & out.size(1).eq(1) &
                    out.size(2).eq(x.size(2)), INVALID,
                    "an output other than the (A, 1, B) of (A, R, B) rows, or no rows"))


_rx = _i8("input")
_rm, _rs = _requant("output")
_reduce = Params("rt_reduce_s8_params", in_offset=_offset("input_zero_point"),
                 out_offset=Int("output_zero_point", -128, 127), mult=_rm, shift=_rs)
_REDUCE_SUM = CallSpec(
    *_rows(_rx, _out), Read(_reduce),
    Pre("accumulator_fits", call=True, terms=_rx.size(1), term_max=255,
        bias=Lit(None, c="NULL"), n=0, what="input"),
    Pre("requant_shift", mult=_rm, shift=_rs, mult_lo=0, in_max=_rx.size(1) * 255,
        out_max=REQUANT_OUT_MAX, what=_rm.name),
    Call("rt_reduce_sum_s8", _reduce, _rx, _out))
_REDUCE_MIN = CallSpec(*_rows(_rx, _out), Call("rt_reduce_min_s8", _rx, _out))


# quantized_layer_norm (ours, not ExecuTorch's): layer norm over the last dim of an int8 tensor,
# float32 weight and bias of that size; the output's float32 reciprocal scale, as quantize's.
_lx, _out_scale = _i8("input"), Number("output_scale")
_lw, _lb = Opt("weight"), Opt("bias")
_norm = Params("rt_layer_norm_s8_params", in_scale=F32(Number("input_scale")),
               eps=F32(Number("eps")), inv_out_scale=F32(1.0 / _out_scale),
               out_zero_point=Int("output_zero_point", -128, 127))
_LAYER_NORM = CallSpec(
    Read(_lx, _out, _lw, _lb, _out_scale),
    Require(_lx.rank >= 1, UNSUPPORTED, "an int8 layer norm of a scalar"),
    Require(_lx.same_shape(_out), INVALID, "an output of another shape"),
    Require((IsNone("weight") | _lw.numel.eq(_lx.size(_lx.rank - 1))) &
            (IsNone("bias") | _lb.numel.eq(_lx.size(_lx.rank - 1))), INVALID,
            "a weight or bias of another size than the last dim"),
    Require((Number("input_scale") > 0.0) & (_out_scale > 0.0) & (Number("eps") >= 0.0),
            INVALID, "a scale that is not positive, or a negative eps"),
    Read(_norm),
    Call("rt_layer_norm_s8", _norm, _lx, _lw, _lb, _out))


# resize_bilinear_nhwc (ours: ExecuTorch's cortex_m has no resize): an NHWC int8 map to
# output_size, input and output sharing qparams, as TFLite Micro's RESIZE_BILINEAR.
def _resize() -> CallSpec:
    x, out, size = _i8("input"), _out, Ints("output_size", n=2, lo=1)
    align, half = Bool("align_corners"), Bool("half_pixel_centers")
    return CallSpec(*_nhwc(x), *_nhwc(out), Read(size, align, half),
                    Require(out.size(0).eq(x.size(0)) & out.size(3).eq(x.size(3)) &
                            out.size(1).eq(size.at(0)) & out.size(2).eq(size.at(1)), INVALID,
                            "an output of another shape than output_size gives"),
                    Require(~(align & half), INVALID,
                            "align_corners and half_pixel_centers together"),
                    Require((x.size(1) <= 1 << 20) & (x.size(2) <= 1 << 20) &
                            (size.at(0) <= 1 << 20) & (size.at(1) <= 1 << 20), UNSUPPORTED,
                            "a side of over 2^20 pixels (its positions in 1/1024ths overflow)"),
                    Call("rt_resize_bilinear_s8", align, half, x, out))


# -- pad: a constant border of up to rank 4 (pre_pad and post_pad name four dims, the last
# rank of them the tensor's) --------------------------------------------------------------------

def pads_to(shape: tuple, out: tuple, before: list, after: list, n: int) -> bool:
    """rt_pte_pads_to: whether ``out`` is ``shape`` padded by before[j] and after[j] along dim
    j - (n - rank); the first n - rank pairs name dims the tensor lacks and must be 0."""
    off = n - len(shape)
    return off >= 0 and len(out) == len(shape) and not any(before[:off]) and \
        not any(after[:off]) and \
        all(o == s + b + a for o, s, b, a in zip(out, shape, before[off:], after[off:]))


def _pad() -> CallSpec:
    x, out = _i8("input"), _out
    pre, post = Ints("pre_pad", n=4, lo=0), Ints("post_pad", n=4, lo=0)
    fill = Value(Int("pad_value", -128, 127), "int8")
    return CallSpec(Read(x, out, pre, post),
                    Require(x.rank <= 4, UNSUPPORTED, "padding a tensor of rank above 4"),
                    Require(Fn("rt_pte_pads_to", pads_to, x, out, pre, post, 4, ctype="int32_t"),
                            INVALID, "an output of another shape than the padding gives"),
                    Read(fill), Call("rt_constant_pad", Lit(1), pre.tail(x.rank), fill, x, out))


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
    if average:                 # (its schema has no dilation)
        lo, hi, act_read, d = Lit(-128), Lit(127), (), (Lit(1), Lit(1))
    else:
        dil = Ints("dilation", n=2, lo=1)
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
    "log_softmax": _LOG_SOFTMAX,
    "transpose": _TRANSPOSE,
    "resize_bilinear_nhwc": _resize(),
    "pad": _pad(),
    "quantized_conv2d_nhwc": _conv(depthwise=False),
    "quantized_depthwise_conv2d_nhwc": _conv(depthwise=True),
    "quantized_transpose_conv2d_nhwc": _transpose_conv(),
    "quantized_linear": _linear(),
    "quantized_add": _ADD,
    "quantized_batch_matmul": _BMM,
    "quantized_layer_norm": _LAYER_NORM,
    "quantized_reduce_sum": _REDUCE_SUM,
    "reduce_min": _REDUCE_MIN,
    "quantized_mul": _MUL,
    "quantized_mul_s16": _MUL_S16,
    "add_s16": _ADD_S16,
    "step_s16": _STEP_S16,
    "quantized_avg_pool2d_nhwc": _pool(average=True),
    "quantized_max_pool2d_nhwc": _pool(average=False),
}
